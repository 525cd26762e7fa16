"""Exact contact friction (``Coulomb(exact=True)``, SPEC §12): stick and slip of a contact's
points as one patch, each against a closed form.

The oracles: a block sliding on a floor slows at mu_k g exactly and sticks where its speed
reaches zero; on an incline below mu_s = tan(theta) it stays put to round-off, above it slides
at g (sin - mu_k cos); a sphere on an incline rolls at g sin / (1 + I / (m rho^2)) with no
slip event. Gravity is tilted instead of the floor (the same physics). Bounds come from the
runs' tolerance (rtol 1e-10): an event's time to the event location on the step's dense
output, a motion's to the integration error over the run, a few hundred steps.
"""
import math
import re

import numpy as np
import pytest

import mbd
from forces import ElastoGap
from joints import SixDof

G, MASS, C, D, N = 9.81, 2.0, 1e6, 100.0, 1.5
HALF = 0.1              # the block's half size, m
RTOL, ATOL = 1e-10, 1e-12

#: these tests assert accuracy bounds: run again on a perturbed problem under --perturb
pytestmark = pytest.mark.accuracy


def model(shape, theta=0.0, mu_s=0.5, mu_k=0.4, v0=0.0, z0=HALF, pitch=0.0, inertia=None):
    """A body carrying ``shape`` on a floor plane under gravity tilted by ``theta`` (down the
    slope along +x), its centre at ``z0``, turned by ``pitch`` about y (rad; its +x side
    down), sliding at ``v0`` (m/s, +x), with exact friction."""
    m = mbd.Model("friction")
    floor = m.add_ground("floor", environment=mbd.Environment(
        gravity=(G * math.sin(theta), 0.0, -G * math.cos(theta))))
    floor.add_shape(mbd.Plane(), contact=True)
    body = m.add_body("body", mass=MASS, cg=(0, 0, 0),
                      inertia=np.eye(3) * MASS * (2 * HALF) ** 2 / 6 if inertia is None
                      else inertia)
    body.add_shape(shape, contact=True)
    m.add(SixDof("free", floor, body["cg"],
                 q0=(0.0, 0.0, z0, math.cos(pitch / 2), 0.0, math.sin(pitch / 2), 0.0),
                 v0=[v0, 0.0, 0.0, (0.0, 0.0, 0.0)]))
    m.add(mbd.Contact("patch", floor, body, ElastoGap(c=C, d=D, n=N),
                      mbd.Coulomb(mu_s, mu_k, exact=True)))
    return m


def block(theta=0.0, friction=0.0, **options):
    """A cube of side 2 HALF resting on its four lower corners at their static penetrations
    under the normal load m g cos(theta) and a friction force along -x of ``friction`` times
    it: the moments about the centre balance where the front (+x) corners carry
    (1/4 + friction/4) of the load and the back ones (1/4 - friction/4) (the friction acts
    HALF below the centre, the corners HALF before and behind it), so the cube is turned
    until their penetrations are those loads' (an equilibrium: no transient to start)."""
    load = MASS * G * math.cos(theta)
    front = (load * (1 + friction) / 4 / C) ** (1 / N)
    back = (load * (1 - friction) / 4 / C) ** (1 / N)
    pitch = math.asin((front - back) / (2 * HALF))
    z0 = HALF * math.cos(pitch) - (front + back) / 2
    return model(mbd.Box((2 * HALF,) * 3), theta=theta, z0=z0, pitch=pitch, **options)


def friction_events(result):
    return [(e.t, e.what) for e in result.events if e.element == "patch"]


def patch_centre(result):
    """The mean of the body's points in contact (its witnesses: a box's corners), world, m:
    material points, where the contact point (their midpoints with the floor's witnesses,
    half the penetration below) turns with the body as it rocks."""
    contact = result.contact("patch")
    corners = contact.point + 0.5 * contact.gap[..., None] * contact.normal
    return np.nanmean(corners, axis=1)


