"""Modelica's ``Translational.Examples.ElastoGap`` (SPEC §5): a mass between two springs that
can lose contact, next to the same mass between two ordinary spring-dampers.

Teaches: 1-D force laws placed between two CSs along an axis (``AxialForce``); several grounds
sharing one machine; exact switching — the integrator stops where a contact begins or ends,
and the switches are logged in ``result.events``.

Two masses (1 kg each) slide along x on Prismatic joints, both starting at s = 2 at rest.
Upper chain: SpringDamper(c=10, d=1.5, s_rel0=1) from the fixed point s = -2 to mass1 and from
mass1 to s = +2. Lower chain: the same, but ElastoGap(c=10, d=1.5, s_rel0=1.5), which pushes
only while the gap is closed (s_rel < 1.5) and never pulls.

Run: ``python examples/elastogap.py`` — prints the contact switch times next to the Dymola
reference and the reference state at t = 1, 3, 5 s.
"""
import numpy as np

import mbd
from forces import AxialForce, ElastoGap, SpringDamper
from joints import Prismatic

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 5.0, 0.01, 1e-10, 1e-10

#: the six contact switches of the Dymola reference, s (SPEC §5)
SWITCH_TIMES = (0.58337276, 0.87516038, 1.89620449, 2.40406921, 3.42511093, 4.30905899)

#: Dymola reference rows t: (v2, 2 - s2, v1, 2 - s1) (SPEC §5)
REFERENCE = {
    1.0: (-2.906790142027837, 2.9059535360274409, 1.8598327011289773, 2.3531746647959073),
    3.0: (-0.66882353333435285, 1.0610685640199591, -0.007676535626505377, 1.9772645295423064),
    5.0: (0.53752970968098934, 2.7078870235576407, -0.0041932374877375706, 2.0003503785615258),
}


def build_model():
    """Both chains of the Modelica example; x is the axis of every joint and force."""
    model = mbd.Model("elastogap")
    env = mbd.Environment(gravity=(0.0, 0.0, 0.0))     # the Modelica model has no gravity
    x_axis = (1.0, 0.0, 0.0)
    # the upper chain lies on z = 0, the lower on z = 1; each has its own track and end points
    track1 = model.add_ground("track1", at=(0.0, 0.0, 0.0), environment=env)
    track2 = model.add_ground("track2", at=(0.0, 0.0, 1.0), environment=env)
    left1 = model.add_ground("left1", at=(-2.0, 0.0, 0.0))
    right1 = model.add_ground("right1", at=(2.0, 0.0, 0.0))
    left2 = model.add_ground("left2", at=(-2.0, 0.0, 1.0))
    right2 = model.add_ground("right2", at=(2.0, 0.0, 1.0))
    # drawn at s = 0; q0 = 2 puts them at s = 2 (the joint coordinate is s)
    mass1 = model.add_body("mass1", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=[1.0, 1.0, 1.0])
    mass2 = model.add_body("mass2", mass=1.0, cg=(0.0, 0.0, 1.0), inertia=[1.0, 1.0, 1.0])
    model.add(Prismatic("s1", track1, mass1["cg"], axis=x_axis, q0=2.0, v0=0.0))
    model.add(Prismatic("s2", track2, mass2["cg"], axis=x_axis, q0=2.0, v0=0.0))
    # AxialForce(name, A, B, law): x = (p_B - p_A) . x_axis is Modelica's s_rel = s_b - s_a,
    # so flange_a is CS A and flange_b is CS B
    model.add(AxialForce("springDamper1", left1, mass1["cg"], SpringDamper(c=10.0, d=1.5, x0=1.0),
                         axis=x_axis))
    model.add(AxialForce("springDamper2", mass1["cg"], right1, SpringDamper(c=10.0, d=1.5, x0=1.0),
                         axis=x_axis))
    model.add(AxialForce("elastoGap1", left2, mass2["cg"], ElastoGap(c=10.0, d=1.5, s_rel0=1.5),
                         axis=x_axis))
    model.add(AxialForce("elastoGap2", mass2["cg"], right2, ElastoGap(c=10.0, d=1.5, s_rel0=1.5),
                         axis=x_axis))
    return model


def contact_switches(result):
    """The (t, element, what) events where a gap opens or closes (not the damping clamps)."""
    return [ev for ev in result.events if ev.what.startswith("contact")]


def main(t_end=T_END):
    """Simulate; print the contact switches and the reference rows; return the result."""
    result = build_model().build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    print("contact switches (t, element, what) vs. the Dymola reference:")
    for ev, ref in zip(contact_switches(result), SWITCH_TIMES):
        print(f"  t = {ev.t:.8f} s (ref {ref:.8f})  {ev.element}: {ev.what}")
    s1, v1 = result.joint("s1").q, result.joint("s1").v
    s2, v2 = result.joint("s2").q, result.joint("s2").v
    for t, ref in REFERENCE.items():
        if t <= t_end:
            i = np.argmin(abs(result.t - t))
            ours = (v2[i], 2.0 - s2[i], v1[i], 2.0 - s1[i])
            print(f"t = {t:.0f} s: v2, gap2 s_rel, v1, spring2 s_rel = "
                  + ", ".join(f"{a:+.6f}" for a in ours)
                  + "  (ref " + ", ".join(f"{b:+.6f}" for b in ref) + ")")
    return result


if __name__ == "__main__":
    main()
