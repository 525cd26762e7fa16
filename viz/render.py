"""Pictures of a Result or a System: an animation (GIF/MP4), a snapshot (PNG), a window.

Everything off-screen works without a display (pyvista with EGL or OSMesa). Files are written
whole or not at all: into a temporary file beside the target, moved into place at the end.
"""
from __future__ import annotations

import contextlib
import inspect
import math
import os
import sys
from typing import TYPE_CHECKING

import numpy as np

from mbd import Result, System
from mbd.model.files import atomic_path
from mbd.model.shapes import positive

from .colors import STATE_COLORS
from .naming import existing_folder
from .scene import RenderError, Scene

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["animate", "snapshot", "show", "frame_times", "RenderError"]


def frame_times(result: Result, fps: float = 30, speed: float = 1.0) -> np.ndarray:
    """Times (s) of the frames of an animation of ``result``::

        t_k = t0 + k speed / fps,   k = 0 .. floor((t_end - t0) fps / speed)

    Examples
    --------
    >>> class R: t = np.array([0.0, 0.5, 1.0])
    >>> frame_times(R(), fps=10, speed=2.0)
    array([0. , 0.2, 0.4, 0.6, 0.8, 1. ])
    """
    fps, speed = positive("animate", "fps", fps), positive("animate", "speed", speed)
    t0, t1 = float(result.t[0]), float(result.t[-1])
    x = (t1 - t0) * fps / speed
    n = int(math.floor(x + 1e-9 * max(1.0, x))) + 1   # round-off must not drop the last frame
    return t0 + np.arange(n) * speed / fps


#: the shortest frame delay a GIF should hold, centiseconds: browsers show a delay of 0 or
#: 1 cs as 10 cs, so a GIF of shorter frames plays slow; a GIF's fps is at most 100 / 2
GIF_MIN_DELAY = 2


def gif_delays(times: ArrayLike, t_end: float, speed: float = 1.0,
               loop: bool = False) -> np.ndarray:
    """The delays (whole centiseconds, as a GIF stores them) of frames at simulated times
    ``times`` (s) of a run ending at ``t_end`` (s), played at ``speed``, whose sum is the
    playback's length to the nearest 10 ms: frame k is on screen from boundary b_k to
    b_{k+1} (playback s, ``tau = (t - t0) / speed``), the delays the differences of the
    boundaries rounded to whole cs (error diffusion: no drift however many frames).

    - a run (``loop`` False): each frame holds while it is the nearest to the playback's
      clock, b_k = (tau_{k-1} + tau_k) / 2, b_0 = 0 and b_N = (t_end - t0) / speed: the GIF
      lasts the run's duration over ``speed`` (the first and the last frame hold half as long
      as the others when the run ends on a frame);
    - a loop (``loop`` True: frames of a periodic motion, the closing one left out, at equal
      steps): each frame at its time, b_k = tau_k, the last held one step.

    Where the total allows, no delay is under :data:`GIF_MIN_DELAY` (taken from a neighbour).

    Examples
    --------
    >>> int(gif_delays(np.arange(76) / 15, 5.0).sum())     # a 5 s run at 15 fps: 5.00 s
    500
    >>> gif_delays(np.arange(76) / 15, 5.0)[:5].tolist()
    [3, 7, 7, 6, 7]
    >>> gif_delays(np.arange(8) / 8, 7 / 8, loop=True).tolist()   # 8 frames of a 1 s loop
    [12, 13, 13, 12, 12, 13, 13, 12]
    """
    times = np.asarray(times, dtype=float)
    tau = (times - times[0]) / speed
    if len(tau) == 1:
        return np.array([GIF_MIN_DELAY])
    if loop:
        edges = np.r_[tau, tau[-1] + (tau[-1] - tau[0]) / (len(tau) - 1)]
    else:
        edges = np.r_[0.0, 0.5 * (tau[:-1] + tau[1:]), (float(t_end) - times[0]) / speed]
    cs = np.rint(100.0 * edges).astype(np.int64)
    if cs[-1] - cs[0] >= GIF_MIN_DELAY * len(tau):    # room for every frame's least delay
        for k in range(1, len(cs) - 1):
            cs[k] = max(cs[k], cs[k - 1] + GIF_MIN_DELAY)
        for k in range(len(cs) - 2, 0, -1):
            cs[k] = min(cs[k], cs[k + 1] - GIF_MIN_DELAY)
    return np.diff(cs)


