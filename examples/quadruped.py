"""A quadruped from its URDF standing on its feet, then pushed (SPEC §12, issue 48).

The Solo-12 or the Go2 of example-robot-data (the test extra) is read with its collision
geometry as contact (``mbd.from_urdf(..., floating=True, contact=FEET)``: each foot's mesh its
convex hull, the floor a plane, the default Hertz law and exact friction), put on the floor in
its standing pose and held there by a joint-space PD: on every joint a spring-damper
``SpringDamper(c=KP, d=KD, x0=q_stand)`` (a PD about a constant set point, which exact friction
allows: it is no continuous controller). It stands for ``STAND`` s; then a force pulse on the
trunk (``PUSH`` N along x for ``PUSH_TIME`` s: an input ``push`` on a JointForce on the
floating base's x, set from a live run, :func:`pushed`) pushes it, and it recovers or falls.

Run ``python examples/quadruped.py [solo12|go2] [push N]``; ``mbd run examples/quadruped.py``
runs the Solo-12 with the default push (25 N: two feet lift and land again, and it stands).
"""
from __future__ import annotations

import os
import site
import sys
import sysconfig

import numpy as np

import mbd
from forces import Actuator, JointForce, SpringDamper
from mbd.exchange.urdfcontact import stand_on_floor

#: the robots: URDF (under example-robot-data's robots folder), feet links, standing pose
#: (joint: rad, from the robot's SRDF "standing" state), PD gains (N m/rad, N m s/rad)
ROBOTS = {
    "solo12": {
        "urdf": "solo_description/robots/solo12.urdf",
        "feet": ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"],
        "stand": {"FL_HAA": 0.1, "FL_HFE": 0.8, "FL_KFE": -1.6, "FR_HAA": -0.1,
                  "FR_HFE": 0.8, "FR_KFE": -1.6, "HL_HAA": 0.1, "HL_HFE": -0.8,
                  "HL_KFE": 1.6, "HR_HAA": -0.1, "HR_HFE": -0.8, "HR_KFE": 1.6},
        "kp": 5.0, "kd": 0.1,
    },
    "go2": {
        "urdf": "go2_description/urdf/go2.urdf",
        "feet": ["FL_foot", "FR_foot", "RL_foot", "RR_foot"],
        "stand": {f"{leg}_{joint}": value for leg in ("FL", "FR", "RL", "RR")
                  for joint, value in (("hip_joint", 0.068 if leg[1] == "L" else -0.068),
                                       ("thigh_joint", 0.785), ("calf_joint", -1.44))},
        "kp": 150.0, "kd": 3.0,
    },
}
#: the trunk link of each robot
TRUNK = {"solo12": "base_link", "go2": "base"}
#: standing time before the push (s), the push's peak force (N, along x) and duration (s),
#: and the time after it (s)
STAND, PUSH_TIME, AFTER = 5.0, 0.1, 1.0
PUSH = {"solo12": 25.0, "go2": 60.0}
#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = STAND + PUSH_TIME + AFTER, 0.01, 1e-6, 1e-9
#: the method: DOP853 until the model turns stiff, then Radau. A foot slipping past its
#: stop (its slip turning through nearly zero) under a push across it is as stiff as
#: Coulomb friction makes it, mu_k f_n / (m |v|): 1e7-1e8 1/s on a calf under a push of a
#: few hundred newtons, where DOP853 would take steps of nanoseconds
METHOD = "auto"


def robots_folder() -> str:
    """example-robot-data's ``robots`` folder (its PyPI wheel puts it under
    ``cmeel.prefix/share`` of the site-packages that holds it)."""
    paths = sysconfig.get_paths()
    for place in (paths["purelib"], paths["platlib"], paths["data"], *site.getsitepackages(),
                  site.getusersitepackages(), *sys.path):
        folder = os.path.join(place, "cmeel.prefix", "share", "example-robot-data", "robots")
        if os.path.isdir(folder):
            return folder
    raise RuntimeError("this example needs example-robot-data (pip install "
                       "example-robot-data, or the test extra: pip install '.[test]')")


def build_model(robot: str = "solo12") -> mbd.Model:
    """The robot standing on the floor (its lowest foot point touching it), held by the PD,
    with an input ``push`` (N, along x; 0 until set) acting on the trunk."""
    spec = ROBOTS[robot]
    folder = robots_folder()
    model = mbd.from_urdf(os.path.join(folder, spec["urdf"]),
                          package_dirs=[os.path.dirname(os.path.dirname(folder))],
                          floating=True, q0=spec["stand"], contact=spec["feet"])
    joints = {e.name: e for e in model.elements}
    for joint, q in spec["stand"].items():
        model.add(JointForce(f"{joint}_pd", joints[joint],
                             SpringDamper(c=spec["kp"], d=spec["kd"], x0=q)))
    stand_on_floor(model)
    push = model.add(mbd.Input("push", 0.0, unit="N"))
    model.add(JointForce("pusher", joints["root_joint"], Actuator(push), primitive=0))
    return model


def pushed(system, robot: str = "solo12", push: float | None = None, t_end: float = T_END):
    """Run ``system`` live: standing until STAND, the push (N; default PUSH[robot]) held for
    PUSH_TIME, then nothing; returns the result (the same compiled steps as one run: the
    input's changes are exact instants)."""
    sim = system.start(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL, atol=ATOL,
                       method=METHOD)
    sim.advance_to(min(STAND, t_end))
    if t_end > STAND:
        sim.set_input("push", PUSH[robot] if push is None else float(push))
        sim.advance_to(min(STAND + PUSH_TIME, t_end))
        sim.set_input("push", 0.0)
        sim.advance_to(t_end)
    return sim.result()


def support(result, model) -> np.ndarray:
    """The floor's normal forces on the robot summed, per row (N)."""
    names = [e.name for e in model.elements if isinstance(e, mbd.Contact)]
    return sum(result.contact(name).total_normal_force for name in names)


def main(robot: str = "solo12", push: float | None = None, t_end: float = T_END):
    """Simulate; print the support against the weight, the drift while standing and what
    the push did; return the result."""
    model = build_model(robot)
    result = pushed(model.build(), robot, push, t_end)
    weight = sum(b.mass for b in model.bodies) * 9.81
    trunk = result.body(TRUNK[robot]).position()
    rest = (result.t > STAND - 1.0) & (result.t <= STAND)
    print(f"{robot}: weight {weight:.6f} N; support at t = {STAND} s "
          f"{support(result, model)[rest][-1]:.6f} N")
    print(f"trunk over the last second standing: height {trunk[rest, 2].mean():.6f} m, moved "
          f"{np.ptp(trunk[rest], axis=0).max():.3g} m")
    if t_end > STAND + PUSH_TIME:
        print(f"after the push: trunk at {trunk[-1].round(4).tolist()} m "
              f"({'standing' if trunk[-1, 2] > 0.5 * trunk[rest, 2].mean() else 'fallen'})")
    stick = [e for e in result.events if e.what in ("sticks", "breaks free: slips")]
    print(f"{len(result.events)} events, {len(stick)} of them stick or slip")
    return result


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "solo12",
         float(sys.argv[2]) if len(sys.argv) > 2 else None)
