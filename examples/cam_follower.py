"""A disc cam lifting a flat-faced follower (SPEC §12): contact between a sphere and a plane.

Teaches: contact shapes (``add_shape(..., contact=True)``) on two bodies, an ``mbd.Contact``
between them with Hertz's law (``ElastoGap`` with n = 1.5 and ``mbd.hertz`` for steel on
steel), a ``Plane`` on a body turned face down (its solid side is its CS's -z, so the
follower's face CS is flipped to point +z at the cam), a ``MotionDriver`` turning the cam at
constant speed, ``result.contact(name)`` for the contact force, and the event log saying
whether the follower ever leaves the cam.

The cam is a steel disc of radius R = 30 mm whose centre is offset e = 10 mm from the shaft
(a ``Sphere`` is the disc's contact shape: against a flat face a sphere and a disc touch at
the same point). The shaft, along y, is turned at OMEGA = 80 rad/s from the angle where the
disc's centre is straight below it. A tappet of M_F = 0.5 kg slides on a vertical Prismatic
joint; its flat steel face rests on the disc, held there by gravity and a valve spring of
K = 2000 N/m preloaded to F0 = 20 N (a ``JointForce`` Spring on the prismatic joint).

Closed form (rigid contact): the disc's top is at R - e cos(omega t), so the follower lifts by

    lift(t) = e (1 - cos(omega t)),   its acceleration e omega^2 cos(omega t),

and the contact force is N = M_F (g + e omega^2 cos) + F0 + K lift, least at the top of the
lift (cos = -1). The follower leaves the cam where N would go negative there:

    omega_lift_off = sqrt((M_F g + F0 + 2 K e) / (M_F e))     (114 rad/s here).

The Hertz contact lets the follower sink into the cam by (N / c)^(2/3), a micrometre or two:
the lift differs from the closed form by no more than that.

Run: ``python examples/cam_follower.py`` — prints the lift against the closed form over the
run, the contact force's range against the closed form, whether the contact ever ended, and
the lift-off speed.
"""
import numpy as np

import mbd
from forces import ElastoGap, JointForce, Spring
from joints import Prismatic, Revolute

R, E = 0.03, 0.01              # disc radius, its centre's offset from the shaft, m
OMEGA = 80.0                   # shaft speed, rad/s (below lift-off)
M_F = 0.5                      # follower mass, kg
K, F0 = 2000.0, 20.0           # valve spring stiffness N/m and preload N
G = 9.81                       # m/s^2
STEEL = (210e9, 0.3)           # Young's modulus Pa, Poisson's ratio
#: Hertz's stiffness of the steel disc (radius R) on the steel flat, N/m^1.5
C = mbd.hertz(*STEEL, *STEEL, R)

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 0.25, 5e-4, 1e-8, 1e-10


def contact_force(t, omega=OMEGA):
    """The rigid closed form of the contact force N(t), N."""
    c = np.cos(omega * np.asarray(t))
    return M_F * (G + E * omega**2 * c) + F0 + K * E * (1.0 - c)


def closed_form_lift(t, omega=OMEGA):
    """e (1 - cos(omega t)), m: the rigid follower's lift."""
    return E * (1.0 - np.cos(omega * np.asarray(t)))


def lift_off_speed():
    """The shaft speed (rad/s) above which the follower leaves the cam at the top of the lift:
    M_F e omega^2 = M_F g + F0 + 2 K e."""
    return float(np.sqrt((M_F * G + F0 + 2.0 * K * E) / (M_F * E)))


