"""Reference cases of spatial contact (SPEC §12 "Reference cases"), each against its own
oracle: a closed form, or the 1-D normal law integrated alone here with scipy (its own
switch location, written here, not mbd's).

The normal law of ElastoGap as SPEC §3.2 and §12 state it, with p = -g the penetration and
v = dg/dt (the oracles below write it out again)::

    F = c p^n + clamp(-d v, -c p^n, +c p^n)     while g < 0, else 0

so a contact runs through up to three branches (damping clamped at +spring: F = 2 c p^n;
within: F = c p^n - d v; clamped at -spring: F = 0), each switch an event of the log.

Bounds. Unless a case says otherwise, a quantity the run integrates is held to
``K * (rtol * scale + atol)`` with K = 1e3: an explicit Runge-Kutta run at tolerance rtol
keeps each step's local error below rtol times the state's scale, and over the few thousand
steps (and the few restarts at switches) of these runs the global error is a modest multiple
of that; K = 1e3 is that multiple, stated once here, not measured.
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

import mbd
from forces import ElastoGap
from joints import Prismatic, Revolute, SixDof

#: these tests assert accuracy bounds against oracles: run again under --perturb
pytestmark = pytest.mark.accuracy

G = 9.81
#: the global-error multiple of the local tolerance (module docstring)
K = 1e3


# --------------------------------------------------------------------------- the 1-D law alone

def gap_law(c, d, n, gap, rate):
    """ElastoGap's force (N) along +n at a gap (m) and rate (m/s), written out here."""
    if gap >= 0.0:
        return 0.0
    spring = c * (-gap) ** n
    return spring + min(max(-d * rate, -spring), spring)


def piecewise(rhs, y0, t_span, switches, signs=None, stop=None, rtol=1e-12, atol=1e-14,
              max_step=np.inf):
    """Integrate y' = rhs(t, y, signs) with DOP853, stopping at every zero of a switching
    function (``switches``: functions (t, y) -> float) and restarting there with that
    function's sign turned, so that no step straddles a kink of the law: the branch of the
    law is chosen by ``signs`` (their signs at t_span[0], from ``signs`` where given, else
    evaluated there; each must then be non-zero), until t_span[1] or the switch ``stop``. Returns (events, pieces): events
    [(t, index of the switch, its new sign, y)] in time order, pieces the dense outputs."""
    t0, y = t_span[0], np.asarray(y0, dtype=float)
    signs = list(signs) if signs is not None else [np.sign(s(t0, y)) for s in switches]
    assert all(signs), "a switching function is zero at the start: give its sign"
    events, pieces = [], []
    while t0 < t_span[1]:
        fns = []
        for s, sign in zip(switches, signs):
            def fn(t, y, s=s):
                return s(t, y)
            fn.terminal, fn.direction = True, -sign
            fns.append(fn)
        frozen = tuple(signs)
        run = solve_ivp(lambda t, y, frozen=frozen: rhs(t, y, frozen), (t0, t_span[1]), y, method="DOP853",
                        rtol=rtol, atol=atol, events=fns, dense_output=True,
                        max_step=max_step)
        pieces.append(run.sol)
        hit = [(te[0], k) for k, te in enumerate(run.t_events) if te.size]
        if not hit:
            break
        t0, k = min(hit)
        y = run.sol(t0)
        signs[k] = -signs[k]
        events.append((t0, k, signs[k], y))
        if k == stop:
            break
    return events, pieces


# --------------------------------------------------------------------------- 1. ball drop

BALL_R, BALL_M, BALL_Z0 = 0.1, 1.0, 1.0
BALL_C, BALL_E = 1e5, 0.8
BALL_V1 = np.sqrt(2.0 * G * (BALL_Z0 - BALL_R))        # the first impact's speed


def ball_oracle(c, d, n, t_end):
    """The ball's vertical motion with the law alone: free flight in closed form between
    contacts, the contact itself integrated branch by branch (HIGH: damping clamped at
    +spring, WITHIN, LOW: clamped at -spring, force zero). Returns the switch times
    [(t, what)] with mbd's event names, and the apexes after each contact."""
    log, apexes = [], []
    t = np.sqrt(2.0 * (BALL_Z0 - BALL_R) / G)             # closed-form free fall
    v = -G * t
    # switches in contact (y = [gap, rate]): above > 0 while the damping is clamped at
    # +spring, below > 0 while clamped at -spring (the force then zero), leave > 0 out of
    # contact
    above = lambda _, y: -d * y[1] - c * max(-y[0], 0.0) ** n
    below = lambda _, y: d * y[1] - c * max(-y[0], 0.0) ** n
    leave = lambda _, y: y[0]

    def rhs(_, y, signs):
        spring = c * max(-y[0], 0.0) ** n
        F = 2.0 * spring if signs[0] > 0 else 0.0 if signs[1] > 0 else spring - d * y[1]
        return (y[1], F / BALL_M - G)
    names = {(0, -1): "damping below the spring force",
             (0, 1): "damping clamped at the spring force",
             (1, 1): "damping clamped: the gap never pulls",
             (1, -1): "damping no longer clamped", (2, 1): "contact ends"}
    while t < t_end:
        log.append((t, "contact begins"))
        # at the touch the spring is 0 and -d v > 0: clamped at +spring
        ev, _ = piecewise(rhs, (0.0, v), (t, t + 1.0), [above, below, leave],
                          signs=(1.0, -1.0, -1.0), stop=2)
        log += [(t_k, names[(k, int(sign))]) for t_k, k, sign, _ in ev]
        t, k, _, y = ev[-1]
        assert k == 2                                     # it left
        v = y[1]                                          # leaves at gap 0 with speed v
        apexes.append(BALL_R + v * v / (2.0 * G))
        t += 2.0 * v / G                                  # closed-form flight to the next
        v = -v
    return log, apexes


