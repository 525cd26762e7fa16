"""Contact (SPEC §12): the element, its points, what a run reports of it, and bad input named.

The reference cases (ball drop, incline, rolling, tipping box, cradle, cam) are in
test_contact_cases.py; here are the contracts: a resting contact against its closed form,
friction's deceleration and its work, the result's contact view against the point records,
sensors, overrides, the report, the helpers and every refusal.
"""
import math

import numpy as np
import pytest

import mbd
from forces import ElastoGap, JointForce
from joints import Prismatic, SixDof

G = 9.81
MASS, RADIUS, C, N = 2.0, 0.1, 1e6, 1.5


def _free(model, ground, body, z, v=(0.0, 0.0, 0.0)):
    model.add(SixDof("free", ground, body["cg"], q0=(0.0, 0.0, z, 1.0, 0.0, 0.0, 0.0),
                     v0=[*v, (0.0, 0.0, 0.0)]))


def ball_on_floor(z, d=200.0, friction=None, v=(0.0, 0.0, 0.0)):
    """A ball of radius RADIUS on a SixDof above a ground's floor plane, centre at height z."""
    model = mbd.Model("ball")
    ground = model.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -G)))
    ground.add_shape(mbd.Plane(), contact=True)
    ball = model.add_body("ball", mass=MASS, cg=(0, 0, 0),
                          inertia=np.eye(3) * 0.4 * MASS * RADIUS ** 2)
    ball.add_shape(mbd.Sphere(RADIUS), contact=True)
    _free(model, ground, ball, z, v)
    model.add(mbd.Contact("touch", ground, ball, ElastoGap(c=C, d=d, n=N), friction))
    return model


def test_a_ball_resting_at_its_static_penetration_stays_there_carrying_its_weight():
    # closed form: c delta^n = m g; started there at rest, the state is an equilibrium
    delta = (MASS * G / C) ** (1.0 / N)
    model = ball_on_floor(RADIUS - delta)
    model.add(mbd.Sensor("support", "touch.fn"))
    model.add(mbd.Sensor("depth", "touch.gap"))
    result = model.simulate(0.2, output_step=0.05, rtol=1e-11, atol=1e-13)
    contact = result.contact("touch")
    assert contact.names == ["touch: point"]
    # the gap is delta to the run's tolerance (an equilibrium: the integration's error only)
    np.testing.assert_allclose(contact.gap[:, 0], -delta, rtol=1e-8)
    np.testing.assert_allclose(contact.total_normal_force, MASS * G, rtol=1e-8)
    np.testing.assert_allclose(result.sensor("support"), MASS * G, rtol=1e-8)
    np.testing.assert_allclose(result.sensor("depth"), -delta, rtol=1e-8)
    np.testing.assert_allclose(contact.normal[:, 0], [[0.0, 0.0, 1.0]] * len(result.t),
                               atol=1e-15)
    # the force acts at the midpoint of the witness points: delta / 2 below the surface
    np.testing.assert_allclose(contact.point[:, 0, 2], -delta / 2, rtol=1e-8)
    assert contact.intervals() == [(0.0, pytest.approx(np.nan, nan_ok=True))]
    assert list(contact.state[:, 0]) == ["slip"] * len(result.t)


def test_the_contact_view_agrees_with_the_event_log_and_the_point_records():
    model = ball_on_floor(0.3, d=500.0)
    result = model.simulate(0.6, output_step=0.01)
    contact = result.contact("touch")
    begins = [e.t for e in result.events if e.what == "contact begins"]
    ends = [e.t for e in result.events if e.what == "contact ends"]
    assert begins and ends
    # the first contact at the free-fall time to the floor (closed form, the run's tolerance)
    assert begins[0] == pytest.approx(math.sqrt(2 * (0.3 - RADIUS) / G), rel=1e-7)
    spans = contact.intervals()
    assert [a for a, _ in spans] == begins
    assert [b for _, b in spans if not np.isnan(b)] == ends
    point = result.force("touch: point")
    np.testing.assert_array_equal(contact.gap[:, 0], point.x)
    np.testing.assert_array_equal(contact.fn[:, 0], point.value)
    # open rows: no point, no force; the force is the normal law's along the normal
    open_rows = ~contact.in_contact[:, 0]
    assert open_rows.any() and (~open_rows).any()
    assert np.all(np.isnan(contact.point[open_rows, 0]))
    assert np.all(contact.fn[open_rows, 0] == 0.0)
    np.testing.assert_allclose(contact.force, contact.fn[:, 0, None] * contact.normal[:, 0],
                               atol=1e-12)


