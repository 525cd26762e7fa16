"""An engine on four rubber mounts: its static sag, its six rigid-body modes, and the mount
forces when a torque pulse rolls it.

Teaches: ``Bushing`` (Adams' BUSHING): six linear spring-dampers between a CS on the frame
(A, the reference: stiffness resolved in its axes) and a CS on the engine (B), the force on
B at B's origin, its reaction on the frame; a free body on a ``SixDof``; ``mbd.equilibrium``
and ``eq.linear.modes()`` for the static sag and the six mount modes; a time-varying
``Actuator`` on a ``RotationalForce`` for a torque on a free body; ``result.force(name)``
of a bushing: ``.value`` [F; T] in A's axes, ``.vector`` the world force, ``.deflection``.

The engine (with its gearbox: 150 kg; principal moments 4.5, 7.0, 6.0 kg m^2 about the
crankshaft x, the lateral y and the vertical z) is drawn with its CG at the world origin
(where gravity's potential is zero, so the energies plotted are the motion's). Four equal
mounts sit at the corners of a 0.6 m x 0.4 m rectangle, 0.12 m below the CG, each
with the axes of the world: 1.2e5, 0.8e5 and 2.0e5 N/m along x, y, z (rubber is stiffer in
compression than in shear), 300 N m/rad about each axis, and light damping (a loss factor of
about 0.1 at the modes: 200, 150, 300 N s/m and 1 N m s/rad).

* Static sag: the mounts are symmetric about the CG, so the weight only translates the
  engine down by m g / (4 kz) = 1.839 mm: no tilt.
* Modes: bounce sqrt(4 kz / m) and yaw (about z) are uncoupled; fore-aft x couples with
  pitch and lateral y with roll, because the mounts sit below the CG. The loaded mounts below
  the CG also make an inverted pendulum: the weight lowers the roll and pitch stiffness by
  m g times the 0.12 m lever (176.6 N m/rad). Six modes between 6.7 and 17.3 Hz.
* The run starts at rest on that equilibrium (the SixDof's q0 is the sag). At T_ON a smooth
  torque pulse about the crankshaft (T_PEAK sin^2, 60 ms: the reaction to a clutch engaging)
  rolls the engine; the mounts' forces swing about their static m g / 4 = 367.9 N and the
  roll decays at the mounts' damping.

Run: ``python examples/engine_mount.py`` — prints the static sag against m g / (sum of kz),
the six mode frequencies (with the bounce's and yaw's closed forms), and the peak mount
force (which mount, when) against the static load; ``python -m mbd run
examples/engine_mount.py`` writes the time histories.
"""
import numpy as np

import mbd
from forces import Actuator, Bushing, RotationalForce
from joints import SixDof

G = 9.81
MASS = 150.0                                   # kg, engine and gearbox
INERTIA = np.array([4.5, 7.0, 6.0])            # kg m^2, principal, about x (crank), y, z
CG = np.array([0.0, 0.0, 0.0])                 # m: the world origin (gravity potential 0)
#: the mounts (m): at the corners (+-A_HALF, +-B_HALF) of a rectangle centred under the CG,
#: H below it; named front/rear (x), left/right (y)
A_HALF, B_HALF, H = 0.30, 0.20, -0.12
MOUNTS = {f"mount_{fx}{fy}": CG + np.array([sx * A_HALF, sy * B_HALF, H])
          for fx, sx in (("f", 1.0), ("r", -1.0)) for fy, sy in (("l", 1.0), ("r", -1.0))}
#: each mount: [kx, ky, kz] N/m, [kax, kay, kaz] N m/rad; damping likewise (N s/m, N m s/rad)
STIFFNESS = (1.2e5, 0.8e5, 2.0e5, 300.0, 300.0, 300.0)
DAMPING = (200.0, 150.0, 300.0, 1.0, 1.0, 1.0)
#: static sag, m: the mounts carry the weight in pure translation (symmetric about the CG)
SAG = MASS * G / (len(MOUNTS) * STIFFNESS[2])
#: the torque pulse about the crankshaft (x): peak (N m), start and duration (s)
T_PEAK, T_ON, T_PULSE = 150.0, 0.05, 0.06
#: the run settings of main() and ``mbd run``: end time (s), output step (s), rtol, atol
#: (atol well below the ~1e-3 m deflections and ~1e-3 rad rolls)
T_END, OUTPUT_STEP, RTOL, ATOL = 0.6, 1e-3, 1e-9, 1e-12


