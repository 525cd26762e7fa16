"""The linearization's A against derivatives taken here, independently (issue 13).

Trees: the test's own chart — R/P coordinates added, a spherical primitive's quaternion
composed with scipy's rotation-vector exponential — and the accelerations of
:func:`mbd.compiled.dynamics.accelerations` (link-frame ABA, not the state function's variant), its
Jacobian by a Richardson table of central differences whose convergence the test checks. The
position rows of A have a closed form: the rotation vector phi of Q0^-1 Q moves at
Jr(phi)^-1 w = w + phi x w / 2 + O(phi^2), so d(phi')/d(phi) = -[w x] / 2 and
d(phi')/dw = I at phi = 0 (revolute and prismatic: 0 and I).

A loop: the same kind of converged difference sequence on the minimal-coordinate dynamics.
Both to 1e-8 relative to the largest entry.
"""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mbd
from mbd.analysis.linear import Dynamics
from mbd.compiled import dynamics, layout
from tests.mbd.random_models import quaternion_slots, random_state, random_tree
from tests.mbd.run import test_loops

TOL = 1e-8


def converged_derivative(f, x0, k, h0, levels=7):
    """(df/dx_k at x0, the change of its last extrapolation): central differences at h0,
    h0/2, ... extrapolated (Richardson)."""
    table = []
    for i in range(levels):
        h = h0 / 2 ** i
        e = np.zeros(len(x0))
        e[k] = h
        row = [(f(x0 + e) - f(x0 - e)) / (2 * h)]
        for j in range(1, i + 1):
            row.append(row[j - 1] + (row[j - 1] - table[i - 1][j - 1]) / (4 ** j - 1))
        table.append(row)
    return table[-1][-1], np.abs(table[-1][-1] - table[-2][-2]).max()


def converged_jacobian(f, x0, h0):
    """The Jacobian by :func:`converged_derivative`, column by column, after checking that
    every column's sequence converged to 1e-10 of the largest entry (far below TOL)."""
    columns = [converged_derivative(f, x0, k, h0) for k in range(len(x0))]
    J = np.column_stack([c for c, _ in columns])
    assert max(change for _, change in columns) <= 1e-10 * np.abs(J).max(), "not converged"
    return J


def tree_state_function(system, q0):
    """f(x), x = [z, w]: this test's chart about q0 and the link-frame ABA."""
    slots = quaternion_slots(system)
    sph_v = [int(L["vadr"]) for L in system.tree if L["jtype"] == layout.SPHERICAL]
    nv = system.nv

    def position(z):
        q = q0.copy()
        for L in system.tree:
            if L["jtype"] in (layout.REVOLUTE, layout.PRISMATIC):
                q[L["qadr"]] += z[L["vadr"]]
        for slot, b in zip(slots, sph_v):
            w, x, y, zz = q0[slot]
            R = Rotation.from_quat([x, y, zz, w]) * Rotation.from_rotvec(z[b:b + 3])
            x, y, zz, w = R.as_quat()
            q[slot] = (w, x, y, zz)
        return q

    def f(x):
        z, w = x[:nv], x[nv:]
        return dynamics.accelerations(system, position(z), w, method="aba")
    return f


@pytest.mark.parametrize("seed", range(6))
def test_A_of_random_trees_with_spherical_joints(seed):
    rng = np.random.default_rng(100 + seed)
    kinds = ["Spherical", "Revolute", "Prismatic", "Universal", "SixDof"]
    system = random_tree(rng, 4, kinds, root_kind="Spherical").build()
    q, v = random_state(rng, system)
    lin = mbd.linearize(system, mbd.State(0.0, q, v))
    nv = system.nv
    assert lin.A.shape == (2 * nv, 2 * nv)
    f = tree_state_function(system, q)
    x0 = np.concatenate([np.zeros(nv), v])
    bottom = converged_jacobian(f, x0, 0.05)
    top = np.zeros((nv, 2 * nv))
    top[:, nv:] = np.eye(nv)
    for L in system.tree:
        if L["jtype"] == layout.SPHERICAL:
            b = int(L["vadr"])
            wx, wy, wz = v[b:b + 3]
            top[b:b + 3, b:b + 3] = -0.5 * np.array([[0, -wz, wy], [wz, 0, -wx], [-wy, wx, 0]])
    reference = np.vstack([top, bottom])
    scale = np.abs(reference).max()
    assert np.abs(lin.A - reference).max() <= TOL * scale
    # Ridders' own error estimate is honest: within a factor of 100 of the true error or below
    assert lin.error <= 1e-6 * scale


def test_A_of_a_four_bar_in_motion():
    """The four-bar with a spring on the crank, at a state of a run (moving, off any
    equilibrium): A against a converged difference sequence of its minimal-coordinate
    dynamics, and the position rows exactly [0, I] for revolute coordinates."""
    from forces import JointForce, Spring
    system = test_loops.fourbar(crank={"q0": 0.3, "v0": 1.5},
                                forces=(lambda j: JointForce("spring", j["j1"],
                                                             Spring(c=40.0, x0=0.1)),))
    result = system.simulate(0.2, rtol=1e-11, atol=1e-11)
    state = mbd.State(float(result.t[-1]), result.q[-1], result.v[-1])
    lin = mbd.linearize(system, state)
    assert system.dof == 1 and lin.A.shape == (2, 2)
    dyn = Dynamics(system, state)
    x0 = dyn.operating_point()
    reference = converged_jacobian(dyn.rates, x0, 0.02)
    assert np.abs(lin.A - reference).max() <= TOL * np.abs(reference).max()
    np.testing.assert_allclose(lin.A[0], [0.0, 1.0], rtol=0, atol=1e-14)
