"""Modelica's ``Rotational.Examples.Backlash`` (SPEC §5): an inertia swinging against a
spring-damper with backlash, next to the same inertia on a plain spring-damper; and, for
comparison, the inertia on ElastoBacklash2.

Teaches: 1-D laws on a joint coordinate (``JointForce`` on a Revolute: x is the joint angle,
the torque acts on the follower); the difference between ElastoBacklash, whose damping is
limited so the contact torque starts from zero, and ElastoBacklash2, whose full spring-damper
torque jumps in at contact (both are clipped so that they never pull).

Flywheels (J = 5 kg m^2, about their own z axes) start at phi = pi/2 at rest, each tied to
the ground by c = 20e3 N m/rad, d = 50 N m s/rad: the Modelica model has one on ElastoBacklash
(total backlash b = pi/4) and one on a plain SpringDamper; a second run puts one on
ElastoBacklash2 (same parameters).

Run: ``python examples/backlash.py`` — prints phi at 0.25, 0.5 and 1 s against the Dymola
reference, and the largest torque jump at a contact start for each backlash law.
"""
import numpy as np

import mbd
from forces import ElastoBacklash, ElastoBacklash2, JointForce, SpringDamper
from joints import Revolute

C, D, B, J = 20e3, 50.0, np.pi / 4, 5.0

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 1.0, 0.005, 1e-10, 1e-10

#: Dymola reference rows t: (elastoBacklash phi_rel, w_rel, springDamper phi_rel, w_rel)
#: (SPEC §5; angles good to ~1e-4, rates to ~5e-3)
REFERENCE = {
    0.25: (0.58080749639408835, 30.080732501720004, -0.45131731086698079, 1.5386052237795997),
    0.5: (-0.30993973272313774, -17.228305123684279, 0.12929145333280387, -0.88020690422431891),
    1.0: (-0.15557036723690312, -7.0229304031262032, 0.010518034816392985, -0.14370331391695884),
}

LAWS = {"elastoBacklash": ElastoBacklash(c=C, d=D, b=B),
        "elastoBacklash2": ElastoBacklash2(c=C, d=D, b=B),
        "springDamper": SpringDamper(c=C, d=D)}


def build_model(laws=("elastoBacklash", "springDamper")):
    """One flywheel per law (names from LAWS), each on a Revolute to its own ground point
    (no gravity). The default is the Modelica example."""
    model = mbd.Model("backlash")
    env = mbd.Environment(gravity=(0.0, 0.0, 0.0))
    for k, name in enumerate(laws):
        law = LAWS[name]
        at = (2.0 * k, 0.0, 0.0)
        fixed = model.add_ground(f"fixed_{name}", at=at, environment=env)
        wheel = model.add_body(f"inertia_{name}", mass=1.0, cg=at, inertia=[2.5, 2.5, J])
        hinge = model.add(Revolute(name, fixed, wheel["cg"], axis=(0.0, 0.0, 1.0),
                                   q0=np.pi / 2, v0=0.0))
        # Modelica's phi_rel = phi(flange_b) - phi(flange_a) is the joint angle: the fixed
        # flange is the base, the inertia the follower
        model.add(JointForce(f"{name}_law", hinge, law))
    return model


def simulate(laws, t_end):
    """Run build_model(laws) to t_end (s) at tight tolerances; the Result."""
    return build_model(laws).build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                              atol=ATOL)


def contact_torques(result, name):
    """The torque on the follower (N m) at each 'contact begins' event of law ``name``: the
    torque just before is zero (free play), so this is the jump at contact."""
    view = result.force(f"{name}_law")
    rows = [np.flatnonzero(result.t == ev.t)[0] for ev in result.events    # events have rows
            if ev.element == f"{name}_law" and ev.what.endswith("contact begins")]
    return view.value[rows]


def main(t_end=T_END):
    """Simulate the Modelica example (ElastoBacklash and SpringDamper) and, separately, the
    ElastoBacklash2 flywheel; print phi against the reference and the torque at contact;
    return both results (modelica, elasto_backlash2)."""
    result = simulate(("elastoBacklash", "springDamper"), t_end)
    result2 = simulate(("elastoBacklash2",), t_end)
    print("t [s]   ElastoBacklash phi (ref)        SpringDamper phi (ref)         "
          "ElastoBacklash2 phi")
    for t, ref in REFERENCE.items():
        if t <= t_end:
            eb, sd = (np.interp(t, result.t, result.joint(name).q)
                      for name in ("elastoBacklash", "springDamper"))
            eb2 = np.interp(t, result2.t, result2.joint("elastoBacklash2").q)
            print(f"{t:5.2f}   {eb:+.6f} ({ref[0]:+.6f})       {sd:+.6f} ({ref[2]:+.6f})       "
                  f"{eb2:+.6f}")
    for res, name in ((result, "elastoBacklash"), (result2, "elastoBacklash2")):
        torques = contact_torques(res, name)
        print(f"{name}: largest torque at the start of a contact {abs(torques).max():.3g} N m "
              f"({len(torques)} contacts)")
    return result, result2


if __name__ == "__main__":
    main()