def test_a_sliding_block_stops_exactly_where_mu_k_g_brings_it_to_rest():
    # slipping, m dvx/dt = -mu_k sum(fn) and m dvz/dt = sum(fn) - m g exactly (kinetic
    # friction, no regularization), so vx = v0 - mu_k (g t + vz): at rest (vz 0: started in
    # its sliding equilibrium) at t* = v0 / (mu_k g)
    v0, mu_k = 1.0, 0.4
    result = block(v0=v0, mu_k=mu_k, friction=mu_k).simulate(0.5, output_step=0.01,
                                                            rtol=RTOL, atol=ATOL)
    [(t_stick, what)] = friction_events(result)
    assert what == "sticks"
    assert t_stick == pytest.approx(v0 / (mu_k * G), rel=1e-8)
    velocity = result.body("body").velocity()
    slipping = result.t < t_stick
    np.testing.assert_allclose(velocity[slipping, 0],
                               v0 - mu_k * (G * result.t[slipping] + velocity[slipping, 2]),
                               atol=1e-7 * v0)
    # stuck, the patch holds: the material point at its centre does not slide. That point
    # is half the penetration delta below the box's face (the contact points are the
    # midpoints, SPEC §12), so as the box rocks back level from its sliding pitch phi (the
    # kinetic friction's moment gone) its corners may move by up to phi delta / 2 each way,
    # and then stay put: to round-off and the run's error, 1e-9 m
    contact = result.contact("patch")
    after = result.t >= t_stick
    centre = patch_centre(result)[after]
    load = MASS * G
    front, back = ((load * (1 + mu_k) / 4 / C) ** (1 / N), (load * (1 - mu_k) / 4 / C) ** (1 / N))
    phi = math.asin((front - back) / (2 * HALF))
    assert np.abs(centre[:, :2] - centre[0, :2]).max() < phi * front
    late = result.t[after] > t_stick + 0.15             # the rocking damped out
    assert np.abs(centre[late, :2] - centre[late][0, :2]).max() < 1e-9
    assert np.all(contact.state[after][:, [0, 2, 4, 6]] == "stick")
    assert np.all(contact.sticks[after]) and not np.any(contact.sticks[slipping])
    assert np.abs(contact.friction[-1].sum(axis=0)).max() < 1e-6 * MASS * G
    balance = result.energy_balance()
    assert balance.dissipated["patch friction"][-1] == pytest.approx(0.5 * MASS * v0 ** 2,
                                                                      rel=1e-3)
    assert abs(balance.residual).max() < 1e-7 * balance.scale


def test_a_block_below_the_friction_angle_stays_put_to_round_off():
    # tan(theta) = 0.49 < mu_s = 0.5, started in its equilibrium: it sticks from the start
    # (the event at t0) and never breaks free; the holding force is m g sin(theta) up the
    # slope, inside the cone by 2 %
    theta = math.atan(0.49)
    result = block(theta=theta, friction=0.49).simulate(1.0, output_step=0.01, rtol=RTOL,
                                                        atol=ATOL)
    assert friction_events(result) == [(0.0, "sticks")]
    centre = patch_centre(result)
    # (the same bound as the sliding block's, from its settling at the start)
    assert np.abs(centre[:, :2] - centre[0, :2]).max() < 1e-8
    contact = result.contact("patch")
    hold = contact.friction[-1].sum(axis=0)
    np.testing.assert_allclose(hold, [-MASS * G * math.sin(theta), 0.0, 0.0],
                               atol=1e-6 * MASS * G)


def test_a_block_above_the_friction_angle_slides_at_the_kinetic_rate():
    # tan(theta) = 0.51 > mu_s = 0.5, started as if held (its corners loaded as holding
    # m g sin takes): holding needs m g sin(theta) > mu_s m g cos(theta), so it slips at
    # once (no stick event), and slides with dvx/dt = g sin - mu_k (g cos + dvz/dt) exactly
    theta, mu_k = math.atan(0.51), 0.4
    result = block(theta=theta, friction=0.51, mu_k=mu_k).simulate(
        0.5, output_step=0.01, rtol=RTOL, atol=ATOL)
    assert friction_events(result) == []
    velocity = result.body("body").velocity()
    t = result.t
    np.testing.assert_allclose(velocity[:, 0], G * (math.sin(theta) - mu_k * math.cos(theta))
                               * t - mu_k * velocity[:, 2], atol=1e-8)
    assert set(result.contact("patch").state[-1][[0, 2, 4, 6]]) == {"slip"}


