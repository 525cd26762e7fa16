"""A crossing located on a compiled step's dense output, for either compiled stepper.

When a compiled stepper returns CROSSED (:mod:`mbd.run.steppers.stepping`), the last step's dense
output (DOP853's interpolant F, :func:`mbd.run.steppers.dop853.dense_value`, or Radau's collocation
polynomial Q, :func:`mbd.run.steppers.radau.dense_value`) is where the switching function changed
sign; the run finds where with the one Illinois iteration of :mod:`mbd.compiled.events`, compiled:
:func:`locate_on_step` calls :func:`switching_on_step` through its address, on a context tuple
(:func:`step_context`) that names the step, the method and the switching function.
"""
from ...compiled import events
from ...compiled.controlkernels import take
from ...compiled.forcekernels import signal_values
from ...compiled.jit.jitcache import njit
from ...compiled.jit.native import call4
from ...compiled.layout import ONE_ELEMENT, SWITCHING
from ...compiled.statekernels import alone
from . import dop853, radau
from .stepping import DENSE_DOP853, DENSE_RADAU

#: which dense output a context holds: DOP853's interpolant or Radau's polynomial
DOP853, RADAU = DENSE_DOP853, DENSE_RADAU


@njit(inline="always")
def _dense_value(method, t, t_old, h, y_old, coefficients, out):
    """The step's dense output at time t, into out, by the method's own formula."""
    if method == RADAU:
        radau.dense_value(t, t_old, h, y_old, coefficients, out)
    else:
        dop853.dense_value(t, t_old, h, y_old, coefficients, out)


@njit()
def switching_on_step(t, context):
    """Switching function (i, k) at time t of the step's dense output in ``context``: a
    law's of its element alone where it depends on nothing else
    (:func:`mbd.compiled.statekernels.alone`), else all of them."""
    method, i, k, t_old, h, y_old, coefficients, y, g, switch, data = context
    _dense_value(method, t, t_old, h, y_old, coefficients, y)
    signal_values(t, data.elements)
    take(t, y, data)
    call4(switch, y, g, data, ONE_ELEMENT + i if alone(i, k, data) else SWITCHING)
    return g[i, k]


@njit()
def locate_on_step(g_on_step, context, side, ta, tb, tol):
    """Where switching function (i, k) of ``context`` leaves the side ``side`` (+-1) in
    (ta, tb] (s) of the step's dense output (:func:`mbd.compiled.events.illinois`, compiled):
    ``g_on_step`` is the address of :func:`switching_on_step`."""
    return events.illinois(g_on_step, context, ta, tb, side, tol)


def step_context(method, i, k, t_old, h, y_old, coefficients, y, g, switch, data):
    """The context tuple of :func:`switching_on_step`: the method (:data:`DOP853` or
    :data:`RADAU`), switching function (i, k), the step's start t_old (s), size h (s), start
    state y_old and dense-output coefficients, scratch y (n,) and g (nf, SWITCHES), the
    switching function's address and the data it evaluates."""
    return (method, i, k, t_old, h, y_old, coefficients, y, g, switch, data)