def test_friction_decelerates_a_sliding_box_at_mu_k_g_and_its_work_is_booked():
    # a box sliding on four corners: while s >> v_crit, mu = mu_k + (mu_s - mu_k) e^-(s/v_crit
    # - 1) = mu_k to round-off (s / v_crit > 100), so the deceleration is mu_k g exactly
    mu_s, mu_k, v0, side = 0.6, 0.4, 2.0, 0.2
    model = mbd.Model("slide")
    ground = model.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -G)))
    ground.add_shape(mbd.Plane(), contact=True)
    box = model.add_body("box", mass=MASS, cg=(0, 0, 0),
                         inertia=np.eye(3) * MASS * side ** 2 / 6.0)
    box.add_shape(mbd.Box((side, side, side)), contact=True)
    delta = (MASS * G / (4 * C)) ** (1.0 / N)          # each corner carries a quarter
    _free(model, ground, box, side / 2 - delta, v=(v0, 0.0, 0.0))
    model.add(mbd.Contact("skid", ground, box, ElastoGap(c=C, d=100.0, n=N),
                          mbd.Coulomb(mu_s, mu_k, v_crit=1e-3)))
    t_end = 0.8 * v0 / (mu_k * G)                      # still sliding fast at the end
    result = model.simulate(t_end, output_step=t_end / 20, rtol=1e-10, atol=1e-12)
    velocity = result.body("box").velocity()
    vx, vz = velocity[:, 0], velocity[:, 2]
    # friction's moment pitches the box and shifts the load from corner to corner, a damped
    # transient; but m dvx/dt = -mu_k sum(fn) and m dvz/dt = sum(fn) - m g, so at every row
    # vx = v0 - mu_k (g t + vz) exactly. The run's error at rtol 1e-10 over a few hundred
    # steps: a few 1e-9 of v0 (bound 100 times that)
    np.testing.assert_allclose(vx, v0 - mu_k * (G * result.t + vz), atol=1e-7 * v0)
    contact = result.contact("skid")
    assert contact.in_contact[:, [0, 2, 4, 6]].all()       # the four lower corners (z = -)
    assert not contact.in_contact[:, [1, 3, 5, 7]].any()
    # at the end the transient has died (damping 100 N s/m per corner against 2 kg: a decay
    # time of ~ 2 m / (4 d) = 0.01 s, the run lasts 0.4 s): the corners carry m g together
    assert contact.total_normal_force[-1] == pytest.approx(MASS * G, rel=1e-6)
    balance = result.energy_balance()
    lost = 0.5 * MASS * (v0 ** 2 - vx[-1] ** 2)
    # the contact's points are passive and their work (friction's power integrated with the
    # motion) closes the balance against the energies of the state, to the run's error
    assert set(balance.role[k] for k in balance.dissipated if k.startswith("skid")) == {
        "passive"}
    dissipated = sum(v[-1] for k, v in balance.dissipated.items() if k.startswith("skid"))
    assert abs(balance.residual).max() <= 1e-6 * lost
    # nearly all of it is the sliding's kinetic energy; the rest is the box's steady pitch
    # (the front corners deeper, stored energy and a lower centre): well under 1e-3 of it
    assert dissipated == pytest.approx(lost, rel=1e-3)
    # and friction took it (booked apart from the normal law, whose damping only settles
    # the pitch): friction's work is -mu_k sum(fn) |v| integrated, nearly mu_k m g x
    assert balance.dissipated["skid friction"][-1] == pytest.approx(lost, rel=1e-3)
    assert balance.dissipated["skid"][-1] < 1e-3 * lost
    assert set(balance.work) == {"free", "skid", "skid friction"} - {"free"}


