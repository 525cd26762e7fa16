"""Continuous controllers evaluated inside the compiled right-hand side (SPEC §9): what
every controller kind's kernel shares.

A run whose continuous controllers all have a compiled form (the kinds of
:mod:`mbd.control`, each registered with its kernel, :func:`mbd.compiled.registry.register_controller`:
``Gain``, ``StateSpace``, ``PID``, ``Lookup`` of a Table or a Table2D; and a user's numba
``@njit`` ``f(t, x, u) -> (x', y)``; see :meth:`mbd.run.controls.Controls.install`) writes one ``CONTROL`` record per controller into
its data (:mod:`mbd.compiled.layout`), in the order their outputs feed each other. Every
evaluation of the force elements then

1. takes the time and the controllers' states from the run's state y (:func:`take`, at the
   start of the right-hand side and of the switching functions),
2. evaluates the controllers in order (:func:`evaluate`, called where the loads are
   computed, after the links' kinematics): each reads its inputs (a joint's coordinate or
   rate, a CS's world position, velocity or angular velocity, another controller's output, a
   held value written from Python), calls its kind's kernel through its address (each kind
   compiled once, and only for the models that use it) and writes its outputs into the law
   parameters they feed,
3. gives the states' rates to dy (:func:`give`, at the end of the right-hand side).

A kind's kernel is ``kernel(v, data, i) -> int64``: :func:`gather` (its inputs into its
record), its kind's formula, :func:`finish` (the checks; its outputs into the laws); it
returns 0, or :data:`NOT_FINITE`,
:data:`WRONG_RATES` or :data:`WRONG_OUTPUTS`; the right-hand side then returns
:func:`failure` of it (decoded by :func:`failed`).
"""
import math

from . import linkpoints
from .jit.jitcache import njit
from .jit.native import call3
from .layout import CS_ANGULAR_VELOCITY, CS_POSITION, CS_VELOCITY, JOINT_Q, JOINT_V, OUTPUT

#: what a kernel returns when its outputs or state rates are not finite, or (a user's
#: function) when the rates or outputs it returned have the wrong size
NOT_FINITE, WRONG_RATES, WRONG_OUTPUTS = 1, 2, 3

#: the right-hand side's status for controller i failing with code k: FAILED - 4 i - k
FAILED = -1_000_000

#: the parameter row of a PID (``CONTROL.params``)
PID_KP, PID_KI, PID_KD, PID_TF, PID_LO, PID_HI, PID_ANTI_WINDUP = range(7)


@njit(inline="always")
def failure(i, code):
    """The status of controller i failing with ``code``."""
    return FAILED - 4 * i - code


def failed(status):
    """(controller index, code) of a status made by :func:`failure`, or None."""
    if status > FAILED:
        return None
    return (FAILED - status) // 4, (FAILED - status) % 4


@njit(inline="always")
def take(t, y, data):
    """Hold t (s) and every compiled controller's states from y in its record (a y without
    them, [q, v] alone, leaves the states as they are)."""
    control = data.control
    for i in range(control.shape[0]):
        C = control[i]
        C.t = t
        if y.shape[0] >= C.state_at + C.n_states:
            for k in range(C.n_states):
                C.x[k] = y[C.state_at + k]


@njit(inline="always")
def give(dy, data):
    """The compiled controllers' state rates of the last evaluation into dy (when it holds
    them)."""
    control = data.control
    for i in range(control.shape[0]):
        C = control[i]
        if C.address != 0 and dy.shape[0] >= C.state_at + C.n_states:
            for k in range(C.n_states):
                dy[C.state_at + k] = C.xdot[k]


@njit(inline="always")
def evaluate(v, data):
    """Every compiled controller at the state whose kinematics the links hold (``v`` the
    rates), in feeding order, its outputs written into the law parameters they feed. Returns
    0, or the :func:`failure` of the first that fails."""
    control = data.control
    for i in range(control.shape[0]):
        address = control[i].address
        if address != 0:
            code = call3(address, v, data, i)
            if code != 0:
                return failure(i, code)
    return 0


@njit(inline="always")
def gather(v, data, i):
    """Controller i's inputs into its record's ``u``: held values stay as Python wrote them."""
    C = data.control[i]
    q, links = data.q, data.links
    p, w, vel = data.scratch[0].p, data.scratch[0].w, data.scratch[0].a
    for j in range(C.n_in):
        source = C.source[j]
        if source == JOINT_Q:
            C.u[j] = q[C.index[j]]
        elif source == JOINT_V:
            C.u[j] = v[C.index[j]]
        elif source == OUTPUT:
            C.u[j] = data.control[C.index[j]].out[C.axis[j]]
        elif source >= CS_POSITION and source <= CS_ANGULAR_VELOCITY:
            linkpoints.point(links, C.index[j], C.point[j], p, vel, w)
            if source == CS_POSITION:
                C.u[j] = p[C.axis[j]]
            elif source == CS_VELOCITY:
                C.u[j] = vel[C.axis[j]]
            else:
                C.u[j] = w[C.axis[j]]


@njit(inline="always")
def finish(data, i):
    """Check controller i's new outputs and state rates, and write its outputs into the law
    parameters they feed; returns 0 or NOT_FINITE."""
    C = data.control[i]
    for k in range(C.n_out):
        if not math.isfinite(C.out[k]):
            return NOT_FINITE
    for k in range(C.n_states):
        if not math.isfinite(C.xdot[k]):
            return NOT_FINITE
    elements = data.elements
    for b in range(C.n_bind):
        elements[C.bind_element[b]].params[C.bind_slot[b]] = C.out[C.bind_output[b]]
    return 0
