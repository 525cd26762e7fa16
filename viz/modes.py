"""A mode of a linear model moving about its operating state, as an animation (SPEC §6).

The mode's shape lives in the model's independent coordinates z (:mod:`mbd.analysis.coordinates`);
each frame's configuration is q(z(t)) on the chart about the operating state, so a
mechanism with loops stays closed in every frame. The frames are drawn as a Result is
(:func:`viz.animate`), the force laws in the branches the operating state selects (a stop
the mechanism rests on is drawn in contact throughout, as the linearization has it).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

import mbd
from mbd.analysis import coordinates
from mbd.compiled import layout
from mbd.run.evaluator import Evaluator

from .render import GIF_SIZE, _animate

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence
    from typing import Any

    from mbd.analysis.linearmodel import LinearModel, Mode

__all__ = ["animate_mode", "mode_frames", "default_amplitude"]

#: the default amplitude moves the largest coordinate this far: rad for a rotation...
ROTATION_AMPLITUDE = 0.1
#: ... and this fraction of the model's length scale for a sliding coordinate
SLIDING_AMPLITUDE = 0.05


def _modes(linear, k):
    modes = linear.modes()
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"animate_mode: k must be an integer mode index, got {k!r}")
    if not 0 <= k < len(modes):
        raise ValueError(f"animate_mode: k = {k} is not a mode of '{linear.system.name}': it "
                         f"has {len(modes)} mode{'s' if len(modes) != 1 else ''} "
                         f"(k = 0 .. {len(modes) - 1})" if modes else
                         f"animate_mode: '{linear.system.name}' has no modes (0 DOF)")
    return modes[k]


def _units(system):
    """Per velocity coordinate (nv), the default amplitude's size: ROTATION_AMPLITUDE rad, or
    SLIDING_AMPLITUDE length scales (m) for a prismatic coordinate."""
    units = np.full(system.nv, ROTATION_AMPLITUDE)
    for L in system.tree:
        if L["jtype"] == layout.PRISMATIC:
            units[L["vadr"]:L["vadr"] + L["nd"]] = SLIDING_AMPLITUDE * system.length_scale
    return units


def default_amplitude(linear: LinearModel, mode: Mode) -> float:
    """The amplitude (a factor on the mode's shape, whose largest entry is 1) that moves the
    coordinates at most 0.1 rad or 5 % of the model's length scale: the largest of
    |shape_i| / unit_i reaches one.

    Notes
    -----
    A shape of (1, 0.5) over a revolute and a prismatic coordinate of a model 2 m across:
    the revolute's 0.1 rad limits first (the prismatic would allow 0.1 m / 0.5 = 0.2)::

        unit = (0.1 rad, 0.05 * 2 m),  amplitude = 1 / max(1 / 0.1, 0.5 / 0.1) = 0.1
    """
    system = linear.system
    shape = np.array([abs(mode.shape.get(c, 0.0)) for c in linear.coordinates])
    worst = float(np.max(shape / _units(system), initial=0.0))
    return 1.0 / worst if worst > 0.0 else ROTATION_AMPLITUDE


def mode_frames(linear: LinearModel, k: int, amplitude: float | None = None, cycles: float = 2,
                fps: float = 30) -> tuple[mbd.Result, Mode, float]:
    """The frames of mode ``k`` (0-based, as :meth:`mbd.LinearModel.modes` lists them) as a
    :class:`mbd.Result`: its rows are the frames, one per 1/fps s of playback.

    An oscillating mode (a complex eigenvalue, damped angular frequency omega) moves as::

        z(t) = amplitude Re(s_z exp(i omega t)),   t_j = j T / fps,   j = 0 .. cycles fps - 1

    s_z the shape on the independent coordinates, T = 2 pi / omega: each cycle plays in one
    second, whatever the mode's frequency (the time stamp shows the mechanism's own time; the
    decay or growth is not drawn, so the animation loops). A mode with a real eigenvalue
    (neutral, decaying, growing) has no period: its real shape swings over a fixed time,
    z(t) = amplitude s_z sin(2 pi t), t_j = j / fps, one swing per second.

    Parameters
    ----------
    linear : mbd.LinearModel
    k : int
        The mode, 0 .. len(linear.modes()) - 1.
    amplitude : float, optional
        Factor on the shape (its largest entry is 1), rad or m; default
        :func:`default_amplitude` (~0.1 rad or ~5 % of the model's length scale).
    cycles : float
        Cycles (swings) shown, > 0.
    fps : float
        Frames per second of playback, > 0.

    Returns
    -------
    result : mbd.Result
        The frames (q on the mechanism, v the linear mode's rates T z'), the force laws'
        branches those of the operating state.
    mode : mbd.analysis.linearmodel.Mode
    amplitude : float

    Raises
    ------
    ValueError
        A bad argument, or an amplitude too large for a loop to close.

    Examples
    --------
    A 1 m pendulum: its one mode at sqrt(g / l) / (2 pi), four frames a quarter period apart,
    the default 0.1 rad swing:

    >>> import mbd
    >>> from joints import Revolute
    >>> m = mbd.Model("p")
    >>> g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    >>> b = m.add_body("bob", mass=1.0, cg=(0, 0, -1), inertia=[1e-6] * 3, cs={"o": (0, 0, 0)})
    >>> _ = m.add(Revolute("hinge", g, b["o"], axis=(0, 1, 0)))
    >>> linear = mbd.equilibrium(m.build()).linear
    >>> frames, mode, amplitude = mode_frames(linear, 0, cycles=1, fps=4)
    >>> round(mode.frequency, 4), amplitude, (frames.joint("hinge").q.round(6) + 0.0).tolist()
    (0.4985, 0.1, [0.1, 0.0, -0.1, 0.0])
    """
    mode = _modes(linear, k)
    for name, value in (("cycles", cycles), ("fps", fps)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not (math.isfinite(value) and value > 0):
            raise ValueError(f"animate_mode: {name} must be a finite number > 0, got {value!r}")
    if amplitude is None:
        amplitude = default_amplitude(linear, mode)
    elif isinstance(amplitude, bool) or not isinstance(amplitude, (int, float, np.number)) \
            or not (math.isfinite(amplitude) and amplitude > 0):
        raise ValueError(f"animate_mode: amplitude must be a finite number > 0, got "
                         f"{amplitude!r}")
    amplitude = float(amplitude)
    system, state = linear.system, linear.state
    n = max(2, int(round(cycles * fps)))
    shape = np.array([mode.shape[linear.coordinates[i]] for i in linear.independent],
                     dtype=complex)
    omega = abs(mode.eigenvalue.imag)
    if mode.damped_frequency > 0.0:
        period = 2.0 * np.pi / omega
        t = np.arange(n) * period / fps
        phase = np.exp(1j * omega * t)
        z = amplitude * (np.outer(phase, shape)).real
        w = amplitude * (np.outer(1j * omega * phase, shape)).real
    else:
        t = np.arange(n) / fps
        swing = np.sin(2.0 * np.pi * t)
        z = amplitude * np.outer(swing, shape.real)
        w = amplitude * np.outer(2.0 * np.pi * np.cos(2.0 * np.pi * t), shape.real)
    ev = Evaluator(system)
    chart = coordinates.Chart(system, ev.data, state.t, state.q, independent=linear.independent)
    q = np.empty((n, system.nq))
    for j in range(n):
        try:
            q[j] = chart.position(z[j])
        except ArithmeticError:
            raise ValueError(f"animate_mode: mode {k} of '{system.name}' at amplitude "
                             f"{amplitude:g}: the loops cannot be closed {np.abs(z[j]).max():g} "
                             "(rad or m) from the operating state; give a smaller "
                             "amplitude") from None
    v = w @ linear.T.T
    # the branches of the operating state, as the linearization froze them
    ev.natural_mode(state.t, np.concatenate([state.q, state.v]))
    sides = np.repeat(ev.data.mode["sides"][None].copy(), n, axis=0)
    result = mbd.Result(system, t + state.t, np.hstack([q, v]), sides=sides)
    return result, mode, amplitude


def mode_title(linear: LinearModel, k: int, mode: Mode) -> tuple[str, str]:
    """(title, subtitle) of a picture of mode ``k``: the model and the mode, then its
    frequency (Hz), damping ratio and kind."""
    n = len(linear.modes())
    if mode.damped_frequency > 0.0:
        what = (f"{mode.frequency:.4g} Hz (damped {mode.damped_frequency:.4g} Hz), damping "
                f"ratio {mode.damping_ratio:.3g}, {mode.kind}")
    else:
        rate = (f"growth rate {mode.growth_rate:.3g} 1/s" if mode.growth_rate != 0.0
                else "eigenvalue 0")
        what = f"{mode.frequency:.4g} Hz, {rate}, {mode.kind} (shape shown)"
    return f"{linear.system.name}: mode {k + 1} of {n}", what


def animate_mode(linear: LinearModel, k: int, path: str | os.PathLike,
                 amplitude: float | None = None, cycles: float = 2, fps: float = 30,
                 size: tuple[int, int] = GIF_SIZE,
                 camera: str | Sequence[Sequence[float]] | None = None,
                 progress: bool | None = None, **scene_options: Any) -> int:
    """Write mode ``k`` of ``linear`` moving about its operating state as a GIF or an MP4
    (by the suffix of ``path``), rendered off-screen.

    Parameters
    ----------
    linear : mbd.LinearModel
        E.g. ``mbd.equilibrium(system).linear``.
    k : int
        The mode, 0-based: ``linear.modes()[k]``.
    path : str or path-like
        Ends in ``.gif`` or ``.mp4`` (see :func:`viz.animate`); written whole or not at all.
    amplitude : float, optional
        Factor on the mode's shape (largest entry 1); default: the largest coordinate moves
        ~0.1 rad or ~5 % of the model's length scale (:func:`default_amplitude`).
    cycles : float
        Cycles shown, each one second of playback (see :func:`mode_frames`).
    fps : float
        Frames per second: the file has ``round(cycles * fps)`` frames and lasts
        ``round(cycles * fps) / fps`` seconds (a GIF to 10 ms), looping seamlessly.
    size : (int, int)
        Frame size, pixels (default :data:`viz.render.GIF_SIZE`, 800 x 600).
    camera, progress, **scene_options
        As for :func:`viz.animate`.

    Returns
    -------
    int
        The number of frames rendered.

    The title names the model and the mode, with its frequency (Hz), damping ratio and kind.
    A mode with a real eigenvalue (neutral, decaying, growing) swings its real shape over a
    fixed time instead (:func:`mode_frames`).

    Raises
    ------
    ValueError
        A bad argument (a k that is not a mode, a path that is not .gif or .mp4).
    viz.RenderError
        No rendering backend, or the file cannot be written (nothing is left behind).
    """
    result, mode, _ = mode_frames(linear, k, amplitude, cycles, fps)
    speed = float(result.t[1] - result.t[0]) * fps
    scene_options.setdefault("title", mode_title(linear, k, mode))
    # a loop: the closing frame (the first again) is left out, each frame held 1 / fps, so
    # that a GIF lasts `cycles` seconds and loops without a hitch
    return _animate(result, path, fps, speed, size, camera, progress, True, scene_options)
