"""A result's rows evaluated in one compiled loop: the force elements' records and the joints'
reactions at every row, the orientations of rows of rotation matrices
(:meth:`mbd.run.evaluator.Evaluator.record_rows`, :meth:`mbd.run.evaluator.Evaluator.reaction_rows`).

Each loop calls the kernels that evaluate one row (the force elements' records, the
right-hand side, the constraint forces, the transmitted loads) through their addresses
(:mod:`mbd.compiled.jit.native`), which the run has compiled already: a loop is small code of its
own, not a second copy of those kernels (a first run compiles it in a fraction of a second).
What Python gives per row (the parameters of laws that are Python functions, the drivers'
prescribed motions) is worked out before, into arrays the loop writes into the data at each
row.
"""
import numpy as np
from scipy.spatial.transform import Rotation

from .forcekernels import quaternion_of
from .jit.jitcache import njit
from .jit.native import call2, call4, call5
from .layout import RECORDS


@njit(inline="always")
def _set_row(r, SIDES, P, varying, D, prescribed, data):
    """Row r's branches, the parameter rows of the elements ``varying`` and the prescribed
    drivers' motions into the data."""
    mode, elements, drivers = data.mode, data.elements, data.drivers
    for i in range(mode.shape[0]):
        sides = mode[i].sides
        for j in range(sides.shape[0]):
            sides[j] = SIDES[r, i, j]
    for k in range(varying.shape[0]):
        params = elements[varying[k]].params
        for j in range(params.shape[0]):
            params[j] = P[r, k, j]
    for k in range(prescribed.shape[0]):
        d = drivers[prescribed[k]]
        d.position, d.velocity, d.acceleration = D[r, k, 0], D[r, k, 1], D[r, k, 2]


@njit()
def records(address, Y, SIDES, P, varying, data, estate, out):
    """The force elements' records at every row of Y (n, width) in the branches SIDES (n, nf,
    SWITCHES), the parameter rows P (n, len(varying), MAX_PARAMS) of the elements
    ``varying`` written first: ``elements_at`` (task RECORDS) at ``address``, and the data's
    ``estate`` (as bytes, nf x the record size) copied into ``out`` (n, the same bytes).
    Returns the last nonzero status of the evaluations, else 0."""
    g = np.zeros((0, SIDES.shape[2]))
    D = np.zeros((Y.shape[0], 0, 3))
    none = np.zeros(0, dtype=np.int64)
    status = 0
    for r in range(Y.shape[0]):
        _set_row(r, SIDES, P, varying, D, none, data)
        got = call4(address, Y[r], g, data, RECORDS)
        if got != 0:
            status = got
        row = out[r]
        for b in range(estate.shape[0]):
            row[b] = estate[b]
    return status


@njit()
def reactions(addresses, T, Y, SIDES, P, varying, D, prescribed, data, first, loads, lam,
              acc, R, p, with_acc, with_poses):
    """What every joint transmits at every row: per row (t = T[r], y = Y[r]) its branches,
    parameter rows and drivers' motions written (:func:`_set_row`), the right-hand side, the
    constraint forces and the transmitted loads evaluated through their ``addresses``
    (right-hand side, ``constraint_forces`` or 0 without constraint rows,
    ``transmitted_loads``); then the links' loads from the parent side of each joint's first
    link ``first`` into loads (n, joints, 6), the constraint forces into lam (n, rows), every
    link's acceleration into acc (n, links, 6) when ``with_acc``, and the links' world
    rotations and origins into R (n, links, 3, 3) and p (n, links, 3) when ``with_poses``.
    Returns the last nonzero status of the right-hand side, else 0."""
    links = data.links
    dy = np.empty(Y.shape[1])
    work = np.zeros(data.tau.shape[0])
    status = 0
    for r in range(Y.shape[0]):
        _set_row(r, SIDES, P, varying, D, prescribed, data)
        y = Y[r]
        got = call4(addresses[0], T[r], y, dy, data)
        if got != 0:
            status = got
        if addresses[1] != 0:
            call2(addresses[1], data, lam[r])
        call5(addresses[2], y, dy, data, lam[r], work)
        for k in range(first.shape[0]):
            for j in range(6):
                loads[r, k, j] = links[first[k]].f[j]
        for i in range(links.shape[0]):
            if with_acc:
                for j in range(6):
                    acc[r, i, j] = links[i].acc[j]
            if with_poses:
                for a in range(3):
                    p[r, i, a] = links[i].p0[a]
                    for b in range(3):
                        R[r, i, a, b] = links[i].E0[b, a]
    return status


@njit()
def quaternions(R, out):
    """out (n, 4) = the unit quaternions (w, x, y, z), w >= 0, of the rotation matrices R
    (n, 3, 3)."""
    for n in range(R.shape[0]):
        quaternion_of(R[n], out[n])


@njit()
def rotate(R, v, transpose, out):
    """out (n, 3) = R[n] v[n], or R[n]^T v[n] with ``transpose``, for R (n, 3, 3), v (n, 3)."""
    for n in range(R.shape[0]):
        for a in range(3):
            acc = 0.0
            for b in range(3):
                acc += (R[n, b, a] if transpose else R[n, a, b]) * v[n, b]
            out[n, a] = acc


def rotate_rows(R, v, transpose=False):
    """R[n] v[n] (or R[n]^T v[n]) at every row: R (n, 3, 3), v (n, 3) or (3,); (n, 3), in
    one compiled pass (:func:`rotate`; numpy's einsum takes several times as long on such
    rows)."""
    R, v = _plain(R), np.asarray(v, dtype=float)
    v = _plain(np.tile(v, (len(R), 1)) if v.ndim == 1 else v)
    out = np.empty((len(R), 3))
    rotate(R, v, bool(transpose), out)
    return out


def _plain(a):
    """``a`` as a writable C-contiguous float array (copied only when it is not one): the one
    type the row kernels are compiled for."""
    a = np.asarray(a, dtype=float)
    return a if a.flags.c_contiguous and a.flags.writeable else np.array(a, order="C")


def rotations(R):
    """The scipy Rotation of the rotation matrices R (n, 3, 3), through their quaternions
    (:func:`quaternions`): scipy's ``from_matrix`` also checks and orthogonalizes every
    matrix, which rows of rotations from the kinematics do not need."""
    R = _plain(R)
    q = np.empty((len(R), 4))
    quaternions(R, q)
    return Rotation.from_quat(q, scalar_first=True)
