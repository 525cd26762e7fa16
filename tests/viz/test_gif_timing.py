"""A GIF plays as long as the run (issue 45): the frame delays were 1000 / fps ms rounded down
to whole centiseconds (60 ms at 15 fps: a 5 s run played in 4.56 s; 30 ms at 30 fps: 2 s in
1.83 s). Each case writes a GIF with viz.animate (or viz.animate_mode), reads it back with
Pillow and adds up the frames' durations as a viewer does.

The bound: a GIF stores whole centiseconds, so the total is right to 10 ms; every frame is on
screen while it is the frame nearest the playback clock, to 10 ms (5 ms rounding of each of
its two ends); and no delay is under 20 ms, which browsers would show as 100 ms."""
import numpy as np
import pytest
from PIL import Image

import mbd
import viz
from tests.viz.test_modes import pendulum
from tests.viz.test_render import SIZE, slider
from viz.render import frame_times

CS = 10.0          # ms: a GIF's delays are whole centiseconds


def durations(path):
    """The frames' display times (ms) of the GIF at ``path``, as a viewer reads them."""
    out = []
    with Image.open(path) as im:
        for k in range(im.n_frames):
            im.seek(k)
            out.append(im.info["duration"])
    return np.array(out, dtype=float)


def animated(result, path, **kwargs):
    n = viz.animate(result, path, size=SIZE, lighting=False, annotations=False,
                    progress=False, **kwargs)
    return n, durations(path)


@pytest.mark.parametrize("fps, t_end", [(15, 5.0), (30, 2.0)])
def test_a_gif_lasts_the_run(tmp_path, fps, t_end):
    """The issue's two cases: a 5 s run at 15 fps (76 frames) and a 2 s run at 30 fps (61)
    play for 5 s and 2 s."""
    result = slider(v0=0.2, t_end=t_end)        # the cube moves in every frame: none merged
    n, ms = animated(result, tmp_path / "run.gif", fps=fps)
    assert n == len(ms) == round(t_end * fps) + 1
    assert abs(ms.sum() - 1000.0 * t_end) <= CS
    assert ms.min() >= 2 * CS
    # frame k is on screen while it is the nearest to the clock: from midway after the one
    # before to midway before the one after
    tau = 1000.0 * (frame_times(result, fps) - result.t[0])
    shown_from = np.r_[0.0, np.cumsum(ms)[:-1]]
    midway = np.r_[0.0, 0.5 * (tau[:-1] + tau[1:])]
    assert np.abs(shown_from - midway).max() <= CS


def test_at_speed_two_the_gif_lasts_half_the_run(tmp_path):
    """2 s of the run at speed 2 and 15 fps: frames 2/15 s of the run apart, 1 s of GIF."""
    result = slider(v0=0.2, t_end=2.0)
    n, ms = animated(result, tmp_path / "fast.gif", fps=15, speed=2.0)
    assert n == len(ms) == 16
    assert abs(ms.sum() - 1000.0) <= CS


def test_a_run_that_ends_between_frames_lasts_to_its_end(tmp_path):
    """1.05 s at 10 fps: frames at 0, 0.1, ..., 1.0 s; the last holds until 1.05 s (its half
    step from 0.95 s and the 0.05 s to the end): 1.05 s in all, not 1.0 or 1.1."""
    result = slider(v0=0.2, t_end=1.05)
    assert result.t[-1] == pytest.approx(1.05)
    n, ms = animated(result, tmp_path / "odd.gif", fps=10)
    assert n == 11
    assert abs(ms.sum() - 1050.0) <= CS
    assert abs(ms[-1] - 100.0) <= CS


def test_a_mode_gif_loops_one_second_a_cycle(tmp_path):
    """viz.animate_mode: 2 cycles at 12 fps are 24 frames, the closing one left out so that
    the loop has no hitch; each frame held 1/12 s (83.3 ms) to 10 ms, 2 s in all."""
    linear = mbd.equilibrium(pendulum()).linear
    path = tmp_path / "mode.gif"
    n = viz.animate_mode(linear, 0, path, cycles=2, fps=12, size=SIZE, lighting=False,
                         progress=False)
    ms = durations(path)
    assert n == len(ms) == 24
    assert abs(ms.sum() - 2000.0) <= CS
    assert np.abs(ms - 1000.0 / 12).max() <= CS
    assert np.abs(np.cumsum(ms) - 1000.0 * np.arange(1, 25) / 12).max() <= CS / 2


def test_more_than_fifty_frames_a_second_in_a_gif_is_refused(tmp_path):
    """A GIF's delays are whole centiseconds: at 60 fps they would be 10 or 20 ms, and
    browsers show 10 ms as 100 ms; the message says why and what to do, nothing written."""
    result = slider(t_end=0.2)
    with pytest.raises(ValueError, match=r"^animate: a GIF holds at most 50 frames a second "
                                         r"\(its delays are whole centiseconds.*got fps=60; "
                                         r"give a lower fps or write an \.mp4$"):
        viz.animate(result, tmp_path / "x.gif", fps=60, size=SIZE, progress=False)
    assert list(tmp_path.iterdir()) == []
    # 50 fps is the most: every delay 20 ms but the first and the last (10 ms, half a step:
    # no room to take from a neighbour), 0.2 s in all
    n, ms = animated(slider(v0=0.2, t_end=0.2), tmp_path / "fifty.gif", fps=50)
    assert n == len(ms) == 11 and abs(ms.sum() - 200.0) <= CS
