"""A run's result rows: the state at exact multiples of ``output_step`` and at every event.

Rows come from a step's dense output, in the branches of the piece that step belongs to (a
row past a crossing is written by the next piece), projected onto the constraints; the
compiled steppers write theirs inside the step loop and hand them over (:meth:`OutputRows.take`).
An event's row stands for an output time it hits exactly. Each row keeps the sides of every
switching function there, so the result can tell the branch of every law at every row.

The rows are kept in blocks of :data:`BLOCK_ROWS` rows (times and states), allocated as
they fill: a row costs a copy into its block, and the Result (of a finished run, or the
partial one of an interrupted run) is one copy of the blocks, whatever the number of rows.
Only the block holding the next row is ever written; the blocks before it are left as they
are, so that a live simulation's snapshot (:meth:`OutputRows.snapshot`) shares them. The
sides change only where a law switches: they are kept as runs of equal rows
(:class:`mbd.run.result.SideRuns`), not a copy a row.

Given a folder (``simulate(..., rows_to=folder)``), the full blocks are also written there as
the run goes (:class:`mbd.run.rowfiles.RowFiles`), and the Result reads the files instead of
a copy of the blocks.
"""
import bisect

import numpy as np

from ..compiled import layout
from ..compiled.jit import interrupts
from .failures import Failed, projected
from .result import Result, SideRuns, row_parts
from .rowfiles import RowFiles

#: rows per block of storage: large enough that the blocks of millions of rows are a few
#: hundred arrays, small enough that a short run's first block costs little (its pages are
#: only touched as rows are written)
BLOCK_ROWS = 8192


