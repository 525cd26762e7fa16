"""A run's result rows: the state at exact multiples of ``output_step`` and at every event.

Rows come from a step's dense output, in the branches of the piece that step belongs to (a
row past a crossing is written by the next piece), projected onto the constraints; the
compiled steppers write theirs inside the step loop and hand them over (:meth:`OutputRows.take`).
An event's row stands for an output time it hits exactly. Each row keeps the sides of every
switching function there, so the result can tell the branch of every law at every row.
"""
import numpy as np

from ..compiled import layout, statefunction as sf
from .failures import projected
from .result import Result


class OutputRows:
    """The rows of one run.

    Parameters
    ----------
    sd : mbd.compiled.statefunction.StateData
        The run's data (its mode's sides are the rows' sides).
    times : ndarray
        The output times, s (:func:`mbd.run.simulate.output_times`).
    exact : bool
        Exact switching; without it each row's branches are selected by its state.
    """

    def __init__(self, sd, times, exact):
        self.sd, self.times, self.exact = sd, times, exact
        self.t, self.y, self.sides = [], [], []
        self.next_row = 0     # the index of the next output time to write

    @property
    def due(self):
        """The next output time, s (inf when all are written)."""
        return self.times[self.next_row] if self.next_row < len(self.times) else np.inf

    def row(self, t, y):
        """A row at (t, y), projected, with the current sides."""
        y = projected(self.sd, t, y)
        self.t.append(t)
        self.y.append(y)
        self.sides.append(self.sd.data.mode["sides"].copy())

    def until(self, t, dense, inclusive=True):
        """The output rows at or before t (before, when not inclusive) from ``dense``, a
        step's dense output (a callable of t)."""
        times = self.times
        while self.next_row < len(times) and (times[self.next_row] < t or
                                              (inclusive and times[self.next_row] <= t)):
            tk = times[self.next_row]
            y = dense(tk)
            if not self.exact:   # the branch at that row, as the state selects it
                sf.natural_mode(self.sd, tk, y)
            self.row(tk, y)
            self.next_row += 1

    def event_row(self, t, y, dense):
        """The row at an event time t, after the output rows before it; it stands for an
        output time it hits exactly."""
        self.until(t, dense, inclusive=False)
        if not self.exact:      # the rows before reset the branches to their own
            sf.natural_mode(self.sd, t, y)
        self.row(t, y)
        if self.due <= t:
            self.next_row += 1

    def take(self, last, states):
        """The rows a compiled stepper wrote, at times[next_row:last] (``states`` (n rows,
        already projected)), in the current sides."""
        first = self.next_row
        if last > first:
            self.t.extend(self.times[first:last])
            self.y.extend(states[first:last])
            self.sides.extend([self.sd.data.mode["sides"].copy()] * (last - first))
        self.next_row = last

    def whole(self):
        """The number of whole rows, trimming one a Ctrl-C left half-appended."""
        n = min(len(self.t), len(self.y), len(self.sides))
        del self.t[n:], self.y[n:], self.sides[n:]
        return n

    def result(self, events, stats, controls=None):
        """The rows as a :class:`mbd.Result`, with the event log, the run's stats and its
        controls (:class:`mbd.run.controls.Controls`, a snapshot)."""
        system = self.sd.system
        n = len(self.t)
        sides = np.array(self.sides).reshape(n, len(system.force_elements), layout.SWITCHES)
        width = (system.nq + system.nv + sf.work_size(system)
                 + (controls.n_states if controls is not None else 0))
        return Result(system, np.array(self.t), np.array(self.y).reshape(n, width),
                      events=events, stats=stats, sides=sides, controls=controls)
