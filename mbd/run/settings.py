"""The steppers' settings: one frozen record of a run's tolerances and step limits, and the one
rule of the error weight.

Every stepper, compiled or scipy's, and the chattering watch judge an error by the same weight
per state entry, ``atol + |y| rtol`` (:func:`weight`): an error below it is within the
tolerances. It is written once, here, for compiled code and Python alike.
"""
from dataclasses import dataclass

import numpy as np

from ..compiled import layout
from ..compiled.jitcache import njit

#: the default step budget of a run (``simulate(max_steps=...)``)
MAX_STEPS = 1_000_000


def _weight(settings, magnitude):
    """The error weight of a state entry of size ``magnitude`` (|y|, or the larger |y| of a
    step's two ends): ``atol + magnitude rtol``, in the entry's SI unit. ``settings`` is a
    :class:`Settings` or its compiled record; ``magnitude`` a float or an array."""
    return settings.atol + magnitude * settings.rtol


#: :func:`_weight` in compiled code (inlined into the steppers' norms)
weight = njit(inline="always")(_weight)


@dataclass(frozen=True)
class Settings:
    """A run's tolerances and step limits, as every stepper reads them.

    Attributes
    ----------
    rtol : float
        Relative tolerance.
    atol : float
        Absolute tolerance, in each state entry's SI unit (m, rad, m/s, rad/s, J).
    max_step : float
        The largest step, s (inf: no limit).
    max_steps : int
        The run's step budget (the piece loop's, :mod:`mbd.run.pieceloop`).

    A piece's first step is the piece's own (``start`` of :mod:`mbd.run.integrators`), not a
    setting of the run: the compiled copy's ``first_step`` field is the stepper's to set at
    each piece's start, in place.
    """

    rtol: float
    atol: float
    max_step: float = np.inf
    max_steps: int = MAX_STEPS

    def weights(self, y):
        """The error weights of a state y (an array, in y's units)."""
        return _weight(self, np.abs(y))

    def record(self):
        """The compiled steppers' copy: a 1-record array of :data:`mbd.compiled.layout.SETTINGS`,
        made once per run; its ``first_step`` is 0 (Hairer's rule) until a stepper sets it."""
        return np.array([(self.rtol, self.atol, 0.0, self.max_step)], dtype=layout.SETTINGS)
