"""Kinematic and dynamic quantities at one state, as free functions of (system, q, v).

These are the Python doors to the compiled kernels (:mod:`mbd.kernels`); each call allocates
its own workspace, so use them for analysis and tests, not inside an integrator loop.

Examples
--------
>>> import numpy as np, mbd
>>> from joints import Revolute
>>> m = mbd.Model()
>>> g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
>>> b = m.add_body("b", mass=2.0, cg=(1, 0, 0), inertia=[1e-3, 1e-3, 1e-3], cs={"o": (0, 0, 0)})
>>> _ = m.add(Revolute("r", g, b["o"], axis=(0, 1, 0)))
>>> s = m.build()
>>> float(mass_matrix(s, [0.0])[0, 0])      # m l^2 + I = 2 + 0.001
2.001
"""
import numpy as np

from . import kernels


def _prepare(system, q, v=None):
    ws = kernels.make_workspace(system.n_links, system.nq, system.nv)
    q = np.asarray(q, dtype=float).reshape(system.nq)
    qn = np.empty(system.nq)
    kernels.normalize_quaternions(q, system.arrays, qn)
    if v is None:
        return ws, qn
    return ws, qn, np.asarray(v, dtype=float).reshape(system.nv)


def mass_matrix(system, q):
    """Joint-space mass matrix H(q) (nv, nv) by the composite-rigid-body algorithm."""
    ws, qn = _prepare(system, q)
    H = np.zeros((system.nv, system.nv))
    kernels.crba(qn, system.arrays, ws, H)
    return H


def bias_forces(system, q, v):
    """C(q, v) (nv,): gravity, Coriolis and centrifugal generalized forces, H qdd + C = tau."""
    ws, qn, v = _prepare(system, q, v)
    C = np.zeros(system.nv)
    kernels.rnea(qn, v, np.zeros(system.nv), np.zeros((system.n_links, 6)), system.arrays, ws, C)
    return C


def inverse_dynamics(system, q, v, qdd):
    """tau (nv,) that produces accelerations ``qdd`` at (q, v), by recursive Newton-Euler."""
    ws, qn, v = _prepare(system, q, v)
    tau = np.zeros(system.nv)
    qdd = np.asarray(qdd, dtype=float).reshape(system.nv)
    kernels.rnea(qn, v, qdd, np.zeros((system.n_links, 6)), system.arrays, ws, tau)
    return tau


def accelerations(system, q, v, tau=None, method="aba"):
    """Joint accelerations qdd (nv,) under generalized forces ``tau`` (default 0).

    ``method`` "aba" (articulated-body algorithm in link coordinates), "aba-world" (the same
    in world axes), "tree" (the one of these two the integrator picks for the tree, see
    :func:`mbd.kernels.tree_accelerations`) or "crba" (mass matrix, Cholesky): independent
    routes to the same answer.
    """
    ws, qn, v = _prepare(system, q, v)
    tau = np.zeros(system.nv) if tau is None else np.asarray(tau, dtype=float).reshape(system.nv)
    fext = np.zeros((system.n_links, 6))
    qdd = np.zeros(system.nv)
    if method == "aba":
        kernels.aba(qn, v, tau, fext, system.arrays, ws, qdd)
    elif method == "aba-world":
        kernels.link_transforms(qn, system.arrays, ws)
        kernels.aba_world(v, tau, fext, system.arrays, ws, qdd)
    elif method == "tree":
        kernels.tree_accelerations(qn, v, tau, fext, system.arrays, ws, qdd)
    elif method == "crba":
        kernels.crba_accelerations(qn, v, tau, fext, system.arrays, ws, qdd, np.zeros(system.nv))
    else:
        raise ValueError(f"accelerations: method must be 'aba', 'aba-world', 'tree' or "
                         f"'crba', got {method!r}")
    return qdd


def energy(system, q, v):
    """(kinetic, potential) energy, J; gravity potential is zero at the world origin."""
    ws, qn, v = _prepare(system, q, v)
    T, V = kernels.energies(qn, v, system.arrays, ws)
    return float(T), float(V)


def link_poses(system, q):
    """World rotation matrices (n_links, 3, 3) and origins (n_links, 3) of every link."""
    ws, qn = _prepare(system, q)
    kernels.link_transforms(qn, system.arrays, ws)
    return np.transpose(ws[3], (0, 2, 1)).copy(), ws[4].copy()


def link_velocities(system, q, v):
    """Spatial velocities (n_links, 6) = [w; v_origin] of every link, in link coordinates."""
    ws, qn, v = _prepare(system, q, v)
    kernels.link_velocities(qn, v, system.arrays, ws)
    return ws[5].copy()
