"""Every element's run logs real switches only (DESIGN §9: the zeros of the switching functions
are the ONLY branch changes), public API only.

One mechanism: a 1 kg block sliding along x without gravity, released at x = 0 with speed
v0 = 1 m/s, held by one law on its joint. Where the law is piecewise and the contact linear
(stiffness 100 N/m, omega = 10 rad/s), the closed form is free flight at 1 m/s between the
stops and half an oscillation, pi / omega, in each contact: the log must be exactly the
contacts' beginnings and ends at those times, nothing else (a damping clamp that changes
nothing, because without damping its function is the spring force itself, zero only where the
contact begins or ends, is not a switch). Smooth laws log nothing; a stiffness K(t) crossing
K_min logs that crossing once; stiction logs its stick and slip changes only.
"""
import math

import pytest

import mbd
from forces import (
    Actuator,
    Bistop,
    Damper,
    ElastoBacklash,
    ElastoBacklash2,
    ElastoGap,
    Impact,
    JointForce,
    JointStiction,
    Spring,
    SpringDamper,
    VariableTranslationalSpring,
)
from joints import Prismatic

C = 100.0                       # N/m: every contact's stiffness
T = math.pi / math.sqrt(C)      # s: half an oscillation of 1 kg in contact
T_END = 3.0


def run(law=None, stiction=None, v0=1.0):
    """The block's events: [(t, what)]."""
    model = mbd.Model("block")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    block = model.add_body("block", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=[1.0, 1.0, 1.0])
    slide = model.add(Prismatic("slide", ground, block["cg"], axis=(1.0, 0.0, 0.0), v0=v0))
    if law is not None:
        model.add(JointForce("law", slide, law))
    if stiction is not None:
        model.add(JointStiction("friction", slide, **stiction))
    result = model.simulate(T_END, output_step=0.1, rtol=1e-10, atol=1e-12)
    return [(ev.t, ev.what) for ev in result.events]


def slot(upper, lower):
    """The closed-form log of the block between stops at +-0.5 m: the upper contact at 0.5 s,
    then alternately the lower and upper ones 1 s after the last contact ends."""
    out, t, labels = [], 0.5, (upper, lower)
    for k in range(4):
        begins, ends = labels[k % 2]
        out += [(t, begins), (t + T, ends)]
        t += T + 1.0
    return [(t, what) for t, what in out if t < T_END]


def assert_log(got, expected):
    assert [what for _, what in got] == [what for _, what in expected], got
    for (t, _), (want, _) in zip(got, expected):
        assert t == pytest.approx(want, abs=1e-7)


@pytest.mark.parametrize("law", [Bistop(x1=-0.5, x2=0.5, k=C, e=1.0, cmax=0.0, d=0.1)],
                         ids=["Bistop cmax=0"])
def test_bistop_without_damping_logs_its_contacts_only(law):
    assert_log(run(law), slot(("upper stop contact begins", "upper stop contact ends"),
                              ("lower stop contact begins", "lower stop contact ends")))


def test_impact_without_damping_logs_its_contact_only():
    """One stop at x1 = -0.5: the block, released towards it, bounces off once."""
    law = Impact(x1=-0.5, k=C, e=1.0, cmax=0.0, d=0.1)
    assert_log(run(law, v0=-1.0), [(0.5, "lower stop contact begins"),
                                   (0.5 + T, "lower stop contact ends")])


@pytest.mark.parametrize("cls", [ElastoBacklash, ElastoBacklash2])
def test_backlash_without_damping_logs_its_contacts_only(cls):
    law = cls(c=C, d=0.0, b=1.0)
    assert_log(run(law), slot(("upper contact begins", "upper contact ends"),
                              ("lower contact begins", "lower contact ends")))


def test_elastogap_without_damping_logs_its_contact_only():
    """Contact while x < s_rel0 = -0.5: released towards it, the block bounces off once."""
    law = ElastoGap(c=C, d=0.0, s_rel0=-0.5)
    assert_log(run(law, v0=-1.0), [(0.5, "contact begins"), (0.5 + T, "contact ends")])


@pytest.mark.parametrize("law", [Spring(c=C), Damper(d=0.5), SpringDamper(c=C, d=0.5, x0=0.2),
                                 Actuator(0.3), Actuator(lambda t: math.sin(3.0 * t))],
                         ids=["Spring", "Damper", "SpringDamper", "Actuator", "Actuator(t)"])
def test_smooth_laws_log_nothing(law):
    assert run(law) == []


def test_variable_spring_logs_the_crossing_of_k_min_only():
    """K(t) = 3 - t N/m falls below K_min = 1 N/m at t = 2 s: one switch, there."""
    law = VariableTranslationalSpring(K=lambda t: 3.0 - t, K_min=1.0)
    assert_log(run(law), [(2.0, "K below K_min: K_min in use")])


def test_stiction_logs_its_stick_and_slip_changes_only():
    """Kinetic friction 0.5 N stops the block released at 1 m/s after 2 s, where it sticks
    (nothing pushes it): one switch."""
    assert_log(run(stiction=dict(f_static=0.8, f_kinetic=0.5)), [(2.0, "sticks")])


@pytest.mark.parametrize("law", [ElastoGap(c=0.0, d=2.0, s_rel0=-0.5),
                                 Bistop(x1=-0.5, x2=0.5, k=0.0, e=1.0, cmax=0.0, d=0.1)],
                         ids=["ElastoGap c=0", "Bistop k=cmax=0"])
def test_a_contact_law_that_exerts_no_force_logs_nothing(law):
    """Without a spring (ElastoGap c = 0: its damping is clamped between +-0) or without
    stiffness and damping (Bistop), contact changes nothing: no switch is logged, and the
    block moves freely through the contacts (x = v0 t, 1 m/s, to 1e-9 m)."""
    assert run(law, v0=-1.0) == []
    model = mbd.Model("block")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    block = model.add_body("block", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=[1.0, 1.0, 1.0])
    slide = model.add(Prismatic("slide", ground, block["cg"], axis=(1.0, 0.0, 0.0), v0=-1.0))
    model.add(JointForce("law", slide, law))
    result = model.simulate(T_END, output_step=0.1, rtol=1e-10, atol=1e-12)
    assert result.joint("slide").q[-1] == pytest.approx(-T_END, abs=1e-9)
    assert max(abs(result.force("law").value)) == 0.0
