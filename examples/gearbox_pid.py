"""The seed's gearbox under a digital PID: the load held at an angle through the backlash, and
the limit cycle the backlash leaves it in.

Teaches: a discrete controller in the loop (SPEC §9). ``mbd.Sensor`` measures the load's
angle; ``mbd.DiscretePID`` samples it every T = 1 ms, exactly at t = k T (each sample ends an
integration piece, as a switch does), and holds its output until the next sample (zero-order
hold); ``Actuator(pid)`` applies that output as the motor's torque. ``result.controller``
gives the samples (instants, inputs, outputs); ``result.stats["samples"]`` counts them.

The gearbox is examples/gearbox.py's (J_m = 0.02, J_p = 0.005, J_l = 1.5 kg m^2, reduction
5, backlash b = 0.02 rad at the pinion, c = 2000 N m/rad) with two changes: the load torque
is removed (the load turns freely), and the mesh is damped in contact, d = 5 N m s/rad (a
contact damping ratio d / (2 sqrt(c mu)) = 0.45, mu = 1 / (1/J_e + 1/J_m) as there). With
the seed's undamped mesh every tooth impact is elastic, and nothing takes the energy of the
motor's rattle between the flanks out (the PID sees only the load): it grows until the twist
runs away.

The PID (kp = 80 N m/rad, ki = 200 N m/(rad s), kd = 8 N m s/rad, the torque limited to
+-20 N m) moves the load from rest at 0 to 0.1 rad. Rigid and without backlash the loop (the
inertia reflected to the load's shaft (J_m + J_p) / r^2 + J_l = 2.125 kg m^2, the motor's
torque amplified 1/r = 5 times) would settle. With the backlash it does not: while the motor
crosses the gap the load coasts free and the correction arrives late, so a small error grows
and a large one shrinks -- the load hunts about the setpoint in a limit cycle of tooth
contacts on both flanks, about +-0.57 mrad (the backlash at the load is r b = 4 mrad) at
about 10.8 Hz, for ever; a step of 1e-5 rad grows into the same cycle. Without the backlash
(``build_model(backlash=0.0)``: the mesh a plain spring-damper) the same loop settles, its
error falling as exp(-3.51 t), the slowest root of the rigid loop sampled as the run samples
it.

Run: ``python examples/gearbox_pid.py`` -- prints the samples (how many, each at k T exactly),
the move to the setpoint and the limit cycle: its amplitude cycle by cycle, its period, the
tooth contacts and the motor torque in the second half of the run.
``python -m mbd run examples/gearbox_pid.py`` writes the CSV and the plot.
"""
import itertools

import numpy as np

import mbd
from forces import Actuator, ElastoBacklash, JointForce, RotationalForce
from joints import Revolute

# the seed's gearbox (examples/gearbox.py)
JM, JP, JL = 0.02, 0.005, 1.5        # motor, pinion, load inertias about z, kg m^2
RATIO = 0.2                          # q_load = RATIO q_pinion: a reduction of 5
C, B = 2.0e3, 0.02                   # backlash stiffness (N m/rad) and total backlash (rad)
D = 5.0                              # the mesh's damping in contact, N m s/rad
SETPOINT = 0.1                       # rad, the load's angle wanted
KP, KI, KD = 80.0, 200.0, 8.0        # N m/rad, N m/(rad s), N m s/rad
PERIOD = 1e-3                        # s, the sample period
LIMITS = (-20.0, 20.0)               # N m, the motor's torque

T_END, OUTPUT_STEP, RTOL, ATOL = 4.0, 1e-3, 1e-9, 1e-10


def build_model(backlash=B, setpoint=SETPOINT):
    """Motor and pinion on coaxial revolutes at the origin, the load on its own at x = 0.3 m,
    the damped backlash between motor and pinion, the gear from the pinion to the load; the
    load's angle sensed, the PID's output on the motor shaft. ``backlash`` = 0: a plain
    spring-damper mesh (ElastoBacklash with b = 0)."""
    m = mbd.Model("gearbox_pid")
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
    m.add(RotationalForce("backlash", motor["cg"], pinion["axle"],
                          ElastoBacklash(c=C, d=D, b=backlash), axis=(0, 0, 1)))
    m.add(mbd.GearConstraint("mesh", pin, out, ratio=RATIO))
    angle = m.add(mbd.Sensor("load_angle", "load_shaft.q"))
    pid = m.add(mbd.DiscretePID("pid", angle, setpoint=setpoint, kp=KP, ki=KI, kd=KD,
                                period=PERIOD, limits=LIMITS))
    m.add(JointForce("motor_torque", shaft, Actuator(pid)))
    return m


def cycles(t, error, t_from):
    """The limit cycle after t_from (s): (the error's upward zero crossings, s, interpolated
    between rows; each cycle's peak-to-peak error between consecutive crossings, rad)."""
    keep = t >= t_from
    t, error = t[keep], error[keep]
    k = np.flatnonzero((error[:-1] < 0.0) & (error[1:] >= 0.0))
    ups = t[k] - error[k] * (t[k + 1] - t[k]) / (error[k + 1] - error[k])
    spans = [error[(t >= a) & (t < b)] for a, b in itertools.pairwise(ups)]
    return ups, np.array([s.max() - s.min() for s in spans])


def main(t_end=T_END):
    """Simulate; print the samples, the move and the limit cycle; return the result."""
    result = build_model().build().simulate(t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    samples = result.controller("pid")
    n = len(samples.t)
    exact = np.array_equal(samples.t, np.arange(n) * PERIOD)
    print(f"{result.stats['samples']} samples of the PID, at t = {samples.t[0]:g}, "
          f"{samples.t[1]:g}, ..., {samples.t[-1]:g} s: every one at k T exactly: {exact}")
    error = result.sensor("load_angle") - SETPOINT
    for t in (0.1, 0.25, 0.5, 1.0):
        if t <= t_end:
            i = np.argmin(np.abs(result.t - t))
            print(f"  t = {result.t[i]:4.2f} s: load angle {result.sensor('load_angle')[i]:.5f}"
                  f" rad (error {error[i]:+.2e})")
    half = 0.5 * t_end
    ups, p2p = cycles(result.t, error, half)
    contacts = [e for e in result.events if e.element == "backlash" and e.t >= half
                and e.what.endswith("contact begins")]
    flanks = {e.what.split()[0] for e in contacts}
    print(f"the limit cycle after t = {half:g} s: {len(p2p)} whole cycles, period "
          f"{np.diff(ups).mean() * 1e3:.2f} ms ({1 / np.diff(ups).mean():.2f} Hz), the load's "
          f"error +-{0.5 * p2p.mean() * 1e3:.4f} mrad")
    print("  peak-to-peak error, cycle by cycle (mrad): "
          + " ".join(f"{1e3 * a:.4f}" for a in p2p))
    print(f"  {len(contacts)} tooth contacts begin (on the {' and '.join(sorted(flanks))} "
          f"flanks); the motor torque swings {samples.y[samples.t >= half, 0].min():+.4f} ... "
          f"{samples.y[samples.t >= half, 0].max():+.4f} N m")
    return result


if __name__ == "__main__":
    main()