def torque(t):
    """The pulse about the crankshaft, N m: T_PEAK sin^2(pi (t - T_ON) / T_PULSE) while it
    lasts (smooth at both ends), else 0."""
    s = (t - T_ON) / T_PULSE
    return T_PEAK * np.sin(np.pi * s) ** 2 if 0.0 < s < 1.0 else 0.0


def build_model(damping=DAMPING):
    """The engine on its four mounts, at rest on its static sag (pulse at T_ON); ``damping``
    of each mount (6 values) may be changed (zeros: the undamped modes)."""
    model = mbd.Model("engine_mount")
    # the frame's reference CS, at the engine's CG in the drawing: the SixDof's base
    frame = model.add_ground("frame", at=CG, environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    engine = model.add_body("engine", mass=MASS, cg=CG, inertia=INERTIA,
                            cs={name: at for name, at in MOUNTS.items()})
    try:      # pictures only: the dynamics ignore the shapes
        import viz
    except ImportError:
        pass
    else:
        engine.add_shape(viz.Box((0.55, 0.34, 0.42), color="slategray", opacity=0.6))
    # free in six DOF: x, y, z of the CG (frame axes) and a quaternion; starts on the sag
    model.add(SixDof("float", frame, engine["cg"], q0=[0.0, 0.0, -SAG, 1.0, 0.0, 0.0, 0.0]))
    for name, at in MOUNTS.items():
        # A: the frame's side of the mount (a ground CS with the world's axes), B: the engine's
        seat = model.add_ground(f"{name}_seat", at=at)
        model.add(Bushing(name, seat, engine[name], stiffness=STIFFNESS, damping=damping))
    model.add(RotationalForce("clutch", frame, engine["cg"], Actuator(torque),
                              axis=(1.0, 0.0, 0.0)))
    return model


def peak_mount_force(result):
    """(name, t, |F|): the largest force magnitude (N) any mount puts on the engine, where
    and when."""
    best = ("", 0.0, -1.0)
    for name in MOUNTS:
        magnitude = np.linalg.norm(result.force(name).vector, axis=1)
        i = int(np.argmax(magnitude))
        if magnitude[i] > best[2]:
            best = (name, float(result.t[i]), float(magnitude[i]))
    return best


def main(t_end=T_END):
    """Find the sag and the modes; run the pulse; print them; return (equilibrium, result)."""
    system = build_model().build()
    # the rest state searched from the drawn, unloaded pose (not from q0, which is the answer)
    eq = mbd.equilibrium(system, q0={"float": [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]})
    q = eq.coordinates()["float"]
    k = np.array(STIFFNESS)
    print(f"static sag {-q[2] * 1e3:.6f} mm; m g / sum kz = {SAG * 1e3:.6f} mm "
          f"(tilt {2.0 * np.linalg.norm(q[4:]):.1e} rad, drift {np.linalg.norm(q[:2]):.1e} m)")
    linear = eq.linear
    print(linear.table())
    bounce = np.sqrt(len(MOUNTS) * k[2] / MASS) / (2.0 * np.pi)
    yaw = np.sqrt((len(MOUNTS) * (k[0] * B_HALF ** 2 + k[1] * A_HALF ** 2 + k[5]))
                  / INERTIA[2]) / (2.0 * np.pi)
    print("six mount modes (Hz): " + ", ".join(f"{m.frequency:.4f}" for m in linear.modes())
          + f"; closed forms: bounce {bounce:.4f}, yaw {yaw:.4f}")
    result = system.simulate(t_end, output_step=OUTPUT_STEP, rtol=RTOL, atol=ATOL)
    name, t, force = peak_mount_force(result)
    print(f"peak mount force {force:.1f} N on {name} at t = {t:.3f} s (static load "
          f"m g / {len(MOUNTS)} = {MASS * G / len(MOUNTS):.1f} N; torque pulse {T_PEAK:g} N m "
          f"at {T_ON:g} s for {T_PULSE * 1e3:g} ms)")
    print(result.energy_balance().summary())
    return eq, result


if __name__ == "__main__":
    main()
