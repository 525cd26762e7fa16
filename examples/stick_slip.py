"""The classic stick-slip oscillator: a block tied to the wall by a spring, riding a belt
that moves at constant speed, held by Coulomb friction whose static limit is above the
kinetic one.

Teaches: ``JointStiction`` (Simscape's Joint Stiction Actuator) on the Prismatic between the
belt and the block: exact stick-slip, every stick and every break an event in
``result.events``, no smoothing and no chatter; a ``MotionDriver`` moving the belt; a
stiction element's view, ``result.force(name)``: ``.value`` the friction force on the block
(the lock's force while it sticks), ``.state["mode"]`` ("stuck"/"slipping"); the energy
balance with friction's work and the belt's.

The block (m = 1 kg) hangs on a spring (k = 100 N/m) to the wall, slack at the start, and
sits on a belt moving at v_b = 0.5 m/s; friction between them has f_s = 4 N, f_k = 2.5 N.
X is the block's position (the spring's stretch); the joint coordinate is its slip on the
belt. With w = sqrt(k/m):

* stuck, the block rides the belt, X = X_0 + v_b t, and friction holds the spring's pull:
  its force on the block is k X. It breaks free when k X reaches f_s: the first time at
  t = f_s / (k v_b) = 0.08 s.
* slipping backwards on the belt, kinetic friction pushes the block forwards:
  m X'' = -k X + f_k, so X = f_k/k + (f_s - f_k)/k cos(w tau) + v_b/w sin(w tau), until
  the block moves with the belt again, X' = v_b, after tau = (pi + 2 atan2(v_b/w,
  (f_s - f_k)/k)) / w = 0.5700 s (the phase-plane circle about f_k/k, mirrored), at
  X = (2 f_k - f_s)/k = 10 mm. Holding it there takes |2 f_k - f_s| = 1 N < f_s: it sticks.
* the stuck phase then lasts 2 (f_s - f_k)/(k v_b) = 0.06 s, and the cycle repeats: a limit
  cycle of period 0.6300 s from the first stick on.

Energy: the belt's driver feeds the mechanism; friction stores nothing and dissipates
f_k times the slip distance; the balance closes to the integration tolerance.

Run: ``python examples/stick_slip.py`` — prints every stick and break against the closed
form, the friction force at each, and the energy balance; ``python -m mbd run
examples/stick_slip.py`` writes the time histories.
"""
import numpy as np
from scipy.optimize import brentq

import mbd
from forces import AxialForce, JointStiction, Spring
from joints import Prismatic

#: block mass (kg), spring (N/m), belt speed (m/s), static and kinetic friction (N)
MASS, K, V_BELT, F_STATIC, F_KINETIC = 1.0, 100.0, 0.5, 4.0, 2.5
#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 3.0, 0.005, 1e-10, 1e-12


def build_model():
    """The belt (driven at V_BELT along x), the block on it (a Prismatic with the
    JointStiction 'friction'), and the spring from the wall (the ground at the origin) to
    the block."""
    model = mbd.Model("stick_slip")
    wall = model.add_ground("wall")
    belt = model.add_body("belt", mass=10.0, cg=(0.0, 0.0, -0.1),
                          inertia=np.diag([0.1, 1.0, 1.0]), cs={"top": (0.0, 0.0, 0.0)})
    block = model.add_body("block", mass=MASS, cg=(0.0, 0.0, 0.0),
                           inertia=np.diag([1e-3, 1e-3, 1e-3]))
    try:      # pictures only: the dynamics ignore the shapes
        import viz
    except ImportError:
        pass
    else:
        belt.add_shape(viz.Box((1.6, 0.3, 0.12), color="dimgray"), cs="cg")
        block.add_shape(viz.Box((0.12, 0.12, 0.08), color="firebrick"), cs="cg")
    rail = model.add_ground("rail", at=(0.0, 0.0, -0.1),
                            environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    drive = model.add(Prismatic("belt_slide", rail, belt["cg"], axis=(1.0, 0.0, 0.0)))
    model.add(mbd.MotionDriver("belt_drive", drive, position=lambda t: V_BELT * t,
                               velocity=lambda t: V_BELT, acceleration=lambda t: 0.0))
    # base the belt, follower the block: the coordinate is the block's slip on the belt and
    # the friction force acts on the block
    contact = model.add(Prismatic("contact", belt["top"], block["cg"], axis=(1.0, 0.0, 0.0)))
    model.add(JointStiction("friction", contact, f_static=F_STATIC, f_kinetic=F_KINETIC))
    model.add(AxialForce("spring", wall, block["cg"], Spring(c=K)))
    return model


def closed_form(t_end):
    """[(t, what, X)] of every break and stick up to t_end from the phases described
    above, X the block's position there (m). The slip phase's end is the first root of
    X'(tau) = v_b after tau = 0 (brentq on the analytic X')."""
    w = np.sqrt(K / MASS)

    def slip_x(tau):
        return F_KINETIC / K + (F_STATIC - F_KINETIC) / K * np.cos(w * tau) + \
            V_BELT / w * np.sin(w * tau)

    def rate_minus_belt(tau):
        return -(F_STATIC - F_KINETIC) / K * w * np.sin(w * tau) + V_BELT * (np.cos(w * tau)
                                                                              - 1.0)

    slip = brentq(rate_minus_belt, 1e-6, 2.0 * np.pi / w - 1e-6, xtol=1e-15, rtol=1e-15)
    out, t, x = [], 0.0, 0.0
    while True:
        t += (F_STATIC - K * x) / (K * V_BELT)          # stuck, riding the belt to f_s / k
        if t > t_end:
            return out
        out.append((t, "breaks free: slips backwards (-)", F_STATIC / K))
        t, x = t + slip, slip_x(slip)
        if t > t_end:
            return out
        out.append((t, "sticks", x))


def main(t_end=T_END):
    """Simulate; print each event against the closed form and the energy balance; return
    the result."""
    result = build_model().build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    x = result.body("block").position("cg")[:, 0]
    friction = result.force("friction")
    expected = closed_form(t_end)
    print(f"{len(result.events)} events ({len(expected)} in the closed form)")
    print("  t [s]         closed form    what                              X [mm]   "
          "friction [N]")
    for event, (t_cf, what_cf, _) in zip(result.events, expected):
        row = np.flatnonzero(result.t == event.t)[0]        # every event has an output row
        mark = "" if event.what == what_cf else f"   (closed form: {what_cf})"
        print(f"  {event.t:.9f}   {t_cf:.9f}    {event.what:32s}  {1e3 * x[row]:7.3f}  "
              f"{friction.value[row]:+7.3f}{mark}")
    if result.events and expected:
        n = min(len(result.events), len(expected))
        worst = max(abs(e.t - c[0]) for e, c in zip(result.events[:n], expected[:n]))
        print(f"largest event-time difference from the closed form: {worst:.1e} s")
    stuck = friction.state["stuck"]
    print(f"stuck {100.0 * stuck.mean():.0f}% of the rows; holding force at most "
          f"{abs(friction.value[stuck]).max():.4f} N < f_s = {F_STATIC} N")
    balance = result.energy_balance()
    print(balance.summary())
    for line in balance.lines():
        print(f"  {line}")
    return result


if __name__ == "__main__":
    main()
