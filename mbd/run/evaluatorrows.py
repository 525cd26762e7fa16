"""An :class:`mbd.run.evaluator.Evaluator`'s evaluations at rows of states (a Result's
rows, a sample's one): the force elements' records and the joints' reactions in one compiled
loop (:mod:`mbd.compiled.rowkernels`) after what Python gives at each row is worked out, or
row by row from Python where only Python can give it (held signals, the locks of sticking
elements). Each function takes the evaluator ``ev`` first; :class:`Evaluator`'s methods of
the same names call them.
"""
import numpy as np
from numba import types

from ..compiled import layout, rowkernels
from ..compiled.jit import native
from ..compiled.layout import RECORDS
from ..compiled.rowkernels import rotate_rows
from ..compiled.statekernels import constraint_forces, transmitted_loads
from ..model.state import State
from .userfunctions import motion, parameter_row


def row_inputs(ev, T, Y):
    """What Python gives at every row (t, y) of T (n,), Y (n, width), for the compiled loops
    of :mod:`mbd.compiled.rowkernels`: (P, varying, D, prescribed) with P (n, len(varying),
    MAX_PARAMS) the parameter rows of the elements ``varying`` whose laws are Python functions,
    and D (n, len(prescribed), 3) the motions of the prescribed drivers ``prescribed``."""
    s, n = ev.system, len(T)
    varying = np.array([i for i, _ in ev.varying], dtype=np.int64)
    prescribed = np.array([k for k, d in enumerate(s.drivers) if d.prescribed],
                          dtype=np.int64)
    P = np.zeros((n, len(varying), layout.MAX_PARAMS))
    D = np.zeros((n, len(prescribed), 3))
    by_row = []         # the laws whose rows are not given for all times in one call
    for k, (i, law) in enumerate(ev.varying):
        rows = law.parameter_rows(T)
        if rows is None:
            by_row.append((k, i, law))
        else:
            P[:, k, :rows.shape[1]] = rows
    for r in range(n if by_row or len(prescribed) else 0):
        t, y = float(T[r]), Y[r]
        state = State(t, y[:s.nq], y[s.nq:s.nq + s.nv])
        for k, i, law in by_row:
            parameter_row(s, i, law, t, state, P[r, k])
        for k, j in enumerate(prescribed):
            D[r, k] = motion(s.drivers[j], t)
    return P, varying, D, prescribed


def _address(function, *args):
    """The entry address of compiled ``function`` for the types of ``args`` (compiled, or
    loaded from the cache, where the run has not used it yet)."""
    return native.address(function, types.int64(*(native.typeof(a) for a in args)))


def record_rows(ev, T, Y, SIDES, inputs=None):
    """The element records (n, nf ELEMENT_STATE) at every row (t, y) of T (n,), Y (n, width)
    in the branches SIDES (n, nf, SWITCHES) (see :meth:`mbd.run.evaluator.Evaluator.records`), and {element: its
    parameter rows in use (n, MAX_PARAMS)} for the elements whose parameters change over the
    run (Python functions, signals).

    One compiled loop (:func:`mbd.compiled.rowkernels.records`) after the parameters of
    Python functions are worked out row by row (``inputs``: those of :func:`row_inputs`, when
    the caller has them); with held signals (``ev.held``) row by row (:meth:`mbd.run.evaluator.Evaluator.records`). A
    sticking stiction element's rows are then evaluated alone (its value is its lock's force,
    from the constrained solve).
    """
    s, data = ev.system, ev.data
    n, nf = len(T), len(s.force_elements)
    out = layout.records(layout.ELEMENT_STATE, (n, nf))
    if not n or not nf:
        return out, {}
    if ev.held is not None:
        varying = {i for i, _ in ev.varying} | {b[0] for b in ev.held.held + ev.held.computed}
        params = {i: np.zeros((n, layout.MAX_PARAMS)) for i in varying}
        for r in range(n):
            _, row = ev.records(T[r], Y[r], SIDES[r], out=out[r])
            for i in varying:
                params[i][r] = row[i]
        return out, params
    Y = np.ascontiguousarray(Y, dtype=float)
    SIDES = np.ascontiguousarray(SIDES, dtype=float)
    P, varying, _, _ = row_inputs(ev, T, Y) if inputs is None else inputs
    data.mode["reference"] = 0.0       # every line as it is (SPEC 3.1), not continued
    g = np.zeros((0, layout.SWITCHES))
    address = _address(ev.records_function, Y[0], g, data, RECORDS)
    ev.call(rowkernels.records, address, Y, SIDES, P, varying, data,
            data.estate.view(np.uint8), out.view(np.uint8).reshape(n, -1))
    if s.locks:     # rows where one sticks: its lock's force, from the constrained solve
        stuck = np.nonzero((SIDES[:, s.locks, 1] < 0.0).any(axis=1))[0]
        for r in stuck:
            ev.records(T[r], Y[r], SIDES[r], out=out[r])
    return out, {i: P[:, k] for k, i in enumerate(varying)}


