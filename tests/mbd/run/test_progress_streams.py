"""The progress bar where stderr is not a working terminal: no stderr at all (``pythonw``, a
service: ``sys.stderr`` is None), a stderr without ``isatty``, a closed stderr, a pipe that
breaks. ``progress=None`` ("when stderr is a terminal") draws nothing there, and a bar asked
for with ``progress=True`` stops drawing instead of stopping the run: the run's rows are
those of a run without a bar.
"""
import io

import numpy as np
import pytest

import mbd
from joints import Prismatic
from mbd.run.progress import ProgressBar, enabled


def slider():
    """A 1 kg block sliding at 1 m/s, no forces: x = t."""
    m = mbd.Model("slider")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    block = m.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=[0.1] * 3)
    m.add(Prismatic("rail", g, block["cg"], axis=(1, 0, 0), v0=1.0))
    return m.build()


class Closed(io.StringIO):
    """A stream closed before the run: writing, flushing or asking isatty raises ValueError."""

    def __init__(self):
        super().__init__()
        self.close()


class BrokenPipe:
    """A terminal whose reader goes away after ``good`` writes: every later write raises
    BrokenPipeError (an OSError). ``text``: what was written."""

    def __init__(self, good=0):
        self.good, self.writes, self.text = good, 0, ""

    def isatty(self):
        return True

    def write(self, text):
        self.writes += 1
        if self.writes > self.good:
            raise BrokenPipeError(32, "Broken pipe")
        self.text += text

    def flush(self):
        pass


class NoTty:
    """A file-like object with write and flush only (a logger's adapter)."""

    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text

    def flush(self):
        pass


@pytest.mark.parametrize("stream", [None, NoTty(), Closed()], ids=["none", "no-isatty", "closed"])
def test_progress_none_draws_only_on_a_terminal_and_these_are_none(stream, monkeypatch):
    monkeypatch.setattr("sys.stderr", stream)
    assert enabled(None) is False
    assert enabled(None, stream) is False
    result = slider().simulate(0.5, output_step=0.1, progress=None)
    np.testing.assert_allclose(result.joint("rail").q, result.t, atol=1e-12)
    if isinstance(stream, NoTty):
        assert stream.text == ""


@pytest.mark.parametrize("make", [Closed, BrokenPipe], ids=["closed", "broken-pipe"])
def test_a_bar_on_a_stream_that_fails_stops_drawing_and_the_run_goes_on(make, monkeypatch):
    stream = make()
    monkeypatch.setattr("sys.stderr", stream)
    result = slider().simulate(0.5, output_step=0.1, progress=True)
    quiet = slider().simulate(0.5, output_step=0.1, progress=False)
    np.testing.assert_array_equal(result.t, quiet.t)
    np.testing.assert_array_equal(result.q, quiet.q)
    if isinstance(stream, BrokenPipe):
        # the first failed write turned the bar off: nothing more was tried, not even the
        # line's end
        assert stream.writes == 1


def test_a_bar_whose_stream_breaks_after_drawing_is_off_and_closes_quietly():
    """The first draw is written; the stream breaks before the next: the bar is off from the
    failed draw on, and closing it raises nothing and writes nothing more."""
    stream = BrokenPipe(good=1)
    bar = ProgressBar(0.0, 2.0, enabled=True, label="sim", stream=stream, min_interval=0.0)
    bar.update(1.0)
    assert stream.text.startswith("\rsim [" + "#" * 15 + "-" * 15 + "]  50%  t = 1/2 s")
    bar.update(1.5)
    assert not bar.enabled and stream.writes == 2
    bar.close()
    assert stream.writes == 2


def test_a_bar_whose_stream_breaks_at_the_end_closes_quietly():
    """The stream breaks between the last update and close: close's final draw and its
    newline both fail, and the bar ends off, without raising."""
    stream = BrokenPipe(good=1)
    bar = ProgressBar(0.0, 2.0, enabled=True, stream=stream, min_interval=0.0)
    bar.update(2.0)
    bar.close()
    assert not bar.enabled
    assert stream.writes == 3                # the draw, close's draw and its newline
    assert "100%" in stream.text and not stream.text.endswith("\n")
