"""Time plots of a Result with matplotlib: joint coordinates and force-element loads, one
quantity (and unit) per axes, energy, and a strip of the switch events.

Examples
--------
A bar swinging down onto a stop (an ElastoGap on its hinge), plotted into a PNG:

>>> import os, tempfile
>>> import mbd
>>> from forces import ElastoGap, JointForce
>>> from joints import Revolute
>>> model = mbd.Model("stop")
>>> ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
>>> bar = model.add_body("bar", mass=1.0, cg=(0.5, 0, 0), inertia=[1e-3, 0.1, 0.1],
...                      cs={"pivot": (0, 0, 0)})
>>> hinge = model.add(Revolute("hinge", ground, bar["pivot"], axis=(0, -1, 0)))
>>> stop = model.add(JointForce("stop", hinge, ElastoGap(c=200.0, d=1.0, s_rel0=-0.5)))
>>> result = model.simulate(0.6, output_step=0.05)    # falls: q < 0, onto the stop at -0.5
>>> len(result.events) > 0      # it reached the stop: the plot gets an event strip
True
>>> path = os.path.join(tempfile.mkdtemp(), "run.png")
>>> fig, axes = plot(result, path)
>>> [ax.get_ylabel() for ax in axes]
['joint angle (rad)', 'torque (N m)', 'ΔE since start (J)', 'events']
>>> os.path.getsize(path) > 0
True
>>> import shutil; shutil.rmtree(os.path.dirname(path))
"""
from __future__ import annotations

import contextlib
import os
import sys
from collections import namedtuple
from typing import TYPE_CHECKING

import matplotlib
import numpy as np

from mbd.model.files import atomic_open

from .naming import element_kind, existing_folder, load_kind

# Without a display the interactive backends cannot start; pick Agg then, but only when nobody
# has chosen a backend yet (MPLBACKEND, or pyplot already in use) so interactive use is kept.
if (sys.platform.startswith("linux") and not os.environ.get("DISPLAY")
        and not os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("MPLBACKEND")
        and "matplotlib.pyplot" not in sys.modules):
    matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402  (after the backend choice)
from matplotlib.lines import Line2D  # noqa: E402

from .eventstrip import capped_rows, draw_event_strip, event_rows, strip_height  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from matplotlib.axes import Axes

    from mbd import Result

__all__ = ["plot", "Series", "QUANTITIES"]

#: the quantities a panel can show, top to bottom: (name, unit); one panel each
QUANTITIES = (("joint angle", "rad"), ("joint displacement", "m"), ("torque", "N m"),
              ("force", "N"), ("ΔE since start", "J"))
#: the energy axes' quantity: every energy curve is its change since the first row, so a
#: body far above the origin (a large, constant potential energy) does not squash the rest
ENERGY = QUANTITIES[-1]

#: figure width, panel heights (inches) and resolution: a slide-sized picture
WIDTH = 12.0
PANEL_HEIGHT = 1.35
DPI = 120

Series = namedtuple("Series", "label y quantity unit color_key machines", defaults=(None,))
Series.__doc__ = """One curve: its legend ``label``, values ``y`` (n,), the ``quantity`` and
``unit`` of its panel (one of :data:`QUANTITIES`), ``color_key``: the element whose colour
it takes (a force element's name, or its own label), and ``machines``: the indices (a sorted
tuple) of the machines of ``system.machines`` it belongs to (two for an element between
machines; None for a curve of the whole model, the energy)."""