def reaction_rows(ev, T, Y, SIDES, R=None, p=None, accelerations=False, inputs=None):
    """:meth:`mbd.run.evaluator.Evaluator.reactions` at every row (t, y) of ``T`` (n,), ``Y`` (n, width) in the branches
    ``SIDES`` (n, nf, SWITCHES): the compiled evaluation at each row (right-hand side,
    constraint forces, transmitted loads), what each joint transmits turned into world
    wrenches for all rows at once.

    ``R`` (n, n_links, 3, 3), ``p`` (n, n_links, 3): the links' world rotations and origins
    at the rows, when the caller has them (a Result's); else they are taken from each
    evaluation. ``inputs``: the rows' :func:`row_inputs`, when the caller has them.

    One compiled loop (:func:`mbd.compiled.rowkernels.reactions`); row by row from Python
    where the rows need what only Python gives at each (held signals, locks).

    Returns ``(wrenches, drivers, acc, status)``: wrenches[name] = (force (n, 3), moment
    (n, 3)); drivers[name] = (n,); acc: every link's spatial acceleration (n, n_links, 6,
    link coordinates, gravity in it as the RNEA's base acceleration) with ``accelerations``,
    else None; status: the last nonzero status of the right-hand side, else 0.
    """
    s = ev.system
    data = ev.data
    n, nl = len(T), s.n_links
    names = list(s.joints)
    first = np.array([s.joints[name].links[0] for name in names], dtype=np.int64)
    loads = np.zeros((n, len(names), 6))
    lam = np.zeros((n, s.n_rows))
    acc = np.zeros((n, nl, 6)) if accelerations else np.zeros((0, 0, 6))
    poses = R is None
    if poses:
        R, p = np.zeros((n, nl, 3, 3)), np.zeros((n, nl, 3))
    Y = np.ascontiguousarray(Y, dtype=float)
    T = np.ascontiguousarray(T, dtype=float)
    SIDES = np.ascontiguousarray(SIDES, dtype=float)
    if ev.held is not None or s.locks:
        status = _reaction_rows_from_python(ev, T, Y, SIDES, first, loads, lam, acc, R, p,
                                            accelerations, poses)
    elif n:
        P, varying, D, prescribed = row_inputs(ev, T, Y) if inputs is None else inputs
        dy, work = np.empty(Y.shape[1]), np.zeros(s.nv)
        addresses = np.array([
            _address(ev.rhs, float(T[0]), Y[0], dy, data),
            _address(constraint_forces, data, lam[0]) if s.n_rows else 0,
            _address(transmitted_loads, Y[0], dy, data, lam[0], work)], dtype=np.int64)
        status = int(ev.call(rowkernels.reactions, addresses, T, Y, SIDES, P, varying, D,
                             prescribed, data, first, loads, lam, acc, R if poses else
                             np.zeros((0, 0, 3, 3)), p if poses else np.zeros((0, 0, 3)),
                             accelerations, poses))
    else:
        status = 0
    return (_wrenches(s, names, loads, lam, R, p), _driver_values(s, lam),
            acc if accelerations else None, status)


def _reaction_rows_from_python(ev, T, Y, SIDES, first, loads, lam, acc, R, p, accelerations,
                               poses):
    """:func:`reaction_rows`' loop row by row from Python: where the rows need what only
    Python gives at each (held signals, the locks of sticking elements)."""
    s, data = ev.system, ev.data
    links = data.links
    status, work = 0, np.zeros(s.nv)
    for i in range(len(T)):
        data.mode["sides"] = SIDES[i]
        ev.set_locks(SIDES[i])        # the locks that hold in these branches, before the solve
        dy, row_status = ev.derivative(T[i], Y[i])
        status = row_status or status
        if s.n_rows:
            ev.call(constraint_forces, data, lam[i])
        ev.call(transmitted_loads, Y[i], dy, data, lam[i], work)
        loads[i] = links["f"][first]
        if accelerations:
            acc[i] = links["acc"]
        if poses:
            R[i] = np.transpose(links["E0"], (0, 2, 1))
            p[i] = links["p0"]
    return status


def _wrenches(s, names, loads, lam, R, p):
    """{joint: (force, moment)} (n, 3) each, world, from each joint's first link's load
    ``loads`` (n, joints, 6: [moment; force] in link coordinates, from the parent side) and
    the cut joints' multipliers ``lam`` (n, rows): the moment about the follower CS origin."""
    cut = {name: c for c, name in enumerate(s.cut_joints)}
    out = {}
    for k, name in enumerate(names):
        jm = s.joints[name]
        link, local, _ = s.cs_placement(jm.joint.follower)
        p_f = (np.broadcast_to(local, (len(lam), 3)) if link < 0
               else p[:, link] + rotate_rows(R[:, link], local))
        if name in cut:
            c = cut[name]
            force, moment = -lam[:, 6 * c + 3:6 * c + 6], -lam[:, 6 * c:6 * c + 3]
            end = p[:, s.closures[c]["end"]]
            out[name] = (force, moment + np.cross(end - p_f, force))
            continue
        top = jm.links[0]
        force = rotate_rows(R[:, top], loads[:, k, 3:])
        moment = (rotate_rows(R[:, top], loads[:, k, :3])
                  + np.cross(p[:, top] - p_f, force))
        # the chain's parent side exerts this on it; reversed, that side is the follower
        out[name] = (-force, -moment) if jm.reversed else (force, moment)
    return out


def _driver_values(s, lam):
    """{driver or gear: its force or torque along its coordinate (n,)} from ``lam``."""
    start = 6 * len(s.cut_joints)
    return {d.name: lam[:, start + k].copy() for k, d in enumerate(s.drivers)}

