"""The Franka Emika Panda read from its URDF, its meshes and all, moved by a joint-space PD
from its ready pose to a target, where it comes to rest with the PD torques carrying gravity.

Teaches: ``mbd.from_urdf`` -- a robot description becomes an editable ``mbd.Model``: links
as bodies (the flange and hand fixed to link 7 merged into it, the base ``panda_link0`` the
ground), joints as ``Revolute`` and ``Prismatic`` joints under the URDF's names, limits as
``Bistop`` end stops, ``<dynamics damping>`` as dampers, the fingers' ``<mimic>`` as a
``GearConstraint``, and the COLLADA visual meshes as ``viz.Mesh`` shapes in their own colours;
then the model is edited like any other: start angles set on the joints, and a controller
added per joint (an ``mbd.Gain`` on two ``Sensor``s driving an ``Actuator``, as in
``pd_pendulum``).

The PD of joint i gives the torque u_i = kp_i (q_ref_i - q_i) - kd_i q'_i, with kd_i = 0.4 s
kp_i: overdamped, so each joint creeps to its target along a slow pole of time constant about
kd / kp = 0.4 s rather than ringing, and the arm swings over in about a second. At rest the
PD torques hold the arm up against gravity, u = g(q) (the URDF's dampers and stops do
nothing there), so the arm sags from the target by q_ref - q = g(q) / kp: 0.09 rad at the
shoulder (joint 2, which carries 38 N m), less elsewhere. main() finds that rest pose with
``mbd.equilibrium`` and, where Pinocchio is installed, checks its PD torques against
Pinocchio's generalized gravity g(q) of the same URDF, an independent reading of its masses,
centres and frames: they agree to round-off (1e-13 N m); the run ends within 1e-3 rad of it.

The robot comes from the PyPI package ``example-robot-data`` (its files under
``<site-packages>/cmeel.prefix/share``, the folder the ``package://example-robot-data/...``
mesh paths start from); the meshes are read by trimesh and pycollada (``pip install
'mbd[urdf]'``).

Run: ``python examples/panda_urdf.py`` -- prints the model, each joint's target, rest angle,
PD torque and gravity torque, and the hand's position; ``--gif panda.gif`` also writes the
animation. ``python -m mbd run`` of the robot's URDF itself simulates it unheld under gravity.
"""
import importlib.metadata
import os
import sys

import numpy as np

import mbd
from forces import Actuator, JointForce

#: the arm's joints, its ready pose (rad: the SRDF's default) and the target (rad)
ARM = tuple(f"panda_joint{i}" for i in range(1, 8))
READY = (0.0, -np.pi / 4, 0.0, -3 * np.pi / 4, 0.0, np.pi / 2, np.pi / 4)
TARGET = (1.0, 0.3, 0.4, -1.8, -0.3, 2.1, 0.8)
#: the PD gains, N m/rad, and the damping, N m s/rad: kd = 0.4 s kp (overdamped)
KP = (400.0, 400.0, 300.0, 300.0, 50.0, 50.0, 20.0)
KD = tuple(0.4 * kp for kp in KP)
#: the gripper: its opening (each finger, m), held by a PD of its own (N/m, N s/m)
FINGERS, KP_FINGER, KD_FINGER = 0.02, 200.0, 20.0

T_END, OUTPUT_STEP = 3.0, 0.01


def robot_files():
    """(the Panda's URDF, the folder its package:// meshes are found from) of the installed
    ``example-robot-data``."""
    try:
        share = importlib.metadata.distribution("example-robot-data").locate_file(
            "cmeel.prefix/share")
    except importlib.metadata.PackageNotFoundError:
        raise RuntimeError("this example reads the Panda of the package example-robot-data: "
                           "pip install example-robot-data") from None
    share = os.fspath(share)
    return os.path.join(share, "example-robot-data", "robots", "panda_description", "urdf",
                        "panda.urdf"), share


