"""A UR5 arm read from its URDF, then edited: a gearbox with backlash at the elbow, a PID on
the elbow's angle driving the gearbox's motor, PD loops holding the other joints -- the arm
holding a pose against gravity, its elbow gear loaded on one flank.

Teaches: ``mbd.from_urdf`` gives an editable :class:`mbd.Model` (bodies, joints and CSs
named after the URDF's links and joints: every joint frame is a CS of that name on both the
parent's and the child's body), to which an engineer adds what the URDF cannot say:

- a **motor** body on a Revolute ``motor_shaft`` of its own, coaxial with the elbow (on the
  upper arm's CS ``elbow_joint``), its inertia the rotor's seen through the reduction
  (J_M = N^2 J_rotor = 0.05 kg m^2, N ~ 100);
- the gearbox's **backlash and elasticity** between the motor and the forearm: an
  ``ElastoBacklash`` (total backlash b = 5 mrad, 17 arcmin: a planetary gearhead's; c = 2e4
  N m/rad; d = 15 N m s/rad, a contact damping ratio ~0.25) on a ``RotationalForce`` about
  the elbow axis, x = q_elbow - q_motor;
- a continuous **PID** (``mbd.PID``) on the elbow's angle (a Sensor of ``elbow_joint.q``; the
  derivative on its rate, ``elbow_joint.v``) whose output is the motor's torque (an
  ``Actuator`` on ``motor_shaft``, limited to the URDF's 150 N m effort): the elbow is driven
  only through the gear;
- **PD loops** on the other five joints (one ``mbd.Gain`` of five outputs, u = -kp (q -
  q_ref) - kd q', each output an ``Actuator`` on its joint), stiff enough that their sag
  under gravity is a few mrad.

The arm starts at rest at the pose ``POSE`` (upper arm 57 deg above the horizontal, forearm
29 deg below it, wrist level) with its gear **loaded the wrong way**: the motor on the lower
flank (x = -b/2 + ``START_GAP``, a nanoradian inside the dead zone: a start exactly on the
flank is on the switch, where round-off picks the branch), as if the arm had last been pushed
up. Gravity's torque about the elbow
(+13.7 N m: it turns q_elbow up) drops the forearm through the whole dead zone -- x crosses
from -b/2 to +b/2 in 13 ms with no torque in the gear -- onto the upper flank at 1.06 rad/s;
it bounces off once (contact from 13.0 to 18.6 ms) and lands for good at 25.4 ms (each a
switch event in ``result.events``, at its exact time). The PID catches the forearm 11.8 mrad
low at 0.1 s and brings it back (the rigid loop's roots, J s^3 + kd s^2 + kp s + ki with J ~
0.9 kg m^2 about the elbow: -13.6 +- 21.4j and -17.3 1/s): the error is 0.08 mrad at 0.5 s
and below 1 urad at 1 s. Gravity keeps the gear on that flank -- preloaded, it does not
rattle, unlike examples/gearbox_pid.py's free load -- and the integral settles to the holding
torque: the motor's -13.6888 N m against gravity's +13.6888 N m about the elbow (summed by
hand from the bodies' positions; the test checks it, and the PD joints' torques, against
Pinocchio's RNEA of the same URDF), the gear deflected to x = b/2 + |T|/c = 3.184 mrad. The
elbow's error goes to zero; the PD joints keep the sag kp leaves (the shoulder's 9.67 mrad:
its gravity torque over kp).

Run: ``python examples/ur5_backlash_pid.py`` -- prints the import, the backlash's contact
events, the crossing of the dead zone, the elbow's error over time, and at the end the
motor's torque against the gravity torque, the deflection and the pose error of every joint.
``python -m mbd run examples/ur5_backlash_pid.py --animate`` writes the CSV, plot and GIF.
"""
import os
import site

import numpy as np

import mbd
from forces import Actuator, ElastoBacklash, JointForce, RotationalForce
from joints import Revolute

#: the pose held, rad (the URDF's joint coordinates)
POSE = {"shoulder_pan_joint": 0.0, "shoulder_lift_joint": -1.0, "elbow_joint": 1.5,
        "wrist_1_joint": -0.5, "wrist_2_joint": -np.pi / 2, "wrist_3_joint": 0.0}
