"""The steppers' settings: one frozen record of a run's tolerances and step limits, and the one
rule of the error weight.

Every stepper, compiled or scipy's, and the chattering watch judge an error by the same weight
per state entry, ``atol + |y| rtol`` (:func:`weight`): an error below it is within the
tolerances. It is written once, here, for compiled code and Python alike.

Quadratures. A run's state y = [q, v, W, x_c] carries, after q and v, the work accumulators W
(dW/dt = the power of each force element and driver,
:func:`mbd.compiled.evaluator.work_size`): pure quadratures, which no right-hand side
reads. The implicit methods (the compiled Radau IIA, scipy's Radau, BDF and LSODA) integrate
them with the same stages as the rest but leave them out of the error control: the error norm,
the Newton iteration's convergence test and the initial step's rule are RMS norms over the
other entries (q, v and the controllers' states x_c) alone, and the Jacobian has no columns for
them. This is what SUNDIALS' CVODES and IDAS do by default (quadrature variables with ``errconQ
= SUNFALSE``): a quadrature must not steer the step size or the Newton iteration. In an
implicit method it did: its error estimate for W is not filtered through the stiff part as that
of q and v is, and its Newton corrections converge one iteration behind those of q and v;
counted in, W took the stiff benchmark's chain 73 steps, 28 Jacobians and 1403 evaluations,
left out 40, 3 and 357 at the same tolerance (issue 30). W is then as accurate as the integrand
the steps make: on a stiff spring, where a force is the difference of large terms, to about
rtol of the energy it has moved.

The explicit methods (the compiled DOP853, scipy's RK45, RK23, DOP853) keep W in their error
norm: their estimate of W's error is as sound as that of q and v, it cost the stiff box no
steps (2741 and 2732 at rtol 1e-7 and 1e-5), and it is what holds the energy balance at the
tolerance (left out, the damped oscillator's stored energy at rtol 1e-10 was off by 1.05e-9 J,
20 times the 5e-11 J measured with it). Hairer's stiffness test in DOP853 leaves W out (no
right-hand side reads it).
"""
from dataclasses import dataclass

import numpy as np

from ..compiled import layout
from ..compiled.jit.jitcache import njit

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
    quadratures : tuple of int
        (start, stop): the entries y[start:stop] that are quadratures (the work accumulators),
        integrated but left out of the implicit methods' error control (see the module
        docstring); (0, 0): none.

    A piece's first step is the piece's own (``start`` of :mod:`mbd.run.steppers`), not a
    setting of the run: the compiled copy's ``first_step`` field is the stepper's to set at
    each piece's start, in place.
    """

    rtol: float
    atol: float
    max_step: float = np.inf
    max_steps: int = MAX_STEPS
    quadratures: tuple = (0, 0)

    def controlled(self, n):
        """How many of a state's n entries are under error control (all but the
        quadratures)."""
        start, stop = self.quadratures
        return n - max(0, min(stop, n) - start)

    def scipy_tolerances(self, n, rms=True):
        """(rtol, atol) that make a scipy solver on a state of n entries leave the
        quadratures out of its error control: atol = inf for them (an error over an infinite
        weight is 0); and, for a solver whose norm is the RMS over all n entries (``rms``:
        all but LSODA, whose norm is a weighted maximum), rtol and the others' atol
        multiplied by sqrt(n_c / n), so that its mean over n is the mean over the n_c
        controlled entries, as in the compiled steppers. Without quadratures: (rtol, atol)
        themselves."""
        start, stop = self.quadratures
        n_c = self.controlled(n)
        if n_c == n or n_c == 0:
            return self.rtol, self.atol
        factor = np.sqrt(n_c / n) if rms else 1.0
        atol = np.full(n, self.atol * factor)
        atol[start:stop] = np.inf
        return self.rtol * factor, atol

    def weights(self, y):
        """The error weights of a state y (an array, in y's units)."""
        return _weight(self, np.abs(y))

    def record(self):
        """The compiled steppers' copy: a 1-record array of :data:`mbd.compiled.layout.SETTINGS`,
        made once per run; its ``first_step`` is 0 (Hairer's rule) until a stepper sets it."""
        start, stop = self.quadratures
        return np.array([(self.rtol, self.atol, 0.0, self.max_step, start, stop)],
                        dtype=layout.SETTINGS)