def ball_run(d, t_end, rtol):
    model = mbd.Model("ball")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    floor.add_shape(mbd.Plane(), contact=True)
    ball = model.add_body("ball", mass=BALL_M, cg=(0.0, 0.0, 0.0),
                          inertia=0.4 * BALL_M * BALL_R ** 2 * np.eye(3))
    ball.add_shape(mbd.Sphere(BALL_R), contact=True)
    model.add(SixDof("free", floor, ball["cg"], q0=(0.0, 0.0, BALL_Z0, 1.0, 0.0, 0.0, 0.0)))
    model.add(mbd.Contact("bounce", floor, ball, ElastoGap(c=BALL_C, d=d, n=1.5)))
    return model.simulate(t_end, output_step=1e-3, rtol=rtol, atol=rtol)


def test_ball_bounces_as_the_law_alone():
    """Every switch of three bounces (contact begins, the damping's clamps, contact ends) and
    each apex against the 1-D law integrated alone; the first rebound's coefficient is the
    one damping_for_restitution was asked for."""
    rtol, t_end = 1e-10, 2.0
    d = mbd.damping_for_restitution(BALL_E, BALL_C, BALL_M, BALL_V1, 1.5)
    r = ball_run(d, t_end, rtol)
    log, apexes = ball_oracle(BALL_C, d, 1.5, t_end)
    log = [(t, what) for t, what in log if t < t_end]
    events = [(e.t, e.what) for e in r.events if e.element == "bounce: point"]
    assert [what for _, what in events] == [what for _, what in log]
    assert sum(what == "contact ends" for _, what in log) == 3          # three bounces
    # times: the run's global error in time, K rtol over the run's time scale t_end (the
    # oracle's, at 1e-12, is below that)
    np.testing.assert_allclose([t for t, _ in events], [t for t, _ in log], rtol=0,
                               atol=K * rtol * t_end)
    # apexes: in each flight z + vz^2 / 2g is the apex (a projectile's energy); every row
    # of the flight gives it, to K (rtol z0 + atol)
    z = r.body("ball").position("cg")[:, 2]
    vz = r.body("ball").velocity("cg")[:, 2]
    ends = [t for t, what in events if what == "contact ends"]
    begins = [t for t, what in events if what == "contact begins"] + [np.inf]
    for k, t_leave in enumerate(ends):
        flight = (r.t > t_leave) & (r.t < begins[k + 1])
        assert flight.sum() > 50
        apex = z[flight] + vz[flight] ** 2 / (2.0 * G)
        np.testing.assert_allclose(apex, apexes[k], rtol=0, atol=K * (rtol * BALL_Z0 + rtol))


def test_damping_for_restitution_gives_the_rebound():
    """The ball thrown at the floor without gravity (damping_for_restitution's own setting,
    m x'' = F(x, x') alone: with gravity on, g acting through the contact's 25 ms changes the
    rebound by ~0.5 %): it leaves at e times the speed it arrived with."""
    rtol = 1e-10
    d = mbd.damping_for_restitution(BALL_E, BALL_C, BALL_M, BALL_V1, 1.5)
    model = mbd.Model("throw")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    floor.add_shape(mbd.Plane(), contact=True)
    ball = model.add_body("ball", mass=BALL_M, cg=(0.0, 0.0, 0.0),
                          inertia=0.4 * BALL_M * BALL_R ** 2 * np.eye(3))
    ball.add_shape(mbd.Sphere(BALL_R), contact=True)
    model.add(SixDof("free", floor, ball["cg"], q0=(0.0, 0.0, 2 * BALL_R, 1, 0, 0, 0),
                     v0=(0.0, 0.0, -BALL_V1, 0.0, 0.0, 0.0)))
    model.add(mbd.Contact("bounce", floor, ball, ElastoGap(c=BALL_C, d=d, n=1.5)))
    r = model.simulate(0.1, output_step=1e-3, rtol=rtol, atol=rtol)
    ends = [e.t for e in r.events if e.what == "contact ends"]
    assert len(ends) == 1
    vz = r.body("ball").velocity("cg")[:, 2]
    # damping_for_restitution solves e to its integration's rtol 1e-11 (times K) and the
    # run adds K rtol of the speed
    np.testing.assert_allclose(vz[r.t > ends[0]] / BALL_V1, BALL_E, rtol=0,
                               atol=K * (1e-11 + rtol))


