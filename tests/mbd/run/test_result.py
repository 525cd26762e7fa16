"""The Result API: output rows, joint and body views against closed forms and finite
differences, CSV / NPZ export (whole or not at all), and the partial result a failed run
carries."""
import os
import stat

import numpy as np
import pytest
from scipy import integrate
from scipy.spatial.transform import Rotation

import mbd
from joints import Revolute, SixDof, Spherical, Universal, Weld

ZERO_G = mbd.Environment(gravity=(0.0, 0.0, 0.0))
EARTH = mbd.Environment(gravity=(0.0, 0.0, -9.81))


def pendulum(env=EARTH):
    m = mbd.Model("pendulum")
    ground = m.add_ground("ground", environment=env)
    bob = m.add_body("bob", mass=1.0, cg=(1.0, 0.0, 0.0), inertia=1e-3 * np.eye(3),
                     cs={"pivot": (0.0, 0.0, 0.0)})
    m.add(Revolute("hinge", ground, bob["pivot"], axis=(0, 1, 0)))
    return m.build()


# --------------------------------------------------------------------------- output rows

@pytest.mark.parametrize("t0, t_end, step, count", [
    (0.0, 1.0, 0.3, 5),    # 0, .3, .6, .9, 1.0
    (0.0, 1.0, 0.25, 5),   # t_end a multiple: no extra row
    (0.0, 0.9, 0.3, 4),    # 3 * 0.3 = 0.8999999999999999: one row, at t_end
    (0.0, 0.7, 0.1, 8),    # 7 * 0.1 = 0.7000000000000001 > t_end: the row at t_end is kept
    (0.5, 1.5, 0.4, 4),    # multiples counted from t0: 0.5, 0.9, 1.3, 1.5
])
def test_rows_at_multiples_of_the_output_step_and_at_t_end(t0, t_end, step, count):
    r = pendulum().simulate(t_end, t0=t0, output_step=step)
    assert r.t.shape == (count,) and len(r) == count
    assert r.t[0] == t0
    assert r.t[-1] == t_end  # exactly: users index the final state by it
    np.testing.assert_allclose(r.t[:-1], t0 + step * np.arange(count - 1), rtol=0, atol=1e-15)
    assert r.q.shape == (count, 1) and r.v.shape == (count, 1)
    assert np.all(np.isfinite(r.q)) and np.all(np.isfinite(r.v))


# --------------------------------------------------------------------------- joint views

@pytest.fixture(scope="module")
def zoo():
    """One of each joint shape in zero gravity: a lone body on a revolute turning at constant
    speed; a chain at rest on a universal (at given angles), a spherical and a weld; a free
    body spinning about a principal axis through its CG while drifting at constant velocity."""
    m = mbd.Model("zoo")
    g = m.add_ground("ground", environment=ZERO_G)
    wheel = m.add_body("wheel", mass=1.0, cg=(0.0, -2.0, 0.5), inertia=[0.01, 0.02, 0.025],
                       cs={"o": (0, 0, 0)})
    a = m.add_body("a", mass=1.0, cg=(0.5, 0.1, 0.0), inertia=[0.01, 0.02, 0.025],
                   cs={"o": (0, 0, 0), "end": (1, 0, 0)})
    b = m.add_body("b", mass=1.0, cg=(1.5, 0.0, 0.1), inertia=[0.01, 0.02, 0.025],
                   cs={"o": (1, 0, 0), "end": (2, 0, 0)})
    c = m.add_body("c", mass=1.0, cg=(2.2, 0.3, 0.0), inertia=[0.01, 0.02, 0.025],
                   cs={"o": (2, 0, 0)})
    f = m.add_body("f", mass=2.0, cg=(0.0, 5.0, 0.0), inertia=[0.1, 0.2, 0.3])
    m.add(Revolute("rev", g, wheel["o"], axis=(1, 1, 0), v0=0.7))
    m.add(Universal("uni", g, a["o"], axes=((0, 0, 1), (0, 1, 0)), q0=(0.3, -0.2)))
    m.add(Spherical("sph", a["end"], b["o"], q0=Rotation.from_rotvec([0.1, 0.2, 0.3])))
    m.add(Weld("weld", b["end"], c["o"]))
    g2 = m.add_ground("ground2", at=(0.0, 5.0, 0.0), environment=ZERO_G)  # its own machine
    m.add(SixDof("free", g2, f["cg"], q0=[0.1, 0.0, 0.0, None], v0=[0.3, -0.1, 0.2, (0, 0, 1.5)]))
    return m.build().simulate(1.0, output_step=0.1, rtol=1e-12, atol=1e-12)