@pytest.mark.parametrize("mu_s", [0.3, 1.0])
def test_a_sphere_rolls_down_an_incline_without_slipping(mu_s):
    # sticking, the contact point at the midpoint of the witnesses (delta / 2 into the floor,
    # delta the static penetration) holds: the sphere rolls on rho = r - delta / 2 at
    # a = g sin / (1 + I / (m rho^2)), while mu_s >= 2/7 tan(theta) (here 2/7 tan = 0.104)
    theta, r = math.radians(20.0), 0.1
    inertia = 0.4 * MASS * r ** 2
    delta = (MASS * G * math.cos(theta) / C) ** (1 / N)
    sphere = model(mbd.Sphere(r), theta=theta, mu_s=mu_s, mu_k=0.2 * mu_s, z0=r - delta,
                   inertia=np.eye(3) * inertia)
    result = sphere.simulate(1.0, output_step=0.01, rtol=RTOL, atol=ATOL)
    assert friction_events(result) == [(0.0, "sticks")]
    rho = r - delta / 2
    a = G * math.sin(theta) / (1 + inertia / (MASS * rho ** 2))
    x = result.body("body").position()[:, 0]
    np.testing.assert_allclose(x, 0.5 * a * result.t ** 2, atol=1e-9)
    # and the closed form is not the rigid one's: rho's correction is seen
    assert abs(a - 5 / 7 * G * math.sin(theta)) * 0.5 > 100 * 1e-9