class OutputRows:
    """The rows of one run.

    Parameters
    ----------
    ev : mbd.run.evaluator.Evaluator
        The run's data (its mode's sides are the rows' sides).
    times : ndarray
        The output times, s (:func:`mbd.run.simulate.output_times`).
    exact : bool
        Exact switching; without it each row's branches are selected by its state.
    rows_to : str, path-like or None
        A folder to write the rows to as the run makes them (:class:`RowFiles`); only for a
        run whose rows are only ever added to (``simulate``, not a live simulation's).
    controls : mbd.run.controls.Controls or None
        The run's continuous controllers (their states end each row), for the files' parts.
    """

    def __init__(self, ev, times, exact, rows_to=None, controls=None):
        self.ev, self.times, self.exact = ev, times, exact
        self.rows_to, self.controls = rows_to, controls
        self.files = None     # the RowFiles, made with the first block
        self.next_row = 0     # the index of the next output time to write
        self.n = 0            # the rows written (each whole: n counts a row once it is)
        self.width = None     # the values in a row (the first row's)
        # the blocks, each (times s, states); blocks[:shared] may be a snapshot's too
        self.blocks = []
        self.shared = 0
        # the runs of equal sides: the first row of each, and its sides (a copy)
        self.run_starts, self.run_sides = [], []

    def __len__(self):
        return self.n

    @property
    def due(self):
        """The next output time, s (inf when all are written)."""
        return self.times[self.next_row] if self.next_row < len(self.times) else np.inf

    # ------------------------------------------------------------------ writing

    def _block(self, width):
        """The block that holds row n (made when it is the first row's), and n's place in
        it."""
        b, i = divmod(self.n, BLOCK_ROWS)
        if b == len(self.blocks):
            if self.width is None:
                self.width = width
                if self.rows_to is not None:
                    self.files = RowFiles(self.rows_to, self._file_parts(), self.blocks)
            self.blocks.append(self._new_block())    # one append: a Ctrl-C leaves no half
            if self.files is not None:
                self._files_full(b)
        return self.blocks[b], i

    def _files_full(self, b):
        """The blocks before block b are full: their rows go to the files. Where writing
        failed (a full disk, the folder gone), the run fails saying so; its Result is then
        the rows in memory."""
        try:
            self.files.full(b)
        except OSError as err:
            files, self.files = self.files, None
            files.abandon()
            t = float(self.blocks[b - 1][0][-1])
            raise Failed(f"the rows could not be written to {files.folder} "
                         f"({err.strerror or err}); the result holds them in memory", t) from None

    def _file_parts(self):
        """The files of :class:`RowFiles`: (name, the columns of a row) of each part."""
        q, v, work, states = row_parts(self.ev.system, self.width, self.controls)
        if states is not None and states.stop == states.start:
            states = None        # no controllers: the Result's (n, 0) zeros, no file
        return [("q", q), ("v", v), ("work", work), ("controller_states", states)]

    def _new_block(self):
        """An empty block: its pages are touched only as rows are written."""
        return np.empty(BLOCK_ROWS), np.empty((BLOCK_ROWS, self.width))

    def _sides_from_here(self):
        """Row n on has the current sides: a new run where they differ from the last one's."""
        sides = self.ev.data.mode["sides"]
        if not self.run_sides or not np.array_equal(self.run_sides[-1], sides):
            self.run_starts.append(self.n)
            self.run_sides.append(sides.copy())

    def row(self, t, y):
        """A row at (t, y), projected, with the current sides."""
        y = projected(self.ev, t, y)
        (bt, by), i = self._block(len(y))
        bt[i], by[i] = t, y
        self._sides_from_here()
        self.n += 1           # last: a Ctrl-C above leaves no half-written row counted

    def until(self, t, dense, inclusive=True):
        """The output rows at or before t (before, when not inclusive) from ``dense``, a
        step's dense output (a callable of t)."""
        times = self.times
        while self.next_row < len(times) and (times[self.next_row] < t or
                                              (inclusive and times[self.next_row] <= t)):
            tk = times[self.next_row]
            y = dense(tk)
            if not self.exact:   # the branch at that row, as the state selects it
                self.ev.natural_mode(tk, y)
            self.row(tk, y)
            self.next_row += 1

    def event_row(self, t, y, dense):
        """The row at an event time t, after the output rows before it; it stands for an
        output time it hits exactly."""
        self.until(t, dense, inclusive=False)
        if not self.exact:      # the rows before reset the branches to their own
            self.ev.natural_mode(t, y)
        self.row(t, y)
        if self.due <= t:
            self.next_row += 1

    def take(self, last, states):
        """The rows a compiled stepper wrote, at times[next_row:last] (``states`` (n rows,
        already projected)), in the current sides: copied block by block."""
        first = self.next_row
        if last > first:
            self._sides_from_here()
        while first < last:
            (bt, by), i = self._block(states.shape[1])
            m = min(BLOCK_ROWS - i, last - first)
            bt[i:i + m] = self.times[first:first + m]
            by[i:i + m] = states[first:first + m]
            self.n += m
            first += m
            self.next_row = first
        self.next_row = last

    # ------------------------------------------------------------------ reading

    def state(self, k):
        """Row k (negative: from the end) as (t s, y a copy)."""
        b, i = divmod(k % self.n, BLOCK_ROWS)
        bt, by = self.blocks[b]
        return float(bt[i]), by[i].copy()

    def result(self, events, stats, controls=None):
        """The rows as a :class:`mbd.Result`, with the event log, the run's stats and its
        controls (:class:`mbd.run.controls.Controls`, a snapshot): each row copied once, from
        its block straight into the Result's arrays (t, q, v, work, the controllers' states);
        the sides as their runs."""
        system, n = self.ev.system, self.n
        width = self.width if self.width is not None else system.nq + system.nv
        runs = bisect.bisect_left(self.run_starts, n)    # a Ctrl-C may leave one at n
        sides = SideRuns(self.run_starts[:runs], self.run_sides[:runs] or
                         np.empty((0, len(system.force_elements), layout.SWITCHES)))
        if self.files is not None:      # the rows on disk: read from there, not copied
            writer, self.files = self.files, None
            try:
                with interrupts.held():     # a second Ctrl-C waits: the files end whole
                    files = writer.close(n)
            except OSError:     # the last rows could not be written: the rows in memory
                pass
            else:
                return Result.of_parts(system, files["t"], files["q"], files["v"],
                                       files.get("work"), files.get("controller_states"),
                                       events=events, stats=stats, sides=sides,
                                       controls=controls)
        parts = row_parts(system, width, controls)
        arrays = [None if part is None else np.empty((n, part.stop - part.start))
                  for part in parts]
        t = np.empty(n)
        for (bt, by), start in zip(self.blocks, range(0, n, BLOCK_ROWS)):
            m = min(BLOCK_ROWS, n - start)
            t[start:start + m] = bt[:m]
            for array, part in zip(arrays, parts):
                if array is not None:
                    array[start:start + m] = by[:m, part]
        return Result.of_parts(system, t, *arrays, events=events, stats=stats, sides=sides,
                               controls=controls)

    # ------------------------------------------------------------------ a live run's edits

    def keep_until(self, t):
        """Drop the rows after time t (s): a live simulation ends its piece at t, and the rows
        the integrator wrote past it are not the run's. The output times after t are due
        again."""
        n = self.n
        while n > 0:     # from the last block back (the rows are in time order)
            b = (n - 1) // BLOCK_ROWS
            bt, start = self.blocks[b][0], b * BLOCK_ROWS
            if bt[0] <= t:
                n = start + int(np.searchsorted(bt[:n - start], t, side="right"))
                break
            n = start
        self._truncate(n)
        self.next_row = int(np.searchsorted(self.times, t, side="right"))

    def _truncate(self, n):
        """Keep the first n rows; the block that now holds row n is made the rows' own (a
        snapshot may share it), and the blocks after it are dropped."""
        b, i = divmod(n, BLOCK_ROWS)
        del self.blocks[b + (i > 0):]
        runs = bisect.bisect_left(self.run_starts, n)
        del self.run_starts[runs:], self.run_sides[runs:]
        if i > 0 and b < self.shared:
            self.blocks[b] = tuple(part.copy() for part in self.blocks[b])
        self.shared = min(self.shared, b)
        self.n = n

    def snapshot(self):
        """What :meth:`restore` needs to bring the rows back to the present ones: the full
        blocks, shared (they are not written again), and the rows of the last one, copied."""
        b, i = divmod(self.n, BLOCK_ROWS)
        self.shared = max(self.shared, b)
        last = tuple(part[:i].copy() for part in self.blocks[b]) if i else None
        return (self.n, self.next_row, self.width, self.blocks[:b], last,
                list(self.run_starts), list(self.run_sides))

    def restore(self, snapshot):
        """The rows as they were at :meth:`snapshot` (which stays usable: restored again, the
        same rows)."""
        self.n, self.next_row, self.width, full, last, starts, sides = snapshot
        self.run_starts, self.run_sides = list(starts), list(sides)
        self.blocks, self.shared = list(full), len(full)
        if last is not None:
            block = self._new_block()
            for part, rows in zip(block, last):
                part[:len(rows)] = rows
            self.blocks.append(block)
