"""Kinematic and dynamic quantities at one state, as free functions of (system, q, v).

These are the Python doors to the compiled kernels (:mod:`mbd.compiled.kinematics`,
:mod:`mbd.compiled.jointspace`, :mod:`mbd.compiled.articulated`); each call makes its own
scratch, so use them for analysis and tests, not inside an integrator loop. The tree's
dynamics ignore force elements and constraints (:func:`mbd.run.evaluator.reactions_at`
evaluates the whole mechanism: force elements in the branches the state selects, loops and
drivers closed).

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

from . import articulated, jointspace, kinematics, layout


class _Door:
    """Scratch for one evaluation and the state in the kernels' form."""

    def __init__(self, system, q, v=None):
        self.tree = system.tree
        self.links = layout.records(layout.LINK_STATE, system.n_links)
        self.scratch = layout.records(layout.SCRATCH, 1)
        q = np.asarray(q, dtype=float).reshape(system.nq)
        self.q = np.empty(system.nq)
        kinematics.normalize_quaternions(np.ascontiguousarray(q), system.tree, self.q)
        self.v = (np.zeros(system.nv) if v is None
                  else np.ascontiguousarray(v, dtype=float).reshape(system.nv))
        self.nv = system.nv

    def kinematics(self):
        kinematics.link_velocities(self.q, self.v, self.tree, self.links, self.scratch)
        return self


def mass_matrix(system, q):
    """Joint-space mass matrix H(q) (nv, nv) by the composite-rigid-body algorithm."""
    d = _Door(system, q).kinematics()
    H = np.zeros((system.nv, system.nv))
    jointspace.crba(d.tree, d.links, d.scratch, H)
    return H


def bias_forces(system, q, v):
    """C(q, v) (nv,): gravity, Coriolis and centrifugal generalized forces, H qdd + C = tau."""
    return inverse_dynamics(system, q, v, np.zeros(system.nv))


def inverse_dynamics(system, q, v, qdd, fext=None):
    """tau (nv,) that produces accelerations ``qdd`` at (q, v), by recursive Newton-Euler;
    ``fext`` (n_links, 6): external spatial forces on the links (link coordinates)."""
    d = _Door(system, q, v).kinematics()
    if fext is not None:
        d.links["fext"] = fext
    tau = np.zeros(system.nv)
    jointspace.rnea(np.ascontiguousarray(qdd, dtype=float).reshape(system.nv), d.tree,
                    d.links, d.scratch, tau)
    return tau


def accelerations(system, q, v, tau=None, method="aba", fext=None):
    """Joint accelerations qdd (nv,) under generalized forces ``tau`` (default 0) and external
    link forces ``fext`` (n_links, 6, link coordinates; default none).

    ``method`` "aba" (articulated-body algorithm in link coordinates), "aba-world" (the same
    in world axes), "tree" (the one of these two the integrator picks for the tree: world
    axes unless a link can slide) or "crba" (mass matrix, Cholesky): independent routes to the
    same answer.
    """
    if method not in ("aba", "aba-world", "tree", "crba"):
        raise ValueError(f"accelerations: method must be 'aba', 'aba-world', 'tree' or "
                         f"'crba', got {method!r}")
    d = _Door(system, q, v).kinematics()
    if fext is not None:
        d.links["fext"] = fext
    tau = np.zeros(system.nv) if tau is None else np.asarray(tau, dtype=float).reshape(system.nv)
    tau = np.ascontiguousarray(tau)
    qdd = np.zeros(system.nv)
    if method == "tree":
        method = "aba" if articulated.slides(system.tree) else "aba-world"
    if method == "aba":
        articulated.aba(d.v, tau, d.tree, d.links, d.scratch, qdd)
    elif method == "aba-world":
        articulated.aba_world(d.v, tau, d.tree, d.links, d.scratch, qdd)
    else:
        rhs = np.zeros(system.nv)
        jointspace.rnea(qdd, d.tree, d.links, d.scratch, rhs)
        H = np.zeros((system.nv, system.nv))
        jointspace.crba(d.tree, d.links, d.scratch, H)
        jointspace.cholesky_solve(H, np.ascontiguousarray(tau - rhs), qdd)
    return qdd


def energy(system, q, v):
    """(kinetic, potential) energy, J; gravity potential is zero at the world origin."""
    d = _Door(system, q, v).kinematics()
    T, V = jointspace.energies(d.tree, d.links, d.scratch)
    return float(T), float(V)


def link_poses(system, q):
    """World rotation matrices (n_links, 3, 3) and origins (n_links, 3) of every link."""
    d = _Door(system, q)
    kinematics.link_transforms(d.q, d.tree, d.links, d.scratch)
    return np.transpose(d.links["E0"], (0, 2, 1)).copy(), d.links["p0"].copy()


def link_velocities(system, q, v):
    """Spatial velocities (n_links, 6) = [w; v_origin] of every link, in link coordinates."""
    return _Door(system, q, v).kinematics().links["vel"].copy()