def test_damping_for_restitution_gives_that_rebound_in_a_run_of_the_law_alone():
    # the oracle: mbd's integration of a block on a prismatic joint hitting the same law as
    # a joint force (another placement, the run's own event location), rtol 1e-11
    e, c, mass, speed = 0.7, 1e5, 3.0, 1.5
    d = mbd.damping_for_restitution(e, c, mass, speed, n=N)
    model = mbd.Model("rebound")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    block = model.add_body("block", mass=mass, cg=(0, 0, 0), inertia=np.eye(3))
    model.add(Prismatic("slide", ground, block["cg"], axis=(1, 0, 0), q0=0.01, v0=-speed))
    model.add(JointForce("stop", model.elements[-1], ElastoGap(c=c, d=d, n=N)))
    result = model.simulate(0.1, output_step=0.01, rtol=1e-11, atol=1e-13)
    assert [ev.what for ev in result.events if "contact" in ev.what] == [
        "contact begins", "contact ends"]
    assert result.joint("slide").v[-1] / speed == pytest.approx(e, rel=1e-7)
    assert mbd.damping_for_restitution(1.0, c, mass, speed) == 0.0


def test_hertz_stiffness_of_steel_and_its_symmetry():
    # steel on steel: E* = E / (2 (1 - nu^2)) = 115.38 GPa; c = 4/3 E* sqrt(R)
    c = mbd.hertz(210e9, 0.3, 210e9, 0.3, 0.01)
    assert c == pytest.approx(4.0 / 3.0 * 210e9 / (2 * 0.91) * math.sqrt(0.01), rel=1e-14)
    assert mbd.hertz(70e9, 0.33, 210e9, 0.3, 0.02, 0.05) == pytest.approx(
        mbd.hertz(210e9, 0.3, 70e9, 0.33, 0.05, 0.02), rel=1e-15)
    for bad in ({"E1": 0.0}, {"nu1": 0.6}, {"R1": -1.0}):
        args = {"E1": 210e9, "nu1": 0.3, "E2": 210e9, "nu2": 0.3, "R1": 0.01, **bad}
        with pytest.raises(ValueError, match=f"hertz: {next(iter(bad))}"):
            mbd.hertz(**args)


def test_contact_sensors_overrides_and_the_report():
    from mbd.study.scripts import apply_setting
    model = ball_on_floor(0.5, friction=mbd.Coulomb(0.5))
    apply_setting(model, "touch.normal.c=2e6")
    apply_setting(model, "touch.friction.mu_s=0.8")
    contact = next(e for e in model.elements if e.name == "touch")
    assert contact.law.c == 2e6 and contact.friction.mu_s == 0.8
    assert contact.friction.mu_k == 0.5        # (the old mu_k kept, below the new mu_s)
    with pytest.raises(mbd.InputError, match="no parameter 'zz'.*c, d, s_rel0, n"):
        apply_setting(model, "touch.normal.zz=1")
    with pytest.raises(mbd.InputError, match="mu_k must be <= mu_s"):
        apply_setting(model, "touch.friction.mu_k=0.9")
    system = model.build()
    report = system.report()
    assert "1 contact(s):" in report and "'touch': floor Plane / ball Sphere; 1 point(s)" in report
    from mbd.control.signals import quantity, unit
    with pytest.raises(ValueError, match="a contact measures fn, gap, slip, got 'force'"):
        quantity(system, "touch.force")
    assert [unit(system, f"touch.{q}") for q in ("fn", "gap", "slip")] == ["N", "m", "m/s"]


def test_a_start_too_deep_in_penetration_is_refused_naming_the_point_and_depth():
    model = ball_on_floor(0.02)     # the centre 8 cm into the floor, deeper than r / 2
    with pytest.raises(mbd.SimulationError, match=r"'touch: point' 0\.08 m deep \(at most "
                                                  r"0\.05 m"):
        model.simulate(0.1)