def build_model(target=TARGET):
    """The Panda from its URDF, at its ready pose, each arm joint driven towards ``target``
    (rad) by a PD, the gripper held half open."""
    urdf, share = robot_files()
    # q0: the ready pose (the URDF's zero lies outside joint 4's limits)
    model = mbd.from_urdf(urdf, package_dirs=[share], name="panda_urdf",
                          q0=dict(zip(ARM, READY)))
    joints = {e.name: e for e in model.elements if isinstance(e, mbd.Joint)}
    for name, q0, q_ref, kp, kd in zip(ARM, READY, target, KP, KD):
        joints[name].q0 = q0
        _hold(model, joints[name], q_ref, kp, kd)
    for finger in ("panda_finger_joint1", "panda_finger_joint2"):   # geared: the URDF's mimic
        joints[finger].q0 = FINGERS
    _hold(model, joints["panda_finger_joint1"], FINGERS, KP_FINGER, KD_FINGER)
    return model


def _hold(model, joint, q_ref, kp, kd):
    """A PD on ``joint``: u = kp (q_ref - q) - kd q' (N m or N) through an Actuator."""
    q = model.add(mbd.Sensor(f"{joint.name}_q", f"{joint.name}.q"))
    v = model.add(mbd.Sensor(f"{joint.name}_v", f"{joint.name}.v"))
    pd = model.add(mbd.Gain(f"{joint.name}_pd", [-kp, -kd], [q, v], offset=kp * q_ref))
    model.add(JointForce(f"{joint.name}_motor", joint, Actuator(pd)))


def pd_torques(q, v=None, target=TARGET):
    """The arm's PD torques (7,) at joint angles ``q`` (7,) and rates ``v``, N m."""
    v = np.zeros(len(ARM)) if v is None else np.asarray(v)
    return np.array(KP) * (np.array(target) - q) - np.array(KD) * v


def pinocchio_gravity(q_arm):
    """Pinocchio's generalized gravity torques (7,) of the arm at ``q_arm``, N m (the fingers
    half open), or None without Pinocchio."""
    try:
        import pinocchio
    except ImportError:
        return None
    model = pinocchio.buildModelFromUrdf(robot_files()[0])
    q = np.concatenate([q_arm, [FINGERS, FINGERS]])
    return pinocchio.computeGeneralizedGravity(model, model.createData(), q)[:len(ARM)]


def rest_pose(system):
    """The arm's rest angles (7,), rad: ``mbd.equilibrium`` of the held robot."""
    eq = mbd.equilibrium(system)
    coordinates = eq.coordinates()
    return np.array([coordinates[name] for name in ARM]), eq


def main(t_end=T_END, gif=None):
    """Simulate; print the rest pose against the target with the torques that hold it;
    return (result, rest angles rad, PD torques N m, Pinocchio's gravity N m or None)."""
    system = build_model().build()
    print(f"{system.name}: {len(system.bodies)} bodies, {len(system.joints)} joints "
          f"({system.dof} DOF: the fingers geared), {len(system.force_elements)} force "
          f"elements, {len(system.controls)} sensors and controllers")
    result = system.simulate(t_end, output_step=OUTPUT_STEP)
    rest, _ = rest_pose(system)
    torques = pd_torques(rest)
    gravity = pinocchio_gravity(rest)
    final = np.array([result.joint(name).q[-1] for name in ARM])
    print(f"{'joint':<14}{'target':>9}{'rest':>10}{'offset':>9}{'at t_end':>10}"
          f"{'PD torque':>12}" + (f"{'Pinocchio g':>13}" if gravity is not None else ""))
    for i, name in enumerate(ARM):
        print(f"{name:<14}{TARGET[i]:>9.3f}{rest[i]:>10.4f}{TARGET[i] - rest[i]:>9.4f}"
              f"{final[i]:>10.4f}{torques[i]:>12.4f}"
              + (f"{gravity[i]:>13.4f}" if gravity is not None else ""))
    if gravity is not None:
        print(f"at rest the PD torques carry gravity: largest difference from Pinocchio's "
              f"{np.abs(torques - gravity).max():.2e} N m")
    tcp = result.body("panda_link7").position("panda_hand_tcp")[-1]
    print(f"the hand's centre point at t = {result.t[-1]:g} s: ({tcp[0]:.3f}, {tcp[1]:.3f}, "
          f"{tcp[2]:.3f}) m; {len(result.events)} switch events (a joint touching its limit "
          "would be one)")
    if gif is not None:
        import viz
        frames = viz.animate(result, gif, fps=12, size=(320, 240), progress=False)
        print(f"animation: {gif} ({frames} frames)")
    return result, rest, torques, gravity


if __name__ == "__main__":
    main(gif=sys.argv[sys.argv.index("--gif") + 1] if "--gif" in sys.argv else None)
