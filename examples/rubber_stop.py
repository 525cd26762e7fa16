"""A measured force–deflection curve as a force law: a block dropped on a rubber bump stop.

Teaches: ``mbd.Table`` (breakpoints and values, ``kind="pchip"``: the monotone cubic through
them, no overshoot between points) and ``forces.TableForce`` (the curve as a force law of
the deflection, plus a linear damping); a table's integral is the element's stored energy.

A 2 kg block on a vertical slider (gravity -z) falls from h = 5 cm onto a rubber stop whose
force rises progressively with its compression (the measured points ``CURVE``). Undamped, the
deepest compression c* is where the stop has taken all the energy the block brought:
the curve's integral from 0 to c* equals m g (h + c*), solved here with scipy's brentq on
``Table.integral`` — the run's deepest point equals it. With the rubber's damping the block
settles on the stop at the compression where the curve carries its weight, F(c) = m g.

Run: ``python examples/rubber_stop.py`` — prints the deepest compression against the energy
balance, and where the damped block comes to rest against the curve's root.
"""
import numpy as np
from scipy.optimize import brentq

import mbd
from forces import JointForce, TableForce
from joints import Prismatic

MASS, G, DROP = 2.0, 9.81, 0.05          # kg, m/s^2, m above the stop
#: the stop's measured force (N) against its compression (m)
CURVE = ((0.0, 0.002, 0.005, 0.01, 0.015, 0.02, 0.025),
         (0.0, 15.0, 60.0, 230.0, 620.0, 1400.0, 2600.0))
DAMPING = 40.0                           # N s/m, the rubber's

T_END, OUTPUT_STEP, RTOL, ATOL = 2.0, 0.002, 1e-10, 1e-12


def stop_table():
    """The measured curve as a Table: held at zero before contact, the last slope after."""
    x, f = CURVE
    return mbd.Table((-1.0,) + x, (0.0,) + f, kind="pchip", extrapolate="linear",
                     name="rubber")


def build_model(damping=DAMPING):
    """The block on a slider whose coordinate is the stop's compression (down the slider's
    axis, -z), starting DROP above the stop, and the stop's TableForce on it."""
    model = mbd.Model("rubber_stop")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -G)))
    block = model.add_body("block", mass=MASS, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3,
                           cs={"bottom": (0, 0, -0.02)})
    slide = model.add(Prismatic("fall", ground, block["cg"], axis=(0, 0, -1), q0=-DROP))
    model.add(JointForce("stop", slide, TableForce(stop_table(), d=damping)))
    model.add(mbd.Sensor("compression", "fall.q"))
    return model


def deepest_compression():
    """Undamped: c* with the curve's integral to c* = m g (h + c*) (the energy balance)."""
    table = stop_table()
    return brentq(lambda c: table.integral(c) - MASS * G * (DROP + c), 1e-6, CURVE[0][-1])


def resting_compression():
    """Where the curve carries the weight: F(c) = m g."""
    table = stop_table()
    return brentq(lambda c: table(c) - MASS * G, 1e-6, CURVE[0][-1])


def peak(t, x):
    """The largest value of the rows x(t), refined by the parabola through the largest row
    and its neighbours (the rows are OUTPUT_STEP apart; the peak lies between them)."""
    k = int(np.clip(np.argmax(x), 1, len(x) - 2))
    a, b, _ = np.polyfit(t[k - 1:k + 2] - t[k], x[k - 1:k + 2], 2)
    return x[k] - b * b / (4 * a) if a < 0 else x[k]


def main(t_end=T_END):
    """Both runs; print the deepest and the resting compression against their closed forms."""
    bounce = build_model(damping=0.0).build().simulate(min(t_end, 0.3), output_step=1e-4,
                                                        rtol=RTOL, atol=ATOL)
    deepest = peak(bounce.t, bounce.sensor("compression"))
    print(f"undamped: deepest compression {deepest * 1e3:.6f} mm, energy balance "
          f"{deepest_compression() * 1e3:.6f} mm")
    settle = build_model().build().simulate(t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    print(f"damped: at rest at {settle.sensor('compression')[-1] * 1e3:.6f} mm, the curve "
          f"carries m g at {resting_compression() * 1e3:.6f} mm")
    return bounce, settle


if __name__ == "__main__":
    main()
