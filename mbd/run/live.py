"""A live simulation: a run stepped from someone else's loop (SPEC §9, ``system.start``).

The run is the same piece loop as :func:`mbd.run.simulate.simulate`'s, driven a stretch at a
time: :meth:`Simulation.advance_to` steps until a step reaches the time asked for and reads
the state there from that step's dense output, leaving the integrator where it is. Nothing
restarts at a communication point, so a run stepped in many small stretches takes the very
steps of one long run, and writes the same rows (with an output grid: ``t_end`` and
``output_step``). Where something changes there (an input set to a new value, a snapshot
taken), the run ends its piece at that instant and begins the next one from the state there:
rows and events are then exact at the change. Where the piece itself ends at the time asked
for (a controller's sample instant, ``t_end``, a crossing), it ends there as in one run, and
the sample due there is taken before :meth:`Simulation.advance_to` returns, even when an
earlier advance's step had already reached that end (:attr:`mbd.run.pieceloop.Run.reached`):
after ``advance_to(t)`` the state, the reads and the samples are one run's at t.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np

from ..control import Input, Output, Sensor
from ..control.controllers import output_named
from ..model import values
from ..model.state import State
from .controls import Reader
from .evaluator import Evaluator
from .failures import projected
from .result import Result
from .settings import MAX_STEPS
from .simulate import prepare

if TYPE_CHECKING:     # (hints only: the model and system stages are below)
    from scipy.integrate import OdeSolver

    from ..model.elements import JointTarget
    from ..system.system import System


class Snapshot:
    """A live simulation's state at one instant (:meth:`Simulation.save`): restored, the run
    repeats bit for bit."""

    def __init__(self, **parts: Any) -> None:
        self.__dict__.update(parts)

    def __repr__(self):
        return f"Snapshot(t = {self.t!r} s)"


class Simulation:
    """A live simulation of a built system (``system.start(...)``); see the module.

    Attributes
    ----------
    t : float
        The time reached, s.
    state : mbd.State
        The state there (q, v).
    """

    def __init__(self, system: System, t_end: float | None = None,
                 output_step: float | None = None, t0: float = 0.0,
                 q0: dict[str, JointTarget] | None = None,
                 v0: dict[str, JointTarget] | None = None, rtol: float | None = None,
                 atol: float | None = None, method: str | type[OdeSolver] = "DOP853",
                 max_step: float = np.inf, exact_switching: bool = True,
                 compiled: bool | None = None, max_steps: int = MAX_STEPS) -> None:
        if t_end is None and output_step is not None:
            raise ValueError("start: output_step needs t_end (the rows are t0, t0 + "
                             "output_step, ..., t_end); without t_end a row is written at "
                             "every time advanced to")
        self.grid = t_end is not None
        horizon = t_end if self.grid else values.real(t0, "start: t0") + 1.0
        self.run, y = prepare(system, horizon, output_step, t0, q0, v0, rtol, atol, method,
                              max_step, exact_switching, False, compiled, max_steps,
                              times=None if self.grid else np.array([float(t0)]))
        if not self.grid:
            self.run.t_end = np.inf
        stepper_record = getattr(self.run.stepping, "S", None)
        if stepper_record is not None:      # the compiled loop: its dense output at pauses
            stepper_record["dense_on_pause"] = 1
        self.system = system
        self.named = {c.name: c for c in system.controls}     # read by every step's calls
        self.t_end = self.run.t_end
        self.open = False        # a piece is being stepped (the integrator may be past t)
        self.t = self.run.t0
        self.y = self.run.guarded(self.run.begin, self.t, y)

    # ------------------------------------------------------------------ time

    @property
    def state(self) -> State:
        """The state at :attr:`t`: an :class:`mbd.State` (q, v)."""
        s = self.system
        return State(self.t, self.y[:s.nq].copy(), self.y[s.nq:s.nq + s.nv].copy())

    def advance_to(self, t: float) -> State:
        """Integrate to time t (s), events inside exact, the controllers' samples due at t
        taken (as one run takes them); returns the state there."""
        t = values.real(t, "advance_to: t", f">= the time reached, {self.t!r} s, and <= "
                        f"t_end = {self.t_end!r} s",
                        lambda x: self.t <= x <= self.t_end)
        if t > self.t:
            self.run.guarded(self._advance, t)
        return self.state

    def step(self, dt: float) -> State:
        """Integrate dt (s) on from the time reached; returns the state there."""
        dt = values.real(dt, "step: dt", "> 0 and finite", lambda x: 0.0 < x < np.inf)
        return self.advance_to(self.t + dt)

    def _advance(self, stop):
        run = self.run
        if not self.grid:       # no end, no total to budget: max_steps bounds each advance
            run.counted_from = run.stepping.nsteps
        while self.t < stop:
            if self.open and self._passed(stop):
                self.t, self.y = stop, self._state_at(stop)
                break
            if not self.open:
                run.start_piece(self.t, self.y)
                self.open = True
            ended = run.go_on(stop)
            if ended is None:          # a step reached stop, the piece goes on
                self.t, self.y = stop, self._state_at(stop)
                break
            t, y = ended
            self.open = False
            self.t, self.y = t, run.sample(t, y)
        if not self.grid:
            run.rows.row(self.t, self.y)

    def _passed(self, t):
        """Whether the open piece's last step lies past t (s), or reaches t inside the piece.
        Not when what ends the piece (its pending crossing, or its end reached: a sample
        instant, t_end) is at t: the piece then ends at t as in one run, and the sample due
        at t is taken before the advance returns."""
        run = self.run
        end = run.pending if run.pending is not None else run.reached
        return end[0] > t if end is not None else run.stepping.t >= t

    def _state_at(self, t):
        """The state at t (s) inside the open piece's last step, on the constraints."""
        pending = self.run.pending
        y = pending[2](t) if pending is not None else self.run.stepping.state_at(t)
        return projected(self.run.ev, t, y) if self.run.ev.constrained else y

    def _commit(self):
        """End the open piece at the time reached: what the integrator computed past it
        (rows, a pending crossing) is dropped, and the next piece begins there."""
        if not self.open:
            return
        run = self.run
        if run.pending is not None:    # the rows of the step with the crossing, up to t
            run.rows.until(self.t, run.pending[2])
        run.pending = run.reached = None
        self.open = False
        run.rows.keep_until(self.t)

    # ------------------------------------------------------------------ inputs and reading

    def set_input(self, name: str, value: float) -> None:
        """Hold Input ``name`` at ``value`` from the time reached on (until set again)."""
        inputs = [n for n, c in self.named.items() if isinstance(c, Input)]
        if not isinstance(self.named.get(name), Input):
            raise KeyError(f"set_input: no input '{name}'; the inputs are "
                           f"{sorted(inputs) or 'none'}")
        value = values.real(value, f"set_input: '{name}'", "finite", np.isfinite)
        controls = self.run.controls
        if controls.held_at(self.t)[controls.column[name]] == value:
            return
        self._commit()
        controls.set_input(self.run.ev, self.t, name, value)
        if self.run.locks:       # a stuck joint may break free under the new load
            self.y = self.run.guarded(self.run.locks.settle, self.t, self.y)
        if self.run.patches:     # and a stuck contact patch
            self.y = self.run.guarded(self.run.patches.settle, self.t, self.y)

    def read(self, name: str) -> float | np.ndarray:
        """The value at the time reached of a sensor, an input or a controller's output,
        named as everywhere else (``"pid"``: its output 0, ``"ctrl[1]"``: output 1), or of
        any measured quantity (``"hinge.q"``, ``"arm.tip.z"``; see
        :mod:`mbd.control.signals`). At a sample instant a discrete controller's output is
        the one it took there (held from that instant on, as a Result's rows show it)."""
        item = self.named.get(name)
        if not isinstance(item, (Input, Sensor)):
            try:
                output = output_named(self.named, name)
            except KeyError as err:
                raise KeyError(f"read: {err.args[0]}") from None
            item = item if output is None else output
        controls = self.run.controls
        if isinstance(item, Input) or (isinstance(item, Output)
                                       and item.controller.period is not None):
            return float(controls.held_at(self.t)[controls.column[item.key]])
        if isinstance(item, Output):        # a continuous controller's
            return float(controls.continuous_output(item.controller, self.t,
                                                    self.y)[item.k])
        what = item.what if isinstance(item, Sensor) else name
        try:
            reader = Reader(self.system, what)
        except ValueError as err:
            raise KeyError(f"read: '{name}' is no sensor, input or controller output of the "
                           f"model, nor a measured quantity: {err}") from None
        evaluator = (controls.rows_evaluator() if controls is not None
                     else Evaluator(self.system))
        return reader.at(self.t, self.y, self.run.sides.copy(), evaluator)

    # ------------------------------------------------------------------ snapshots and result

    def save(self) -> Snapshot:
        """A :class:`Snapshot` of the run at the time reached (a piece boundary from now on, so
        that the run goes on from it exactly as a restored one does)."""
        self._commit()
        run, rows = self.run, self.run.rows
        return Snapshot(t=self.t, y=self.y.copy(), mode=run.ev.data.mode.copy(),
                        drivers=run.ev.data.drivers.copy(),
                        rows=rows.snapshot(),
                        events=list(run.events), watch=copy.deepcopy(run.watch),
                        logged=None if run.logged is None else run.logged.copy(),
                        controls=None if run.controls is None else run.controls.snapshot())

    def restore(self, snapshot: Snapshot) -> None:
        """Go back (or forth) to the instant of ``snapshot`` (from :meth:`save` of this
        simulation)."""
        if not isinstance(snapshot, Snapshot):
            raise TypeError(f"restore: a Snapshot from save() is needed, got {snapshot!r}")
        run, rows = self.run, self.run.rows
        self.open, run.pending, run.reached = False, None, None
        self.t, self.y = snapshot.t, snapshot.y.copy()
        run.ev.data.mode[:] = snapshot.mode
        run.ev.data.drivers[:] = snapshot.drivers
        run.ev.data.loop[0]["rank"] = -1          # the lock rows may differ: rank again
        rows.restore(snapshot.rows)
        run.events[:] = list(snapshot.events)
        run.watch = copy.deepcopy(snapshot.watch)
        run.logged = None if snapshot.logged is None else snapshot.logged.copy()
        if run.controls is not None:
            saved = snapshot.controls.snapshot()
            for name in ("times", "values", "samples", "k", "x"):
                setattr(run.controls, name, getattr(saved, name))
            run.controls.apply(run.ev, self.t, self.y)

    def result(self) -> Result:
        """The rows up to the time reached, as a :class:`mbd.Result`."""
        result = self.run.result()
        keep = np.flatnonzero(result.t <= self.t)
        if len(keep) == len(result.t):
            return result
        return Result.of_parts(self.system, result.t[keep], result.q[keep], result.v[keep],
                               None if result.work is None else result.work[keep],
                               result.controller_states[keep], events=result.events,
                               stats=result.stats, sides=result.sides_of(keep),
                               controls=result.controls)

    def __repr__(self):
        return f"Simulation({self.system.name!r}, t = {self.t!r} s)"

