"""A 3-D double pendulum: two rods on a Universal and a Spherical joint, checked by its energy.

Teaches: joints with several coordinates (``Universal``: two angles; ``Spherical``: a
quaternion in q, the angular velocity in v), initial values given as angles or a scipy
``Rotation``, and the energy check of a conservative system: with gravity the only force,
kinetic + potential energy stays constant to the integration tolerance.

Two slender 1 m rods hang from a ground: the upper one on a Universal joint, the lower one on a
Spherical joint at the upper rod's tip, released from a skewed pose with a spin so the motion is
genuinely three-dimensional (and chaotic).

Run: ``python examples/double_pendulum.py`` — prints the energy and its largest drift, and the
lowest point the lower rod's tip reaches.
"""
import numpy as np
from scipy.spatial.transform import Rotation

import mbd
from joints import Spherical, Universal

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 5.0, 0.01, 1e-10, 1e-10


def rod_inertia(mass, length, radius=0.02):
    """Inertia about the CG of a solid rod along z, kg m^2 (world axes of the drawing)."""
    transverse = mass * (3 * radius**2 + length**2) / 12.0
    return np.diag([transverse, transverse, 0.5 * mass * radius**2])


def build_model():
    """Ground, two 1 m rods (1 kg and 0.5 kg), a Universal and a Spherical joint."""
    model = mbd.Model("double_pendulum")
    ground = model.add_ground("ground", at=(0.0, 0.0, 0.0),
                              environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    upper = model.add_body("upper", mass=1.0, cg=(0.0, 0.0, -0.5), inertia=rod_inertia(1.0, 1.0),
                           cs={"top": (0.0, 0.0, 0.0), "tip": (0.0, 0.0, -1.0)})
    lower = model.add_body("lower", mass=0.5, cg=(0.0, 0.0, -1.5), inertia=rod_inertia(0.5, 1.0),
                           cs={"top": (0.0, 0.0, -1.0), "tip": (0.0, 0.0, -2.0)})
    try:      # pictures only: the dynamics ignore the shapes
        import viz
    except ImportError:
        pass
    else:
        for body, color in ((upper, "steelblue"), (lower, "darkorange")):
            body.add_shape(viz.Cylinder(0.03, 1.0, color=color), cs="cg")
            body.add_shape(viz.Sphere(0.06, color=color), cs="tip")
    model.add(Universal("shoulder", ground, upper["top"], axes=((1, 0, 0), (0, 1, 0)),
                        q0=[0.8, 0.3], v0=[0.0, 1.0]))
    model.add(Spherical("elbow", upper["tip"], lower["top"],
                        q0=Rotation.from_rotvec([0.0, -1.2, 0.4]), v0=[0.0, 0.0, 4.0]))
    return model


def main(t_end=T_END):
    """Simulate; print the energy drift and the lowest tip height; return the result."""
    result = build_model().build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    energy = result.energy()
    drift = np.abs(energy - energy[0]).max()
    print(f"energy {energy[0]:+.9f} J at t = 0, largest drift {drift:.2e} J "
          f"({drift / result.kinetic_energy().max():.1e} of the largest kinetic energy)")
    tip = result.body("lower").position("tip")
    print(f"lowest tip height {tip[:, 2].min():+.4f} m (the rods are 2 m long together), "
          f"tip leaves the drawing plane by up to {abs(tip[:, 1]).max():.3f} m")
    return result


if __name__ == "__main__":
    main()
