"""viz.plots.plot: the curves it draws are the run's arrays, the PNG is whole or absent."""
import os

import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image
from scipy.spatial.transform import Rotation

import mbd
from forces import BodySpringDamper, ElastoGap, JointForce
from joints import Prismatic, SixDof
from viz.plots import plot


@pytest.fixture(scope="module")
def result():
    """A slider hitting an ElastoGap stop, held by a BodySpringDamper strap, and a free body
    tumbling under gravity (a multi-coordinate joint with a quaternion)."""
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
    r = m.build().simulate(1.0, output_step=0.01, rtol=1e-9, atol=1e-9)
    assert len(r.events) >= 2  # the slider reaches the stop and leaves it
    return r


def curves(ax):
    """label -> Line2D of the data curves (event lines left out)."""
    return {ln.get_label(): ln for ln in ax.get_lines() if not is_event(ln)}


def is_event(line):
    return line.get_label().lstrip("_").endswith(" event")


def test_png_has_the_named_curves(result, tmp_path):
    path = tmp_path / "run.png"
    fig, axes = plot(result, path)
    assert isinstance(fig, Figure) and len(axes) == 3
    with Image.open(path) as im:
        assert im.format == "PNG" and im.size[0] > 0 and im.size[1] > 0
        assert len(im.convert("L").getcolors(maxcolors=1 << 16)) > 2  # not a blank canvas
    assert sorted(os.listdir(tmp_path)) == ["run.png"]

    joints, forces, energy = (curves(ax) for ax in axes)
    assert list(joints) == ["slide.q", "free.q0", "free.q1", "free.q2", "free.angle"]
    assert np.array_equal(joints["slide.q"].get_ydata(), result.joint("slide").q)
    for k in range(3):
        assert np.array_equal(joints[f"free.q{k}"].get_ydata(), result.joint("free").q[:, k])
    # the quaternion is drawn as its rotation angle: compare with scipy's, from the body pose
    angle = result.body("ball").rotation.magnitude()
    assert np.allclose(joints["free.angle"].get_ydata(), angle, rtol=0, atol=1e-9)
    assert np.ptp(angle) > 0.5  # the body does tumble, so the comparison means something

    assert list(forces) == ["stop.value", "strap |F|"]
    assert np.array_equal(forces["stop.value"].get_ydata(), result.force("stop").value)
    F = result.force("strap").value
    assert F.shape == (len(result.t), 3)
    assert np.allclose(forces["strap |F|"].get_ydata(), np.sqrt((F ** 2).sum(axis=1)),
                       rtol=1e-15, atol=0)

    assert np.array_equal(energy["total energy"].get_ydata(), result.energy())
    assert np.array_equal(energy["kinetic energy"].get_ydata(), result.kinetic_energy())
    assert np.array_equal(energy["potential energy"].get_ydata(), result.potential_energy())
    for ax in axes:
        for line in curves(ax).values():
            assert np.array_equal(line.get_xdata(), result.t)


def test_event_lines_on_every_axes(result):
    _, axes = plot(result)
    times = sorted(ev.t for ev in result.events)
    for ax in axes:
        lines = [ln for ln in ax.get_lines() if is_event(ln)]
        assert sorted(ln.get_xdata()[0] for ln in lines) == times
        assert all(ln.get_xdata()[0] == ln.get_xdata()[1] for ln in lines)
        # one legend entry per element, not one per event
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend.count("stop event") == 1
    _, axes = plot(result, events=False)
    assert not any(is_event(ln) for ax in axes for ln in ax.get_lines())


def test_selecting_joints_and_forces(result):
    _, axes = plot(result, joints=["free"], forces="strap", energy=False)
    assert len(axes) == 2
    assert list(curves(axes[0])) == ["free.q0", "free.q1", "free.q2", "free.angle"]
    assert list(curves(axes[1])) == ["strap |F|"]
    _, axes = plot(result, joints="slide", forces=[], energy=False, events=False)
    assert len(axes) == 1 and [ln.get_label() for ln in axes[0].get_lines()] == ["slide.q"]


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
