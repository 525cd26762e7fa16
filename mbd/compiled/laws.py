"""Laws evaluated from Python (``law(x, v)``, ``law.sides(x, v)``) through the same compiled
dispatch the run integrates, so a law called alone and a law in a run agree to the bit."""
import numpy as np

from ..model.elements import Law
from . import lawkernels
from .layout import LAW_SWITCHES


class CompiledLaw(Law):
    """A law of a registered kind evaluated from Python through the compiled dispatch (the
    formulas the run integrates): every built-in law class extends it."""

    def sides(self, x, v, t=0.0):
        """The branch the state selects: sides (LAW_SWITCHES,) in {-1, +1}."""
        s = np.ones(LAW_SWITCHES)
        lawkernels.natural_sides(self.code, lawkernels.parameter_row(self, t), float(x), float(v), s,
                      np.zeros(LAW_SWITCHES))
        return s

    def __call__(self, x, v=0.0, t=0.0, sides=None):
        """The force (N) or torque (N m) on the follower along +x; by default in the branch the
        state selects."""
        s = self.sides(x, v, t) if sides is None else np.asarray(sides, dtype=float)
        return float(lawkernels.force(self.code, lawkernels.parameter_row(self, t), float(x), float(v), s))

    def switching(self, x, v=0.0, t=0.0, sides=None):
        """The switching functions (LAW_SWITCHES,) at (x, v, t); branches change at their
        zeros."""
        s = self.sides(x, v, t) if sides is None else np.asarray(sides, dtype=float)
        g = np.zeros(LAW_SWITCHES)
        lawkernels.switching(self.code, lawkernels.parameter_row(self, t), float(x), float(v), s, g)
        return g