def _two_bodies():
    model = mbd.Model("pairs")
    ground = model.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -G)))
    a = model.add_body("a", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
    b = model.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
    return model, ground, a, b


def test_bad_contacts_are_named_at_build():
    model, ground, a, b = _two_bodies()
    other = model.add_ground("wall", at=(1, 0, 0))
    ground.add_shape(mbd.Plane(), contact=True)
    other.add_shape(mbd.Plane(), contact=True)
    box_a = a.add_shape(mbd.Box((1, 1, 1)), contact=True)
    b.add_shape(mbd.Plane(), contact=True)
    loose = mbd.Sphere(0.1)
    a.add_shape(loose)                             # drawn only
    _free(model, ground, a, 2.0)
    model.add(SixDof("free b", ground, b["cg"]))
    model.add(mbd.Contact("grounds", ground, other, ElastoGap(c=1.0, d=0.0)))
    model.add(mbd.Contact("planes", ground, b, ElastoGap(c=1.0, d=0.0)))
    model.add(mbd.Contact("itself", box_a, a, ElastoGap(c=1.0, d=0.0)))
    model.add(mbd.Contact("loose", loose, ground, ElastoGap(c=1.0, d=0.0)))
    model.add(mbd.Contact("bare", [], ground, ElastoGap(c=1.0, d=0.0)))
    with pytest.raises(mbd.ModelError) as err:
        model.build()
    text = str(err.value)
    assert "Contact 'grounds': a shape of ground 'floor' and one of ground 'wall': two " \
           "grounds never move" in text
    assert "Contact 'planes': no contact geometry for a Plane against a Plane (of 'floor' and " \
           "'b')" in text
    assert "Contact 'itself': a and b both name a shape of 'a'" in text
    assert "Contact 'loose': a names a Sphere that is not attached for contact" in text
    assert "Contact 'bare': no pair of contact shapes between a and b" in text


def test_bad_contact_arguments_are_named_at_construction():
    model, ground, a, _ = _two_bodies()
    with pytest.raises(mbd.ModelError, match="a Mesh cannot be a contact shape"):
        a.add_shape(mbd.Mesh(vertices=[(0, 0, 0), (1, 0, 0), (0, 1, 0)], faces=[(0, 1, 2)]),
                    contact=True)
    with pytest.raises(mbd.ModelError, match="contact must be True or False, got 1"):
        ground.add_shape(mbd.Plane(), contact=1)
    with pytest.raises(ValueError, match="Plane: size"):
        mbd.Plane(size=0.0)
    with pytest.raises(mbd.ModelError, match="normal must be a force law"):
        mbd.Contact("c", ground, a, normal=1.0)
    with pytest.raises(mbd.ModelError, match="friction must be an mbd.Coulomb"):
        mbd.Contact("c", ground, a, ElastoGap(c=1.0, d=0.0), friction=0.3)
    with pytest.raises(ValueError, match=r"mu_k must be <= mu_s .* mu_k = 0\.5 > mu_s = 0\.3"):
        mbd.Coulomb(0.3, 0.5)
    with pytest.raises(ValueError, match="Coulomb: v_crit"):
        mbd.Coulomb(0.3, v_crit=0.0)
    with pytest.raises(ValueError, match="damping_for_restitution: e must be in"):
        mbd.damping_for_restitution(0.0, 1.0, 1.0, 1.0)


def test_contacts_among_pairs_every_two_but_grounds_and_joined_bodies():
    model, ground, a, b = _two_bodies()
    third = model.add_body("c", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
    for owner in (a, b, third):
        owner.add_shape(mbd.Sphere(0.1), contact=True)
    ground.add_shape(mbd.Plane(), contact=True)
    model.add(SixDof("free a", ground, a["cg"]))
    model.add(Prismatic("a-b", a["cg"], b["cg"], axis=(1, 0, 0)))
    law = ElastoGap(c=1.0, d=0.0)
    names = [c.name for c in mbd.contacts_among([ground, a, b, third], law, name="hit")]
    assert names == ["hit floor-a", "hit floor-b", "hit floor-c", "hit a-c", "hit b-c"]
    names = [c.name for c in mbd.contacts_among([a, b], law, jointed=True)]
    assert names == ["contact a-b"]


def test_linearized_about_a_resting_contact_the_bounce_is_the_law_s_tangent():
    # the vertical mode of a ball resting on Hertz's law: m s^2 + d s + k = 0 with the
    # tangent stiffness k = n c delta^(n-1) at the static penetration (closed form); the
    # five other coordinates have no stiffness (a frictionless point): zero eigenvalues
    delta = (MASS * G / C) ** (1.0 / N)
    system = ball_on_floor(RADIUS - delta, d=200.0).build()
    model = mbd.linearize(system, system.initial_state())
    eigenvalues = np.linalg.eigvals(model.A)
    bounce = np.roots([MASS, 200.0, N * C * delta ** (N - 1.0)])
    moving = eigenvalues[np.abs(eigenvalues) > 1.0]
    # the linearization's own error (its difference quotients): well within 1e-6
    np.testing.assert_allclose(np.sort_complex(moving), np.sort_complex(bounce), rtol=1e-6)
    assert np.abs(eigenvalues[np.abs(eigenvalues) <= 1.0]).max() < 1e-6


def test_a_live_simulation_meets_the_contacts_a_run_meets():
    system = ball_on_floor(0.3, d=500.0).build()
    run = system.simulate(0.6, output_step=0.01)
    live = system.start()
    for t in (0.1, 0.25, 0.6):
        live.advance_to(t)
    stepped = live.result()
    assert [(e.element, e.what) for e in stepped.events] == [
        (e.element, e.what) for e in run.events]
    # the same events to the runs' tolerance (their pieces end at different instants)
    np.testing.assert_allclose([e.t for e in stepped.events], [e.t for e in run.events],
                               rtol=1e-6)


def test_a_sweep_changes_the_contact_law_by_its_part_s_name(tmp_path):
    table = mbd.sweep(_sweep_model, {"touch.normal.c": [5e5, 2e6]}, t_end=0.5,
                      outputs={"duration": _first_contact_duration},
                      out=str(tmp_path / "study"), progress=False)
    duration = np.asarray(table["duration"], dtype=float)
    # the oracle: the first impact integrated alone (the law and gravity on the ball's
    # height), each c; both to the runs' event location, rtol 1e-8 (bound 100 times that)
    np.testing.assert_allclose(duration, [_impact_duration(c, 0.3 - RADIUS) for c in (5e5, 2e6)],
                               rtol=1e-6)


def _impact_duration(c, drop):
    """How long a ball dropped from ``drop`` above the floor stays on an undamped c x^N."""
    from scipy.integrate import solve_ivp

    def rates(t, y):
        return (y[1], -G + c / MASS * max(-y[0], 0.0) ** N)

    def leaves(t, y):
        return y[0]
    leaves.terminal, leaves.direction = True, 1.0
    run = solve_ivp(rates, (0.0, 1.0), (0.0, -math.sqrt(2 * G * drop)), method="DOP853",
                    rtol=1e-12, atol=1e-15, events=leaves, first_step=1e-9)
    return float(run.t_events[0][0])


def _sweep_model():
    return ball_on_floor(0.3, d=0.0)


def _first_contact_duration(result):
    begin, end = result.contact("touch").intervals()[0]
    return end - begin


def test_every_pair_the_model_names_has_a_kernel_writing_as_many_points():
    from mbd.compiled import contactkernels, geometry
    from mbd.model.contacts import FEATURES
    names = {(a.__name__, b.__name__) for a, b in FEATURES}
    assert set(contactkernels.PAIR_CODES) <= names
    assert all(contactkernels.pair_code(*pair) is not None for pair in names)
    # every pair of solids touches: a closed form's or GJK/EPA's; a plane only solids
    solids = ["Sphere", "Capsule", "Box", "Cylinder", "ConvexMesh"]
    assert names >= {tuple(sorted((a, b), key=solids.index)) for a in solids for b in solids}
    assert ("Plane", "Plane") not in names
    counts = {"Plane-Sphere": geometry.plane_sphere, "Plane-Capsule": geometry.plane_capsule,
              "Plane-Box": geometry.plane_box, "Plane-Cylinder": geometry.plane_cylinder}
    g, n, pa, pb = geometry.points()
    v, R, h = np.zeros(3), np.eye(3), np.ones(3)
    args = {"Plane-Sphere": (v, h, v, 1.0), "Plane-Capsule": (v, h, v, h, 1.0),
            "Plane-Box": (v, h, v, R, h), "Plane-Cylinder": (v, h, v, h, 1.0)}
    for (a, b), names in FEATURES.items():
        key = f"{a.__name__}-{b.__name__}"
        if names is None:        # a hull's vertices: one point each, computed alone
            assert key == "Plane-ConvexMesh"
        elif key in counts:
            assert counts[key](*args[key], g, n, pa, pb) == len(names), key
        else:
            assert len(names) == 1, key     # the pairs of round shapes: one point


def _dropped(shape, rotation):
    """A 1 kg body carrying ``shape``, dropped turned by ``rotation`` (a quaternion) onto a
    floor from 0.3 m, damped."""
    model = mbd.Model("drop")
    ground = model.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -G)))
    ground.add_shape(mbd.Plane(), contact=True)
    body = model.add_body("body", mass=1.0, cg=(0, 0, 0), inertia=np.diag([0.01, 0.02, 0.015]))
    body.add_shape(shape, contact=True)
    model.add(SixDof("free", ground, body["cg"], q0=(0.0, 0.0, 0.3, *rotation)))
    model.add(mbd.Contact("land", ground, body, ElastoGap(c=1e6, d=300.0, n=N),
                          mbd.Coulomb(0.4, 0.3, 1e-2)))
    return model