#: the PD loops (kp N m/rad, kd N m s/rad) of the joints other than the elbow: about 40 rad/s,
#: critically damped, for the diagonal of the mass matrix at POSE (2.3, 2.7, 0.24, 0.25, 0.017
#: kg m^2)
HOLD = {"shoulder_pan_joint": (4000.0, 200.0), "shoulder_lift_joint": (4000.0, 200.0),
        "wrist_1_joint": (400.0, 20.0), "wrist_2_joint": (400.0, 20.0),
        "wrist_3_joint": (30.0, 1.5)}
JM = 0.05                            # kg m^2, the rotor about the elbow axis, reflected
M_MOTOR = 0.5                        # kg, the rotor (on the axis: no gravity torque about it)
C, D, B = 2.0e4, 15.0, 5e-3          # N m/rad, N m s/rad, rad (total backlash)
#: rad: how far inside the dead zone the gear starts. Exactly on the flank (x = -b/2) the
#: start is on the switching surface, and round-off of q_elbow - q_motor (|q| eps ~ 3e-16
#: rad; another machine's assembly or a 1e-13 relative perturbation, 2e-13 rad) decides
#: whether the run starts in contact; 1e-9 rad is 5000 times that, and moves the first
#: contact (x' ~ 1 rad/s there) by ~1e-9 s
START_GAP = 1e-9
KP, KI, KD = 1000.0, 1e4, 40.0       # the elbow's PID: N m/rad, N m/(rad s), N m s/rad
EFFORT = 150.0                       # N m, the URDF's effort limit of the elbow
#: the bodies the elbow carries
BEYOND_ELBOW = ("forearm_link", "wrist_1_link", "wrist_2_link", "wrist_3_link")

T_END, OUTPUT_STEP, RTOL, ATOL = 2.0, 2e-3, 1e-8, 1e-10


def urdf_path():
    """(the UR5's URDF file, the folder holding the ``example-robot-data`` package) of the
    PyPI package example-robot-data (its files under ``<site-packages>/cmeel.prefix``)."""
    for folder in site.getsitepackages() + [site.getusersitepackages()]:
        share = os.path.join(folder, "cmeel.prefix", "share")
        path = os.path.join(share, "example-robot-data", "robots", "ur_description", "urdf",
                            "ur5_robot.urdf")
        if os.path.isfile(path):
            return path, share
    raise FileNotFoundError("the UR5's URDF comes with example-robot-data: pip install "
                            "example-robot-data")


def element(model, name):
    """The element ``name`` of ``model``."""
    return next(e for e in model.elements if e.name == name)


def build_model(backlash=B, pose=POSE):
    """The UR5 from its URDF at rest at ``pose``, with the elbow's gearbox (``backlash`` total,
    rad; its motor on the lower flank, START_GAP inside), the elbow's PID and the other
    joints' PD loops."""
    path, share = urdf_path()
    model = mbd.from_urdf(path, package_dirs=[share], name="ur5_backlash_pid")
    for name, q in pose.items():
        element(model, name).q0 = float(q)
    elbow = element(model, "elbow_joint")
    upper_arm, forearm = elbow.base.owner, elbow.follower.owner
    at, axis = elbow.base.position, np.asarray(elbow.primitives[0].axis, dtype=float)
    # the rotor: J_M about the elbow axis, half that across it (a disc), its CG on the axis
    inertia = JM * np.outer(axis, axis) + 0.5 * JM * (np.eye(3) - np.outer(axis, axis))
    motor = model.add_body("motor", mass=M_MOTOR, cg=at, inertia=inertia,
                           cs={"rotor": (at, elbow.base.rotation)})
    shaft = model.add(Revolute("motor_shaft", upper_arm["elbow_joint"], motor["rotor"],
                               axis=axis,
                               q0=pose["elbow_joint"] + 0.5 * backlash - START_GAP))
    model.add(RotationalForce("gear", motor["rotor"], forearm["elbow_joint"],
                              ElastoBacklash(c=C, d=D, b=backlash), axis=axis))
    try:      # pictures only: the dynamics ignore the shapes
        import viz
    except ImportError:
        pass
    else:
        motor.add_shape(viz.Cylinder(0.06, 0.05, axis=elbow.base.rotation.T @ axis,
                                     color="darkorange"), cs="rotor")
    angle = model.add(mbd.Sensor("elbow_angle", "elbow_joint.q"))
    rate = model.add(mbd.Sensor("elbow_rate", "elbow_joint.v"))
    pid = model.add(mbd.PID("elbow_pid", angle, setpoint=pose["elbow_joint"], kp=KP, ki=KI,
                            kd=KD, rate=rate, limits=(-EFFORT, EFFORT)))
    model.add(JointForce("motor_torque", shaft, Actuator(pid)))
    # the PD loops: u_k = -kp_k (q_k - q_ref_k) - kd_k q_k', one Gain, five outputs
    held = list(HOLD)
    sensors = [model.add(mbd.Sensor(f"{name}_{kind}", f"{name}.{kind}"))
               for kind in ("q", "v") for name in held]
    kp, kd = (np.array([HOLD[name][k] for name in held]) for k in (0, 1))
    gain = model.add(mbd.Gain("hold", np.hstack([-np.diag(kp), -np.diag(kd)]), sensors,
                              offset=kp * np.array([pose[name] for name in held])))
    for k, name in enumerate(held):
        model.add(JointForce(f"{name}_torque", element(model, name), Actuator(gain[k])))
    return model


