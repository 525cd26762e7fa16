"""A controller outside the model: the live simulation stepped from a Python loop, as a
co-simulation master, a hardware-in-the-loop rig or a learning loop drives it.

Teaches: ``system.start`` (a live simulation), ``sim.read`` (a sensor), ``sim.set_input`` (an
``mbd.Input`` the model's motor reads), ``sim.advance_to``, ``sim.result``.

An arm (1 kg, 1 m, on a hinge, gravity -z) is driven by a motor torque, the model's Input
``torque``. A PID controller written here in plain Python samples the arm's angle every
millisecond and sets the torque, holding the arm at 0.3 rad above level (DiscretePID's law:
u_k = kp e_k + I_k + kd (e_k - e_{k-1}) / T, I_{k+1} = I_k + ki T e_k). The same PID as a
``DiscretePID`` inside the model (``build_model()``) gives the same motion: the
two runs agree to round-off (both end the run's piece at every sample instant: the loop here
where it sets a new torque, the model's controller where it samples).

Run: ``python examples/external_controller.py`` — prints the angle reached and the largest
difference between the external and the internal loop.
"""
import numpy as np

import mbd
from forces import Actuator, JointForce
from joints import Revolute

#: the PID's gains (N m/rad, N m/(rad s), N m s/rad), its period (s) and the setpoint (rad)
KP, KI, KD, PERIOD, SETPOINT = 80.0, 120.0, 8.0, 1e-3, 0.3
T_END, OUTPUT_STEP, RTOL, ATOL = 1.0, 1e-3, 1e-10, 1e-12


def build_model(internal=True):
    """The arm on its hinge and its motor, driven by the PID as a DiscretePID of the model
    (what ``mbd run`` and the gallery show), or, not ``internal``, by the Input ``torque`` that
    a loop outside sets."""
    model = mbd.Model("external_controller")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = model.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .08, .08]),
                         cs={"pivot": (0, 0, 0), "tip": (1, 0, 0)})
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0, -1, 0)))   # up: +q
    model.add(mbd.Sensor("angle", "hinge.q"))
    if internal:
        drive = model.add(mbd.DiscretePID("pid", "angle", setpoint=SETPOINT, kp=KP, ki=KI,
                                          kd=KD, period=PERIOD))
    else:
        drive = model.add(mbd.Input("torque", 0.0, unit="N.m"))
    model.add(JointForce("motor", hinge, Actuator(drive)))
    return model


def external_loop(system, t_end=T_END):
    """The PID in Python: read the angle, set the torque, advance a millisecond."""
    sim = system.start(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL, atol=ATOL)
    integral, previous = 0.0, None
    for k in range(int(round(t_end / PERIOD))):
        error = SETPOINT - sim.read("angle")
        previous = error if previous is None else previous
        sim.set_input("torque", KP * error + integral + KD * (error - previous) / PERIOD)
        integral += KI * PERIOD * error
        previous = error
        sim.advance_to((k + 1) * PERIOD)
    return sim


def main(t_end=T_END):
    """Both loops; print the angle reached and their largest difference."""
    sim = external_loop(build_model(internal=False).build(), t_end)
    outside = sim.result()
    inside = build_model().build().simulate(t_end, output_step=OUTPUT_STEP,
                                                         rtol=RTOL, atol=ATOL)
    difference = np.abs(outside.sensor("angle") - inside.sensor("angle")).max()
    print(f"angle at {t_end:g} s: {outside.sensor('angle')[-1]:.6f} rad (setpoint {SETPOINT})")
    print(f"external vs internal PID: largest difference {difference:.2e} rad")
    return outside, inside


if __name__ == "__main__":
    main()
