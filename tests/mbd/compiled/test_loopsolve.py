"""The sparse constrained solve (mbd.compiled.loopsolve, issue 24) against independent dense
algebra.

* Its small kernels against LAPACK (numpy): the Householder QR of a cut joint's chain columns
  and of a front on a subset of its columns, and the one-sided Jacobi rotation of a front's
  pivot rows (singular values to round-off of the largest, without squaring).
* The accelerations and constraint forces of whole mechanisms against a dense null-space
  solve written here with numpy's SVD (the mass matrix from the tree's CRBA, the rows from
  the constraint kernels): the windows (many loops in a chain), separate four-bars (many
  machines), Bricard's over-constrained loop, and a four-bar with a spring on every joint,
  its loop-closing one too.
* The structure: K separate machines give K independent groups (no block between them), the
  windows a chain of groups (each one next to its neighbours only).
"""
import sys
from pathlib import Path

import numpy as np
import pytest

from forces import JointForce, Spring
from mbd.compiled import (
    assembly,
    jointspace,
    kinematics,
    loopsolve,
    loopstructure,
    smallblocks,
    statekernels,
)
from mbd.run.evaluator import Evaluator

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from windows import fourbars_model, windows_model  # noqa: E402


@pytest.mark.parametrize("nu", [0, 1, 2, 3, 5, 6])
def test_householder_qr_matches_lapack(nu):
    rng = np.random.default_rng(nu)
    A = rng.normal(size=(6, max(nu, 1)))[:, :nu].copy()
    QT, R, v = np.zeros((6, 6)), np.zeros((6, 6)), np.zeros(6)
    work = np.zeros((6, 6))
    work[:, :nu] = A
    smallblocks.householder_qr(work, 6, nu, QT, R, v)
    np.testing.assert_allclose(QT @ QT.T, np.eye(6), atol=1e-14)
    np.testing.assert_allclose((QT @ A)[:nu], R[:nu, :nu], atol=1e-13)
    np.testing.assert_allclose((QT @ A)[nu:], 0.0, atol=1e-13)
    if nu:
        ref = np.linalg.qr(A, mode="r")
        np.testing.assert_allclose(np.abs(np.diag(R[:nu, :nu])), np.abs(np.diag(ref)),
                                   rtol=1e-13)


@pytest.mark.parametrize("nr, rank", [(9, 7), (4, 4), (3, 3), (12, 5), (7, 0)])
def test_front_qr_on_a_subset_of_columns_matches_lapack(nr, rank):
    """A front of 12 columns of which 7 hold anything (in a scattered order): Q^T F is upper
    trapezoidal in those columns, keeps their Gram matrix, and its diagonal is LAPACK's R's
    up to signs; the empty columns stay empty."""
    rng = np.random.default_rng([nr, rank])
    cols = np.array([3.0, 0.0, 7.0, 8.0, 1.0, 11.0, 5.0])
    used = cols.astype(int)
    F = np.zeros((nr, 12))
    F[:, used] = rng.normal(size=(nr, rank)) @ rng.normal(size=(rank, 7)) if rank else 0.0
    A = F[:, used].copy()
    work, v = F.copy(), np.zeros(nr)
    smallblocks.front_qr(work, nr, cols, len(cols), v)
    R = work[:, used]
    assert np.all(np.tril(R, -1) == 0.0)
    np.testing.assert_array_equal(np.delete(work, used, axis=1), 0.0)
    scale = max(np.abs(A).max(), 1.0)
    np.testing.assert_allclose(R.T @ R, A.T @ A, atol=1e-13 * scale ** 2)
    if rank == 7 and nr >= 7:
        ref = np.linalg.qr(A, mode="r")
        np.testing.assert_allclose(np.abs(np.diag(R)), np.abs(np.diag(ref)), rtol=1e-12)


@pytest.mark.parametrize("n, ns, weak", [(1, 1, 1.0), (3, 3, 1.0), (5, 6, 1.0), (6, 6, 1e-9),
                                         (4, 4, 1e-13), (3, 6, 0.0)])