def gravity_torque(model, result, row=-1):
    """Gravity's torque about the elbow axis on the forearm and the wrist at ``row``, N m, by
    hand: the sum over those bodies of ((p_cg - p_elbow) x m g) . a, from the result's
    positions alone (a: the elbow axis, turned with the upper arm)."""
    upper = result.body("upper_arm_link")
    pivot = upper.position("elbow_joint")[row]
    axis = upper.rotation[row].apply(element(model, "elbow_joint").primitives[0].axis)
    g = np.array([0.0, 0.0, -9.81])      # m/s^2, from_urdf's default environment
    mass = {body.name: body.mass for body in model.bodies}
    return sum(np.dot(np.cross(result.body(name).position("cg")[row] - pivot, mass[name] * g),
                      axis) for name in BEYOND_ELBOW)


def main(t_end=T_END):
    """Simulate; print the crossing of the dead zone, the gear's contacts, the elbow's error
    and the held state against gravity; return the result."""
    model = build_model()
    system = model.build()
    result = system.simulate(t_end, output_step=OUTPUT_STEP, rtol=RTOL, atol=ATOL)
    print(f"UR5 from its URDF, edited: {len(model.bodies)} bodies (6 links and the motor), "
          f"{system.nv} dof; {result.stats['nfev']} evaluations, "
          f"{result.stats['wall_time']:.2f} s ({result.stats['stepper']} loop)")
    gear = result.force("gear")
    first = gear.contacts()[0][0]
    free = result.t < first
    print(f"the dead zone crossed: x = q_elbow - q_motor from {gear.x[0] * 1e3:+.3f} to "
          f"{gear.x[result.t == first][0] * 1e3:+.3f} mrad (b/2 = {0.5 * B * 1e3:.3f}) in "
          f"{first * 1e3:.3f} ms, the gear torque {np.abs(gear.value[free]).max():.3g} N m "
          f"meanwhile; it strikes at x' = {gear.xdot[result.t == first][0]:.3f} rad/s")
    for t_begin, t_stop, side in gear.contacts():
        print(f"  {'upper' if side > 0 else 'lower'} contact from {t_begin * 1e3:8.3f} ms to "
              + ("the end" if np.isnan(t_stop) else f"{t_stop * 1e3:.3f} ms"))
    print(f"  {len([e for e in result.events if e.element == 'gear'])} switch events of the "
          "gear in result.events (contacts, and its damping clamps)")
    error = result.joint("elbow_joint").q - POSE["elbow_joint"]
    for t in (0.05, 0.1, 0.2, 0.5, 1.0, t_end):
        i = min(np.searchsorted(result.t, t), len(result.t) - 1)
        print(f"  t = {result.t[i]:4.2f} s: elbow error {error[i] * 1e3:+10.6f} mrad, motor "
              f"torque {result.force('motor_torque').value[i]:+8.4f} N m")
    torque = result.force("motor_torque").value[-1]
    print(f"held at t = {result.t[-1]:g} s: the motor's torque {torque:+.4f} N m against "
          f"gravity's about the elbow {gravity_torque(model, result):+.4f} N m (by hand); the gear "
          f"deflected to x = {gear.x[-1] * 1e3:+.4f} mrad = b/2 + |T|/c")
    for name in POSE:
        print(f"  {name:20s} error {(result.joint(name).q[-1] - POSE[name]) * 1e3:+9.5f} mrad")
    return result


if __name__ == "__main__":
    main()