def test_joint_view_shapes(zoo):
    n = len(zoo)
    shapes = {"rev": ((n,), (n,)), "uni": ((n, 2), (n, 2)), "sph": ((n, 4), (n, 3)),
              "weld": ((n, 0), (n, 0)), "free": ((n, 7), (n, 6))}
    for name, (qs, vs) in shapes.items():
        view = zoo.joint(name)
        assert (view.q.shape, view.v.shape) == (qs, vs), name
    with pytest.raises(KeyError, match="nope"):
        zoo.joint("nope")
    with pytest.raises(KeyError, match="nope"):
        zoo.body("nope")


def test_joint_view_values(zoo):
    t = zoo.t
    # a lone body on a revolute with no forces: H q'' = 0 with H constant, so q = v0 t
    np.testing.assert_allclose(zoo.joint("rev").q, 0.7 * t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(zoo.joint("rev").v, 0.7, rtol=0, atol=1e-12)
    free = zoo.joint("free")
    np.testing.assert_allclose(free.q[:, :3], [0.1, 0.0, 0.0] + np.outer(t, [0.3, -0.1, 0.2]),
                               rtol=0, atol=1e-12)
    half = 0.75 * t  # spin 1.5 rad/s about z: q = (cos(1.5 t / 2), 0, 0, sin(1.5 t / 2))
    quat = np.column_stack([np.cos(half), 0 * t, 0 * t, np.sin(half)])
    # the quaternion is integrated (not a polynomial in t): error ~ 1e-11 at rtol = 1e-12
    np.testing.assert_allclose(free.q[:, 3:], quat, rtol=0, atol=1e-10)
    np.testing.assert_allclose(free.v, np.tile([0.3, -0.1, 0.2, 0, 0, 1.5], (len(t), 1)),
                               rtol=0, atol=1e-12)
    # the chain at rest stays where it was put, each value in its own column
    np.testing.assert_allclose(zoo.joint("uni").q, np.tile([0.3, -0.2], (len(t), 1)), atol=1e-15)
    sph = Rotation.from_rotvec([0.1, 0.2, 0.3]).as_quat()[[3, 0, 1, 2]]  # scalar first
    np.testing.assert_allclose(zoo.joint("sph").q, np.tile(sph, (len(t), 1)), atol=1e-15)
    for name in ("uni", "sph"):
        np.testing.assert_array_equal(zoo.joint(name).v, 0.0)


def test_bodies_in_the_drawing_pose_at_zero_coordinates():
    """All joint coordinates zero: every body at its drawing pose, every CS where drawn."""
    rng = np.random.default_rng(3)
    m = mbd.Model("drawn")
    g = m.add_ground("ground", environment=EARTH)
    specs = {}
    parent = g
    for k, joint in enumerate([Revolute, Universal, Spherical]):
        at = np.array([k, 0.2 * k, -0.1 * k], dtype=float)
        cs = {"o": (at, Rotation.random(random_state=rng)),
              "x": (at + rng.standard_normal(3), None),
              "end": (at + np.array([1.0, 0.2, -0.1]), Rotation.random(random_state=rng))}
        body = m.add_body(f"b{k}", mass=1.0, cg=at + [0.5, 0.1, 0.0],
                          inertia=[0.02, 0.03, 0.04], cs=cs)
        specs[f"b{k}"] = {name: np.asarray(spec[0], dtype=float) for name, spec in cs.items()}
        specs[f"b{k}"]["cg"] = at + [0.5, 0.1, 0.0]
        axes = {Revolute: dict(axis=rng.standard_normal(3)),
                Universal: dict(axes=rng.standard_normal((2, 3))), Spherical: {}}[joint]
        m.add(joint(f"j{k}", parent, body["o"], **axes))
        parent = body["end"]
    r = m.build().simulate(0.1, output_step=0.1)
    for bname, points in specs.items():
        view = r.body(bname)
        np.testing.assert_allclose(view.rotation[0].as_matrix(), np.eye(3), atol=1e-14)
        for cs, point in points.items():
            np.testing.assert_allclose(view.position(cs)[0], point, atol=1e-14)
        np.testing.assert_allclose(view.velocity("x")[0], 0.0, atol=1e-15)
    with pytest.raises(ValueError, match="not one of its CSs"):
        r.body("b0").position(m.bodies[1]["x"])


# --------------------------------------------------------------------------- body views

OMEGA = 2.0
AXIS = np.array([1.0, 2.0, 2.0]) / 3.0
CENTRE = np.array([0.3, -0.4, 0.5])
TIP = np.array([1.2, 0.1, -0.3])


@pytest.fixture(scope="module")
def spinner():
    """A body on a tilted revolute through CENTRE turning at OMEGA rad/s, zero gravity: a
    single revolute with no forces keeps its speed, so every point moves on an exact circle.
    The hinge CS is rotated, so the body's link frame is not world-parallel."""
    m = mbd.Model("spinner")
    g = m.add_ground("ground", at=CENTRE, environment=ZERO_G)
    body = m.add_body("arm", mass=1.5, cg=(0.9, 0.4, 0.2), inertia=[0.05, 0.06, 0.08],
                      cs={"hinge": (CENTRE, Rotation.from_rotvec([0.4, -0.2, 1.0])), "tip": TIP})
    m.add(Revolute("hinge", g, body["hinge"], axis=AXIS, v0=OMEGA))
    return m.build().simulate(2.0, output_step=1e-3, rtol=1e-12, atol=1e-12)


def test_position_moves_on_the_exact_circle(spinner):
    turn = Rotation.from_rotvec(np.outer(OMEGA * spinner.t, AXIS))
    view = spinner.body("arm")
    np.testing.assert_allclose(view.position("tip"), CENTRE + turn.apply(TIP - CENTRE),
                               rtol=0, atol=1e-11)
    np.testing.assert_allclose(view.position(), CENTRE + turn.apply([0.9, 0.4, 0.2] - CENTRE),
                               rtol=0, atol=1e-11)
    np.testing.assert_allclose((view.rotation * turn.inv()).magnitude(), 0.0, atol=1e-11)
    np.testing.assert_allclose(view.rotation[0].as_matrix(), np.eye(3), atol=1e-15)


def test_velocity_is_omega_cross_r_and_the_derivative_of_position(spinner):
    view = spinner.body("arm")
    p, v = view.position("tip"), view.velocity("tip")
    np.testing.assert_allclose(view.angular_velocity, np.tile(OMEGA * AXIS, (len(p), 1)),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(v, np.cross(OMEGA * AXIS, p - CENTRE), rtol=0, atol=1e-11)
    # central differences on a circle of radius rho: |error| <= rho * OMEGA^3 * h^2 / 6
    h = spinner.t[1] - spinner.t[0]
    rho = np.linalg.norm(np.cross(AXIS, TIP - CENTRE))
    fd = (p[2:] - p[:-2]) / (2 * h)
    np.testing.assert_allclose(fd, v[1:-1], rtol=0, atol=rho * OMEGA ** 3 * h ** 2 / 6 + 1e-8)


def test_velocities_are_derivatives_in_a_3d_chain():
    """In gravity with two bodies on a spherical and a universal joint, velocity(cs) and
    angular_velocity agree with finite differences of position(cs) and rotation."""
    m = mbd.Model("chain")
    g = m.add_ground("ground", environment=EARTH)
    a = m.add_body("a", mass=1.0, cg=(0.4, 0.1, -0.2), inertia=[0.02, 0.03, 0.04],
                   cs={"o": (0, 0, 0), "end": (0.8, 0.0, -0.3)})
    b = m.add_body("b", mass=0.7, cg=(1.1, -0.1, -0.4), inertia=[0.01, 0.015, 0.02],
                   cs={"o": (0.8, 0.0, -0.3),
                       "p": ((1.3, 0.2, -0.5), Rotation.from_rotvec([1, 0, 0]))})
    m.add(Spherical("s", g, a["o"], v0=(0.5, -1.0, 2.0)))
    m.add(Universal("u", a["end"], b["o"], axes=((0, 0, 1), (1, 1, 0)), v0=(1.0, -2.0)))
    r = m.build().simulate(1.0, output_step=1e-3, rtol=1e-12, atol=1e-12)
    h = 1e-3
    view = r.body("b")
    p = view.position("p")
    # five-point stencil: truncation h^4 |p^(5)| / 30 ~ 1e-11, rounding ~ 1e-12 / h
    fd = (p[:-4] - 8 * p[1:-3] + 8 * p[3:-1] - p[4:]) / (12 * h)
    np.testing.assert_allclose(fd, view.velocity("p")[2:-2], rtol=0, atol=1e-7)
    # the rotation vector of R(t + s) R(t - s)^T over 2 s is w(t) + O(s^2) (about 3e2 s^2 here,
    # the |w x w'| of this whipping chain); Richardson's step-halving cancels the s^2 term
    R = view.rotation

    def central(k):
        return (R[2 * k:] * R[:-2 * k].inv()).as_rotvec() / (2 * k * h)

    w_fd = (4 * central(1)[1:-1] - central(2)) / 3
    w = view.angular_velocity[2:-2]
    np.testing.assert_allclose(w_fd, w, rtol=0, atol=1e-7)
    assert np.abs(w).max() > 1.0


# --------------------------------------------------------------------------- export

@pytest.fixture(scope="module")
def small():
    m = mbd.Model("small")
    g = m.add_ground("ground", environment=EARTH)
    a = m.add_body("a", mass=1.0, cg=(0.5, 0, 0), inertia=[0.01, 0.02, 0.02],
                   cs={"o": (0, 0, 0), "end": (1, 0, 0)})
    b = m.add_body("b", mass=1.0, cg=(1.5, 0, 0), inertia=[0.01, 0.02, 0.02], cs={"o": (1, 0, 0)})
    m.add(Revolute("hinge", g, a["o"], axis=(0, 1, 0), v0=0.5))
    m.add(Universal("u", a["end"], b["o"], axes=((0, 0, 1), (0, 1, 0)), v0=(0.2, -0.3)))
    return m.build().simulate(0.5, output_step=0.1)


def test_to_csv_round_trips(small, tmp_path):
    path = tmp_path / "run.csv"
    assert small.to_csv(path) == path
    header = path.read_text().splitlines()[0].split(",")
    assert header[0] == "t"
    for name in ("hinge.q", "hinge.v", "u.q0", "u.q1", "u.v0", "u.v1"):
        assert name in header
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    assert table.shape == (len(small), len(header))
    column = {name: table[:, k] for k, name in enumerate(header)}
    # the grid's times as the decimals it is made of (3 * 0.1 is written 0.3, a double one
    # ulp below the one the run made); every value as a double's shortest repr: exact
    np.testing.assert_array_equal(column["t"], [0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    assert np.all(np.abs(column["t"] - small.t) <= np.spacing(small.t))
    np.testing.assert_array_equal(column["hinge.q"], small.joint("hinge").q)
    np.testing.assert_array_equal(column["hinge.v"], small.joint("hinge").v)
    np.testing.assert_array_equal(column["u.q1"], small.joint("u").q[:, 1])
    np.testing.assert_array_equal(column["u.v0"], small.joint("u").v[:, 0])
    assert sorted(os.listdir(tmp_path)) == ["run.csv", "run.units.csv"]


def test_to_npz_round_trips(small, tmp_path):
    path = tmp_path / "run.npz"
    small.to_npz(path)
    with np.load(path) as data:
        np.testing.assert_array_equal(data["t"], small.t)
        np.testing.assert_array_equal(data["q"], small.q)
        np.testing.assert_array_equal(data["v"], small.v)
    assert os.listdir(tmp_path) == ["run.npz"]


def test_to_npz_names_every_column_and_the_events(tmp_path):
    """Every CSV column is an array under its own name, equal to the CSV's column (issue 30:
    no column order to know); the event log reads without pickle; nothing but these keys."""
    from forces import ElastoBacklash, JointForce
    m = mbd.Model("stopped")
    g = m.add_ground("ground", environment=EARTH)
    bob = m.add_body("bob", mass=1.0, cg=(1.0, 0.0, 0.0), inertia=1e-3 * np.eye(3),
                     cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = m.add(Revolute("hinge", g, bob["pivot"], axis=(0, 1, 0)))
    m.add(JointForce("stop", hinge, ElastoBacklash(c=1e3, d=1.0, b=0.4)))
    r = m.build().simulate(0.6, output_step=0.05)
    assert len(r.events) >= 1                   # it falls into the backlash's side
    r.to_csv(tmp_path / "run.csv")
    r.to_npz(tmp_path / "run.npz")
    header = (tmp_path / "run.csv").read_text().splitlines()[0].split(",")
    csv_table = np.loadtxt(tmp_path / "run.csv", delimiter=",", skiprows=1)
    with np.load(tmp_path / "run.npz") as data:        # allow_pickle=False
        assert list(data["columns"]) == header
        assert set(data.files) == {*header, "q", "v", "columns", "events", "event_t",
                                   "event_element", "event_what"}
        for k, name in enumerate(header[1:], 1):
            np.testing.assert_array_equal(data[name], csv_table[:, k], err_msg=name)
        # the CSV's grid times are the grid's decimals: within an ulp of the run's doubles
        assert np.all(np.abs(data["t"] - csv_table[:, 0]) <= np.spacing(data["t"]))
        np.testing.assert_array_equal(data["hinge.q"], r.joint("hinge").q)
        np.testing.assert_array_equal(data["bob.cg.z"], r.body("bob").position("cg")[:, 2])
        np.testing.assert_array_equal(data["stop.work"], r.work[:, 0])
        np.testing.assert_array_equal(data["event_t"], [e.t for e in r.events])
        assert list(data["event_element"]) == [e.element for e in r.events]
        assert list(data["event_what"]) == [e.what for e in r.events]
        with pytest.raises(ValueError, match="allow_pickle"):
            data["events"]                              # the old object array needs pickle
    with np.load(tmp_path / "run.npz", allow_pickle=True) as data:
        assert [tuple(e) for e in data["events"]] == [(e.t, e.element, e.what)
                                                      for e in r.events]


def test_exported_files_get_the_mode_a_plain_open_gives(small, tmp_path):
    # the temporary file is made private by mkstemp; the export must not stay so
    (tmp_path / "plain.txt").write_text("x")
    expected = stat.S_IMODE(os.stat(tmp_path / "plain.txt").st_mode)
    small.to_csv(tmp_path / "run.csv")
    small.to_npz(tmp_path / "run.npz")
    assert stat.S_IMODE(os.stat(tmp_path / "run.csv").st_mode) == expected
    assert stat.S_IMODE(os.stat(tmp_path / "run.npz").st_mode) == expected


def _boom(*args, **kwargs):
    raise RuntimeError("disk on fire")


@pytest.mark.parametrize("writer, patched", [("to_csv", "savetxt"), ("to_npz", "savez")])
def test_failed_write_leaves_no_file(small, tmp_path, monkeypatch, writer, patched):
    monkeypatch.setattr(np, patched, _boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        getattr(small, writer)(tmp_path / "new.out")
    assert os.listdir(tmp_path) == []
    # an existing file is left as it was
    old = tmp_path / "old.out"
    old.write_text("previous run\n")
    with pytest.raises(RuntimeError, match="disk on fire"):
        getattr(small, writer)(old)
    assert old.read_text() == "previous run\n"
    assert os.listdir(tmp_path) == ["old.out"]


def test_write_onto_a_directory_fails_without_leftovers(small, tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(OSError):
        small.to_csv(tmp_path / "taken")
    assert os.listdir(tmp_path) == ["taken"]


# --------------------------------------------------------------------------- failed runs

T_FAIL = 0.35


class FailingRK45(integrate.RK45):
    """RK45 that reports a failed step once it has passed T_FAIL (as scipy does when the step
    size collapses)."""

    def _step_impl(self):
        if self.t >= T_FAIL:
            return False, "injected step failure"
        return super()._step_impl()


class PoisonedRK45(integrate.RK45):
    """RK45 whose state turns NaN once it has passed T_FAIL."""

    def _step_impl(self):
        ok, message = super()._step_impl()
        if self.t >= T_FAIL:
            self.y = np.full_like(self.y, np.nan)
        return ok, message


@pytest.mark.parametrize("solver, words", [(FailingRK45, "injected step failure"),
                                           (PoisonedRK45, "non-finite")])
def test_failed_run_carries_the_rows_before_the_failure(solver, words):
    system = pendulum()
    full = system.simulate(1.0, output_step=0.05, method="RK45")
    with pytest.raises(mbd.SimulationError) as caught:
        system.simulate(1.0, output_step=0.05, method=solver)
    err = caught.value
    assert isinstance(err, RuntimeError)
    assert words in str(err)
    assert T_FAIL <= err.t < 1.0
    assert f"t = {err.t:.9g} s" in str(err)  # the message says when
    partial = err.result
    assert isinstance(partial, mbd.Result)
    n = len(partial)
    assert 1 <= n < len(full) and partial.t[-1] < 1.0 and partial.t[-1] <= err.t
    assert np.all(np.isfinite(partial.q)) and np.all(np.isfinite(partial.v))
    # the same solver took the same steps up to the failure: the same rows
    np.testing.assert_array_equal(partial.t, full.t[:n])
    np.testing.assert_allclose(partial.q, full.q[:n], rtol=0, atol=1e-14)
    np.testing.assert_allclose(partial.v, full.v[:n], rtol=0, atol=1e-14)
    assert partial.body("bob").position().shape == (n, 3)  # the views work on it
