"""The simple pendulum of SPEC §5, checked against its exact solution.

Teaches: a ground with an environment, a body with named CSs, a Revolute joint, tight
tolerances, and reading a joint angle from the result.

Run: ``python examples/pendulum.py``, or ``mbd run examples/pendulum.py`` for the CSV and
the plot.
"""
import numpy as np

import mbd
from joints import Revolute

# exact angle from the downward vertical (positive towards the release side), SPEC §5
EXACT = {0.5: 0.40177084980808275, 1.0: -1.4050273115247993, 2.0: 0.9166475896632469}

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 2.0, 0.01, 1e-12, 1e-12


def build_model():
    """A 1 kg bob on a massless 1 m link, hinged about y, released horizontal at rest."""
    model = mbd.Model("pendulum")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    bob = model.add_body("bob", mass=1.0, cg=(1.0, 0.0, 0.0), inertia=np.eye(3) * 1e-12,
                         cs={"pivot": (0.0, 0.0, 0.0)})
    model.add(Revolute("hinge", ground, bob["pivot"], axis=(0.0, 1.0, 0.0)))
    return model


def main(t_end=T_END):
    """Simulate; print the angle against the exact solution; return the result."""
    result = build_model().build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    theta = np.pi / 2 - result.joint("hinge").q    # q turns +x towards -z about +y
    for t, exact in EXACT.items():
        if t <= t_end:
            print(f"t = {t:4.1f} s: theta = {np.interp(t, result.t, theta):+.12f} rad, "
                  f"exact {exact:+.12f}")
    return result


if __name__ == "__main__":
    main()
