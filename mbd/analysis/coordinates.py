"""Minimal coordinates of a mechanism about a configuration, for the analyses (SPEC §6).

A tree's independent coordinates are its velocity coordinates: a revolute angle, a prismatic
displacement, and for a spherical primitive three small rotation angles about its follower
axes (the rotation vector of q_ref^-1 q). A mechanism with loops or motion drivers has
``dof`` of them, chosen among those by a column-pivoted QR of the constraint Jacobian at the
configuration (the best-conditioned set of dependent coordinates is kept out); the others
follow from the closure equations.

:class:`Chart` maps independent coordinates z (an increment from its configuration q_ref)
and their rates w to a consistent state (q, v): q(z) solves g(q) = 0 with the independent
coordinates of q measured from q_ref equal to z (Newton, to round-off), and v(w) solves
G v = driver rates with v[independent] = w. Its tangent T (nv, dof) has G T = 0 and the
identity in the independent rows, so T^T is the map of generalized forces onto the
independent coordinates.
"""
import numpy as np
import scipy.linalg

from ..compiled import assembly, layout, loopsolve


def coordinate_names(system):
    """Name of every velocity coordinate (nv): "hinge.q" for a joint of one coordinate,
    "joint.q0", "joint.q1", ... (the joint's k-th velocity coordinate) otherwise."""
    names = [""] * system.nv
    for name, jm in system.joints.items():
        idx = list(jm.v_index)
        for k, i in enumerate(idx):
            names[i] = f"{name}.q" if len(idx) == 1 else f"{name}.q{k}"
    return names


def rate_name(coordinate):
    """"hinge.q" -> "hinge.v", "joint.q1" -> "joint.v1"."""
    head, tail = coordinate.rsplit(".", 1)
    return f"{head}.v{tail[1:]}"


def spherical_blocks(system):
    """The v indices (start) of every spherical primitive."""
    tree = system.tree
    return [int(L["vadr"]) for L in tree if L["jtype"] == layout.SPHERICAL]


def _skew(a):
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def right_jacobian_inverse(phi):
    """Jr(phi)^-1 (3, 3): the rate of the rotation vector phi of Q_ref^-1 Q is
    Jr^-1 omega, omega the angular velocity in the follower's axes."""
    theta = float(np.linalg.norm(phi))
    S = _skew(phi)
    if theta < 1e-5:
        c = 1.0 / 12.0 + theta ** 2 / 720.0
    else:
        c = 1.0 / theta ** 2 - (1.0 + np.cos(theta)) / (2.0 * theta * np.sin(theta))
    return np.eye(3) + 0.5 * S + c * (S @ S)


