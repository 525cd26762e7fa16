"""Laws evaluated from Python (``law(x, v)``, ``law.sides(x, v)``) through the same compiled
functions the run integrates, so a law called alone and a law in a run agree to the bit."""
import numpy as np
from numba.core.dispatcher import Dispatcher

from ..model.forceelements import Law
from . import lawkernels
from .layout import LAW_SWITCHES

#: rows of parameters copied at a time where a law's energy is read from a view of them
#: (:meth:`CompiledLaw.energy`): a buffer that stays in cache, not n x MAX_PARAMS floats
ENERGY_BLOCK = 4096


class CompiledLaw(Law):
    """A law of a registered kind evaluated from Python through its kind's compiled functions (the
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
        """The force (N) or torque (N m) on the follower along +x at the coordinate x (m or
        rad), its rate v (m/s or rad/s) and time t (s); by default in the branch the state
        selects, else in ``sides`` (LAW_SWITCHES,) of {-1, +1}.

        x, v and t may be arrays: the law is then evaluated element by element over their
        broadcast shape and returns an array of that shape (``sides``, when given, holds for
        every element, or has that shape + (LAW_SWITCHES,)); scalars give a float.
        """
        if np.ndim(x) == 0 and np.ndim(v) == 0 and np.ndim(t) == 0:
            row, x, v, s = self._inputs(x, v, t, sides)
            return float(lawkernels.force(self.code, row, x, v, s))
        x, v, t = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(v, dtype=float),
                                      np.asarray(t, dtype=float))
        if sides is not None:
            sides = np.asarray(sides, dtype=float)
            sides = np.broadcast_to(sides, x.shape + sides.shape[-1:])
        out = np.empty(x.shape)
        # one parameter row for one time (built once), else a row per element
        row = (lawkernels.parameter_row(self, float(t.flat[0]))
               if out.size and np.all(t == t.flat[0]) else None)
        for i in np.ndindex(x.shape):
            p = row if row is not None else lawkernels.parameter_row(self, float(t[i]))
            xi, vi = float(x[i]), float(v[i])
            # a writable copy: the compiled functions are typed for the arrays they are given
            s = self._sides(p, xi, vi) if sides is None else np.array(sides[i])
            out[i] = lawkernels.force(self.code, p, xi, vi, s)
        return out

    def energy(self, x, params, sides=None):
        """Potential energy (J) stored at the rows ``x`` (n,), with the parameter rows in use
        ``params`` (n, MAX_PARAMS) and the sides (n, LAW_SWITCHES; by default all +1), by the
        kind's compiled ``energy`` (zeros for a kind without one)."""
        x = np.ascontiguousarray(x, dtype=float).reshape(-1)
        params = np.asarray(params, dtype=float)
        params = params.reshape(len(x), params.shape[-1] if params.ndim else 1)
        sides = (np.ones((len(x), LAW_SWITCHES)) if sides is None
                 else np.ascontiguousarray(np.asarray(sides, dtype=float)[:, :LAW_SWITCHES]))
        out = np.empty(len(x))
        if params.flags.c_contiguous:
            lawkernels.energies(self.code, params, x, sides, out)
            return out
        # a view (often one row for all: a broadcast): copied a block of rows at a time into
        # one buffer, not into an array of n x MAX_PARAMS
        block = np.empty((min(ENERGY_BLOCK, len(x)), params.shape[1]))
        for start in range(0, len(x), ENERGY_BLOCK):
            stop = min(start + ENERGY_BLOCK, len(x))
            rows = block[:stop - start]
            rows[:] = params[start:stop]
            lawkernels.energies(self.code, rows, x[start:stop], sides[start:stop],
                                out[start:stop])
        return out

    def switching(self, x, v=0.0, t=0.0, sides=None):
        """The switching functions (LAW_SWITCHES,) at (x, v, t); branches change at their
        zeros."""
        row, x, v, s = self._inputs(x, v, t, sides)
        g = np.zeros(LAW_SWITCHES)
        lawkernels.switching(self.code, row, x, v, s, g)
        return g
