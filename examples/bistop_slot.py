"""The BISTOP example of the Adams/MotionSolve help page (seed 003): a block sliding back and
forth in a slot whose ends are stiff elastic stops.

Teaches: Adams' ``BISTOP(DX(I,J,J), VX(I,J,J), x1, x2, k, e, cmax, d)`` written as
``AxialForce(name, J, I, Bistop(...))`` — x is the displacement of marker I (on the block)
from marker J (on the ground) along J's x axis; the impact events in ``result.events``; the
contact force from ``result.force(name)``; how to pick tolerances for a very stiff contact.

The block (1 kg) slides without friction on a Prismatic joint along x, starting at x = 5 m
with 6 m/s. The stops are at x1 = 0.5 m and x2 = 9.5 m, with stiffness k = 1e7 N/m^2.1,
exponent e = 2.1, damping cmax = 1 N s/m reached at a penetration of d = 1 mm.

Tolerances: a contact lasts ~9 ms with a peak of ~2.75 kN, the force rising as the 2.1th
power of the ~20 mm penetration. The driver stops exactly where contact begins and ends, so
every piece is smooth and an explicit method is fine: DOP853 at rtol = atol = 1e-9 needs ~100
steps for 8 s and gives each rebound speed to ~1e-7 m/s and each contact duration to ~1e-10 s
against an independent integration of m x'' = BISTOP(x, x') (measured; 1e-6 is off by 4e-4
m/s, 1e-12 costs twice the steps).

Output step: the rows serve the picture and reading the contact force off them; every contact's
start and end are rows of their own (at the exact event times) whatever the step. 0.25 ms puts
about 40 rows inside each ~9.4 ms contact, so the force curve of every impact is drawn, and a row
lies within 0.125 ms of each turning point, where the block moves at < 0.35 m/s (a damping
force < 0.35 N) and the force read is ~0.2 % below the peak k delta^e (its curvature: e a
(h/2)^2 / (2 delta) with a = F/m). Between contacts the block flies in a straight line, which
any step draws: 8 s make 32,026 rows (30 of them events). A finer step only samples that line
more densely: 0.1 ms wrote 80,026.

Run: ``python examples/bistop_slot.py`` — prints the impacts, the rebound speeds and the peak
contact force.
"""
import numpy as np

import mbd
from forces import AxialForce, Bistop
from joints import Prismatic

#: the seed's parameters: BISTOP(x, xdot, 0.5, 9.5, 1e7, 2.1, 1, 0.001)
STOPS = dict(x1=0.5, x2=9.5, k=1e7, e=2.1, cmax=1.0, d=0.001)
MASS, X0, V0 = 1.0, 5.0, 6.0
#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 8.0, 2.5e-4, 1e-9, 1e-9


def build_model(cmax=STOPS["cmax"]):
    """The block in its slot; ``cmax`` (N s/m) may be changed (0: no damping)."""
    model = mbd.Model("bistop_slot")
    # J: the slot's marker on the ground, at the origin, x along the slot
    J = model.add_ground("J", at=(0.0, 0.0, 0.0),
                         environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    # the block is drawn at the origin (joint coordinate 0 = marker I on marker J)
    block = model.add_body("block", mass=MASS, cg=(0.0, 0.0, 0.0),
                           inertia=np.diag([1e-3, 2e-3, 2e-3]), cs={"I": (0.0, 0.0, 0.0)})
    model.add(Prismatic("slide", J, block["I"], axis=(1.0, 0.0, 0.0), q0=X0, v0=V0))
    # DX(I,J,J) = (p_I - p_J) . x_J: CS A = J, CS B = I; the force acts on I along +x
    model.add(AxialForce("slot", J, block["I"], Bistop(**dict(STOPS, cmax=cmax))))
    return model


def impacts(result):
    """[(t_begin, t_end, wall)] of every contact, at the exact event times; wall is -1 (x1)
    or +1 (x2). A contact still going at the end of the run has t_end = nan."""
    return result.force("slot").contacts()


def main(t_end=T_END, cmax=STOPS["cmax"]):
    """Simulate; print every impact with the speed before and after and the peak force;
    return the result."""
    result = build_model(cmax).build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                                atol=ATOL)
    v = result.joint("slide").v
    slot = result.force("slot")
    # penetration into the nearer stop, m (negative inside the slot)
    depth = np.maximum(STOPS["x1"] - slot.x, slot.x - STOPS["x2"])
    for t0, t1, wall in impacts(result):
        i0 = np.flatnonzero(result.t == t0)[0]           # every event has an output row
        i1 = np.flatnonzero(result.t == t1)[0] if np.isfinite(t1) else len(result.t) - 1
        during = slice(i0, i1 + 1)
        print(f"impact on x{1 if wall < 0 else 2} at t = {t0:.6f} s for "
              f"{1e3 * (result.t[i1] - t0):.2f} ms: speed {abs(v[i0]):.6f} -> "
              f"{abs(v[i1]):.6f} m/s, peak force {abs(slot.value[during]).max():.0f} N, "
              f"penetration {1e3 * depth[during].max():.2f} mm")
    energy = result.energy()      # kinetic + the stops' elastic energy
    print(f"peak contact force {abs(slot.value).max():.1f} N; energy {energy[0]:.4f} -> "
          f"{energy[-1]:.4f} J; {result.stats['nsteps']} steps")
    return result


if __name__ == "__main__":
    main()