def build_model(omega=OMEGA):
    """The shaft and disc on a Revolute about y, the tappet on a vertical Prismatic above it,
    drawn touching at t = 0 (the disc's centre straight below the shaft, its top at
    z = R - E); the motor turns the shaft at ``omega`` (rad/s)."""
    model = mbd.Model("cam_follower")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    top = R - E                                    # the disc's top, and the face, at t = 0
    guide = model.add_ground("guide", at=(0.0, 0.0, top + 0.04))   # the tappet's bore
    cam = model.add_body("cam", 2.0, (0.0, 0.0, -E), [2e-3, 2e-3, 2e-3],
                         cs={"shaft": (0.0, 0.0, 0.0), "disc": (0.0, 0.0, -E)})
    cam.add_shape(mbd.Sphere(R, color="slategray"), cs="disc", contact=True)
    # the face CS is turned half a turn about x: its +z points down at the cam, so the
    # Plane's solid side (its -z) is the tappet above the face
    follower = model.add_body("follower", M_F, (0.0, 0.0, top + 0.04), [1e-3, 1e-3, 1e-4],
                              cs={"face": ((0.0, 0.0, top), (0.0, 1.0, 0.0, 0.0)),
                                  "guide": (0.0, 0.0, top + 0.04)})
    follower.add_shape(mbd.Plane(size=0.08, color="goldenrod"), cs="face", contact=True)
    follower.add_shape(mbd.Cylinder(0.01, 0.08, color="goldenrod"), cs="guide")
    bearing = model.add(Revolute("bearing", ground, cam["shaft"], axis=(0.0, 1.0, 0.0),
                                 v0=omega))
    # q = 0: the face at the disc's top; start sunk in by the Hertz penetration that carries
    # the force the follower needs at t = 0, so that it starts in equilibrium
    depth0 = (contact_force(0.0, omega) / C) ** (2.0 / 3.0)
    tappet = model.add(Prismatic("tappet", guide, follower["guide"], axis=(0.0, 0.0, 1.0),
                                 q0=-depth0, v0=0.0))
    # the spring's force on the follower is -K (q - x0): F0 down at q = 0
    model.add(JointForce("valve_spring", tappet, Spring(c=K, x0=-F0 / K)))
    # damping that would give a restitution of 0.5 if the follower struck the cam at its
    # peak speed e omega: the contact's own vibration dies out
    d = mbd.damping_for_restitution(0.5, C, M_F, E * omega)
    model.add(mbd.Contact("cam_contact", cam, follower, ElastoGap(c=C, d=d, n=1.5)))
    model.add(mbd.MotionDriver("motor", bearing, position=lambda t: omega * t,
                               velocity=lambda t: omega, acceleration=lambda t: 0.0))
    return model


def contact_ends(result):
    """The events where the follower leaves the cam."""
    return [ev for ev in result.events if ev.element.startswith("cam_contact")
            and ev.what == "contact ends"]


def main(t_end=T_END):
    """Simulate; print the lift against the closed form, the contact force, whether the
    follower ever left the cam and the lift-off speed; return the result."""
    result = build_model().build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    t = result.t
    lift = result.joint("tappet").q                 # the face's height above R - E
    exact = closed_form_lift(t)
    contact = result.contact("cam_contact")
    fn = contact.total_normal_force
    depth = (contact_force(t) / C) ** (2.0 / 3.0)  # the quasi-static Hertz penetration
    print(f"cam: R = {R * 1e3:g} mm, e = {E * 1e3:g} mm, omega = {OMEGA:g} rad/s; "
          f"Hertz c = {C:.4e} N/m^1.5")
    for time in np.linspace(0.0, 2 * np.pi / OMEGA, 5):
        i = np.argmin(abs(t - time))
        print(f"  t = {t[i]:.5f} s: lift {lift[i] * 1e3:9.6f} mm, closed form "
              f"{exact[i] * 1e3:9.6f} mm, Hertz penetration {depth[i] * 1e6:.3f} um, "
              f"contact force {fn[i]:7.3f} N (closed form {contact_force(t[i]):7.3f} N)")
    print(f"lift - closed form over the run: {np.min(lift - exact) * 1e6:+.3f} .. "
          f"{np.max(lift - exact) * 1e6:+.3f} um; minus the Hertz penetration: "
          f"{np.max(abs(lift + depth - exact)) * 1e6:.3f} um at most")
    print(f"contact force {fn.min():.3f} .. {fn.max():.3f} N (closed form "
          f"{contact_force(np.pi / OMEGA):.3f} .. {contact_force(0.0):.3f} N)")
    ends = contact_ends(result)
    print("the follower never leaves the cam" if not ends else
          f"the follower leaves the cam {len(ends)} times, first at t = {ends[0].t:.6f} s")
    print(f"lift-off speed sqrt((m g + F0 + 2 k e) / (m e)) = {lift_off_speed():.2f} rad/s "
          f"({lift_off_speed() * 30 / np.pi:.0f} rpm); running at {OMEGA:g} rad/s")
    return result


if __name__ == "__main__":
    main()
