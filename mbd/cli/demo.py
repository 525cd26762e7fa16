"""The built-in demo of ``mbd demo``: a grounded multi-machine assembly with every seed
force element at work.

Four machines stand in two rows, each on its own ground:

- ``swing``: a pendulum whose hinge has an elastic backlash (``ElastoBacklash``): it swings
  freely through +-0.35 rad of play and bounces off elastic flanks beyond;
- ``sway``: a second pendulum, held by a torsion spring whose stiffness varies in time
  (``VariableRotationalSpring``, K(t) dipping below K_min once a second); a
  ``BodySpringDamper`` between the two pendulum tips couples ``swing`` and ``sway`` into one
  composite machine (one Environment, on ``swing``'s ground), so energy flows between them;
- ``drop``: a slider on a vertical guide that falls onto an elastic pad (``ElastoGap``) and
  bounces;
- ``slot``: a block sliding in a slot between two elastic stops (``Bistop``).

The contacts are soft enough (contact frequencies of tens of rad/s) that the 5 s run takes
about 870 DOP853 steps: about 0.4 s once the numba kernels are in the cache. A machine's
first run compiles them (about 7 s more on an idle two-core machine; ``mbd warmup`` does it
ahead of time). ``mbd demo`` as a whole took 11.2 s cold and 4.5 s warm (medians of 3, 2
cores, 2026-12-07): imports, the simulation, the web page, the plot and the 76 GIF frames at
800x600.

The bodies' colours stay clear of the pictures' contact colours (green: not in contact, red:
in contact), so that only a contact turns something red.
"""
import numpy as np

import mbd
import viz
from forces import (
    Bistop,
    BodySpringDamper,
    ElastoBacklash,
    ElastoGap,
    JointForce,
    VariableRotationalSpring,
)
from joints import Prismatic, Revolute

T_END = 5.0            # s
OUTPUT_STEP = 0.01     # s
RTOL = ATOL = 1e-9    # tight for the contact events: ~870 steps, 0.4 s once compiled

_Y = (0.0, 1.0, 0.0)


def rod_inertia(mass, length, radius=0.02):
    """Inertia about the CG of a solid rod along z, kg m^2 (world axes of the drawing)."""
    transverse = mass * (3 * radius**2 + length**2) / 12.0
    return np.diag([transverse, transverse, 0.5 * mass * radius**2])


def box_inertia(mass, size):
    """Inertia about the CG of a solid box with edges ``size`` along x, y, z, kg m^2."""
    a, b, c = size
    return mass / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def stiffness(t):
    """K(t) of the variable spring ``sway``, N m/rad: below K_MIN around t = 0.75 s, 1.75 s..."""
    return 6.0 + 5.0 * np.sin(2.0 * np.pi * t)


K_MIN = 2.0


def _pendulum(model, name, pivot, length, mass, color):
    x, y, z = pivot
    arm = model.add_body(name, mass=mass, cg=(x, y, z - length / 2),
                         inertia=rod_inertia(mass, length),
                         cs={"top": (x, y, z), "tip": (x, y, z - length)})
    arm.add_shape(viz.Cylinder(0.025, length, axis=(0.0, 0.0, 1.0), color=color), cs="cg")
    arm.add_shape(viz.Sphere(0.08, color=color), cs="tip")
    return arm


def build_model():
    """The demo Model: four machines (one composite pair) on four grounds."""
    model = mbd.Model("mbd_demo")
    env = mbd.Environment(gravity=(0.0, 0.0, -9.81))

    # swing + sway: two pendulums on separate grounds, one composite machine, one Environment
    g_swing = model.add_ground("swing_pivot", at=(0.0, 0.0, 1.2), environment=env)
    g_sway = model.add_ground("sway_pivot", at=(0.8, 0.0, 1.2))
    swing = _pendulum(model, "swing", (0.0, 0.0, 1.2), 0.8, 1.0, "steelblue")
    sway = _pendulum(model, "sway", (0.8, 0.0, 1.2), 0.8, 1.0, "mediumpurple")
    hinge = model.add(Revolute("swing_hinge", g_swing, swing["top"], axis=_Y, q0=0.2, v0=3.0))
    pivot = model.add(Revolute("sway_hinge", g_sway, sway["top"], axis=_Y, q0=-0.3))
    model.add(JointForce("backlash", hinge, ElastoBacklash(c=150.0, d=0.5, b=0.7)))
    model.add(JointForce("variable_spring", pivot,
                         VariableRotationalSpring(K=stiffness, K_min=K_MIN)))
    model.add(BodySpringDamper("coupling", swing["tip"], sway["tip"], k=15.0, b=0.3, r0=0.8))

    # drop: a slider on a vertical guide falling onto an elastic pad
    g_drop = model.add_ground("drop_guide", at=(0.0, -0.8, 0.3), environment=env)
    size = (0.25, 0.25, 0.1)
    slider = model.add_body("slider", mass=0.5, cg=(0.0, -0.8, 0.3),
                            inertia=box_inertia(0.5, size), cs={"guide": (0.0, -0.8, 0.3)})
    slider.add_shape(viz.Box(size, color="darkorange"), cs="cg")
    drop = model.add(Prismatic("guide", g_drop, slider["guide"], axis=(0.0, 0.0, 1.0), q0=0.6))
    # contact while the slider is below its drawing height (x < s_rel0 = 0)
    model.add(JointForce("pad", drop, ElastoGap(c=2000.0, d=4.0, s_rel0=0.0, n=1.0)))

    # slot: a block sliding along x between two elastic stops at +-0.35 m
    g_slot = model.add_ground("slot", at=(0.9, -0.8, 0.3), environment=env)
    model.add_ground("slot_stop_low", at=(0.48, -0.8, 0.3))    # drawn as markers of the stops
    model.add_ground("slot_stop_high", at=(1.32, -0.8, 0.3))
    block = model.add_body("block", mass=0.5, cg=(0.9, -0.8, 0.3),
                           inertia=box_inertia(0.5, (0.15, 0.15, 0.15)),
                           cs={"I": (0.9, -0.8, 0.3)})
    block.add_shape(viz.Box((0.15, 0.15, 0.15), color="goldenrod"), cs="cg")
    slide = model.add(Prismatic("slide", g_slot, block["I"], axis=(1.0, 0.0, 0.0), v0=0.9))
    model.add(JointForce("stops", slide,
                         Bistop(x1=-0.3, x2=0.3, k=2e4, e=1.5, cmax=5.0, d=2e-3)))
    return model
