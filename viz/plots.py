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
import textwrap
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
EVENT_ROW_HEIGHT = 0.24
#: the height of a line of the event strip's legend (inches, x-small text)
EVENT_LEGEND_LINE = 0.15
#: the event strip's legend names at most this many kinds of switch per element, each line
#: at most EVENT_LEGEND_WIDTH characters
EVENT_KINDS, EVENT_LEGEND_WIDTH = 2, 46
#: a row of the event strip with more events than this is drawn as a density band (the
#: count per bin, :data:`EVENT_BINS` bins over the run, as a shade) instead of a tick per
#: event: 200 ticks across the strip's ~900 pixels are already 4 or 5 pixels apart
EVENT_TICKS_MAX = 200
#: the event strip's most rows: the elements after the first EVENT_ROWS_MAX - 1 to switch
#: share the last row, "N more elements", a density band
EVENT_ROWS_MAX = 30
#: the bins of a density band over the run
EVENT_BINS = 200
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
      of more than :data:`EVENT_TICKS_MAX` events (a robot's feet, balls settling) is a
      density band instead: the events counted in :data:`EVENT_BINS` bins over the run,
      each bin shaded from white (none) to the row's colour (the row's most), its legend
      saying how many and the peak (``"1234 events, up to 57 per 10 ms"``). Past
      :data:`EVENT_ROWS_MAX` rows the elements after the first ``EVENT_ROWS_MAX - 1`` to
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
    rows, merged = _capped_rows(_event_rows(result) if events else [])
    span = (float(t[0]), float(t[-1])) if len(t) else None
    colors = _colors(result, series, rows)

    heights = [PANEL_HEIGHT] * len(panels)
    if rows:
        # as tall as its rows, or as its legend (what each row's ticks are)
        lines = sum(text.count("\n") + 1
                    for text in _event_legend_texts(rows, span, merged))
        heights.append(max(0.45 + EVENT_ROW_HEIGHT * len(rows),
                           0.3 + EVENT_LEGEND_LINE * (lines + 1)))
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
            _draw_event_strip(axes[-1], rows, colors, span, merged)
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


def _event_rows(result):
    """[(element, event times, contact intervals, kinds)] of every element that switched, in
    the order of their first switch (a contact's points as their contact); the intervals
    [(t0, t1)] where a gap, stop or backlash element or a contact is in contact (t1 the
    run's end for a contact still going), from its law's contact state or the contact's
    view; kinds [(what, count)] of its switches, in the order they first happen."""
    system = result.system
    owner = {system.force_elements[i].name: name
             for name, indices in system.contacts.items() for i in indices}
    times, kinds = {}, {}
    for ev in result.events:
        element = owner.get(ev.element, ev.element)
        times.setdefault(element, []).append(float(ev.t))
        counts = kinds.setdefault(element, {})
        counts[ev.what] = counts.get(ev.what, 0) + 1
    end = float(result.t[-1])
    rows = []
    for element, ts in times.items():
        spans = []
        if element in system.contacts:
            spans = [(a, end if np.isnan(b) else b)
                     for a, b in result.contact(element).intervals()]
        elif element in system.force_index:
            view = result.force(element)
            if "contact" in view.state:
                spans = [(a, end if np.isnan(b) else b) for a, b, _ in view.contacts()]
        rows.append((element, np.array(ts), spans, list(kinds[element].items())))
    return rows


def _capped_rows(rows, limit=None):
    """(rows, merged): the event strip's rows, at most ``limit`` (default
    :data:`EVENT_ROWS_MAX`): past it the first ``limit - 1`` as they are and one row
    ``"<N> more elements"`` of the others' events (sorted; no contact intervals; their kinds
    of switch added up), whose name is ``merged`` (None when nothing was merged)."""
    limit = EVENT_ROWS_MAX if limit is None else limit
    if len(rows) <= limit:
        return list(rows), None
    kept, rest = list(rows[:limit - 1]), rows[limit - 1:]
    merged = f"{len(rest)} more elements"
    kinds = {}
    for _, _, _, row_kinds in rest:
        for what, n in row_kinds:
            kinds[what] = kinds.get(what, 0) + n
    ts = np.sort(np.concatenate([row[1] for row in rest]))
    return kept + [(merged, ts, [], list(kinds.items()))], merged


def event_density(ts, t0, t1, bins=EVENT_BINS):
    """The events at times ``ts`` counted in ``bins`` equal bins from ``t0`` to ``t1`` (s):
    (counts (bins,) int, edges (bins + 1,) s). Every event is counted, one outside the span
    in its nearest end bin (the counts add up to ``len(ts)``); a span of no length is one of
    1 s about ``t0``.

    Examples
    --------
    >>> counts, edges = event_density([0.0, 0.1, 0.15, 1.0], 0.0, 1.0, bins=4)
    >>> counts.tolist(), edges.tolist()
    ([3, 0, 0, 1], [0.0, 0.25, 0.5, 0.75, 1.0])
    """
    ts = np.asarray(ts, dtype=float).ravel()
    t0, t1 = float(t0), float(t1)
    if not t1 > t0:
        t0, t1 = t0 - 0.5, t0 + 0.5
    counts, edges = np.histogram(np.clip(ts, t0, t1), bins=int(bins), range=(t0, t1))
    return counts, edges