def test_orthogonal_rows_give_the_singular_values_without_squaring(n, ns, weak):
    """n rows whose first ns columns are a block with singular values 1 .. down to ``weak``
    (rotated at random): after the rotations the block's rows are orthogonal, their norms are
    its singular values, the weakest to round-off of the largest (eps, not sqrt(eps) as from
    the block times itself), and the whole rows' Gram matrix is kept."""
    rng = np.random.default_rng([n, ns])
    k = min(n, ns)
    sigma = np.geomspace(1.0, weak, k) if weak > 0 else np.r_[np.ones(k - 1), 0.0]
    U = np.linalg.qr(rng.normal(size=(n, n)))[0][:, :k]
    V = np.linalg.qr(rng.normal(size=(ns, ns)))[0][:, :k]
    F = np.zeros((n, ns + 3))
    F[:, :ns] = U @ np.diag(sigma) @ V.T
    F[:, ns:] = rng.normal(size=(n, 3))
    cols = np.arange(ns + 3, dtype=float)
    work = F.copy()
    smallblocks.orthogonal_rows(work, n, cols, ns, ns + 3)
    block = work[:, :ns]
    gram = block @ block.T
    norms = np.sqrt(np.diag(gram))
    np.testing.assert_allclose(gram - np.diag(norms ** 2), 0.0, atol=1e-15)
    np.testing.assert_allclose(np.sort(norms)[::-1][:k], sigma, rtol=0, atol=4e-16 * k)
    np.testing.assert_allclose(work.T @ work, F.T @ F, atol=1e-14)


def dense_solve(system, sd, y):
    """(qdd, lam) at y by the null-space method on numpy's SVD of the whole Jacobian: the
    least-norm lam (the reactions mbd reports where they are not unique)."""
    d = sd.data
    nq, nv = system.nq, system.nv
    q = assembly.normalized(system.tree, y[:nq])
    v = y[nq:nq + nv]
    sd.derivative(0.0, y)              # the element loads into tau (as the solve sees them)
    tau = d.tau.copy()
    G, b, _, _ = assembly.Rows(system, d)(0.0, q, v)
    kinematics.link_velocities(q, v, d.tree, d.links, d.scratch)
    H = np.zeros((nv, nv))
    jointspace.crba(d.tree, d.links, d.scratch, H)
    C = np.zeros(nv)
    kinematics.link_velocities(q, v, d.tree, d.links, d.scratch)
    jointspace.rnea(np.zeros(nv), d.tree, d.links, d.scratch, C)
    f = tau - C
    U, s, Vt = np.linalg.svd(G)
    r = loopsolve.numerical_rank(s, G.shape[0])
    xp = Vt[:r].T @ ((U[:, :r].T @ b) / s[:r])
    N = Vt[r:].T
    if N.shape[1]:
        xp = xp + N @ np.linalg.solve(N.T @ H @ N, N.T @ (f - H @ xp))
    lam = U[:, :r] @ ((Vt[:r] @ (H @ xp - f)) / s[:r])
    return xp, lam


def _state(system, seed):
    """A consistent state near the start: the run's assembled start, moved along the motion."""
    result = system.simulate(0.05 * (1 + seed), output_step=0.05 * (1 + seed), rtol=1e-11,
                             atol=1e-12)
    return np.concatenate([result.q[-1], result.v[-1]])


def _bricard():
    from tests.mbd.run.test_bricard import bricard_system
    return bricard_system()


def _springs_on_every_joint():
    """The test_loops four-bar with a torsion spring on each joint, the loop-closing one too
    (a generalized force on a cut joint's massless coordinate)."""
    from tests.mbd.run.test_loops import fourbar
    return fourbar(crank=dict(q0=0.3, v0=2.0), forces=[
        (lambda j, k=k: JointForce(f"spring{k}", j[f"j{k}"], Spring(c=5.0 * k)))
        for k in range(1, 5)])


