"""The seed's gearbox as an FMU: the plant exported for another tool, its PI controller in that
tool's loop.

Teaches: FMI co-simulation export (SPEC §10). ``mbd.Input`` is what the master sets (the
motor torque), ``mbd.Sensor`` what it reads (the load's angle, the motor's speed);
``mbd.export_fmu`` (or ``mbd fmu examples/gearbox_fmu.py -o gearbox.fmu``) packs the script as
an FMI 3.0 (or 2.0) co-simulation FMU whose parameters are what ``--set`` changes (masses,
initial joint values, the backlash's c, d, b ...). Any FMI master runs it -- Simulink,
Dymola, OpenModelica, an in-house one; here FMPy (pip install mbd[fmi]), driven by hand
through its instance API: set the input, ``doStep``, get the output, every millisecond, as a
digital controller outside the model would.

The plant is examples/gearbox_pid.py's (motor, pinion and load, the damped backlash, the gear
of ratio 0.2). The controller is a PI at T = 1 ms holding the load at 0.1 rad: u_k = kp e_k +
I_k, I_{k+1} = I_k + ki T e_k. ``build_model(internal=True)`` puts the same PI inside the
model as a ``DiscretePID`` (kd = 0): the loop across the FMU boundary and mbd's own run of the
same loop agree to round-off (both hold the torque from each sample instant k T, and both end
the run's piece there).

Run: ``python examples/gearbox_fmu.py`` -- writes gearbox_fmu.fmu, runs the loop over FMPy
for 1 s and prints the load's angle and the largest difference from mbd's own run.
"""
import os

import numpy as np

import mbd
from forces import Actuator, ElastoBacklash, JointForce, RotationalForce
from joints import Revolute

JM, JP, JL = 0.02, 0.005, 1.5        # motor, pinion, load inertias about z, kg m^2
RATIO = 0.2                          # q_load = RATIO q_pinion
C, D, B = 2.0e3, 5.0, 0.02           # the mesh: N m/rad, N m s/rad, rad
SETPOINT, KP, KI, PERIOD = 0.1, 80.0, 200.0, 1e-3   # rad, N m/rad, N m/(rad s), s

T_END, OUTPUT_STEP, RTOL, ATOL = 1.0, 1e-3, 1e-9, 1e-10


def build_model(internal=False):
    """The gearbox plant: its motor driven by the Input ``torque`` (N m), its load's angle
    and motor's speed sensed; ``internal``: driven instead by the PI as a DiscretePID."""
    m = mbd.Model("gearbox_plant")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    g_load = m.add_ground("load_bearing", at=(0.3, 0, 0))
    motor = m.add_body("motor", mass=1.0, cg=(0, 0, 0), inertia=np.diag([1, 1, JM]),
                       cs={"housing": (0, 0, -0.12)})
    pinion = m.add_body("pinion", mass=0.2, cg=(0, 0, 0.03), inertia=np.diag([1, 1, JP]),
                        cs={"axle": (0, 0, 0)})
    load = m.add_body("load", mass=3.0, cg=(0.3, 0, 0.1), inertia=np.diag([1, 1, JL]),
                      cs={"axle": (0.3, 0, 0), "mark": (0.4, 0, 0.2)})
    try:      # pictures only: the dynamics ignore the shapes
        import viz
    except ImportError:
        pass
    else:
        motor.add_shape(viz.Box((0.12, 0.12, 0.16), color="steelblue"), cs="housing")
        pinion.add_shape(viz.Cylinder(0.012, 0.06, color="darkorange"), cs="cg")
        load.add_shape(viz.Cylinder(0.025, 0.2, color="seagreen"), cs="cg")
        load.add_shape(viz.Sphere(0.02, color="firebrick"), cs="mark")
    shaft = m.add(Revolute("motor_shaft", g, motor["cg"], axis=(0, 0, 1)))
    pin = m.add(Revolute("pinion_shaft", g, pinion["axle"], axis=(0, 0, 1)))
    out = m.add(Revolute("load_shaft", g_load, load["axle"], axis=(0, 0, 1)))
    m.add(RotationalForce("backlash", motor["cg"], pinion["axle"], ElastoBacklash(c=C, d=D, b=B),
                          axis=(0, 0, 1)))
    m.add(mbd.GearConstraint("mesh", pin, out, ratio=RATIO))
    angle = m.add(mbd.Sensor("load_angle", "load_shaft.q"))
    m.add(mbd.Sensor("motor_speed", "motor_shaft.v"))
    if internal:
        drive = m.add(mbd.DiscretePID("pi", angle, setpoint=SETPOINT, kp=KP, ki=KI, kd=0.0,
                                      period=PERIOD))
    else:
        drive = m.add(mbd.Input("torque", 0.0, unit="N.m", description="motor torque"))
    m.add(JointForce("motor_torque", shaft, Actuator(drive)))
    return m


def pi_over_fmpy(fmu, t_end=T_END):
    """The PI in a plain Python loop over FMPy's FMI 3.0 instance API; returns the sample
    instants and the load's angle read after each step (one row per millisecond)."""
    from fmpy import extract, read_model_description
    from fmpy.fmi3 import FMU3Slave

    description = read_model_description(fmu)
    ref = {v.name: v.valueReference for v in description.modelVariables}
    folder = extract(fmu)
    instance = FMU3Slave(guid=description.guid, unzipDirectory=folder, instanceName="plant",
                         modelIdentifier=description.coSimulation.modelIdentifier)
    instance.instantiate()
    instance.enterInitializationMode(startTime=0.0)
    instance.exitInitializationMode()
    n = int(round(t_end / PERIOD))
    times, angles = np.arange(n + 1) * PERIOD, np.empty(n + 1)
    angles[0] = instance.getFloat64([ref["load_angle"]])[0]
    integral = 0.0
    for k in range(n):
        error = SETPOINT - angles[k]
        instance.setFloat64([ref["torque"]], [KP * error + integral])
        integral += KI * PERIOD * error
        instance.doStep(currentCommunicationPoint=times[k],
                        communicationStepSize=times[k + 1] - times[k])
        angles[k + 1] = instance.getFloat64([ref["load_angle"]])[0]
    instance.terminate()
    instance.freeInstance()
    return times, angles


def main(t_end=T_END, folder="."):
    """Export, run the loop over FMPy, compare with the DiscretePID run; returns (times,
    angles over FMPy, angles of mbd's own run)."""
    fmu = mbd.export_fmu(__file__, os.path.join(folder, "gearbox_fmu.fmu"))
    times, angles = pi_over_fmpy(fmu, t_end)
    own = build_model(internal=True).build().simulate(t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                                       atol=ATOL)
    inside = np.interp(times, own.t, own.sensor("load_angle"))
    print(f"wrote {fmu}; the PI over FMPy holds the load at {angles[-1]:.5f} rad after "
          f"{t_end:g} s (setpoint {SETPOINT})")
    print(f"loop over the FMU vs mbd's DiscretePID: largest difference "
          f"{np.abs(angles - inside).max():.2e} rad")
    return times, angles, inside


if __name__ == "__main__":
    main()
