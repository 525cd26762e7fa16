"""A model script for tests/mbd/study/test_sweep.py: a cart driven onto the anchor of a
BodySpringDamper and held there, at rest.

The cart (1 kg) is on a Prismatic joint along x whose coordinate a MotionDriver prescribes:
q(t) = X0 (1 - t/T_HOME)^3 until T_HOME, then 0 (position, velocity and acceleration all reach
0 at T_HOME). The strap runs from the ground's origin to the cart's CS "o", which is at the
origin when q = 0. From T_HOME on the two CSs coincide at rest: with the natural length r0 = 0
the strap's force there is zero and the run goes on (SPEC §3.1, last case); with r0 != 0 its
direction is undefined and the run stops with a SimulationError naming the strap and the time
(SPEC §3.1, second case), keeping the rows up to then.
"""
import numpy as np

import mbd
from forces import BodySpringDamper
from joints import Prismatic

#: the start of the cart, m, and the time it reaches the anchor, s
X0, T_HOME = 0.5, 0.6
#: the run settings (read by mbd.sweep and mbd.study.scripts.run_settings)
T_END, OUTPUT_STEP = 1.0, 0.01


def position(t):
    return X0 * (1.0 - t / T_HOME) ** 3 if t < T_HOME else 0.0


def velocity(t):
    return -3.0 * X0 / T_HOME * (1.0 - t / T_HOME) ** 2 if t < T_HOME else 0.0


def acceleration(t):
    return 6.0 * X0 / T_HOME ** 2 * (1.0 - t / T_HOME) if t < T_HOME else 0.0


def build_model():
    model = mbd.Model("driven_strap")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    cart = model.add_body("cart", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=np.eye(3) * 1e-2,
                          cs={"o": (0.0, 0.0, 0.0)})
    rail = model.add(Prismatic("rail", ground, cart["o"], axis=(1.0, 0.0, 0.0), q0=X0))
    model.add(mbd.MotionDriver("drive", rail, position=position, velocity=velocity,
                               acceleration=acceleration))
    model.add(BodySpringDamper("strap", ground, cart["o"], k=10.0, b=0.5, r0=0.0))
    return model
