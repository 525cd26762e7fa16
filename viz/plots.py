"""Time plots of a Result with matplotlib: joint coordinates, force elements, energy, events.

Examples
--------
>>> fig, axes = plot(result, "run.png")                 # doctest: +SKIP
>>> [line.get_label() for line in axes[0].get_lines()]  # doctest: +SKIP
['hinge.q', 'gap event']
"""
import os
import sys

import matplotlib
import numpy as np

from mbd.files import atomic_open

# Without a display the interactive backends cannot start; pick Agg then, but only when nobody
# has chosen a backend yet (MPLBACKEND, or pyplot already in use) so interactive use is kept.
if (sys.platform.startswith("linux") and not os.environ.get("DISPLAY")
        and not os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("MPLBACKEND")
        and "matplotlib.pyplot" not in sys.modules):
    matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402  (after the backend choice)

__all__ = ["plot"]


def plot(result, path=None, joints=None, forces=None, energy=True, events=True, show=False):
    """Plot a run against time: stacked axes sharing the time axis.

    The axes, top to bottom (each only when it has something to show):

    1. joint coordinates — one line per scalar coordinate, labeled ``"<joint>.q"`` for a
       one-coordinate joint and ``"<joint>.q<k>"`` otherwise, k being the coordinate's index
       within the joint's q (as in ``result.columns()``). A spherical primitive's quaternion
       (4 entries of q) is not drawn component-wise: it is shown as its rotation angle
       ``2 atan2(|(x, y, z)|, |w|)`` in [0, pi] rad, labeled ``"<joint>.angle"`` (or
       ``"<joint>.angle<k>"``, k the index of the quaternion's w in the joint's q, when the
       joint has more than one spherical primitive). Units are mixed: rad and m.
    2. force elements — ``result.force(name).value`` labeled ``"<name>.value"``; for a
       vector-valued element (BodySpringDamper, value (n, 3)) its magnitude, labeled
       ``"<name> |F|"``.
    3. energy — ``"total energy"``, ``"kinetic energy"``, ``"potential energy"`` (J).
    4. events — on every axes, a thin vertical line at each event time, one color per element;
       the first line of each element is labeled ``"<element> event"`` (shown in the legend),
       the following ones ``"_<element> event"`` (matplotlib keeps them out of the legend).

    Parameters
    ----------
    result : mbd.Result
    path : str or path-like, optional
        Write the figure there as PNG, whole or not at all (a temporary file beside it is moved
        into place only once complete).
    joints : str or sequence of str, optional
        Joint names to plot; default all joints (those without coordinates, e.g. a Weld, are
        left out). An empty sequence drops the joint axes.
    forces : str or sequence of str, optional
        Force element names to plot; default all of them (no axes when there are none).
    energy : bool
        Draw the energy axes.
    events : bool
        Draw the event lines.
    show : bool
        Show the figure on screen (through pyplot, blocking as ``pyplot.show`` does). When
        False the figure is a plain ``matplotlib.figure.Figure`` that pyplot does not track.

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : list of matplotlib.axes.Axes
        Top to bottom, in the order above.

    Raises
    ------
    KeyError
        An unknown joint or force element name (the message names it and lists the known ones).
    ValueError
        Nothing to plot.
    """
    t = np.asarray(result.t)
    # gather every curve first, so that a bad name raises before any figure exists
    panels = []
    joint_curves = _joint_curves(result, joints)
    if joint_curves:
        panels.append(("joint coordinates\n(rad, m)", joint_curves))
    force_curves = _force_curves(result, forces)
    if force_curves:
        panels.append(("force elements\n(N, N m)", force_curves))
    if energy:
        panels.append(("energy (J)", [("total energy", result.energy()),
                                      ("kinetic energy", result.kinetic_energy()),
                                      ("potential energy", result.potential_energy())]))
    if not panels:
        raise ValueError("plot: nothing to plot (no joint coordinates, no force elements, "
                         "energy=False)")

    if show:
        from matplotlib import pyplot
        fig = pyplot.figure()
    else:
        fig = Figure()
    try:
        fig.set_size_inches(8.0, 2.6 * len(panels) + 0.6)
        axes = list(fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0])
        for ax, (ylabel, curves) in zip(axes, panels):
            for label, y in curves:
                ax.plot(t, y, label=label, linewidth=1.2)
            ax.set_ylabel(ylabel)
            ax.grid(True, linewidth=0.3, alpha=0.5)
        if events:
            _draw_events(axes, result.events)
        for ax in axes:
            ax.legend(loc="upper right", fontsize="small", framealpha=0.8)
        axes[-1].set_xlabel("time (s)")
        if len(t) > 1 and t[-1] > t[0]:
            axes[-1].set_xlim(t[0], t[-1])
        title = getattr(getattr(result, "system", None), "name", None)
        if title:
            fig.suptitle(title)
        fig.tight_layout()
        if path is not None:
            _save_png(fig, path)
    except BaseException:
        if show:
            from matplotlib import pyplot
            pyplot.close(fig)
        raise
    if show:
        from matplotlib import pyplot
        pyplot.show()
    return fig, axes


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


def _joint_curves(result, joints):
    system = result.system
    curves = []
    for name in _names("joint", joints, system.joints):
        jm = system.joints[name]
        q = result.q[:, jm.q_index]
        spheres = [p for p in jm.joint.primitives if p.kind == "S"]
        k = 0
        for prim in jm.joint.primitives:
            if prim.kind == "S":
                w, xyz = q[:, k], q[:, k + 1:k + 4]
                # atan2 form: accurate near 0 and pi, and the same for q and -q
                angle = 2.0 * np.arctan2(np.linalg.norm(xyz, axis=1), np.abs(w))
                curves.append((f"{name}.angle" if len(spheres) == 1 else f"{name}.angle{k}",
                               angle))
            else:
                curves.append((f"{name}.q" if q.shape[1] == 1 else f"{name}.q{k}", q[:, k]))
            k += prim.nq
    return curves


def _force_curves(result, forces):
    known = result.system.force_index
    curves = []
    for name in _names("force element", forces, known):
        value = np.asarray(result.force(name).value)
        if value.ndim == 2:
            curves.append((f"{name} |F|", np.linalg.norm(value, axis=1)))
        else:
            curves.append((f"{name}.value", value))
    return curves


def _draw_events(axes, events):
    colors = {}
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key().get("color", ["0.3"])
    for ev in events:
        if ev.element not in colors:
            colors[ev.element] = cycle[(len(colors) + 3) % len(cycle)]
    for ax in axes:
        seen = set()
        for ev in events:
            label = f"{ev.element} event"
            if ev.element in seen:
                label = "_" + label
            seen.add(ev.element)
            ax.axvline(ev.t, color=colors[ev.element], linewidth=0.6, linestyle="--",
                       alpha=0.8, label=label)


def _save_png(fig, path):
    """Write ``fig`` as PNG to ``path`` whole or not at all."""
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=100)
    return path