def test_a_convex_mesh_cube_lands_as_the_box_it_is():
    # the hull of a box's corners is the box: the same eight points, each its own law, so the
    # same motion (the points summed in another order: round-off, amplified by the run's
    # error control; bound 1e-7 m after tumbling onto its face)
    half = np.array([0.1, 0.06, 0.04])
    corners = [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)] * half
    rotation = (0.9, 0.3, 0.2, 0.1) / np.linalg.norm((0.9, 0.3, 0.2, 0.1))
    box = _dropped(mbd.Box(2 * half), rotation).simulate(0.6, rtol=1e-10, atol=1e-12)
    hull = _dropped(mbd.ConvexMesh(corners), rotation).simulate(0.6, rtol=1e-10, atol=1e-12)
    assert len(hull.contact("land").names) == 8
    assert all(name.startswith("land: vertex ") for name in hull.contact("land").names)
    np.testing.assert_allclose(hull.body("body").position()[-1],
                               box.body("body").position()[-1], rtol=0, atol=1e-7)
    assert sorted(e.t for e in hull.events if e.what == "contact begins")[:2] == pytest.approx(
        sorted(e.t for e in box.events if e.what == "contact begins")[:2], rel=1e-8)


def test_convex_meshes_refuse_what_is_not_convex_or_not_solid(tmp_path):
    import pyvista
    path = tmp_path / "ell.stl"
    # an L of two boxes (their shared face inside, twice, cancels in the volume)
    (pyvista.Box(bounds=(0, 2, 0, 1, 0, 1)).triangulate()
     + pyvista.Box(bounds=(0, 1, 0, 1, 1, 2)).triangulate()).save(path)
    with pytest.raises(ValueError, match=r"ell.stl' is not convex: its volume 3 m\^3 is not "
                                         r"its hull's 3.5 m\^3"):
        mbd.ConvexMesh(path=path)
    cube = tmp_path / "cube.stl"
    pyvista.Box(bounds=(0, 1, 0, 1, 0, 1)).triangulate().save(cube)
    assert mbd.ConvexMesh(path=cube, scale=0.5).volume == pytest.approx(0.125, rel=1e-12)
    with pytest.raises(ValueError, match="span no volume"):
        mbd.ConvexMesh([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)])
    with pytest.raises(ValueError, match="give points or a file"):
        mbd.ConvexMesh()
    with pytest.raises(ValueError, match="has 100 vertices, more than 64"):
        mbd.ConvexMesh(np.random.default_rng(0).normal(size=(100, 3)) / np.linalg.norm(
            np.random.default_rng(0).normal(size=(100, 3)), axis=1)[:, None])


