"""Two machines, one composite machine: coupled pendulums on separate grounds.

Teaches: a grounded multi-machine assembly. Each pendulum hangs from its own ground by a
Revolute, so each is a machine of its own; a ``BodySpringDamper`` between the two bobs joins
them into one composite machine, which has exactly one ``Environment`` (on the first ground —
the second ground has none). ``system.machines`` lists both machines with the same composite
index. The spring passes energy back and forth between the machines.

Physics: for small swings the pair has two modes, in phase (the spring idle) and in
antiphase (the spring working twice), with

    omega_1^2 = m g L / J,   omega_2^2 = (m g L + 2 k L^2) / J,   J = m L^2 + I_bob,

so released with pendulum 1 deflected and pendulum 2 at rest, pendulum 1's swing dies out and
pendulum 2's grows until, at t* = pi / (omega_2 - omega_1), nearly all the motion is in machine
2 — and then it comes back. The strap has no damping: the total energy is constant.

Run: ``python examples/two_machines.py`` — prints the machines, then each machine's energy
(kinetic + gravity, about its rest) over time, and t*.
"""
import numpy as np

import mbd
from forces import BodySpringDamper
from joints import Revolute

M, L, R_BOB, K, THETA0, G = 1.0, 1.0, 0.05, 2.0, 0.15, 9.81
I_BOB = 0.4 * M * R_BOB**2          # solid sphere about its centre
GAP = 0.6                            # m between the two pivots (and the bobs at rest)

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 12.0, 0.01, 1e-10, 1e-10


def mode_frequencies():
    """(omega_1, omega_2) rad/s of the small-swing modes, in phase and in antiphase."""
    J = M * L**2 + I_BOB
    return np.sqrt(M * G * L / J), np.sqrt((M * G * L + 2 * K * L**2) / J)


def transfer_time():
    """t* = pi / (omega_2 - omega_1), s: the first time machine 2 holds the motion."""
    w1, w2 = mode_frequencies()
    return np.pi / (w2 - w1)


def build_model():
    """Two grounds 0.6 m apart, a 1 m pendulum (1 kg ball) on each, a spring between the balls."""
    model = mbd.Model("two_machines")
    env = mbd.Environment(gravity=(0.0, 0.0, -G))
    left = model.add_ground("left_pivot", at=(0.0, 0.0, 0.0), environment=env)
    right = model.add_ground("right_pivot", at=(GAP, 0.0, 0.0))    # same composite: no env
    bobs = []
    for name, x in (("pendulum1", 0.0), ("pendulum2", GAP)):
        bobs.append(model.add_body(name, mass=M, cg=(x, 0.0, -L), inertia=np.eye(3) * I_BOB,
                                   cs={"pivot": (x, 0.0, 0.0), "mid": (x, 0.0, -L / 2)}))
    try:      # pictures only: the dynamics ignore the shapes
        import viz
    except ImportError:
        pass
    else:
        for bob, color in zip(bobs, ("steelblue", "darkorange")):
            bob.add_shape(viz.Sphere(R_BOB, color=color), cs="cg")
            bob.add_shape(viz.Cylinder(0.01, L, color="gray"), cs="mid")
    model.add(Revolute("hinge1", left, bobs[0]["pivot"], axis=(0.0, 1.0, 0.0), q0=THETA0))
    model.add(Revolute("hinge2", right, bobs[1]["pivot"], axis=(0.0, 1.0, 0.0)))
    model.add(BodySpringDamper("strap", bobs[0]["cg"], bobs[1]["cg"], k=K, b=0.0, r0=GAP))
    return model


def machine_energy(result, body):
    """Energy (n,) J of one pendulum: kinetic + gravity, zero hanging at rest."""
    v = result.body(body).velocity("cg")
    w = result.body(body).angular_velocity
    z = result.body(body).position("cg")[:, 2]
    return 0.5 * M * (v**2).sum(axis=1) + 0.5 * I_BOB * (w**2).sum(axis=1) + M * G * (z + L)


def main(t_end=T_END):
    """Simulate; print the machines and the energy exchange; return the result."""
    system = build_model().build()
    for machine in system.machines:
        print(machine)
    result = system.simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL, atol=ATOL)
    e1, e2 = machine_energy(result, "pendulum1"), machine_energy(result, "pendulum2")
    for t in np.arange(0.0, t_end + 1e-9, 1.0):
        i = np.argmin(abs(result.t - t))
        print(f"t = {result.t[i]:5.2f} s: machine 1 {e1[i]:.5f} J, machine 2 {e2[i]:.5f} J, "
              f"strap {result.force('strap').energy[i]:.5f} J, total {result.energy()[i]:+.9f} J")
    print(f"expected transfer time t* = {transfer_time():.3f} s")
    return result


if __name__ == "__main__":
    main()