class _Progress:
    """A one-line text bar on stderr."""

    def __init__(self, total, enabled):
        self.total = max(int(total), 1)
        self.enabled = enabled

    def __call__(self, done):
        if not self.enabled:
            return
        width = 30
        full = int(width * done / self.total)
        sys.stderr.write(f"\r[{'#' * full}{'.' * (width - full)}] {done}/{self.total} frames")
        if done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


@contextlib.contextmanager
def _writing(path):
    """A temporary path beside ``path`` that replaces it on success (mbd.model.files.atomic_path);
    any failure other than a bad argument becomes a RenderError."""
    try:
        with atomic_path(path) as tmp:
            yield tmp
    except (RenderError, ValueError):
        raise
    except Exception as err:
        raise RenderError(f"cannot write {path!r} ({type(err).__name__}: {err})") from err


def _format(path):
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in (".gif", ".mp4"):
        raise ValueError(f"animate: the file must end in .gif or .mp4, got {os.fspath(path)!r}")
    return ext[1:]


#: the frame size of an animation unless told, pixels (width, height): large enough to read
#: the labels; a GIF of the demo's 76 frames at this size is about 0.9 MB
GIF_SIZE = (800, 600)


def animate(result: Result, path: str | os.PathLike, fps: float = 30, speed: float = 1.0,
            size: tuple[int, int] = GIF_SIZE,
            camera: str | Sequence[Sequence[float]] | None = None,
            progress: bool | None = None, **scene_options: Any) -> int:
    """Render ``result`` off-screen into an animated GIF or an MP4 file.

    Parameters
    ----------
    result : mbd.Result
    path : str or path-like
        Ends in ``.gif`` (written with Pillow) or ``.mp4`` (pyvista's movie writer: needs
        ``imageio`` and ``imageio-ffmpeg``).
    fps : float
        Frames per second of the file.
    speed : float
        Simulated seconds per second of playback: frames at ``t0 + k speed / fps``
        (see :func:`frame_times`), positions interpolated between the result's rows.
    size : (int, int)
        Frame size in pixels (width, height); default :data:`GIF_SIZE`, 800 x 600.
    camera : None, "iso", "xy", "xz", "yz" or a pyvista camera position
        None: isometric, fitted to the whole motion.
    progress : bool or None
        Print a progress bar on stderr; None: when stderr is a terminal.
    **scene_options
        Passed to :class:`viz.scene.Scene` (``show_cs``, ``trails``, ``lighting``,
        ``background``, ``annotations``, ``title``, ``floor``, ``markers``, ``labels``,
        ``contacts``: the touching contact points and their forces, red, over the scene;
        ``collisions``: the contact shapes not drawn otherwise, a robot's collision
        geometry, see-through orange).

    Returns
    -------
    int
        The number of frames rendered. (A GIF stores identical consecutive frames once, with
        their durations added, so a still stretch shows as one GIF frame.) A GIF plays for
        the run's duration over ``speed``, to 10 ms: its frame delays are whole centiseconds
        whose sum tracks the frames' times (:func:`gif_delays`).

    Raises
    ------
    ValueError
        A path that is not .gif or .mp4, a folder that does not exist, a GIF at more than
        50 fps (its delays are whole centiseconds, and viewers slow a shorter one down).
    RenderError
        No rendering backend, a missing movie encoder, or an unwritable path; nothing is
        left behind (an existing file at ``path`` is kept unchanged).
    """
    return _animate(result, path, fps, speed, size, camera, progress, False, scene_options)