def plot(result: Result, path: str | os.PathLike | None = None,
         joints: str | Sequence[str] | None = None, forces: str | Sequence[str] | None = None,
         energy: bool = True, events: bool = True,
         show: bool = False) -> tuple[Figure, list[Axes]]:
    """Plot a run against time: stacked axes sharing the time axis, one quantity per axes.

    Each axes holds the curves of one quantity, and its unit is in its y label
    (:data:`QUANTITIES`, top to bottom, each only when it has a curve; a long quantity has
    its unit on a second line, ``"joint displacement\\n(m)"``):

    - ``joint angle (rad)``: revolute coordinates, labeled ``"<joint>.q"`` for a
      one-coordinate joint and ``"<joint>.q<k>"`` otherwise, k the coordinate's index in the
      joint's q (as in ``result.columns()``); a spherical primitive's quaternion as its
      rotation angle ``2 atan2(|(x, y, z)|, |w|)`` in [0, pi], labeled ``"<joint>.angle"``
      (``"<joint>.angle<k>"``, k the index of its w, when the joint has several);
    - ``joint displacement (m)``: prismatic coordinates, labeled as above;
    - a GearConstraint (q_b = ratio q_a + offset) whose two joints are plotted: its input's
      coordinate taken through the gear, ``ratio q_a + offset``, on the axes of its output's
      coordinate and labeled ``"<gear>: <ratio> x <joint_a>.q (gear)"`` (``" +<offset>"``
      before ``" (gear)"`` where it has one): it lies on ``<joint_b>.q`` while the gear
      holds, so the plot shows the two angles the gear relates, not two curves of unrelated
      scales;
    - ``torque (N m)`` and ``force (N)``: ``result.force(name).value``, labeled
      ``"<name>.value (<kind>)"`` (the kind from :func:`viz.naming.element_kind`, e.g.
      ``"stops.value (Bistop)"``), on the axes of its unit (:func:`viz.naming.load_kind`: a
      JointForce on a revolute primitive and a rotational placement are torques; a JointForce
      on a prismatic primitive, line and axial placements forces); a vector-valued element
      (BodySpringDamper) as its magnitude, labeled ``"<name> |F| (<kind>)"``;
    - ``ΔE since start (J)``: the energy balance (:meth:`mbd.Result.energy_balance`),
      each curve its change since the first row (J; the absolute potential energy depends
      on where the origin is and would dwarf the rest): ``"kinetic energy"``,
      ``"potential energy"`` (gravity and the elements' springs), ``"dissipated"`` (by the
      passive elements: dampers, contacts, friction; >= 0), ``"supplied"`` (when the model
      has sources: the work of motion drivers and actuators, and of the elements that put
      energy in over the run) and their balance ``"total: kinetic + potential +
      dissipated - supplied"``, zero but for the integration error; for a Result without
      work accumulators, ``"total energy"``, ``"kinetic energy"`` and ``"potential
      energy"``;
    - ``events``: a strip, one row per element that switched, a tick at each switch (one
      artist per element, not a line per event across every axes), and for a gap, stop or
      backlash element its contact intervals shaded. Rows are labeled
      ``"<element> (<count>)"``; its legend says what each row's ticks are, the kinds of
      switch with their counts (``"variable_spring: K below K_min: K_min in use (5) / K in
      use (5)"``, the first two kinds, the others counted), and what the shading is. A row
      of more than :data:`viz.eventstrip.EVENT_TICKS_MAX` events (a robot's feet, balls settling) is a
      density band instead: the events counted in :data:`viz.eventstrip.EVENT_BINS` bins over the run,
      each bin shaded from white (none) to the row's colour (the row's most), its legend
      saying how many and the peak (``"1234 events, up to 57 per 10 ms"``). Past
      :data:`viz.eventstrip.EVENT_ROWS_MAX` rows the elements after the first ``EVENT_ROWS_MAX - 1`` to
      switch share the last row, ``"<N> more elements"``, a density band, so that the
      strip's height stays bounded.

    A force element's curve and its events share a colour, and so does the coordinate of a
    joint that carries exactly one force element. Legends sit outside the axes, on the right;
    in a model of several machines each legend lists its curves machine by machine, each
    group under a bold header naming the machine by its bodies (``"machine: swing"``; an
    element between two machines under ``"machines: swing + sway"``), the energy last.

    Parameters
    ----------
    result : mbd.Result
    path : str or path-like, optional
        Write the figure there as PNG (``DPI`` dots per inch), whole or not at all (a
        temporary file beside it is moved into place only once complete).
    joints : str or sequence of str, optional
        Joint names to plot; default all joints (those without coordinates, e.g. a Weld, are
        left out). An empty sequence drops the joint axes.
    forces : str or sequence of str, optional
        Force element names to plot; default all of them (no axes when there are none).
    energy : bool
        Draw the energy axes.
    events : bool
        Draw the event strip (when the run has events).
    show : bool
        Show the figure on screen (through pyplot, blocking as ``pyplot.show`` does). When
        False the figure is a plain ``matplotlib.figure.Figure`` that pyplot does not track.

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : list of matplotlib.axes.Axes
        Top to bottom, in the order above; the event strip, when drawn, is the last.

    Raises
    ------
    KeyError
        An unknown joint or force element name (the message names it and lists the known ones).
    ValueError
        Nothing to plot.
    """
    t = np.asarray(result.t)
    # gather every curve first, so that a bad name raises before any figure exists
    series = (_joint_series(result, joints) + _gear_series(result, joints)
              + _force_series(result, forces))
    if energy:
        series += _energy_series(result)
    panels = [(q, u, [s for s in series if (s.quantity, s.unit) == (q, u)])
              for q, u in QUANTITIES]
    panels = [p for p in panels if p[2]]
    if not panels:
        raise ValueError("plot: nothing to plot (no joint coordinates, no force elements, "
                         "energy=False)")
    rows, merged = capped_rows(event_rows(result) if events else [])
    span = (float(t[0]), float(t[-1])) if len(t) else None
    colors = _colors(result, series, rows)

    heights = [PANEL_HEIGHT] * len(panels)
    if rows:
        heights.append(strip_height(rows, span, merged))
    with figure(show) as fig:
        fig.set_size_inches(WIDTH, sum(heights) + 0.7)
        fig.set_dpi(DPI)
        axes = list(fig.subplots(len(heights), 1, sharex=True, squeeze=False,
                                 gridspec_kw={"height_ratios": heights})[:, 0])
        for ax, (quantity, unit, curves) in zip(axes, panels):
            for s in curves:
                ax.plot(t, s.y, label=s.label, linewidth=1.2, color=colors[s.color_key])
            ax.set_ylabel(_axis_label(quantity, unit))
            ax.grid(True, linewidth=0.3, alpha=0.5)
            _grouped_legend(ax, curves, result.system)
        if rows:
            draw_event_strip(axes[-1], rows, colors, span, merged)
        axes[-1].set_xlabel("time (s)")
        if len(t) > 1 and t[-1] > t[0]:
            axes[-1].set_xlim(t[0], t[-1])
        fig.suptitle(_title(result), fontsize="large")
        if path is not None:
            save_png(fig, path)
    return fig, axes


