"""A one-line progress bar on stderr for long runs (simulation, rendering).

The bar redraws itself in place (carriage return, no newline) at most ``1 / min_interval``
times a second, so it costs nothing measurable inside an integration loop, and ends with a
newline when closed. It draws only when asked to: ``enabled(None)`` means "when stderr is a
terminal", so piped or logged output stays clean.
"""
import sys
import time


def enabled(progress, stream=None):
    """Whether to draw: ``progress`` True/False as given; None: when ``stream`` (default
    ``sys.stderr``) is a terminal."""
    if progress is None:
        stream = sys.stderr if stream is None else stream
        try:
            return bool(stream.isatty())
        except (AttributeError, ValueError):   # no isatty, or a closed stream
            return False
    return bool(progress)


class ProgressBar:
    """A throttled one-line bar: ``label [#####-----]  42% t = 2.1/5 s  3 events  1.2 s wall``.

    Parameters
    ----------
    start, end : float
        The range of the quantity that advances (e.g. simulated time, s).
    enabled : bool
        False: every call does nothing.
    label : str
        Text before the bar.
    unit : str
        Unit of the advancing quantity, shown after its value ("s"; "" for a count).
    stream : file, optional
        Where to draw (default ``sys.stderr``, looked up when drawing).
    min_interval : float
        Least wall time between redraws, s.
    width : int
        Number of characters of the bar itself.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> bar = ProgressBar(0.0, 2.0, enabled=True, label="sim", stream=out, min_interval=0.0)
    >>> bar.update(1.0, events=3)
    >>> bar.close()
    >>> "50%" in out.getvalue() and "3 events" in out.getvalue() and out.getvalue().endswith("\\n")
    True
    """

    def __init__(self, start, end, enabled=True, label="", unit="s", stream=None,
                 min_interval=0.1, width=30):
        self.start, self.end = float(start), float(end)
        self.enabled = bool(enabled)
        self.label, self.unit = label, unit
        self._stream = stream
        self.min_interval = float(min_interval)
        self.width = int(width)
        self.started = time.perf_counter()
        self._last_draw = -float("inf")
        self._drawn = False
        self._value, self._events = self.start, None

    @property
    def stream(self):
        return sys.stderr if self._stream is None else self._stream

    def update(self, value, events=None, force=False):
        """Record progress ``value`` (and the count of ``events``); redraw if due."""
        if not self.enabled:
            return
        self._value, self._events = value, events
        now = time.perf_counter()
        if force or now - self._last_draw >= self.min_interval:
            self._last_draw = now
            self._draw(now)

    def line(self, now=None):
        """The text of the bar as it stands."""
        now = time.perf_counter() if now is None else now
        span = self.end - self.start
        frac = 1.0 if span <= 0 else min(max((self._value - self.start) / span, 0.0), 1.0)
        filled = int(round(frac * self.width))
        unit = f" {self.unit}" if self.unit else ""
        parts = [f"{self.label} " if self.label else "",
                 f"[{'#' * filled}{'-' * (self.width - filled)}] {100 * frac:3.0f}%",
                 f"  t = {self._value:.4g}/{self.end:.4g}{unit}" if self.unit == "s"
                 else f"  {self._value:.0f}/{self.end:.0f}{unit}"]
        if self._events is not None:
            parts.append(f"  {self._events} event{'' if self._events == 1 else 's'}")
        parts.append(f"  {now - self.started:.1f} s wall")
        return "".join(parts)

    def _draw(self, now):
        try:
            self.stream.write("\r" + self.line(now) + "\033[K")   # \033[K: clear the rest
            self.stream.flush()
            self._drawn = True
        except (OSError, ValueError):   # a closed or broken stream must not stop the run
            self.enabled = False

    def close(self):
        """Draw the final state and end the line (only if anything was drawn)."""
        if not self.enabled:
            return
        self._draw(time.perf_counter())
        try:
            self.stream.write("\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass
        self.enabled = False