def test_exact_friction_is_refused_where_it_is_not_built():
    m = block()
    from joints import Prismatic
    body = m.bodies[0]
    other = m.add_body("other", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
    m.add(Prismatic("rail", m.grounds[0], other["cg"], axis=(1, 0, 0)))
    m.add(mbd.MotionDriver("push", m.elements[-1], lambda t: (t, 1.0, 0.0)))
    with pytest.raises(mbd.ModelError, match=r"exact friction \(Coulomb\(exact=True\)\) is "
                                             "built for mechanisms without loops, motion"):
        m.build()
    assert body.name == "body"


def test_a_tumbling_box_lands_bounces_and_comes_to_rest_stuck_on_four_corners():
    # dropped turned and moving, it lands on a corner, slips and sticks, rocks onto its
    # face: at the end it sticks on its four lower corners, which carry m g together (each
    # at rest: a closed form), and it does not move (the hold: no creep; 1e-9 m over the
    # last 0.3 s, the run's error)
    turn = np.array([0.95, 0.2, 0.15, 0.05]) / np.linalg.norm([0.95, 0.2, 0.15, 0.05])
    m = mbd.Model("tumble")
    floor = m.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    floor.add_shape(mbd.Plane(), contact=True)
    box = m.add_body("box", mass=1.0, cg=(0, 0, 0), inertia=np.diag([0.01, 0.012, 0.008]))
    box.add_shape(mbd.Box((0.2, 0.15, 0.1)), contact=True)
    m.add(SixDof("free", floor, box["cg"], q0=(0.0, 0.0, 0.3, *turn),
                 v0=[0.3, 0.1, 0.0, (0.0, 0.0, 0.0)]))
    m.add(mbd.Contact("patch", floor, box, ElastoGap(c=C, d=200.0, n=N),
                      mbd.Coulomb(0.6, 0.5, exact=True)))
    result = m.simulate(1.5, output_step=0.01, rtol=1e-8, atol=1e-10)
    whats = [what for _, what in friction_events(result)]
    assert whats[-1] == "sticks" and "breaks free: slips" in whats
    contact = result.contact("patch")
    assert contact.sticks[-1] and contact.in_contact[-1].sum() == 4
    assert contact.total_normal_force[-1] == pytest.approx(1.0 * G, rel=1e-6)
    late = result.t > 1.2
    position = result.body("box").position()[late]
    assert np.abs(position - position[-1]).max() < 1e-9


def test_a_block_started_level_on_an_incline_settles_and_then_does_not_creep():
    # mu_k = mu_s = 0.5 > tan(25 deg) = 0.466, started level: settling onto the slope's load,
    # the force needed to hold it peaks past the cone's edge and it breaks free (the slip
    # starting from zero without acceleration where mu_k = mu_s: the case that once stopped
    # and slipped at one instant, over and over), slides a little, sticks, and from then on
    # its corners do not move
    theta = math.radians(25.0)
    result = block(theta=theta, mu_s=0.5, mu_k=0.5).simulate(2.0, output_step=0.01,
                                                             rtol=RTOL, atol=ATOL)
    events = friction_events(result)
    assert [what for _, what in events][:2] == ["sticks", "breaks free: slips"]
    assert events[-1][1] == "sticks" and events[-1][0] < 0.1
    late = result.t > events[-1][0] + 0.2
    centre = patch_centre(result)[late]
    # (the run's error on the corners' rocking: rtol x the size, 2e-11 m; bound 1e-9 m)
    assert np.abs(centre[:, :2] - centre[0, :2]).max() < 1e-9
    assert 0.0 < centre[0, 0] < 1e-3           # (the settling slide: down the slope, short)


def test_a_stiff_slip_near_zero_is_named_as_the_slipping_contact():
    # a ball (its spin held back by a large inertia) slipping at 3 um/s on a floor whose
    # gravity pulls it along, across its slip, with exactly its kinetic friction: its slip
    # turns towards the pull and stays that slow, where the friction's direction turns with
    # it at mu_k f_n / (m |v|) ~ 1e6 1/s. No one point's normal force sets that mode (each
    # point frozen keeps its friction): the message names the contact, its slip speed, and
    # the mode without its kinetic friction
    theta = math.atan(0.4)
    along = G * math.sin(theta) / math.sqrt(2.0)
    m = mbd.Model("creep")
    floor = m.add_ground("floor", environment=mbd.Environment(
        gravity=(along, along, -G * math.cos(theta))))
    floor.add_shape(mbd.Plane(), contact=True)
    ball = m.add_body("ball", mass=MASS, cg=(0, 0, 0), inertia=np.eye(3) * 1e3)
    ball.add_shape(mbd.Sphere(HALF), contact=True)
    depth = (MASS * G * math.cos(theta) / C) ** (1 / N)
    m.add(SixDof("free", floor, ball["cg"], q0=(0.0, 0.0, HALF - depth, 1.0, 0.0, 0.0, 0.0),
                 v0=[3e-6, 0.0, 0.0, (0.0, 0.0, 0.0)]))
    m.add(mbd.Contact("patch", floor, ball, ElastoGap(c=C, d=D, n=N),
                      mbd.Coulomb(0.5, 0.4, exact=True)))
    with pytest.raises(mbd.SimulationError) as caught:
        m.build().simulate(0.01, output_step=0.001, rtol=1e-8, atol=1e-10, max_steps=500)
    message = str(caught.value)
    found = re.search(r"contact 'patch' slipping at ([\d.e+-]+) m/s \(Coulomb\(mu_s=0.5, "
                      r"mu_k=0.4.*\) sets it: with its kinetic friction taken away .* the rate "
                      r"is ([\d.e+-]+) 1/s", message)
    assert found, message
    speed, without = (float(x) for x in found.groups())
    assert 0.0 < speed < 1e-5
    rate = float(re.search(r"a mode of rate (-[\d.e+]+) 1/s", message).group(1))
    # the named rate: mu_k f_n / (m |v|) within the slip's start band (SLIP_START), and the
    # mode without that friction at least twice slower (the diagnosis's rule)
    assert 0.1 < abs(rate) / (0.4 * G * math.cos(theta) / (speed + 1e-6)) < 10.0
    assert without <= 0.5 * abs(rate)
    assert "method='Radau'" in message