def test_a_ball_lands_on_a_box_at_the_free_fall_time_and_rests_on_its_face():
    # a ground's box (top face at z = 0.2) under a ball dropped off its centre line: the
    # first contact at sqrt(2 h / g) (closed form, the run's event location), and at rest
    # the ball carries m g through its one point, normal +z (the face's)
    model = mbd.Model("table")
    ground = model.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -G)))
    ground.add_shape(mbd.Box((1.0, 1.0, 0.4)), contact=True)
    ball = model.add_body("ball", mass=MASS, cg=(0, 0, 0), inertia=np.eye(3) * 0.01)
    ball.add_shape(mbd.Sphere(RADIUS), contact=True)
    _free(model, ground, ball, 0.7)
    model.add(mbd.Contact("top", ball, ground, ElastoGap(c=C, d=400.0, n=N)))
    result = model.simulate(1.5, output_step=0.01, rtol=1e-10, atol=1e-12)
    first = next(e.t for e in result.events if e.what == "contact begins")
    assert first == pytest.approx(math.sqrt(2 * (0.7 - RADIUS - 0.2) / G), rel=1e-8)
    top = result.contact("top")
    # a on the ball's side: the normal from the ball into the box, -z
    np.testing.assert_allclose(top.normal[-1, 0], [0.0, 0.0, -1.0], atol=1e-12)
    assert top.fn[-1, 0] == pytest.approx(MASS * G, rel=1e-6)