# --------------------------------------------------------------------------- 2. block on an incline

BOX = np.array([0.2, 0.2, 0.1])
BOX_M, BOX_C, BOX_D, V_CRIT = 1.0, 1e6, 50.0, 1e-3


def box_inertia(m, size):
    lx, ly, lz = size
    return m / 12.0 * np.diag([ly * ly + lz * lz, lx * lx + lz * lz, lx * lx + ly * ly])


def incline_run(theta, friction, t_end, rtol, atol, body="box", v0=0.0):
    """A box (or a sphere, ``body="sphere"``) on a plane tilted by theta about y: down the
    slope is the ground's +x, (cos theta, 0, -sin theta) in the world. It starts at its
    static penetration (mbd's law at rest), at rest or sliding at v0 down the slope. Returns
    (result, down-slope unit vector, normal unit vector, static penetration)."""
    R = Rotation.from_euler("y", theta)
    model = mbd.Model("incline")
    slope = model.add_ground("slope", orientation=R,
                             environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    slope.add_shape(mbd.Plane(), contact=True)
    N = BOX_M * G * np.cos(theta)
    if body == "box":
        b = model.add_body("box", mass=BOX_M, cg=(0.0, 0.0, 0.0),
                           inertia=box_inertia(BOX_M, BOX))
        b.add_shape(mbd.Box(tuple(BOX)), contact=True)
        delta = (N / (4.0 * BOX_C)) ** (1.0 / 1.5)       # four corners share the load
        height = 0.5 * BOX[2] - delta
        law = ElastoGap(c=BOX_C, d=BOX_D, n=1.5)
    else:
        b = model.add_body("ball", mass=BOX_M, cg=(0.0, 0.0, 0.0),
                           inertia=0.4 * BOX_M * BALL_R ** 2 * np.eye(3))
        b.add_shape(mbd.Sphere(BALL_R), contact=True)
        delta = (N / BOX_C) ** (1.0 / 1.5)
        height = BALL_R - delta
        law = ElastoGap(c=BOX_C, d=BOX_D, n=1.5)
    # the free joint's base is the slope's CS: its translation is in the slope's axes, its
    # rotation the body's from its drawing pose (world axes): R turns the box onto the slope
    qx, qy, qz, qw = R.as_quat()
    model.add(SixDof("free", slope, b["cg"], q0=(0.0, 0.0, height, qw, qx, qy, qz),
                     v0=(v0, 0.0, 0.0, 0.0, 0.0, 0.0)))
    model.add(mbd.Contact("floor", slope, b, law, friction=friction))
    r = model.simulate(t_end, output_step=1e-3, rtol=rtol, atol=atol)
    return r, R.apply((1.0, 0.0, 0.0)), R.apply((0.0, 0.0, 1.0)), delta


def test_block_slides_down_a_steep_incline_at_the_kinetic_rate():
    """tan(theta) = 0.577 > mu_s = 0.3: released sliding at 0.5 m/s, every corner slips at
    s >= 0.5 m/s >> v_crit, where mu(s) = mu_k + (mu_s - mu_k) exp(-499) = mu_k to
    round-off. The momentum balance along the slope and along the normal then give exactly
    (friction being -mu_k times the normal forces' sum, N_sum = m (g cos + dv_n/dt))::

        v_s(t2) - v_s(t1) = g (sin - mu_k cos)(t2 - t1) - mu_k (v_n(t2) - v_n(t1))

    held to the run's K (rtol v + atol); and once the normal transient has died (its term
    mu_k dv_n is then itself below that bound) the acceleration is g (sin - mu_k cos)."""
    theta, mu_s, mu_k, rtol = np.radians(30.0), 0.3, 0.2, 1e-10
    r, down, normal, _ = incline_run(theta, mbd.Coulomb(mu_s, mu_k, V_CRIT), 0.5, rtol, rtol,
                                     v0=0.5)
    v = r.body("box").velocity("cg")
    vs, vn = v @ down, v @ normal
    assert vs.min() > 0.49                              # sliding fast all along
    a = G * (np.sin(theta) - mu_k * np.cos(theta))
    bound = K * (rtol * vs.max() + rtol)
    np.testing.assert_allclose(vs - vs[0], a * r.t - mu_k * (vn - vn[0]), rtol=0, atol=bound)
    late = r.t >= 0.25
    t, vl = r.t[late], vs[late]
    np.testing.assert_allclose(vl - vl[0], a * (t - t[0]), rtol=0, atol=2 * bound)
    # no sideways drift, no yaw
    np.testing.assert_allclose(v[:, 1], 0.0, atol=bound)


def test_block_creeps_down_a_gentle_incline_at_the_regularized_speed():
    """tan(theta) = 0.268 < mu_s = 0.5: the regularized law lets the box creep at the slip
    speed where mu_s s / v_crit N = m g sin(theta), N = m g cos(theta) the normal forces'
    sum at rest along the normal: s = v_crit tan(theta) / mu_s (< v_crit: on the linear
    part of mu(s)). The slip transient decays with the time constant
    v_crit / (mu_s g cos theta) = 0.2 ms, the normal one at the contact's damping rate
    (~100 /s), so after 0.3 s both are below round-off: the speed is s to K (rtol s + atol)."""
    theta, mu_s, mu_k, rtol, atol = np.radians(15.0), 0.5, 0.4, 1e-10, 1e-12
    r, down, normal, _ = incline_run(theta, mbd.Coulomb(mu_s, mu_k, V_CRIT), 0.5, rtol, atol)
    v = r.body("box").velocity("cg")
    s = V_CRIT * np.tan(theta) / mu_s
    late = r.t >= 0.3
    np.testing.assert_allclose(v[late] @ down, s, rtol=0, atol=K * (rtol * s + atol))
    np.testing.assert_allclose(v[late] @ normal, 0.0, rtol=0, atol=K * (rtol * s + atol))
    # each loaded corner slips at s too: the box does not turn (its rate held to the speed
    # bound over the half height, the corners' lever arm about the centre)
    np.testing.assert_allclose(r.body("box").angular_velocity[late], 0.0, rtol=0,
                               atol=K * (rtol * s + atol) / (0.5 * BOX[2]))
    # and the points' normal forces add up to m g cos(theta)
    forces = [r.force(f"floor: box corner {k}") for k in range(8)]
    N = sum(f.scalar for f in forces)
    np.testing.assert_allclose(N[late], BOX_M * G * np.cos(theta), rtol=K * rtol)


# --------------------------------------------------------------------------- 3. rolling sphere

def test_sphere_rolls_down_an_incline():
    """A sphere on a 20 degree slope with mu_s = 1 (well above 2/7 tan theta). At rest on
    the slope its penetration is delta = (m g cos theta / c)^(1/n), and the force acts at
    the midpoint of the witness points, rho = r - delta/2 below the centre (SPEC §12
    "Precisely"). The regularized law lets the contact point slip at a constant speed s
    while the centre accelerates at a constant a: with f the friction force,
    m a = m g sin - f, I a / rho = f rho, so::

        a = g sin(theta) / (1 + I / (m rho^2)),   f = m (g sin(theta) - a),
        s = v_crit f / (mu_s m g cos(theta))      (on mu(s)'s linear part: s < v_crit)

    The slip transient decays with the time constant ~ v_crit / (mu_s g cos) (0.1 ms) and
    the run starts at the static penetration, so after 0.1 s both hold to the run's
    K (rtol v + atol) (a from velocity differences over 0.2 s: that bound over 0.2 s)."""
    theta, mu_s, rtol, atol = np.radians(20.0), 1.0, 1e-10, 1e-12
    r, down, normal, delta = incline_run(theta, mbd.Coulomb(mu_s, 0.8, V_CRIT), 0.3, rtol,
                                         atol, body="sphere")
    m, I = BOX_M, 0.4 * BOX_M * BALL_R ** 2
    rho = BALL_R - delta / 2.0
    a = G * np.sin(theta) / (1.0 + I / (m * rho * rho))
    f = m * (G * np.sin(theta) - a)
    s = V_CRIT * f / (mu_s * m * G * np.cos(theta))
    assert s < 0.2 * V_CRIT
    view = r.body("ball")
    v, w, c = view.velocity("cg"), view.angular_velocity, view.position("cg")
    late = r.t >= 0.1
    vs = v[late] @ down
    bound = K * (rtol * vs.max() + atol)
    np.testing.assert_allclose(vs - vs[0], a * (r.t[late] - r.t[late][0]), rtol=0, atol=bound)
    # a differs from 5/7 g sin(theta) by the penetration's share, resolved here
    assert abs(a - 5.0 / 7.0 * G * np.sin(theta)) > 100 * bound / 0.2
    # the contact point's slip: the material point at p = c - (r + g/2) n (g the gap)
    gap = r.force("floor: point").x[late]
    np.testing.assert_allclose(gap, -delta, rtol=K * rtol)
    p = c[late] - (BALL_R + gap / 2.0)[:, None] * normal
    vp = v[late] + np.cross(w[late], p - c[late])
    slip = vp - (vp @ normal)[:, None] * normal
    np.testing.assert_allclose(slip @ down, s, rtol=0, atol=bound)
    np.testing.assert_allclose(np.linalg.norm(slip, axis=1), s, rtol=0, atol=bound)


# --------------------------------------------------------------------------- 4. box on its edge

def test_box_dropped_on_its_edge_settles_on_four_corners():
    """A box released turned 25 degrees about x with its lowest edge (the corners at
    -y, -z: 0 and 4 of mbd.compiled.geometry's order, x = -+) 5 mm above a frictionless
    floor. That edge touches first, both its corners at one instant; the box tips onto its
    face, the other two lower corners touch later, and the damping settles it.

    At rest the floor carries the weight: the four lower corners' normal forces add up to
    m g, the upper four carry exactly 0 (their gaps are ~0.1 m). The settling: the stiffest
    mode (vertical, k = 4 * 1.5 c delta^0.5) has damping ratio zeta = 4 d / (2 sqrt(k m))
    ~ 0.36 and rate zeta omega ~ 100 /s; the rocking modes about as fast, so 1.5 s after
    the last touch (~0.2 s) the transient is below e^-100 of the drop: the force sum is
    m g to the run's K (rtol m g + ...), the speeds zero to K atol."""
    rtol, atol, tilt, drop = 1e-10, 1e-12, np.radians(25.0), 0.005
    R = Rotation.from_euler("x", tilt)
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    corners = 0.5 * BOX * corners
    z0 = drop - (R.apply(corners)[:, 2]).min()
    model = mbd.Model("tip")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    ground.add_shape(mbd.Plane(), contact=True)
    box = model.add_body("box", mass=BOX_M, cg=(0.0, 0.0, 0.0),
                         inertia=box_inertia(BOX_M, BOX))
    box.add_shape(mbd.Box(tuple(BOX)), contact=True)
    qx, qy, qz, qw = R.as_quat()
    model.add(SixDof("free", ground, box["cg"], q0=(0.0, 0.0, z0, qw, qx, qy, qz)))
    model.add(mbd.Contact("floor", ground, box, ElastoGap(c=BOX_C, d=BOX_D, n=1.5)))
    r = model.simulate(1.5, output_step=1e-3, rtol=rtol, atol=atol)
    begins = [(e.t, e.element) for e in r.events if e.what == "contact begins"]
    # (the edge's two corners at one instant: to the event location's K rtol)
    first = sorted(name for t, name in begins if t - begins[0][0] < K * rtol)
    # the lowest edge: the corners whose drawn position is lowest after the turn
    lowest = np.flatnonzero(np.isclose(R.apply(corners)[:, 2],
                                       R.apply(corners)[:, 2].min()))
    assert len(lowest) == 2
    assert first == [f"floor: box corner {k}" for k in lowest]
    # the drop's closed form: the edge touches after free fall through `drop`
    assert abs(begins[0][0] - np.sqrt(2.0 * drop / G)) < K * rtol
    # the other two corners of the face that lands come in later
    lower = [k for k in range(8) if (R.apply(corners[k]))[2] < 0.0]
    later = {name for t, name in begins if t > begins[0][0] + 1e-3}
    assert {f"floor: box corner {k}" for k in lower} - set(first) <= later
    assert len(later) >= 2
    # at rest on the four corners of the lower face (corners with drawn z < 0 in the box's
    # axes: the face -z turned onto the floor)
    forces = {k: r.force(f"floor: box corner {k}").scalar for k in range(8)}
    down_face = [k for k in range(8) if corners[k, 2] < 0.0]
    up_face = [k for k in range(8) if corners[k, 2] > 0.0]
    end = r.t >= 1.4
    total = sum(forces[k][end] for k in down_face)
    np.testing.assert_allclose(total, BOX_M * G, rtol=0, atol=K * (rtol * BOX_M * G + atol))
    for k in down_face:                 # each corner carries a share (equal: a square face)
        np.testing.assert_allclose(forces[k][end], BOX_M * G / 4.0, rtol=0,
                                   atol=K * (rtol * BOX_M * G + atol))
    for k in up_face:
        assert np.all(forces[k][end] == 0.0)
    view = r.body("box")
    np.testing.assert_allclose(view.velocity("cg")[end], 0.0, atol=K * atol)
    np.testing.assert_allclose(view.angular_velocity[end], 0.0, atol=K * atol)
    # it lies flat: its z axis is the world's
    np.testing.assert_allclose(view.rotation.as_matrix()[end][:, :, 2], [[0, 0, 1]] * end.sum(),
                               atol=K * atol)


# --------------------------------------------------------------------------- 5. Newton's cradle

CRADLE_N, CRADLE_R, CRADLE_M, CRADLE_C, CRADLE_V0 = 5, 0.05, 0.1, 1e7, 1.0
#: ball 0 starts 2 mm from ball 1; the others are 1e-7 m apart (touching, to well below the
#: ~0.3 mm the contacts compress: a cradle, but with every gap's sign plain at the start)
CRADLE_X0 = np.array([-0.002] + [k * (2 * CRADLE_R + 1e-7) for k in range(1, CRADLE_N)])


def cradle_oracle(t_end):
    """The chain of five masses on a line with Hertz's law between neighbours, alone, with
    scipy: the times each gap crosses zero [(t, k, new sign)] and the final speeds."""
    n, c, m = CRADLE_N, CRADLE_C, CRADLE_M

    def rhs(_, y, signs):
        x, v = y[:n], y[n:]
        a = np.zeros(n)
        for k in range(n - 1):
            if signs[k] < 0:
                F = c * max(2 * CRADLE_R - (x[k + 1] - x[k]), 0.0) ** 1.5
                a[k] -= F / m
                a[k + 1] += F / m
        return np.concatenate((v, a))
    switches = [lambda _, y, k=k: y[k + 1] - y[k] - 2 * CRADLE_R for k in range(n - 1)]
    y0 = np.concatenate((CRADLE_X0, [CRADLE_V0] + [0.0] * (n - 1)))
    events, pieces = piecewise(rhs, y0, (0.0, t_end), switches, atol=1e-15)
    return [(t, k, sign) for t, k, sign, _ in events], pieces[-1](t_end)[n:]


def test_newtons_cradle():
    """Five equal balls, no gravity, elastic Hertz contacts (d = 0) between neighbours. The
    oracle is the 1-D chain integrated alone: every contact's begin and end, and every
    ball's final speed (Hertz's chain does not pass the impulse on perfectly: the last ball
    leaves a little slower than v0, the others keep small speeds). Momentum: its rate is
    zero identically (each contact's force and reaction) and the run's state carries the
    balls' world velocities, a linear invariant that a Runge-Kutta step keeps to round-off
    whatever its error: held to 1e3 eps m v0 per row. Energy: the balance's residual, the
    run's error, to K rtol of its scale."""
    rtol, atol, t_end = 1e-10, 1e-12, 0.012
    model = mbd.Model("cradle")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    balls = []
    for k in range(CRADLE_N):
        ball = model.add_body(f"ball{k}", mass=CRADLE_M, cg=(0.0, 0.0, 0.0),
                              inertia=0.4 * CRADLE_M * CRADLE_R ** 2 * np.eye(3))
        ball.add_shape(mbd.Sphere(CRADLE_R), contact=True)
        model.add(SixDof(f"free{k}", ground, ball["cg"],
                         q0=(CRADLE_X0[k], 0.0, 0.0, 1.0, 0.0, 0.0, 0.0),
                         v0=(CRADLE_V0 if k == 0 else 0.0, 0, 0, 0, 0, 0)))
        balls.append(ball)
    for k in range(CRADLE_N - 1):
        model.add(mbd.Contact(f"c{k}", balls[k], balls[k + 1],
                              ElastoGap(c=CRADLE_C, d=0.0, n=1.5)))
    r = model.simulate(t_end, output_step=1e-4, rtol=rtol, atol=atol)
    events, v_end = cradle_oracle(t_end)
    names = {-1: "contact begins", 1: "contact ends"}
    expected = [(t, f"c{k}: point", names[int(sign)]) for t, k, sign in events]
    got = [(e.t, e.element, e.what) for e in r.events if e.what in names.values()]
    assert [x[1:] for x in got] == [x[1:] for x in expected]
    np.testing.assert_allclose([x[0] for x in got], [x[0] for x in expected], rtol=0,
                               atol=K * rtol * t_end)
    assert got[-1][2] == "contact ends" and got[-1][0] < 0.8 * t_end   # all over by t_end
    v = np.array([r.body(f"ball{k}").velocity("cg") for k in range(CRADLE_N)])  # (5, n, 3)
    np.testing.assert_allclose(v[:, -1, 0], v_end, rtol=0, atol=K * (rtol * CRADLE_V0 + atol))
    # the impulse went down the chain: the last ball carries most of it
    assert v_end[-1] > 0.9 * CRADLE_V0 and np.abs(v_end[:-1]).max() < 0.2 * CRADLE_V0
    # momentum at every row, and nothing off the line
    p = CRADLE_M * v.sum(axis=0)
    np.testing.assert_allclose(p[:, 0], p[0, 0], rtol=0,
                               atol=1e3 * np.finfo(float).eps * CRADLE_M * CRADLE_V0)
    assert abs(p[0, 0] - CRADLE_M * CRADLE_V0) < K * rtol * CRADLE_M * CRADLE_V0
    np.testing.assert_allclose(v[:, :, 1:], 0.0, atol=1e3 * np.finfo(float).eps)
    # energy: no damping, so what the balance books besides kinetic energy is the springs'
    balance = r.energy_balance()
    assert np.abs(balance.residual).max() <= K * rtol * balance.scale
    T = 0.5 * CRADLE_M * (v ** 2).sum(axis=(0, 2))
    stored = sum(r.force(f"c{k}: point").energy for k in range(CRADLE_N - 1))
    np.testing.assert_allclose(T + stored, 0.5 * CRADLE_M * CRADLE_V0 ** 2, rtol=K * rtol)


# --------------------------------------------------------------------------- 6. cam and follower

CAM_E, CAM_R, CAM_C, CAM_D, FOLLOWER_M = 0.02, 0.05, 1e7, 200.0, 0.5


def cam_run(omega, t_end, rtol, atol):
    """A disc cam (a sphere of radius R whose centre is e from the axis) turned about -y at
    omega by a motion driver, so that its centre is at z = e sin(omega t), under a
    flat-faced follower on a vertical prismatic joint, its face a Plane whose +z points
    down (the solid above it, the cam on its +z side), in gravity. The follower starts at
    the static penetration with the cam's vertical speed. Returns (result, penetration at
    the start)."""
    delta0 = (FOLLOWER_M * G / CAM_C) ** (1.0 / 1.5)
    model = mbd.Model("cam")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    cam = model.add_body("cam", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=0.01 * np.eye(3),
                         cs={"centre": (CAM_E, 0.0, 0.0)})
    cam.add_shape(mbd.Sphere(CAM_R), cs="centre", contact=True)
    spin = model.add(Revolute("spin", ground, cam["cg"], axis=(0.0, -1.0, 0.0)))
    model.add(mbd.MotionDriver("motor", spin, position=lambda t: omega * t,
                               velocity=lambda t: omega, acceleration=lambda t: 0.0))
    follower = model.add_body("follower", mass=FOLLOWER_M, cg=(0.0, 0.0, CAM_R),
                              inertia=0.01 * np.eye(3),
                              cs={"face": ((0.0, 0.0, CAM_R), Rotation.from_euler("x", np.pi)),
                                  "slide": (0.0, 0.0, 0.0)})
    follower.add_shape(mbd.Plane(), cs="face", contact=True)
    model.add(Prismatic("lift", ground, follower["slide"], axis=(0.0, 0.0, 1.0), q0=-delta0,
                        v0=CAM_E * omega))
    model.add(mbd.Contact("touch", follower, cam, ElastoGap(c=CAM_C, d=CAM_D, n=1.5)))
    return model.simulate(t_end, output_step=2e-4, rtol=rtol, atol=atol), delta0


def follower_oracle(omega, t_end, delta0):
    """The follower alone on the prescribed cam: z'' = -g + F(gap, rate) / m with
    gap = z - e sin(omega t) - R and rate = z' - e omega cos(omega t) (the cam's material
    point under the face moves up at its centre's speed: the face is flat), branch by
    branch. Returns [(t, "contact begins"/"contact ends")] and the dense solution."""
    c, d, m = CAM_C, CAM_D, FOLLOWER_M

    def measure(t, y):
        return y[0] - CAM_E * np.sin(omega * t) - CAM_R, y[1] - CAM_E * omega * np.cos(omega * t)

    def spring(t, y):
        return c * max(-measure(t, y)[0], 0.0) ** 1.5
    switches = [lambda t, y: measure(t, y)[0],                          # > 0: no contact
                lambda t, y: -d * measure(t, y)[1] - spring(t, y),      # > 0: clamped high
                lambda t, y: d * measure(t, y)[1] - spring(t, y)]       # > 0: clamped low

    def rhs(t, y, signs):
        gap, rate = measure(t, y)
        s = spring(t, y)
        F = 0.0 if signs[0] > 0 else 2 * s if signs[1] > 0 else 0.0 if signs[2] > 0 else \
            s - d * rate
        return (y[1], F / m - G)
    # at the start: in contact at rest relative to the cam, the damping within its clamps
    events, pieces = piecewise(rhs, (CAM_R - delta0, CAM_E * omega), (0.0, t_end), switches,
                               signs=(-1.0, -1.0, -1.0), atol=1e-15)
    # the log as mbd names it; the clamps' functions flip in free flight too (the spring
    # zero, d rate changing sign), where the law does not arm them: left out
    names = {(0, 1): "contact ends", (0, -1): "contact begins",
             (1, 1): "damping clamped at the spring force",
             (1, -1): "damping below the spring force",
             (2, 1): "damping clamped: the gap never pulls",
             (2, -1): "damping no longer clamped"}
    log, touching = [], True
    for t, k, sign, _ in events:
        if k == 0:
            touching = sign < 0
        if k == 0 or touching:
            log.append((t, names[(k, int(sign))]))
    return log, events, pieces


def cam_check(omega, t_end):
    rtol, atol = 1e-10, 1e-12
    r, delta0 = cam_run(omega, t_end, rtol, atol)
    z = r.body("follower").position("cg")[:, 2]
    log, events, pieces = follower_oracle(omega, t_end, delta0)
    # the oracle's height at every row (its pieces in time order)
    starts = np.array([0.0] + [t for t, *_ in events])
    z_oracle = np.array([pieces[np.searchsorted(starts, t, side="right") - 1](t)[0]
                         for t in r.t])
    np.testing.assert_allclose(z, z_oracle, rtol=0, atol=K * (rtol * CAM_R + atol))
    got = [(e.t, e.what) for e in r.events if e.element == "touch: point"]
    assert [w for _, w in got] == [w for _, w in log]
    np.testing.assert_allclose([t for t, _ in got], [t for t, _ in log], rtol=0,
                               atol=K * rtol * t_end)
    # the closed form: in contact the face rides on the cam's top, e sin(omega t) + R, less
    # the quasi-static penetration of the force m (g + z'') = m (g - e omega^2 sin); the
    # follower's inertia against the contact's spring and the law's damping add terms of
    # order (omega / omega_n)^2 and 2 zeta omega / omega_n of it, omega_n the contact's
    # natural frequency and zeta its damping ratio. Both grow without bound where the force
    # (and with it the Hertz stiffness 1.5 c delta^0.5) goes to zero, near a lift-off: so
    # the closed form is held where the force is at least m g / 2, with omega_n and zeta
    # there at their worst (at m g / 2), to 3 times their terms of the largest penetration
    load = FOLLOWER_M * (G - CAM_E * omega ** 2 * np.sin(omega * r.t))
    delta = (np.maximum(load, 0.0) / CAM_C) ** (1.0 / 1.5)
    k_min = 1.5 * CAM_C * (0.5 * FOLLOWER_M * G / CAM_C) ** (1.0 / 3.0)
    omega_n = np.sqrt(k_min / FOLLOWER_M)
    two_zeta = CAM_D / np.sqrt(k_min * FOLLOWER_M)
    closed = CAM_E * np.sin(omega * r.t) + CAM_R - delta
    bound = 3.0 * ((omega / omega_n) ** 2 + two_zeta * omega / omega_n) * delta.max()
    loaded = load >= 0.5 * FOLLOWER_M * G
    assert loaded.sum() > 0.3 * len(r.t)
    assert np.abs(z - closed)[loaded].max() <= bound
    assert bound < 0.05 * CAM_E            # the lift is resolved: e against the bound
    return r, got, omega_n


def test_cam_follower_stays_on_a_slow_cam():
    """e omega^2 = 4.5 < g: the follower needs at most m (e omega^2 - g) < 0 of pull, so it
    rides the cam all the way round: no contact event in one revolution, and the lift
    against the closed form and the follower integrated alone (cam_check)."""
    omega = 15.0
    r, got, _ = cam_check(omega, 2 * np.pi / omega)
    assert not [w for _, w in got if w.startswith("contact")]


def test_cam_follower_lifts_off_a_fast_cam():
    """e omega^2 = 18 > g: the contact force m (g - e omega^2 sin(omega t)) reaches zero at
    t* = arcsin(g / (e omega^2)) / omega, where the follower lifts off: the law's force
    becomes zero there (its damping clamped, "the gap never pulls") and the face flies;
    the gap itself closes later ("contact ends"), the face and cam parting as j tau^3 / 6
    (j = e omega^3 cos(omega t*), the cam's jerk there) from the penetration left. Near the
    zero of the force the Hertz stiffness vanishes and the quasi-static picture fails on
    the one time scale the unloading contact has, T = (m / c)^(2/7) j^(-1/7) (m delta'' =
    m j tau against c delta^1.5 made dimensionless): the force's zero is held to t*
    within T, the contact's end to (t*, t* + 3 T), and both exactly (cam_check) to the
    follower integrated alone."""
    omega = 30.0
    t_star = np.arcsin(G / (CAM_E * omega ** 2)) / omega
    j = CAM_E * omega ** 3 * np.cos(omega * t_star)
    T = (FOLLOWER_M / CAM_C) ** (2.0 / 7.0) * j ** (-1.0 / 7.0)
    assert T < 0.25 * t_star
    r, got, _ = cam_check(omega, 1.5 * t_star)
    assert [w for _, w in got if w.startswith("contact")] == ["contact ends"]
    released = [t for t, w in got if w == "damping clamped: the gap never pulls"]
    ends = [t for t, w in got if w == "contact ends"]
    assert len(released) == 1 and released[0] < ends[0]
    assert abs(released[0] - t_star) < T
    assert t_star < ends[0] < t_star + 3.0 * T