@contextlib.contextmanager
def figure(show: bool) -> Iterator[Figure]:
    """A constrained-layout figure to draw in: pyplot's when ``show`` (shown when the block
    ends, closed when it fails), else a plain ``Figure`` that pyplot does not track."""
    if not show:
        yield Figure(layout="constrained")
        return
    from matplotlib import pyplot
    fig = pyplot.figure(layout="constrained")
    try:
        yield fig
    except BaseException:
        pyplot.close(fig)
        raise
    pyplot.show()


def _grouped_legend(ax, curves, system):
    """The legend of an axes, right of it: with several machines in the model, the curves
    grouped by machine, in the machines' order, each group under a bold header naming the
    machine by its bodies ("machine: swing"; "machines: swing + sway" for an element
    between two); the curves of the whole model (the energy) last, without one."""
    handles = {line.get_label(): line for line in ax.get_lines()}
    machines = getattr(system, "machines", ())
    grouped = len(machines) > 1
    entries, headers = [], []
    if grouped:
        keys = list(dict.fromkeys(s.machines for s in curves if s.machines is not None))
        keys.sort(key=lambda key: (min(key), len(key), key))
        for key in keys:
            headers.append(len(entries))
            entries.append((Line2D([], [], linestyle="none"), _machines_name(machines, key)))
            entries += [(handles[s.label], s.label) for s in curves if s.machines == key]
        entries += [(handles[s.label], s.label) for s in curves if s.machines is None]
    else:
        entries = [(handles[s.label], s.label) for s in curves]
    legend = ax.legend([h for h, _ in entries], [text for _, text in entries],
                       loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                       fontsize="small", frameon=False)
    for k in headers:
        legend.get_texts()[k].set_fontweight("bold")
    return legend


def _machines_name(machines, key):
    """'machine: swing', 'machines: swing + sway': the machines of ``key`` (indices into
    ``machines``) by their bodies (the first two, then how many more), or their grounds."""
    def name(machine):
        parts = list(machine.bodies) or list(machine.grounds)
        return ", ".join(parts[:2]) + (f" +{len(parts) - 2} more" if len(parts) > 2 else "")
    return (f"machine{'s' if len(key) > 1 else ''}: "
            + " + ".join(name(machines[i]) for i in key))


