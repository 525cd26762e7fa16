"""viz.plots.plot: the curves it draws are the run's arrays, one unit per axes, events in a
strip of their own, legends clear of the curves, the PNG whole or absent."""
import os

import numpy as np
import pytest
from matplotlib.collections import EventCollection, PolyCollection
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from PIL import Image
from scipy.spatial.transform import Rotation

import mbd
from forces import BodySpringDamper, ElastoBacklash, ElastoGap, JointForce
from joints import Prismatic, Revolute, SixDof
from viz import plots
from viz.plots import plot

#: the unit of every curve of the fixture, from the model (not from the plot): prismatic
#: coordinates m, revolute ones and a quaternion's angle rad, loads by placement
UNITS = {"slide.q": "m", "free.q0": "m", "free.q1": "m", "free.q2": "m", "free.angle": "rad",
         "hinge.q": "rad", "stop.value (ElastoGap)": "N",
         "strap |F| (BodySpringDamper)": "N", "lash.value (ElastoBacklash)": "N m",
         "kinetic energy": "J", "potential energy": "J", "dissipated": "J",
         "total: kinetic + potential + dissipated": "J"}


@pytest.fixture(scope="module")
def result():
    """A slider hitting an ElastoGap stop, held by a BodySpringDamper strap; a free body
    tumbling under gravity (a multi-coordinate joint with a quaternion); a pendulum in an
    ElastoBacklash (a torque, rad)."""
    m = mbd.Model("plotted")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    anchor = m.add_ground("anchor", at=(0, 0.5, 0))
    slider = m.add_body("slider", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3,
                        cs={"o": (0, 0, 0)})
    ball = m.add_body("ball", mass=2.0, cg=(0, 0, 0), inertia=[0.1, 0.2, 0.3])
    slide = m.add(Prismatic("slide", g, slider["o"], axis=(1, 0, 0), q0=1.0, v0=-1.0))
    m.add(JointForce("stop", slide, ElastoGap(c=100.0, d=2.0, s_rel0=0.5)))
    m.add(BodySpringDamper("strap", anchor, slider["o"], k=5.0, b=0.1, r0=0.2))
    m.add(SixDof("free", g, ball["cg"], q0=[0, 0, 0, Rotation.from_rotvec([0.3, 0.2, 0])],
                 v0=[0, 0, 0, (1, 2, 3)]))
    pivot = m.add_ground("pivot", at=(2, 0, 0),
                         environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = m.add_body("arm", mass=1.0, cg=(2.5, 0, 0), inertia=[1e-3, 0.02, 0.02],
                     cs={"o": (2, 0, 0)})
    hinge = m.add(Revolute("hinge", pivot, arm["o"], axis=(0, 1, 0), v0=2.0))
    m.add(JointForce("lash", hinge, ElastoBacklash(c=50.0, d=0.2, b=0.4)))
    r = m.build().simulate(1.0, output_step=0.01, rtol=1e-9, atol=1e-9)
    # the slider reaches the stop and leaves it, the arm meets its backlash's flank
    assert {"stop", "lash"} <= {ev.element for ev in r.events}
    return r


def curves(ax):
    """label -> Line2D of an axes' curves."""
    return {ln.get_label(): ln for ln in ax.get_lines()}


def unit_of(ax):
    """The unit in an axes' y label: 'force (N)' -> 'N'."""
    label = ax.get_ylabel()
    assert label.endswith(")") and "(" in label, label
    return label[label.rindex("(") + 1:-1]


def test_png_has_the_named_curves(result, tmp_path):
    path = tmp_path / "run.png"
    fig, axes = plot(result, path)
    assert isinstance(fig, Figure)
    with Image.open(path) as im:
        assert im.format == "PNG"
        # slide-sized: the figure's inches at its resolution
        assert np.allclose(im.size, fig.get_size_inches() * plots.DPI, atol=1)
        assert 1000 <= im.size[0] <= 2000 and 500 <= im.size[1] <= 1600
        assert len(im.convert("L").getcolors(maxcolors=1 << 16)) > 2  # not a blank canvas
    assert sorted(os.listdir(tmp_path)) == ["run.png"]
    assert "plotted" in fig.get_suptitle()

    data, strip = axes[:-1], axes[-1]
    assert [unit_of(ax) for ax in data] == ["rad", "m", "N m", "N", "J"]
    assert strip.get_ylabel() == "events" and strip.get_xlabel() == "time (s)"
    drawn = {}
    for ax in data:
        drawn.update(curves(ax))
    assert set(drawn) == set(UNITS)
    assert np.array_equal(drawn["slide.q"].get_ydata(), result.joint("slide").q)
    assert np.array_equal(drawn["hinge.q"].get_ydata(), result.joint("hinge").q)
    for k in range(3):
        assert np.array_equal(drawn[f"free.q{k}"].get_ydata(), result.joint("free").q[:, k])
    # the quaternion is drawn as its rotation angle: compare with scipy's, from the body pose
    angle = result.body("ball").rotation.magnitude()
    assert np.allclose(drawn["free.angle"].get_ydata(), angle, rtol=0, atol=1e-9)
    assert np.ptp(angle) > 0.5  # the body does tumble, so the comparison means something

    assert np.array_equal(drawn["stop.value (ElastoGap)"].get_ydata(),
                          result.force("stop").value)
    assert np.array_equal(drawn["lash.value (ElastoBacklash)"].get_ydata(),
                          result.force("lash").value)
    F = result.force("strap").value
    assert F.shape == (len(result.t), 3)
    assert np.allclose(drawn["strap |F| (BodySpringDamper)"].get_ydata(),
                       np.sqrt((F ** 2).sum(axis=1)), rtol=1e-15, atol=0)

    # every energy curve is its change since the first row
    kinetic, potential = result.kinetic_energy(), result.potential_energy()
    assert np.array_equal(drawn["kinetic energy"].get_ydata(), kinetic - kinetic[0])
    assert np.array_equal(drawn["potential energy"].get_ydata(), potential - potential[0])
    balance = result.energy_balance()
    dissipated = sum(balance.dissipated.values())
    assert np.allclose(drawn["dissipated"].get_ydata(), dissipated, rtol=1e-14, atol=1e-14)
    assert dissipated[-1] > 0.0                    # the stop's and the strap's damping
    # the balance is flat: the total stays at zero but for the integration error
    # (measured 1e-10 of the peak kinetic energy at rtol = 1e-9)
    total = drawn["total: kinetic + potential + dissipated"].get_ydata()
    assert total[0] == 0.0
    assert np.abs(total).max() < 1e-8 * np.abs(result.kinetic_energy()).max()
    for line in drawn.values():
        assert np.array_equal(line.get_xdata(), result.t)


def test_each_axes_holds_one_unit(result):
    _, axes = plot(result)
    for ax in axes[:-1]:
        units = {UNITS[label] for label in curves(ax)}
        assert units == {unit_of(ax)}, (ax.get_ylabel(), sorted(curves(ax)))
    # so rad and m, N and N m, never share an axes
    for ax in axes[:-1]:
        units = {UNITS[label] for label in curves(ax)}
        assert not {"rad", "m"} <= units and not {"N", "N m"} <= units


def test_events_are_a_strip_of_ticks_not_lines_across_the_axes(result):
    _, axes = plot(result)
    strip = axes[-1]
    elements = list(dict.fromkeys(ev.element for ev in result.events))   # first switch first
    ticks = [c for c in strip.collections if isinstance(c, EventCollection)]
    shades = [c for c in strip.collections if isinstance(c, PolyCollection)]
    # one artist of ticks per element, and one of shading per element with contacts
    assert len(ticks) == len(elements) < len(result.events)
    assert len(shades) <= len(elements) and len(strip.collections) == len(ticks) + len(shades)
    labels = [t.get_text() for t in strip.get_yticklabels()][::-1]    # top row first
    for element, tick, label in zip(elements, ticks, labels):
        times = [ev.t for ev in result.events if ev.element == element]
        assert np.allclose(np.sort(tick.get_positions()), np.sort(times), rtol=0, atol=0)
        assert label == f"{element} ({len(times)})"
    # no event lines over the curves: the data axes hold only their curves
    for ax in axes[:-1]:
        assert set(curves(ax)) <= set(UNITS) and not ax.collections
    # the shading is the contact intervals
    stop_row = elements.index("stop")
    spans = [(a, b) for a, b, _ in result.force("stop").contacts()]
    shade = [s for s in shades if np.allclose(to_rgb(s.get_facecolor()[0]),
                                              to_rgb(ticks[stop_row].get_color()))]
    assert len(shade) == 1
    boxes = [p.vertices for p in shade[0].get_paths()]
    assert np.allclose(sorted((v[:, 0].min(), v[:, 0].max()) for v in boxes),
                       [(a, b if np.isfinite(b) else result.t[-1]) for a, b in spans])
    _, axes = plot(result, events=False)
    assert not any(ax.collections for ax in axes)
    assert axes[-1].get_ylabel() == "ΔE since start (J)"


def test_a_force_and_its_joint_and_events_share_a_colour(result):
    _, axes = plot(result)
    drawn = {}
    for ax in axes[:-1]:
        drawn.update(curves(ax))
    elements = list(dict.fromkeys(ev.element for ev in result.events))
    ticks = [c for c in axes[-1].collections if isinstance(c, EventCollection)]
    tick_color = {e: to_rgb(t.get_color()) for e, t in zip(elements, ticks)}
    assert to_rgb(drawn["stop.value (ElastoGap)"].get_color()) == tick_color["stop"]
    assert to_rgb(drawn["slide.q"].get_color()) == tick_color["stop"]   # the joint it is on
    assert to_rgb(drawn["hinge.q"].get_color()) == to_rgb(
        drawn["lash.value (ElastoBacklash)"].get_color())
    # curves that share an axes are told apart by colour
    for ax in axes[:-1]:
        colors = [to_rgb(line.get_color()) for line in ax.get_lines()]
        assert len(set(colors)) == len(colors), ax.get_ylabel()


def test_legends_sit_outside_every_plotting_area(result):
    fig, axes = plot(result)
    fig.draw_without_rendering()
    frames = [ax.get_window_extent() for ax in axes]
    legends = [ax.get_legend() for ax in axes[:-1]]
    assert all(legend is not None for legend in legends)
    for ax, legend in zip(axes, legends):
        box = legend.get_window_extent()
        assert box.x0 >= ax.get_window_extent().x1          # right of its own axes
        assert not any(box.overlaps(frame) for frame in frames)
        assert box.x1 <= fig.bbox.x1 + 1                    # and inside the picture
        shown = [t.get_text() for t in legend.get_texts()
                 if t.get_fontweight() != "bold"]           # the machines' headers aside
        assert sorted(shown) == sorted(curves(ax))          # every curve, once


def legend_texts(ax):
    """(text, bold) of every entry of an axes' legend."""
    return [(t.get_text(), t.get_fontweight() == "bold") for t in ax.get_legend().get_texts()]


def test_legends_group_the_curves_by_machine(result):
    """The fixture's two machines (the slider and the tumbling ball on ground g; the arm on
    its pivot): each legend lists its curves under a bold header per machine naming its
    bodies, in the machines' order; a header has no line; the energy, of the whole model,
    has none. Reference: system.machines."""
    machines = result.system.machines
    assert [sorted(m.bodies) for m in machines] == [["ball", "slider"], ["arm"]]
    _, axes = plot(result)
    first = "machine: " + ", ".join(machines[0].bodies)
    assert legend_texts(axes[0]) == [(first, True), ("free.angle", False),
                                     ("machine: arm", True), ("hinge.q", False)]
    assert legend_texts(axes[1]) == [(first, True), ("slide.q", False), ("free.q0", False),
                                     ("free.q1", False), ("free.q2", False)]
    assert legend_texts(axes[2]) == [("machine: arm", True),
                                     ("lash.value (ElastoBacklash)", False)]
    assert legend_texts(axes[3]) == [(first, True), ("stop.value (ElastoGap)", False),
                                     ("strap |F| (BodySpringDamper)", False)]
    assert not any(bold for _, bold in legend_texts(axes[4]))          # the energy
    header = axes[0].get_legend().legend_handles[0]
    assert header.get_linestyle() == "None" and header.get_marker() in ("None", None, "")


def test_an_element_between_machines_is_listed_under_both_and_one_machine_has_no_header():
    """Two carts on rails of their own (two machines) tied by a spring: the spring's curve
    under "machines: left + right", after the carts' own groups' order; a model of one
    machine has no headers. Reference: system.machines."""
    from forces import LineForce, Spring
    earth = mbd.Environment(gravity=(0, 0, -9.81))
    m = mbd.Model("carts")
    carts = []
    for name, y in (("left", 0.0), ("right", 1.0)):
        rail = m.add_ground(f"{name}_rail", at=(0, y, 0), environment=earth)
        body = m.add_body(name, mass=1.0, cg=(0, y, 0), inertia=[1e-2] * 3,
                          cs={"o": (0, y, 0)})
        m.add(Prismatic(f"{name}_slide", rail, body["o"], axis=(1, 0, 0),
                        v0=1.0 if name == "left" else 0.0))
        carts.append(body)
    m.add(LineForce("tie", carts[0]["o"], carts[1]["o"], Spring(c=10.0, x0=1.0)))
    r = m.build().simulate(0.2, output_step=0.01)
    _, axes = plot(r, energy=False, events=False)
    assert legend_texts(axes[0]) == [("machine: left", True), ("left_slide.q", False),
                                     ("machine: right", True), ("right_slide.q", False)]
    assert legend_texts(axes[1]) == [("machines: left + right", True),
                                     ("tie.value (Spring)", False)]
    _, axes = plot(pendulum_with_a_variable_spring(), energy=False)
    assert not any(bold for ax in axes for _, bold in legend_texts(ax))


def pendulum_with_a_variable_spring():
    """A pendulum on a VariableRotationalSpring whose K(t) = 6 + 5 sin(2 pi t) dips below
    K_min = 2 once a second (the demo's sway): its switches are "K below K_min" and back."""
    from forces import VariableRotationalSpring
    m = mbd.Model("sway")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = m.add_body("arm", mass=1.0, cg=(0, 0, -0.4), inertia=[0.05, 0.05, 1e-3],
                     cs={"o": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, arm["o"], axis=(0, 1, 0), q0=-0.3))
    m.add(JointForce("spring", hinge, VariableRotationalSpring(
        K=lambda t: 6.0 + 5.0 * np.sin(2.0 * np.pi * t), K_min=2.0)))
    return m.build().simulate(2.0, output_step=0.01)


def test_the_event_strip_legend_says_what_the_ticks_are(result):
    """A variable spring's ticks, which no shading explains: the strip's legend names its
    kinds of switch with their counts, read from result.events ("spring: K below K_min:
    K_min in use (2) / K in use (2)"), its marker in the row's colour. The fixture's
    contact elements: their first two kinds with counts, the others counted, then the
    shading's entry. Reference: result.events."""
    sway = pendulum_with_a_variable_spring()
    kinds = {}
    for ev in sway.events:
        kinds[ev.what] = kinds.get(ev.what, 0) + 1
    assert list(kinds) == ["K below K_min: K_min in use", "K in use"]   # in this order
    _, axes = plot(sway)
    legend = axes[-1].get_legend()
    texts = [t.get_text().replace("\n  ", " ") for t in legend.get_texts()]
    assert texts == ["spring: K below K_min: K_min in use "
                     f"({kinds['K below K_min: K_min in use']}) / K in use "
                     f"({kinds['K in use']})"]
    ticks, = [c for c in axes[-1].collections if isinstance(c, EventCollection)]
    assert to_rgb(legend.legend_handles[0].get_color()) == to_rgb(ticks.get_color())
    # the fixture: stop and lash, their kinds in the order they first happen
    _, axes = plot(result)
    texts = [t.get_text().replace("\n  ", " ") for t in axes[-1].get_legend().get_texts()]
    elements = list(dict.fromkeys(ev.element for ev in result.events))
    assert len(texts) == len(elements) + 1 and texts[-1] == "shaded: in contact"
    for element, text in zip(elements, texts):
        whats = list(dict.fromkeys(ev.what for ev in result.events if ev.element == element))
        count = {w: sum(ev.what == w for ev in result.events if ev.element == element)
                 for w in whats}
        expected = f"{element}: " + " / ".join(f"{w} ({count[w]})" for w in whats[:2])
        if len(whats) > 2:
            expected += f" / {len(whats) - 2} more kind{'s' if len(whats) > 3 else ''}"
        assert text == expected


def test_selecting_joints_and_forces(result):
    _, axes = plot(result, joints=["free"], forces="strap", energy=False, events=False)
    assert [unit_of(ax) for ax in axes] == ["rad", "m", "N"]
    assert list(curves(axes[0])) == ["free.angle"]
    assert list(curves(axes[1])) == ["free.q0", "free.q1", "free.q2"]
    assert list(curves(axes[2])) == ["strap |F| (BodySpringDamper)"]
    _, axes = plot(result, joints="slide", forces=[], energy=False, events=False)
    assert len(axes) == 1 and list(curves(axes[0])) == ["slide.q"]


def test_bad_names_are_refused(result, tmp_path):
    with pytest.raises(KeyError, match="elbow"):
        plot(result, tmp_path / "x.png", joints=["slide", "elbow"])
    with pytest.raises(KeyError, match="rope"):
        plot(result, tmp_path / "x.png", forces=["rope"])
    with pytest.raises(ValueError, match="nothing to plot"):
        plot(result, tmp_path / "x.png", joints=[], forces=[], energy=False)
    assert os.listdir(tmp_path) == []


def test_failed_save_leaves_no_file(result, tmp_path, monkeypatch):
    def broken(self, fh, **kwargs):
        fh.write(b"\x89PNG half a picture")
        raise OSError("disk full")

    monkeypatch.setattr(Figure, "savefig", broken)
    with pytest.raises(OSError, match="disk full"):
        plot(result, tmp_path / "run.png")
    assert os.listdir(tmp_path) == []
    # an older file at the path survives the failed write untouched
    (tmp_path / "run.png").write_bytes(b"old")
    with pytest.raises(OSError, match="disk full"):
        plot(result, tmp_path / "run.png")
    assert os.listdir(tmp_path) == ["run.png"]
    assert (tmp_path / "run.png").read_bytes() == b"old"


def test_show_goes_through_pyplot(result, monkeypatch):
    from matplotlib import pyplot
    shown = []
    monkeypatch.setattr(pyplot, "show", lambda *a, **k: shown.append(True))
    fig, _ = plot(result, show=True)
    try:
        assert shown == [True] and fig.number in pyplot.get_fignums()
    finally:
        pyplot.close(fig)


# --------------------------------------------------------------------------- the energy axes

def hung_pendulum(height, torque=None):
    """A damped pendulum (bob 1 kg, 1 m below its pivot) hung from a ground ``height`` m
    above the origin, released at 0.5 rad; optionally a constant ``torque`` (N m, an
    Actuator) on its hinge."""
    from forces import Actuator, Damper
    m = mbd.Model("hung")
    g = m.add_ground("top", at=(0.0, 0.0, height),
                     environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    bob = m.add_body("bob", mass=1.0, cg=(0.0, 0.0, height - 1.0), inertia=[1e-3] * 3,
                     cs={"pivot": (0.0, 0.0, height)})
    hinge = m.add(Revolute("hinge", g, bob["pivot"], axis=(0, 1, 0), q0=0.5))
    m.add(JointForce("damper", hinge, Damper(d=0.3)))
    if torque is not None:
        m.add(JointForce("motor", hinge, Actuator(torque)))
    return m.build().simulate(3.0, output_step=0.01, rtol=1e-10, atol=1e-10)


def test_energy_axes_show_changes_not_a_far_origins_potential_energy():
    """100 m above the origin the pendulum's potential energy is about 972 J, constant but
    for its swing's 1.2 J: the energy axes show each curve's change since the start, so
    their y-limits are of the order of the swing's energy, and the label says so."""
    r = hung_pendulum(100.0)
    potential = r.potential_energy()
    assert potential.min() > 950.0                       # the absolute value is far away
    swing = 9.81 * (1.0 - np.cos(0.5))                   # m g L (1 - cos q0): 1.2 J
    _, axes = plot(r, events=False)
    ax = axes[-1]
    assert ax.get_ylabel() == "ΔE since start (J)"
    drawn = curves(ax)
    np.testing.assert_allclose(drawn["potential energy"].get_ydata(), potential - potential[0],
                               rtol=0, atol=1e-12)
    # the largest change: the swing's potential energy turned into kinetic energy
    changes = np.concatenate([line.get_ydata() for line in drawn.values()])
    assert swing * (1.0 + 1e-9) >= np.abs(changes).max() > 0.5 * swing
    low, high = ax.get_ylim()
    assert -2.0 * swing < low < 0.0 < high < 2.0 * swing
    # the same picture as the pendulum hung at the origin: only changes are drawn
    _, at_origin = plot(hung_pendulum(0.0), events=False)
    np.testing.assert_allclose(at_origin[-1].get_ylim(), (low, high), rtol=1e-6)


def test_a_motors_supply_is_a_curve_of_its_own_not_negative_dissipation():
    """A constant torque on the damped pendulum: the "supplied" curve is its work T (q -
    q0), the "dissipated" curve the damper's outflow, never negative, and the total
    kinetic + potential + dissipated - supplied stays at zero (the integration error)."""
    torque = 8.0           # N m: it holds the bob at asin(8 / 9.81) = 0.95 rad, above q0
    r = hung_pendulum(0.0, torque=torque)
    _, axes = plot(r, events=False)
    drawn = curves(axes[-1])
    assert set(drawn) == {"kinetic energy", "potential energy", "dissipated", "supplied",
                          "total: kinetic + potential + dissipated - supplied"}
    q = r.joint("hinge").q
    supplied, lost = drawn["supplied"].get_ydata(), drawn["dissipated"].get_ydata()
    scale = np.abs(supplied).max()
    np.testing.assert_allclose(supplied, torque * (q - q[0]), rtol=0, atol=1e-8 * scale)
    assert supplied[-1] > 1.0 and lost[-1] > 0.2          # both matter here
    assert lost.min() >= -1e-9 * scale                    # measured >= 0
    total = drawn["total: kinetic + potential + dissipated - supplied"].get_ydata()
    assert np.abs(total).max() < 1e-8 * scale             # measured 1e-10