def _banded(row, merged):
    """Whether a row of the strip is drawn as a density band (more than
    :data:`EVENT_TICKS_MAX` events, or the merged row)."""
    return row[0] == merged or len(row[1]) > EVENT_TICKS_MAX


def _row_span(rows, span):
    """The run's (t0, t1), or the events' when it is not known."""
    if span is not None:
        return span
    ts = np.concatenate([row[1] for row in rows]) if rows else np.zeros(1)
    return float(ts.min()), float(ts.max())


def _duration(seconds):
    """'10 ms', '2.5 s', '40 us': a bin's width, to 3 digits."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if seconds >= scale or unit == "us":
            return f"{seconds / scale:.3g} {unit}"


def _density_text(ts, span):
    """'1234 events, up to 57 per 10 ms': a band's count and its peak bin."""
    counts, edges = event_density(ts, *span)
    return (f"{len(ts)} events, up to {int(counts.max(initial=0))} per "
            f"{_duration(edges[1] - edges[0])}")


def _event_legend_texts(rows, span=None, merged=None):
    """The event strip's legend, a text per row: what its ticks are, "sway: K below K_min:
    K_min in use (5) / K in use (5)" (at most :data:`EVENT_KINDS` kinds of switch, the rest
    counted), and for a density band (:func:`_banded`) its count and peak, "; 1234 events,
    up to 57 per 10 ms" (bins over ``span``, the run's (t0, t1)), wrapped at
    :data:`EVENT_LEGEND_WIDTH` characters; then "in contact" when a row is shaded."""
    texts = []
    for row in rows:
        element, ts, _, kinds = row
        shown = " / ".join(f"{what} ({n})" for what, n in kinds[:EVENT_KINDS])
        if len(kinds) > EVENT_KINDS:
            more = len(kinds) - EVENT_KINDS
            shown += f" / {more} more kind{'s' if more > 1 else ''}"
        if _banded(row, merged):
            shown += "; " + _density_text(ts, _row_span(rows, span))
        # broken at spaces only: a name or a kind is never split
        texts.append(textwrap.fill(f"{element}: {shown}", EVENT_LEGEND_WIDTH,
                                   subsequent_indent="  ", break_long_words=False,
                                   break_on_hyphens=False))
    if any(spans for _, _, spans, _ in rows):
        texts.append("shaded: in contact")
    return texts


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


def _draw_event_strip(ax, rows, colors, span=None, merged=None):
    """One row per element: a tick at each switch, or a density band for a row of many
    (:func:`_banded`: an image of the counts per bin, :func:`event_density`, white to the
    row's colour, empty bins left clear), its contact intervals shaded; a legend saying what
    each row's ticks are (:func:`_event_legend_texts`) and what the shading is. ``span``:
    the run's (t0, t1); ``merged``: the name of the row of the elements past
    :data:`EVENT_ROWS_MAX` (:func:`_capped_rows`)."""
    from matplotlib.colors import LinearSegmentedColormap
    from matplotlib.patches import Patch
    bands = [_banded(row, merged) for row in rows]
    for k, (element, ts, spans, _) in enumerate(rows):
        y = len(rows) - 1 - k                       # the first to switch on top
        color = colors[element]
        if spans:
            ax.broken_barh([(a, b - a) for a, b in spans], (y - 0.32, 0.64), color=color,
                           alpha=0.22, linewidth=0)
        if bands[k]:
            counts, edges = event_density(ts, *_row_span(rows, span))
            # no events (masked): clear, the strip shows through
            ramp = LinearSegmentedColormap.from_list(
                f"events {element}", ["white", color]).with_extremes(bad=(1, 1, 1, 0))
            ax.imshow(np.ma.masked_equal(counts[None, :], 0), cmap=ramp, aspect="auto",
                      vmin=0, vmax=max(int(counts.max()), 1), interpolation="nearest",
                      origin="lower", extent=(edges[0], edges[-1], y - 0.32, y + 0.32))
        else:
            ax.eventplot([ts], lineoffsets=y, linelengths=0.64, linewidths=0.9,
                         colors=[color])
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{element} ({len(ts)})" for element, ts, _, _ in reversed(rows)],
                       fontsize="small")
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_ylabel("events")
    ax.set_title("switch events (ticks, count in brackets); shaded: in contact"
                 + ("; bands: events per bin, darker more" if any(bands) else ""),
                 fontsize="small", loc="left")
    ax.grid(True, axis="x", linewidth=0.3, alpha=0.5)
    texts = _event_legend_texts(rows, span, merged)
    handles = [Patch(facecolor=colors[row[0]], linewidth=0) if band else
               Line2D([], [], marker="|", linestyle="none", markersize=9, markeredgewidth=1.2,
                      color=colors[row[0]]) for row, band in zip(rows, bands)]
    if len(texts) > len(rows):
        handles.append(Patch(facecolor="0.5", alpha=0.22, linewidth=0))
    title = "ticks: the switches of each element"
    if any(bands):
        title += "\nbands: their count per bin"
    ax.legend(handles, texts, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              borderaxespad=0.0, fontsize="x-small", frameon=False,
              title=title, title_fontsize="x-small", alignment="left")


def save_png(fig: Figure, path: str | os.PathLike, dpi: float = DPI,
             who: str = "viz.plot") -> str | os.PathLike:
    """Write ``fig`` as PNG to ``path`` whole or not at all; ValueError naming the folder
    when it does not exist (``who``: the function, for the message)."""
    existing_folder(who, path)
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=dpi)
    return path