@pytest.mark.parametrize("shape, reach", [
    # tilted by 30 degrees: its rim's lowest point first (lying, its lowest line would be)
    (mbd.Cylinder(0.05, 0.2, axis=(math.cos(math.pi / 6), 0, math.sin(math.pi / 6))),
     0.1 * math.sin(math.pi / 6) + 0.05 * math.cos(math.pi / 6)),
    (mbd.ConvexMesh([(0, 0, -0.08), (0.1, 0, 0.04), (-0.05, 0.09, 0.04),
                     (-0.05, -0.09, 0.04)]), 0.08),            # a tetrahedron, tip down
    (mbd.Box((0.1, 0.1, 0.1)), 0.05)], ids=["cylinder", "tetrahedron", "box"])
def test_solids_without_a_closed_form_land_on_a_box_by_gjk_epa(shape, reach):
    # the first contact when the lowest point reaches the box's top face (z = 0.2): the free
    # fall's closed form to GJK/EPA's gap (TOLERANCE 1e-11 of the size; a cylinder's
    # ~3e-9 m, coal's check) over the impact speed ~2 m/s, and the run's event location:
    # within 1e-7 of the time. (Only the landing: GJK/EPA gives one point, and a solid
    # resting on a face or a line, as the box and the lying cylinder would, rocks from
    # feature to feature, its force jumping where no switch sees it; a face's several
    # points, a contact manifold, are issue 48's.)
    model = mbd.Model("gjk")
    ground = model.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -G)))
    ground.add_shape(mbd.Box((1.0, 1.0, 0.4)), contact=True)
    body = model.add_body("body", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 0.01)
    body.add_shape(shape, contact=True)
    _free(model, ground, body, 0.5)
    model.add(mbd.Contact("land", ground, body, ElastoGap(c=1e6, d=300.0, n=N)))
    landing = math.sqrt(2 * (0.5 - reach - 0.2) / G)
    result = model.simulate(landing + 2e-3, output_step=1e-3, rtol=1e-10, atol=1e-12)
    first = next(e.t for e in result.events if e.what == "contact begins")
    assert first == pytest.approx(landing, rel=1e-7)
    land = result.contact("land")
    assert land.names == ["land: point"]
    np.testing.assert_allclose(land.normal[np.flatnonzero(land.in_contact[:, 0])[0], 0],
                               [0.0, 0.0, 1.0], atol=1e-6)