def _machine_of(system):
    """{body or ground name: machine index} of ``system``."""
    found = {}
    for machine in getattr(system, "machines", ()):
        for name in (*machine.bodies, *machine.grounds):
            found[name] = machine.index
    return found


def _force_machines(system, fe, machine_of):
    """The machines (a sorted tuple of indices) a force element acts in: its joint's, or
    those of the owners of its two CSs (two for an element between machines)."""
    joint = getattr(fe, "joint", None)
    owners = ([joint.base, joint.follower] if joint is not None
              else [getattr(fe, "cs_a", None), getattr(fe, "cs_b", None)])
    found = {machine_of.get(getattr(getattr(cs, "owner", None), "name", None))
             for cs in owners if cs is not None}
    found.discard(None)
    return tuple(sorted(found)) or None


def _energy_series(result):
    """The curves of the energy axes (see :func:`plot`): each its change since the first
    row, J."""
    kinetic, potential = result.kinetic_energy(), result.potential_energy()
    if result.work is None:
        return [Series(label, y - y[:1], *ENERGY, label) for label, y in (
            ("total energy", result.energy()), ("kinetic energy", kinetic),
            ("potential energy", potential))]
    balance = result.energy_balance()
    kinetic, potential = kinetic - kinetic[:1], potential - potential[:1]
    dissipated, supplied = balance.total_dissipated, balance.total_supplied
    curves = [("kinetic energy", kinetic), ("potential energy", potential),
              ("dissipated", dissipated)]
    total = "total: kinetic + potential + dissipated"
    # a source's supply, never booked as negative dissipation (gears do no work)
    if any(role not in ("passive", "gear") for role in balance.role.values()):
        curves.append(("supplied", supplied))
        total += " - supplied"
    curves.append((total, kinetic + potential + dissipated - supplied))
    return [Series(label, y, *ENERGY, label) for label, y in curves]


def _axis_label(quantity, unit):
    """'force (N)'; a long quantity with its unit on a second line, clear of its
    neighbours' labels."""
    return f"{quantity} ({unit})" if len(quantity) <= 14 else f"{quantity}\n({unit})"


def _title(result):
    """'<model>: motion, loads, energy and events over 5 s' (what the figure shows)."""
    name = getattr(getattr(result, "system", None), "name", None) or "run"
    t = np.asarray(result.t)
    span = f" over {t[-1] - t[0]:g} s" if len(t) > 1 else ""
    return f"{name}: joint motion, element loads, energy and switch events{span}"


def _names(kind, requested, known):
    """The requested names (a str or a sequence) checked against ``known``, in order."""
    if requested is None:
        return list(known)
    if isinstance(requested, str):
        requested = [requested]
    names = list(requested)
    for name in names:
        if name not in known:
            raise KeyError(f"plot: no {kind} {name!r}; the {kind}s are {sorted(known)}")
    return names


def _joint_series(result, joints):
    """A Series per scalar joint coordinate (a spherical primitive: its rotation angle)."""
    system = result.system
    carried = {}   # joint name -> the force elements on it
    for fe in system.force_elements:
        if getattr(fe, "placement", None) == "joint" and fe.joint is not None:
            carried.setdefault(fe.joint.name, []).append(fe.name)
    machine_of = {j: (m.index,) for m in getattr(system, "machines", ()) for j in m.joints}
    series = []
    for name in _names("joint", joints, system.joints):
        jm = system.joints[name]
        machine = machine_of.get(name)
        q = result.q[:, jm.q_index]
        spheres = [p for p in jm.joint.primitives if p.kind == "S"]
        scalar = q.shape[1] == 1
        key = carried[name][0] if scalar and len(carried.get(name, ())) == 1 else None
        k = 0
        for prim in jm.joint.primitives:
            if prim.kind == "S":
                w, xyz = q[:, k], q[:, k + 1:k + 4]
                # atan2 form: accurate near 0 and pi, and the same for q and -q
                angle = 2.0 * np.arctan2(np.linalg.norm(xyz, axis=1), np.abs(w))
                label = f"{name}.angle" if len(spheres) == 1 else f"{name}.angle{k}"
                series.append(Series(label, angle, "joint angle", "rad", key or label,
                                     machine))
            else:
                label = f"{name}.q" if scalar else f"{name}.q{k}"
                quantity, unit = (("joint angle", "rad") if prim.kind == "R"
                                  else ("joint displacement", "m"))
                series.append(Series(label, q[:, k], quantity, unit, key or label, machine))
            k += prim.nq
    return series