class Chart:
    """Independent coordinates of ``system`` about the configuration ``q_ref`` at time t.

    Parameters
    ----------
    system : System
    data : mbd.compiled.layout.Data
        Run-stage data to evaluate the constraint rows on (its scratch is used).
    t : float
        Time, s (the motion drivers' positions and rates are taken at t).
    q_ref : ndarray (nq,)
        A consistent configuration (closed loops, drivers at their positions).

    Attributes
    ----------
    independent : ndarray of int (dof,)
        Velocity coordinates chosen as independent, ascending.
    T : ndarray (nv, dof)
        The tangent at q_ref: dq = T dz, G T = 0.
    names : list of str
        The independent coordinates' names (:func:`coordinate_names`).
    """

    def __init__(self, system, data, t, q_ref, independent=None):
        self.system, self.t = system, float(t)
        self.q_ref = assembly.normalized(system.tree, q_ref)
        self.constrained = bool(system.cut_joints or system.drivers)
        self.rows = assembly.Rows(system, data) if self.constrained else None
        self.scale = assembly.coordinate_scales(system)
        nv = system.nv
        if not self.constrained:
            self.independent = np.arange(nv)
        elif independent is not None:
            self.independent = np.asarray(independent, dtype=int)
        else:
            self.independent = self._choose(self.q_ref)
        self.names = [coordinate_names(system)[i] for i in self.independent]
        self.dof = len(self.independent)
        self.T = self.tangent(self.q_ref)
        self._last = self.q_ref.copy()

    def _choose(self, q):
        G = self.rows(self.t, q, np.zeros(self.system.nv))[0] * self.scale
        s = np.linalg.svd(G, compute_uv=False)
        rank = loopsolve.numerical_rank(s, G.shape[0])
        _, _, pivots = scipy.linalg.qr(G, pivoting=True)
        return np.sort(pivots[rank:])

    def _stacked(self, q):
        """[G; E] at q: the constraint Jacobian above the selector of the independent
        coordinates, and the rows' residuals (g, w at v = 0)."""
        G, _, g, w = self.rows(self.t, q, np.zeros(self.system.nv))
        E = np.zeros((self.dof, self.system.nv))
        E[np.arange(self.dof), self.independent] = 1.0
        return np.vstack([G, E]), g, w

    def tangent(self, q):
        """T (nv, dof) at the consistent configuration q: G T = 0, T[independent] = I."""
        nv = self.system.nv
        if not self.constrained:
            return np.eye(nv)
        K, _, _ = self._stacked(q)
        rhs = np.zeros((K.shape[0], self.dof))
        rhs[K.shape[0] - self.dof:] = np.eye(self.dof)
        return self._solve(K, rhs)

    def _solve(self, K, r):
        """The exact solution of the consistent system K x = r (least squares, rank by the
        rank rule, in scaled coordinates)."""
        Ks = K * self.scale
        x = np.linalg.lstsq(Ks, r, rcond=loopsolve.RANK_TOLERANCE)[0]
        return x * (self.scale[:, None] if x.ndim == 2 else self.scale)

    def embed(self, z):
        """The velocity-space increment (nv) with the independent coordinates at z and the
        others zero."""
        dv = np.zeros(self.system.nv)
        dv[self.independent] = z
        return dv

    def measure(self, q):
        """The independent coordinates of q, measured from q_ref (dof)."""
        return assembly.difference(self.system.tree, self.system.nv, q, self.q_ref)[
            self.independent]

    def position(self, z, iterations=40):
        """q(z) (nq,): the consistent configuration whose independent coordinates are z
        (raises ArithmeticError when the closure equations cannot be solved there)."""
        tree = self.system.tree
        z = np.asarray(z, dtype=float)
        if not self.constrained:
            return assembly.retract(tree, self.q_ref, self.embed(z))
        q = assembly.retract(tree, self.q_ref, self.T @ z)
        tol = 1e-15 * max(1.0, float(np.abs(z / self.scale[self.independent]).max(initial=0)))
        small = 0
        for _ in range(iterations):
            K, g, _ = self._stacked(q)
            r = np.concatenate([-g, z - self.measure(q)])
            step = self._solve(K, r)
            q = assembly.retract(tree, q, step)
            size = float(np.abs(step / self.scale).max(initial=0.0))
            if size <= tol:
                small += 1
                if small == 2:      # one more step after convergence: round-off level
                    return q
            if not np.isfinite(size) or size > 1e3:
                break
        _, g, _ = self._stacked(q)
        if np.abs(g).max(initial=0.0) <= 1e-12 * self.system.length_scale:
            return q
        raise ArithmeticError("the loops cannot be closed at these coordinates")

    def velocity(self, q, w):
        """v (nv,) at the consistent q with v[independent] = w and G v = the drivers' rates."""
        w = np.asarray(w, dtype=float)
        if not self.constrained:
            return w.copy()
        K, _, res = self._stacked(q)
        v = self._solve(K, np.concatenate([-res, w]))
        v[self.independent] = w        # exactly, not to the solve's round-off
        return v

    def coordinate_rates(self, q, v):
        """dz/dt (dof) at (q, v): v itself for revolute and prismatic coordinates, the rate
        of the rotation vector (Jr^-1 omega) for a spherical primitive's."""
        rate = np.array(v, dtype=float)
        blocks = spherical_blocks(self.system)
        if blocks:
            dv = assembly.difference(self.system.tree, self.system.nv, q, self.q_ref)
            for b in blocks:
                rate[b:b + 3] = right_jacobian_inverse(dv[b:b + 3]) @ v[b:b + 3]
        return rate[self.independent]
