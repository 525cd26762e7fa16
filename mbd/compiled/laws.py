"""Laws evaluated from Python (``law(x, v)``, ``law.sides(x, v)``) through the same compiled
dispatch the run integrates, so a law called alone and a law in a run agree to the bit."""
import numpy as np
from numba.core.dispatcher import Dispatcher

from ..model.elements import Law
from . import lawkernels
from .layout import LAW_SWITCHES


class CompiledLaw(Law):
    """A law of a registered kind evaluated from Python through the compiled dispatch (the
    formulas the run integrates): every built-in law class extends it."""

    #: the slot of its parameter row that its ``signal`` (a function of time) gives
    signal_slot = 0

    @property
    def compiled_signal(self):
        """Its ``signal`` when that is a numba function of t alone (a dispatcher, or a
        :class:`mbd.control.Table`'s compiled form), which the run's compiled right-hand side
        calls itself (:func:`mbd.compiled.forcekernels.signal_values`); None for a constant,
        a Python function or a function of the state."""
        fn = getattr(self, "signal", None)
        if getattr(self, "_arity", 1) != 1:
            return None
        fn = getattr(fn, "compiled_function", fn)        # a Table: its compiled form
        return fn if isinstance(fn, Dispatcher) else None

    def _sides(self, row, x, v):
        s = np.ones(LAW_SWITCHES)
        lawkernels.natural_sides(self.code, row, x, v, s, np.zeros(LAW_SWITCHES))
        return s

    def _inputs(self, x, v, t, sides):
        """(parameter row, x, v, sides): the row built once, the sides the state's when not
        given."""
        row, x, v = lawkernels.parameter_row(self, t), float(x), float(v)
        s = self._sides(row, x, v) if sides is None else np.asarray(sides, dtype=float)
        return row, x, v, s

    def sides(self, x, v, t=0.0):
        """The branch the state selects: sides (LAW_SWITCHES,) in {-1, +1}."""
        return self._sides(lawkernels.parameter_row(self, t), float(x), float(v))

    def __call__(self, x, v=0.0, t=0.0, sides=None):
        """The force (N) or torque (N m) on the follower along +x; by default in the branch the
        state selects."""
        row, x, v, s = self._inputs(x, v, t, sides)
        return float(lawkernels.force(self.code, row, x, v, s))

    def energy(self, x, params, sides=None):
        """Potential energy (J) stored at the rows ``x`` (n,), with the parameter rows in use
        ``params`` (n, MAX_PARAMS) and the sides (n, LAW_SWITCHES; by default all +1), by the
        kind's compiled ``energy`` (zeros for a kind without one)."""
        x = np.ascontiguousarray(x, dtype=float).reshape(-1)
        params = np.ascontiguousarray(params, dtype=float).reshape(len(x), -1)
        sides = (np.ones((len(x), LAW_SWITCHES)) if sides is None
                 else np.ascontiguousarray(np.asarray(sides, dtype=float)[:, :LAW_SWITCHES]))
        out = np.empty(len(x))
        lawkernels.energies(self.code, params, x, sides, out)
        return out

    def switching(self, x, v=0.0, t=0.0, sides=None):
        """The switching functions (LAW_SWITCHES,) at (x, v, t); branches change at their
        zeros."""
        row, x, v, s = self._inputs(x, v, t, sides)
        g = np.zeros(LAW_SWITCHES)
        lawkernels.switching(self.code, row, x, v, s, g)
        return g