def _gear_series(result, joints):
    """A Series per GearConstraint whose two joints are plotted: its input's coordinate taken
    through the gear, ratio q_a + offset, on its output's axes (angle, or displacement for a
    rack), labeled ``"<gear>: <ratio> x <joint_a>.q (gear)"``. It lies on the output's curve
    ``<joint_b>.q`` as long as the gear holds: the plot shows what the gear relates (a
    coordinate of each wheel's own joint, as the picture turns each wheel), not only the
    two curves of different scales."""
    system = result.system
    plotted = set(_names("joint", joints, system.joints))
    machine_of = {j: (m.index,) for m in getattr(system, "machines", ()) for j in m.joints}
    series = []
    for dm in system.drivers:
        gear = dm.driver
        if not (hasattr(gear, "joint_a") and hasattr(gear, "joint_b")):
            continue              # a motion driver: its joint's curve is the motion
        a, b = gear.joint_a.name, gear.joint_b.name
        if a not in plotted or b not in plotted:
            continue
        jm = system.joints[a]
        k = sum(p.nq for p in jm.joint.primitives[:gear.primitive_a])
        q_a = result.q[:, jm.q_index[k]]
        kind = gear.joint_b.primitives[gear.primitive_b].kind
        quantity, unit = (("joint angle", "rad") if kind == "R"
                          else ("joint displacement", "m"))
        coordinate = f"{a}.q" if len(jm.q_index) == 1 else f"{a}.q{k}"   # as _joint_series
        label = (f"{gear.name}: {gear.ratio:g} x {coordinate}"
                 + (f" {gear.offset:+g}" if gear.offset else "") + " (gear)")
        series.append(Series(label, gear.ratio * q_a + gear.offset, quantity, unit, label,
                             machine_of.get(b)))
    return series


def _plotted_forces(system):
    """The names a plot draws forces by: every force element's, a contact's points under
    their contact's one name."""
    names = {}
    for fe in system.force_elements:
        name = fe.contact.name if fe.placement == "contact" else fe.name
        names.setdefault(name, fe)
    return names


def _force_series(result, forces):
    """A Series per force element: its value, or the magnitude of a vector value; per contact
    the normal force of its points summed (a contact that never touched: none)."""
    system = result.system
    machine_of = _machine_of(system)
    series = []
    for name in _names("force element", forces, _plotted_forces(system)):
        if name in system.contacts:
            fn = result.contact(name).total_normal_force
            if np.any(fn != 0.0):
                point = system.force_elements[system.contacts[name][0]]
                series.append(Series(f"{name}.fn (Contact)", fn, "force", "N", name,
                                     _force_machines(system, point, machine_of)))
            continue
        fe = system.force_elements[system.force_index[name]]
        quantity, unit = load_kind(fe)
        view = result.force(name)
        # a vector-valued load (a bushing's [F; T] in A's axes): |F| of the world force
        value = np.asarray(view.vector if fe.vector_valued else view.value)
        if value.ndim == 2:
            label, value = f"{name} |F|", np.linalg.norm(value, axis=1)
        else:
            label = f"{name}.value"
        series.append(Series(f"{label} ({element_kind(fe)})", value, quantity, unit, name,
                             _force_machines(system, fe, machine_of)))
    return series


def _colors(result, series, rows):
    """Colour of each colour key: the force elements first, in the system's order, then the
    other curves and event rows, from matplotlib's colour cycle."""
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key().get("color", ["0.3"])
    keys = list(_plotted_forces(result.system))
    keys += [s.color_key for s in series] + [row[0] for row in rows]
    colors = {}
    for key in keys:
        if key not in colors:
            colors[key] = cycle[len(colors) % len(cycle)]
    return colors


def save_png(fig: Figure, path: str | os.PathLike, dpi: float = DPI,
             who: str = "viz.plot") -> str | os.PathLike:
    """Write ``fig`` as PNG to ``path`` whole or not at all; ValueError naming the folder
    when it does not exist (``who``: the function, for the message)."""
    existing_folder(who, path)
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=dpi)
    return path