def test_more_contact_points_than_the_limit_is_refused_naming_the_count(monkeypatch):
    # every contact point is an element the broad phase tests at every evaluation: a model
    # with more than MAX_CONTACT_POINTS is refused at build(), naming the count and the limit
    from mbd.model import validate
    monkeypatch.setattr(validate, "MAX_CONTACT_POINTS", 10)
    model = mbd.Model("many")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    floor.add_shape(mbd.Plane(), contact=True)
    box = model.add_body("box", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 0.01)
    box.add_shape(mbd.Box((0.1, 0.1, 0.1)), contact=True)
    box.add_shape(mbd.Box((0.1, 0.1, 0.1)), contact=True)
    model.add(SixDof("free", floor, box["cg"], q0=(0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0)))
    model.add(mbd.Contact("floor", floor, box, ElastoGap(c=1e6, d=10.0, n=1.5)))
    with pytest.raises(mbd.ModelError, match=r"the model's contacts have 16 points, more than "
                       r"MAX_CONTACT_POINTS = 10"):
        model.build()


def test_event_counts_group_a_contacts_points_under_its_name():
    # the summary of a long log: events per element, a contact's points together
    model = mbd.Model("box drop")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    floor.add_shape(mbd.Plane(), contact=True)
    box = model.add_body("box", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 0.01)
    box.add_shape(mbd.Box((0.2, 0.2, 0.2)), contact=True)
    model.add(SixDof("free", floor, box["cg"], q0=(0.0, 0.0, 0.2, 1.0, 0.0, 0.0, 0.0)))
    model.add(mbd.Contact("landing", floor, box, ElastoGap(c=1e7, d=100.0, n=1.5)))
    result = model.build().simulate(0.5, output_step=0.01)
    counts = dict(result.event_counts())
    assert set(counts) == {"landing"} and counts["landing"] == len(result.events) > 4


def test_a_continuous_controller_s_states_follow_the_contact_friction_work():
    # y = [q, v, W, x_c], W with a friction accumulator per contact point: a continuous
    # controller's states once started before those, so the integrator of the PID below and
    # the friction's work shared one entry (the balance was off by 0.59 J of 1.3 J)
    m = mbd.Model("sliding under a PID")
    floor = m.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    floor.add_shape(mbd.Plane(), contact=True)
    ball = m.add_body("ball", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 0.004)
    ball.add_shape(mbd.Sphere(0.1), contact=True)
    m.add(SixDof("free", floor, ball["cg"], q0=(0.0, 0.0, 0.0999, 1.0, 0.0, 0.0, 0.0),
                 v0=[1.0, 0.0, 0.0, (0.0, 0.0, 0.0)]))
    m.add(mbd.Contact("c", floor, ball, ElastoGap(c=1e6, d=50.0, n=1.5),
                      mbd.Coulomb(0.5, 0.4, v_crit=0.01)))
    m.add(mbd.Sensor("height", "ball.cg.z"))
    m.add(mbd.PID("pid", "height", setpoint=1.0, kp=0.0, ki=1.0))    # x = integral of 1 - z
    result = m.build().simulate(0.5, output_step=0.01, rtol=1e-9, atol=1e-12)
    z = result.body("ball").position()[:, 2]
    integral = np.concatenate(([0.0], np.cumsum(np.diff(result.t) * 0.5 * (2.0 - z[1:] - z[:-1]))))
    # (the trapezoid on 10 ms rows of a z that rings by micrometres in the contact: its
    # error below 1e-5 s m; the friction's work, 0.45 J, once stood there)
    np.testing.assert_allclose(result.controller("pid").x[:, 0], integral, atol=1e-5)
    assert result.energy_balance().relative_residual < 1e-6