CASES = {
    "windows_3": lambda: windows_model(3).build(),
    "fourbars_4": lambda: fourbars_model(4).build(),
    "bricard": _bricard,
    "springs_on_every_joint": _springs_on_every_joint,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_sparse_solve_equals_a_dense_null_space_solve(case):
    system = CASES[case]()
    sd = Evaluator(system)
    for seed in range(2):
        y = _state(system, seed)
        dy, status = sd.derivative(0.0, y)
        assert status == 0
        qdd_ref, lam_ref = dense_solve(system, sd, y)
        scale = max(np.abs(qdd_ref).max(), 1.0)
        np.testing.assert_allclose(dy[system.nq:system.nq + system.nv], qdd_ref, rtol=0,
                                   atol=1e-9 * scale)
        lam = np.zeros(system.n_rows)
        sd.call(statekernels.constraint_forces, sd.data, lam)
        np.testing.assert_allclose(lam, lam_ref, rtol=0,
                                   atol=1e-8 * max(np.abs(lam_ref).max(), 1.0))


def test_separate_machines_are_separate_groups_and_the_windows_a_chain():
    """K machines: no block of K joins two of them (the cost per machine is constant); N
    windows: each window's group meets its neighbours' only (K block-tridiagonal)."""
    def neighbours(system):
        pat = Evaluator(system).data.pattern
        ng = int(pat[loopstructure.P_NG])
        uptr = pat[pat[loopstructure.P_UPTR]:pat[loopstructure.P_UPTR] + ng + 1]
        uidx = pat[pat[loopstructure.P_UIDX]:pat[loopstructure.P_UIDX] + uptr[-1]]
        perm = pat[pat[loopstructure.P_PERM]:pat[loopstructure.P_PERM] + ng]
        return {int(perm[p]): sorted(int(h) for h in uidx[uptr[p]:uptr[p + 1]])
                for p in range(ng)}
    assert all(not later for later in neighbours(fourbars_model(6).build()).values())
    later = neighbours(windows_model(8).build())
    assert all(all(abs(h - g) == 1 for h in hs) for g, hs in later.items()), later
    assert sum(len(h) for h in later.values()) == 7


def _fourbar_at(v0):
    """A four-bar (tests.mbd.run.test_loops) assembled with its crank at 0.7 rad turning at v0
    rad/s: (its run-stage data, y on the closures)."""
    from mbd.run.simulate import prepare
    from tests.mbd.run.test_loops import fourbar
    system = fourbar(crank=dict(q0=0.7, v0=v0, exact=True))
    run, y = prepare(system, 1.0)
    return run.ev, y


def _near(sd, y, limit):
    """statekernels.near_constraints after an evaluation at y (as after a step)."""
    y = np.ascontiguousarray(y, dtype=float)
    sd.derivative(0.0, y)
    return bool(sd.call(statekernels.near_constraints, y, sd.data, limit))


def test_a_step_end_stays_unprojected_only_where_the_projection_would_not_move_it():
    """The compiled DOP853 loop leaves a step's end unprojected where
    loopsolve.within_drift finds its drift below a limit (DRIFT_SHARE of atol): against
    the projection itself (the general path), on states of a four-bar pushed off the closures
    by random position and velocity errors from 1e-12 to 1e-3: where it says "near", the
    projection moves no coordinate or rate by more than 10 limits, and it says "near" on the
    projected states themselves."""
    sd, y0 = _fourbar_at(2.0)
    nq = sd.system.nq
    limit = 1e-7
    rng = np.random.default_rng(7)
    seen = set()
    for size in np.logspace(-12, -3, 19):
        for _ in range(4):
            y = y0.copy()
            y[:len(y0)] += size * rng.standard_normal(len(y0)) * (rng.random(len(y0)) < 0.7)
            moved = np.abs(sf_projected(sd, y) - y)
            near = _near(sd, y, limit)
            seen.add(near)
            if near:
                assert moved[:nq].max() <= 10 * limit and moved[nq:].max() <= 10 * limit, \
                    (size, moved)
            assert _near(sd, sf_projected(sd, y), limit)
    assert seen == {True, False}


def sf_projected(sd, y):
    """y moved onto the closures by the run's projection (a copy)."""
    from mbd.run.failures import projected
    return projected(sd, 0.0, y)


def test_a_step_end_near_a_change_point_or_a_rank_change_is_always_projected():
    """within_drift defers to the projection wherever the last evaluation found a direction
    weaker than NEAR_CROSSING or a rank other than the run's, however small the drift."""
    sd, y = _fourbar_at(1.0)
    assert _near(sd, y, 1e-3)
    loop = sd.data.loop
    for field, value in (("smallest", 0.5 * loopsolve.NEAR_CROSSING),
                         ("found", int(loop[0]["rank"]) + 1)):
        sd.derivative(0.0, y)
        loop[0][field] = value
        assert not bool(sd.call(statekernels.near_constraints, y, sd.data, 1e-3)), field


def test_borrowed_views_are_the_same_memory_and_hold_no_reference():
    """native.borrowed: views of a tuple's arrays that read and write the same memory, the
    other members as they are, and no reference kept to the arrays (their reference count
    is unchanged)."""
    from numba import njit

    from mbd.compiled.jit.native import borrowed

    @njit
    def write_through(t):
        a, b, k = borrowed(t)
        a[1:][0] = 5.0
        b.reshape(b.size)[3] = 7.0
        return a.sum() + b.sum() + k

    a, b = np.zeros(4), np.zeros((2, 2))
    before = sys.getrefcount(a), sys.getrefcount(b)
    assert write_through((a, b, 2)) == 14.0
    assert a[1] == 5.0 and b[1, 1] == 7.0
    assert (sys.getrefcount(a), sys.getrefcount(b)) == before
