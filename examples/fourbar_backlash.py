"""A four-bar linkage driven through a coupling with backlash: the crank rattles in the play.

Teaches: a closed loop made by just connecting joints (the engine cuts one joint and closes
the loop with constraint equations); ``system.report()`` for the mobility, the loop and its
redundant equations; a ``MotionDriver`` that turns a shaft at constant speed, and the torque
it needs from ``result.reaction("motor").value``; an ``ElastoBacklash`` on the revolute
between the shaft and the crank (``JointForce``: x is the crank's angle relative to the
shaft, the torque acts on the crank); the contact events in ``result.events``; and that the
coupling's reaction about its axis is the backlash torque.

The linkage is the Grashof crank-rocker of four revolutes about y in the xz-plane: crank
1 m (1 kg), coupler 4.72 m (2 kg), rocker 3.5 m (1.5 kg), ground pivots 4 m apart, under
gravity. A 5 kg shaft on the crank's axis is turned at OMEGA = 2 rad/s; the crank sits on the
shaft with a total play of B = 0.1 rad, stiffness C = 2000 N m/rad and damping D = 5 N m s/rad.
As the linkage's weight alternately holds the crank back and pulls it ahead, the crank
crosses the play and strikes the other flank: a contact on the lower side (crank lagging the
shaft), then free play, then the upper side, and so on. In free play nothing but gravity and
the joints acts on the linkage, so its energy stays constant (the shaft's does too). The shaft
keeps its speed with its CG on its axis, so the motor's torque is exactly the backlash torque
passed to the crank.

Planar four revolutes in 3-D are over-constrained: three of the loop's six equations
(rotation about x and z, translation along y) repeat the others, so the out-of-plane
reactions are not determined; the engine reports them and shows the minimum-norm ones.

Run: ``python examples/fourbar_backlash.py`` — prints the report, the contact events and the
peak contact and motor torques.
"""
import numpy as np

import mbd
from forces import ElastoBacklash, JointForce
from joints import Revolute

OMEGA = 2.0                  # rad/s, shaft speed
C, D, B = 2000.0, 5.0, 0.1   # backlash stiffness N m/rad, damping N m s/rad, total play rad
Y = (0.0, 1.0, 0.0)          # every joint axis

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 4.0, 1e-3, 1e-9, 1e-9


def build_model(omega=OMEGA):
    """The shaft, the crank on it through the backlash, coupler and rocker; the motor turns
    the shaft at ``omega`` (rad/s) from the drawn pose (crank straight up)."""
    model = mbd.Model("fourbar_backlash")
    ground = model.add_ground("ground",
                              environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    rocker_pivot = model.add_ground("rocker_pivot", at=(4.0, 0.0, 0.0))
    pin, tip, pivot = np.array([0, 0, 1.0]), np.array([4, 0, 3.5]), np.array([4, 0, 0.0])
    length = np.linalg.norm(tip - pin)
    shaft = model.add_body("shaft", 5.0, (0, 0, 0), [0.02, 0.02, 0.02], cs={"axis": (0, 0, 0)})
    crank = model.add_body("crank", 1.0, pin / 2, [1 / 12, 1 / 12, 1e-3],
                           cs={"axis": (0, 0, 0), "pin": pin})
    coupler = model.add_body("coupler", 2.0, (pin + tip) / 2,
                             [1e-3, 2 * length**2 / 12, 2 * length**2 / 12],
                             cs={"pin": pin, "tip": tip})
    rocker = model.add_body("rocker", 1.5, (tip + pivot) / 2, [1.5 * 3.5**2 / 12] * 2 + [1e-3],
                            cs={"tip": tip, "pivot": pivot})
    bearing = model.add(Revolute("bearing", ground, shaft["axis"], axis=Y, v0=omega))
    coupling = model.add(Revolute("coupling", shaft["axis"], crank["axis"], axis=Y))
    model.add(Revolute("crank_pin", crank["pin"], coupler["pin"], axis=Y))
    model.add(Revolute("rocker_pin", coupler["tip"], rocker["tip"], axis=Y))
    model.add(Revolute("rocker_bearing", rocker["pivot"], rocker_pivot, axis=Y))
    model.add(JointForce("backlash", coupling, ElastoBacklash(c=C, d=D, b=B)))
    model.add(mbd.MotionDriver("motor", bearing, position=lambda t: omega * t,
                               velocity=lambda t: omega, acceleration=lambda t: 0.0))
    return model


def contacts(result):
    """[(t_begin, t_end, side)] of every contact from the event log; side +1 upper (crank
    ahead of the shaft), -1 lower (behind). A contact still on at the end has t_end = nan."""
    out = []
    for ev in result.events:
        if ev.element != "backlash":
            continue
        if ev.what.endswith("contact begins"):
            out.append([ev.t, np.nan, 1 if ev.what.startswith("upper") else -1])
        elif ev.what.endswith("contact ends") and out:
            out[-1][1] = ev.t
    return [tuple(c) for c in out]


def main(t_end=T_END):
    """Simulate; print the report, the contacts and the peak torques; return the result."""
    system = build_model().build()
    print(system.report())
    result = system.simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL, atol=ATOL)
    torque = result.force("backlash").value          # on the crank, N m
    for t0, t1, side in contacts(result):
        rows = (result.t >= t0) & (result.t <= (t1 if np.isfinite(t1) else t_end))
        print(f"{'upper' if side > 0 else 'lower'} flank: contact from t = {t0:.6f} s to "
              f"{t1:.6f} s, peak torque {abs(torque[rows]).max():6.1f} N m")
    motor = result.reaction("motor").value
    print(f"{len(contacts(result))} contacts in {t_end:g} s; peak contact torque "
          f"{abs(torque).max():.1f} N m; motor torque {motor.min():.1f} .. {motor.max():.1f} N m")
    return result


if __name__ == "__main__":
    main()