def _animate(result, path, fps, speed, size, camera, progress, loop, scene_options):
    """:func:`animate`; ``loop``: the frames are a periodic motion without its closing frame,
    each held one step (:func:`gif_delays`), as :func:`viz.animate_mode` writes them."""
    path = os.fspath(path)
    kind = _format(path)
    if not isinstance(result, Result):
        raise TypeError(f"animate: animates an mbd.Result (viz.snapshot draws a System), got "
                        f"{type(result).__name__}")
    _scene_options("animate", scene_options)
    times = frame_times(result, fps, speed)
    if kind == "gif" and fps > 100 / GIF_MIN_DELAY:
        raise ValueError(f"animate: a GIF holds at most {100 // GIF_MIN_DELAY} frames a second "
                         f"(its delays are whole centiseconds, and viewers show one under "
                         f"{GIF_MIN_DELAY} cs as 10 cs), got fps={fps!r}; give a lower fps "
                         "or write an .mp4")
    existing_folder("viz.animate", path)
    if kind == "mp4":
        try:
            import imageio  # noqa: F401  (pyvista's movie writer needs both)
            import imageio_ffmpeg  # noqa: F401
        except ImportError as err:
            raise RenderError(f"writing {path!r}: MP4 needs the packages imageio and "
                              f"imageio-ffmpeg ({err}); pip install imageio imageio-ffmpeg, or "
                              "write a .gif") from None
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    bar = _Progress(len(times), bool(progress))
    scene = None
    try:
        with _writing(path) as tmp:
            scene = Scene(result.system, size=size, off_screen=True, **scene_options)
            scene.fit(result, camera)
            if kind == "gif":
                _write_gif(scene, result, times, speed, loop, tmp, bar)
            else:
                _write_mp4(scene, result, times, fps, tmp, bar)
    finally:
        if scene is not None:
            scene.close()
    return len(times)


def _write_gif(scene, result, times, speed, loop, tmp, bar):
    from PIL import Image  # Pillow comes with matplotlib
    palette, shots = _gif_palette(scene, result, times)
    frames = []
    for k, t in enumerate(times):
        shot = shots.pop(k, None)     # a frame the palette was made from is not drawn again
        if shot is None:
            scene.update(result, t=t)
            shot = scene.screenshot()
        frames.append(Image.fromarray(shot).quantize(palette=palette, dither=Image.Dither.NONE))
        bar(k + 1)
    # milliseconds, whole centiseconds (Pillow stores duration // 10)
    delays = 10 * gif_delays(times, result.t[-1], speed, loop)
    frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:],
                   duration=[int(d) for d in delays], loop=0)


