"""The BISTOP slot of the Adams/MotionSolve help page (seed 003) stood on end: the block comes
to rest on the lower stop, and vibrates there in one mode.

Teaches: ``mbd.equilibrium(system)`` — where a mechanism rests, found exactly in a piecewise
law's branch (here the block sinks into the elastic stop until k pen^e carries its weight);
``eq.active`` — which branch each element rests in (``{"contact": -1}``: against x1);
``eq.linear.modes()`` — the mode about the rest state, linearized *in contact*, with its
frequency and damping ratio; and the command line ``mbd equilibrium`` / ``mbd modes``.

The slot of ``bistop_slot.py`` (BISTOP x1 = 0.5 m, x2 = 9.5 m, k = 1e7 N/m^2.1, e = 2.1,
cmax = 1 N s/m at d = 1 mm) now runs along the world z axis with gravity -z; the 1 kg block
is drawn mid-slot (x = 5 m; the joint coordinate q = x - 5 m). At rest the stop's force
k pen^e equals the weight m g::

    pen = (m g / k)^(1/e) = 1.376 mm  (> d: full damping cmax)

and about that state the linearized contact is a spring-damper on the block::

    k_lin = dF/dpen = k e pen^(e - 1),   c = cmax
    f = sqrt(k_lin / m) / (2 pi) = 19.47 Hz,   zeta = cmax / (2 sqrt(k_lin m)) = 0.0041

The equilibrium solver starts from the drawn pose, where the block floats mid-slot and would
fall: Newton alone has nothing to hold on to, so it follows the heavily damped motion down
onto the stop ("dynamic, then newton"), then polishes the balance to 1e-10 N.

Run: ``python examples/slot_at_rest.py`` — prints the equilibrium table, the penetration and
the mode against the closed forms; ``python -m mbd modes examples/slot_at_rest.py`` does it
from the command line.
"""
import numpy as np

import mbd
from forces import AxialForce, Bistop
from joints import Prismatic

#: the seed's parameters: BISTOP(x, xdot, 0.5, 9.5, 1e7, 2.1, 1, 0.001)
STOPS = dict(x1=0.5, x2=9.5, k=1e7, e=2.1, cmax=1.0, d=0.001)
MASS, G = 1.0, 9.81
#: where the block is drawn: mid-slot, m along the slot from the marker J
MID = 5.0
#: the run settings of ``mbd run``: end time (s), output step (s), rtol, atol (a drop from
#: mid-slot onto the stop: ~1 s of fall, then the contact of ``bistop_slot.py``)
T_END, OUTPUT_STEP, RTOL, ATOL = 1.5, 1e-3, 1e-9, 1e-9


def build_model():
    """The block in the upright slot, drawn (and starting) at rest mid-slot."""
    model = mbd.Model("slot_at_rest")
    # J: the slot's marker on the ground, at the origin; the slot runs along world z
    J = model.add_ground("J", at=(0.0, 0.0, 0.0))
    # the slide's base, mid-slot, with the environment
    guide = model.add_ground("guide", at=(0.0, 0.0, MID),
                             environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    block = model.add_body("block", mass=MASS, cg=(0.0, 0.0, MID),
                           inertia=np.diag([2e-3, 2e-3, 1e-3]), cs={"I": (0.0, 0.0, MID)})
    try:      # pictures only: the dynamics ignore the shapes
        import viz
    except ImportError:
        pass
    else:
        block.add_shape(viz.Box((0.4, 0.4, 0.25), color="steelblue"), cs="cg")
    model.add(Prismatic("slide", guide, block["I"], axis=(0.0, 0.0, 1.0)))
    # DX(I,J,J) along the slot: x = (p_I - p_J) . z = MID + q; the force acts on I along +z
    model.add(AxialForce("slot", J, block["I"], Bistop(**STOPS), axis=(0.0, 0.0, 1.0)))
    return model


def closed_form():
    """The rest state and its mode from the law: penetration pen (m), linearized stiffness
    k_lin (N/m), damping c (N s/m), undamped frequency f (Hz), damping ratio zeta."""
    k, e = STOPS["k"], STOPS["e"]
    pen = (MASS * G / k) ** (1.0 / e)
    k_lin = k * e * pen ** (e - 1.0)
    c = STOPS["cmax"]             # pen > d: past the damping ramp, full damping
    return dict(pen=pen, k_lin=k_lin, c=c, f=np.sqrt(k_lin / MASS) / (2.0 * np.pi),
                zeta=c / (2.0 * np.sqrt(k_lin * MASS)))


def penetration(eq):
    """How far (m) the block rests inside the lower stop: x1 - x."""
    return STOPS["x1"] - (MID + eq.coordinates()["slide"])


def main():
    """Find the equilibrium and its mode; print them against the closed forms; return the
    Equilibrium."""
    system = build_model().build()
    eq = mbd.equilibrium(system)
    print(eq.table())
    exact = closed_form()
    pen = penetration(eq)
    print(f"penetration into the lower stop: {1e3 * pen:.9f} mm; (m g / k)^(1/e) = "
          f"{1e3 * exact['pen']:.9f} mm (relative difference {pen / exact['pen'] - 1:.1e})")
    print(f"the stop's branch at rest: {eq.active['slot']} (-1: against x1)")
    print(eq.linear.table())
    mode, = eq.linear.modes()
    print(f"the mode: f = {mode.frequency:.9g} Hz, damping ratio {mode.damping_ratio:.9g}; "
          f"closed form (k_lin = k e pen^(e-1) = {exact['k_lin']:.6g} N/m, c = cmax): "
          f"f = {exact['f']:.9g} Hz, damping ratio {exact['zeta']:.9g} (relative difference "
          f"{mode.frequency / exact['f'] - 1:.1e})")
    return eq


if __name__ == "__main__":
    main()
