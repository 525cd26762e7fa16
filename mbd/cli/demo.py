"""The built-in demo mechanism of ``mbd demo``: a 3-D double pendulum.

Two slender rods hang from a ground: the upper one on a Universal joint, the lower one on a
Spherical joint at the upper rod's tip, released from a skewed pose with a spin so the motion
is genuinely three-dimensional. (The force-element showcase replaces it once those exist.)
"""
import numpy as np
from scipy.spatial.transform import Rotation

import mbd
from joints import Spherical, Universal

T_END = 5.0  # s


def rod_inertia(mass, length, radius=0.02):
    """Inertia about the CG of a solid rod along z, kg m^2 (world axes of the drawing)."""
    transverse = mass * (3 * radius**2 + length**2) / 12.0
    return np.diag([transverse, transverse, 0.5 * mass * radius**2])


def build_model():
    """The demo Model: ground, two 1 m rods, a Universal and a Spherical joint."""
    model = mbd.Model("double_pendulum_3d")
    ground = model.add_ground("ground", at=(0.0, 0.0, 0.0),
                              environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    upper = model.add_body("upper", mass=1.0, cg=(0.0, 0.0, -0.5), inertia=rod_inertia(1.0, 1.0),
                           cs={"top": (0.0, 0.0, 0.0), "tip": (0.0, 0.0, -1.0)})
    lower = model.add_body("lower", mass=0.5, cg=(0.0, 0.0, -1.5), inertia=rod_inertia(0.5, 1.0),
                           cs={"top": (0.0, 0.0, -1.0), "tip": (0.0, 0.0, -2.0)})
    model.add(Universal("shoulder", ground, upper["top"], axes=((1, 0, 0), (0, 1, 0)),
                        q0=[0.8, 0.3], v0=[0.0, 1.0]))
    model.add(Spherical("elbow", upper["tip"], lower["top"],
                        q0=Rotation.from_rotvec([0.0, -1.2, 0.4]), v0=[0.0, 0.0, 4.0]))
    return model