def _gif_palette(scene, result, times, samples=8):
    """One 256-colour palette for every frame of a GIF (a ``P`` image holding it): the
    median cut of ``samples`` frames spread over the run, plus the state colours exactly
    (:data:`viz.colors.STATE_COLORS`: a contact seen in no sample keeps its red); returned
    with those frames, {frame index: RGB array}, for the GIF to use as they are.

    With one palette a pixel that does not change keeps its index from frame to frame, so
    the GIF stores little more than what moves, and quantizing a frame is a lookup.
    """
    from PIL import Image
    picks = np.unique(np.linspace(0, len(times) - 1, min(samples, len(times))).astype(int))
    shots = {}
    for i in picks:
        scene.update(result, t=times[i])
        shots[int(i)] = scene.screenshot()
    n = 256 - len(STATE_COLORS)
    # from every other pixel of every other row: the same colours in nearly the same
    # proportions, and a quarter of the median cut's time (the demo's: 0.54 -> 0.14 s)
    cut = Image.fromarray(np.concatenate([shot[::2, ::2] for shot in shots.values()],
                                         axis=1)).quantize(colors=n,
                                                           method=Image.Quantize.MEDIANCUT)
    rgb = list(cut.getpalette()[:3 * n])
    rgb += rgb[:3] * (n - len(rgb) // 3)              # a short palette: pad with a repeat
    rgb += [int(round(255 * c)) for color in STATE_COLORS for c in color]
    palette = Image.new("P", (1, 1))
    palette.putpalette(rgb)
    return palette, shots


def _write_mp4(scene, result, times, fps, tmp, bar):
    plotter = scene.plotter
    # the frames as asked (imageio would scale them up to a multiple of 16: 800 x 600 became
    # 800 x 608); an odd side is still made even, which the H.264 encoder needs
    plotter.open_movie(tmp, framerate=fps, quality=7, macro_block_size=2)
    try:
        for k, t in enumerate(times):
            scene.update(result, t=t)
            plotter.write_frame()
            bar(k + 1)
    finally:
        plotter.mwriter.close()


def _system_and_state(obj, t, who="snapshot"):
    """(system, result or None, time) for a System or a Result; ``who`` names the function in
    the messages (TypeError for anything else, ValueError for a t the Result does not hold)."""
    if hasattr(obj, "q") and hasattr(obj, "system") and hasattr(obj, "t"):
        if t is None:
            return obj.system, obj, float(obj.t[0])
        t0, t1 = float(obj.t[0]), float(obj.t[-1])
        try:
            t = float(t)
        except (TypeError, ValueError):
            raise TypeError(f"{who}: t must be a number (s), got {t!r}") from None
        if not t0 <= t <= t1:
            raise ValueError(f"{who}: t must lie within the result's times, {t0:g} to {t1:g} s, "
                             f"got {t!r}")
        return obj.system, obj, t
    if not isinstance(obj, System):
        raise TypeError(f"{who}: draws an mbd.System or an mbd.Result, got "
                        f"{type(obj).__name__}")
    if t is not None:
        raise ValueError(f"{who}: t needs a Result; a System is drawn at its initial state")
    return obj, None, None


def _scene_options(who, options):
    """Refuse an option :class:`viz.scene.Scene` does not take, naming it and the ones it
    does (TypeError, before anything is drawn or written)."""
    known = [name for name in inspect.signature(Scene).parameters
             if name not in ("system", "size", "off_screen")]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(f"{who}: unknown option {unknown[0]!r}; the scene options are "
                        f"{', '.join(known)}")


def snapshot(system_or_result: System | Result, path: str | os.PathLike, t: float | None = None,
             size: tuple[int, int] = (640, 480),
             camera: str | Sequence[Sequence[float]] | None = None,
             **scene_options: Any) -> np.ndarray:
    """Write one PNG picture: a System at its initial state, or a Result at time ``t``
    (default its first time), with the camera fitted as in :func:`animate`.

    Returns the picture as an (height, width, 3) uint8 array. A path that is not .png, or
    whose folder does not exist, is a ValueError (naming it).
    """
    path = os.fspath(path)
    if not path.lower().endswith(".png"):
        raise ValueError(f"snapshot: the file must end in .png, got {path!r}")
    system, result, t = _system_and_state(system_or_result, t)
    _scene_options("snapshot", scene_options)
    existing_folder("viz.snapshot", path)
    scene = None
    try:
        with _writing(path) as tmp:
            from PIL import Image
            scene = Scene(system, size=size, off_screen=True, **scene_options)
            if result is None:
                q = system.initial_state().q
                scene.set_state(q)
                scene.fit(None, camera, q=q)
            else:
                scene.update(result, t=t)
                scene.fit(result, camera)
            img = scene.screenshot()
            Image.fromarray(img).save(tmp, format="PNG")
        return img
    finally:
        if scene is not None:
            scene.close()


def _has_display():
    """True when an interactive window can be opened."""
    import pyvista as pv
    if getattr(pv, "OFF_SCREEN", False):
        return False
    if sys.platform.startswith("linux") or "bsd" in sys.platform:
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def show(result_or_system: Result | System, size: tuple[int, int] = (1024, 768),
         camera: str | Sequence[Sequence[float]] | None = None, **scene_options: Any) -> None:
    """Open an interactive window: a Result with a time slider, or a System at its initial
    state. Without a display raises RenderError at once (use :func:`animate` or
    :func:`snapshot` instead)."""
    if not _has_display():
        raise RenderError("no display: an interactive window needs one (DISPLAY is not set); "
                          "use viz.animate or viz.snapshot to render to a file")
    system, result, t = _system_and_state(result_or_system, None, "show")
    _scene_options("show", scene_options)
    scene = Scene(system, size=size, off_screen=False, **scene_options)
    if result is None:
        q = system.initial_state().q
        scene.set_state(q)
        bounds = scene.motion_bounds(q=q)
    else:
        scene.update(result, t=t)
        bounds = scene.motion_bounds(result)
    scene.lay_floor(bounds)
    scene.set_camera(camera, bounds)
    if result is not None:
        scene.plotter.add_slider_widget(lambda value: scene.update(result, t=value),
                                        [float(result.t[0]), float(result.t[-1])], value=t,
                                        title="t (s)")
    try:
        scene.plotter.show()
    except Exception as err:
        raise RenderError(f"the window failed ({type(err).__name__}: {err})") from err
