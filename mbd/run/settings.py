"""The steppers' settings: one frozen record of a run's tolerances and step limits, and the one
rule of the error weight.

Every stepper, compiled or scipy's, and the chattering watch judge an error by the same weight
per state entry, ``atol + |y| rtol`` (:func:`weight`): an error below it is within the
tolerances. It is written once, here, for compiled code and Python alike.
"""
from dataclasses import dataclass, replace

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
    first_step : float
        The first step of a piece, s; 0: Hairer's rule from the derivatives there. The piece
        loop sets it for the piece after a switch (:meth:`starting_with`).
    """

    rtol: float
    atol: float
    max_step: float = np.inf
    max_steps: int = MAX_STEPS
    first_step: float = 0.0

    def weights(self, y):
        """The error weights of a state y (an array, in y's units)."""
        return _weight(self, np.abs(y))

    def starting_with(self, first_step):
        """These settings for a piece that begins with a step of ``first_step`` s (0: by
        Hairer's rule)."""
        if first_step == self.first_step:
            return self
        return replace(self, first_step=float(first_step))

    def record(self):
        """The compiled steppers' copy: a 1-record array of :data:`mbd.compiled.layout.SETTINGS`."""
        # the fields in the record's order, spelled out: made at every piece, this is fast
        return np.array([(self.rtol, self.atol, self.first_step, self.max_step)],
                        dtype=layout.SETTINGS)
