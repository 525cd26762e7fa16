"""A T-handle tumbling in free fall: the Dzhanibekov (intermediate-axis) effect.

Teaches: a free-flying body is a body on a SixDof joint to a ground; initial values of a SixDof
(`q0 = [x, y, z, rotation]`, `v0 = [vx, vy, vz, angular velocity in body axes]`); reading the
orientation and angular velocity of a body from the result.

Run: ``python examples/tumbling_handle.py`` — prints when the handle flips.
"""
import numpy as np

import mbd
from joints import SixDof

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 12.0, 0.005, 1e-10, 1e-12


def build_model():
    """A rigid body with principal moments 1 : 2 : 3 kg m^2, spinning about its intermediate
    (y) axis with a small perturbation about x, in earth gravity."""
    model = mbd.Model("tumbling_handle")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    handle = model.add_body("handle", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=np.diag([1.0, 2.0, 3.0]))
    model.add(SixDof("flight", ground, handle["cg"],
                     v0=[0.0, 0.0, 5.0, (0.01, 4.0, 0.0)]))   # thrown upwards, spinning about y
    return model


def main(t_end=T_END):
    """Simulate and return the result; print the times the spin axis reverses."""
    result = build_model().build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    body = result.body("handle")
    y_axis = body.rotation.apply([0.0, 1.0, 0.0])          # the body's y axis in the world
    flips = result.t[1:][np.diff(np.sign(y_axis[:, 1])) != 0]
    print(f"body y axis reverses at t = {np.round(flips, 2).tolist()} s")
    return result


if __name__ == "__main__":
    main()
