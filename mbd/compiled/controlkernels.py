"""Continuous controllers evaluated inside the compiled right-hand side (SPEC §9).

A run whose continuous controllers all have a compiled form (``Gain``, ``StateSpace``,
``PID``, ``Lookup`` (of a Table or a Table2D) and a user's numba ``@njit`` ``f(t, x, u) ->
(x', y)``; see
:meth:`mbd.run.controls.Controls.install`) writes one ``CONTROL`` record per controller into
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

A kind's kernel is ``kernel(v, data, i) -> int64``: 0, or :data:`NOT_FINITE`,
:data:`WRONG_RATES` or :data:`WRONG_OUTPUTS`; the right-hand side then returns
:func:`failure` of it (decoded by :func:`failed`).
"""
import math

import numpy as np

from .forcekernels import _point
from .jit.jitcache import njit
from .lawkernels import table2d_value, table_value
from .layout import (CS_ANGULAR_VELOCITY, CS_POSITION, CS_VELOCITY, JOINT_Q, JOINT_V, OUTPUT)
from .jit.native import call3

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
            _point(links, C.index[j], C.point[j], p, vel, w)
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


@njit()
def gain(v, data, i):
    """y = K u + offset: params K (n_out, n_in) by rows, then the offset (n_out)."""
    gather(v, data, i)
    C = data.control[i]
    m, p = C.n_in, C.n_out
    for k in range(p):
        s = 0.0
        for j in range(m):
            s += C.params[k * m + j] * C.u[j]
        C.out[k] = s + C.params[p * m + k]
    return finish(data, i)


@njit()
def state_space(v, data, i):
    """x' = A x + B u, y = C x + D u: params A (n, n), B (n, m), C (p, n), D (p, m), each by
    rows, one after the other."""
    gather(v, data, i)
    R = data.control[i]
    n, m, p = R.n_states, R.n_in, R.n_out
    P, x, u = R.params, R.x, R.u
    b, c, d = n * n, n * n + n * m, n * n + n * m + p * n
    for k in range(n):
        s = 0.0
        for j in range(n):
            s += P[k * n + j] * x[j]
        for j in range(m):
            s += P[b + k * m + j] * u[j]
        R.xdot[k] = s
    for k in range(p):
        s = 0.0
        for j in range(n):
            s += P[c + k * n + j] * x[j]
        for j in range(m):
            s += P[d + k * m + j] * u[j]
        R.out[k] = s
    return finish(data, i)


@njit(inline="always")
def pid_output(kp, ki, lo, hi, anti_windup, e, integral, d):
    """The PID law: (the output clip(kp e + integral + d, lo, hi), whether the integral may
    grow) at the error e, with the derivative term d. The integral may not grow while the
    output is clipped and ki e would wind it further into the limit (conditional integration),
    where ``anti_windup`` is set. The one formula of the compiled kernel (:func:`pid`) and of
    the Python controllers (:func:`mbd.control.controllers.pid_output` calls its
    ``py_func``)."""
    raw = kp * e + integral + d
    winding = (raw > hi and ki * e > 0.0) or (raw < lo and ki * e < 0.0)
    return min(max(raw, lo), hi), not (anti_windup and winding)


@njit()
def pid(v, data, i):
    """The PID of :class:`mbd.control.PID` on inputs (setpoint, measured[, rate]), states
    (the integral[, the derivative's filter]); the formulas of its ``derivative``."""
    gather(v, data, i)
    C = data.control[i]
    P, x, u = C.params, C.x, C.u
    kp, ki, kd, tf = P[PID_KP], P[PID_KI], P[PID_KD], P[PID_TF]
    lo, hi = P[PID_LO], P[PID_HI]
    e = u[0] - u[1]
    filtered = tf > 0.0
    rate_of_filter = 0.0
    if filtered:
        rate_of_filter = (e - x[1]) / tf
        d = kd * rate_of_filter
    else:
        d = -kd * u[2] if kd != 0.0 else 0.0
    C.out[0], integrating = pid_output(kp, ki, lo, hi, P[PID_ANTI_WINDUP] != 0.0, e, x[0], d)
    C.xdot[0] = ki * e if integrating else 0.0
    if filtered:
        C.xdot[1] = rate_of_filter
    return finish(data, i)


@njit()
def lookup(v, data, i):
    """y = table(u): params the table's row (:meth:`mbd.control.Table.row`)."""
    gather(v, data, i)
    C = data.control[i]
    C.out[0] = table_value(C.params, C.u[0])
    return finish(data, i)


@njit()
def lookup2d(v, data, i):
    """y = table(u0, u1): params the 2-D table's row (:meth:`mbd.control.Table2D.row`)."""
    gather(v, data, i)
    C = data.control[i]
    C.out[0] = table2d_value(C.params, C.u[0], C.u[1])
    return finish(data, i)


#: the kinds' kernels by name (:meth:`mbd.control.Continuous.compiled_form` names one)
KERNELS = {"gain": gain, "state_space": state_space, "pid": pid, "lookup": lookup,
           "lookup2d": lookup2d}


def user_kernel(function, n_states, n_out):
    """The kernel of a user's numba ``function(t, x, u) -> (x', y)`` with ``n_states`` states
    and ``n_out`` outputs (compiled for this function, not cached on disk: it closes over
    it)."""
    @njit(cache=False)
    def user(v, data, i):
        gather(v, data, i)
        C = data.control[i]
        x = np.empty(n_states)
        for k in range(n_states):
            x[k] = C.x[k]
        u = np.empty(C.n_in)
        for j in range(C.n_in):
            u[j] = C.u[j]
        rates, out = function(C.t, x, u)
        if len(rates) != n_states:
            return WRONG_RATES
        if len(out) != n_out:
            return WRONG_OUTPUTS
        for k in range(n_states):
            C.xdot[k] = rates[k]
        for k in range(n_out):
            C.out[k] = out[k]
        return finish(data, i)
    return user
