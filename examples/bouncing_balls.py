"""Five balls of different sizes dropped into an open box: contact among many bodies (SPEC §12).

Teaches: a wall as a ``Plane`` on a ground of its own, placed and turned with
``model.add_ground(name, at=..., orientation=...)`` so that its solid side (the plane's -z)
is outside the box; free bodies on ``SixDof`` joints; ``mbd.contacts_among`` making one
``Contact`` per pair (ball on ball, ball on wall, ball on floor; two grounds make none);
Hertz's law with the damping of ``mbd.damping_for_restitution`` for e = 0.8 and light
``mbd.Coulomb`` friction; the contact events in ``result.events``; ``result.energy_balance()``
with what the contacts store and dissipate.

The box is L = 0.8 m square (walls at x, y = +-L/2) and open at the top. The balls (hard
rubber, 1200 kg/m^3, radii 45 to 80 mm) start at rest vertically, at heights 0.5 to 1 m,
each with a small sideways speed; every pair uses the same law: Hertz's stiffness of hard
rubber (E = 50 MPa, nu = 0.45) for a 60 mm ball on a flat, and the damping that gives a
restitution of 0.8 to a 1 kg ball striking at 3.4 m/s (the restitution of the others differs
a little: the clamped Hertz damping depends on mass and speed). Each ball falls freely until
it first strikes the floor, at t = sqrt(2 h / g) with h its height above its touching height;
then they bounce off the floor, the walls and each other.

Two pairs of balls, dropped from the same height, meet head-on in the air after their first
bounce: their horizontal momentum goes through the impact unchanged.

Run: ``python examples/bouncing_balls.py`` — prints each ball's first impact against
sqrt(2 h / g), the number of contacts and contact events, the energy balance, the deepest
penetration against the bound of the law (the whole initial energy stored in one contact),
the momentum of the balls that strike each other before and after, and how far the balls
reach beyond the walls and the floor.
"""
import numpy as np
from scipy.spatial.transform import Rotation

import mbd
from forces import ElastoGap
from joints import SixDof

G = 9.81                               # m/s^2
L = 0.8                                # box width, m
DENSITY = 1200.0                       # kg/m^3
#: (radius m, start position m, sideways speed m/s) of each ball
BALLS = {"ball1": (0.050, (-0.30, -0.20, 0.60), (0.60, 0.0)),
         "ball2": (0.060, (0.30, -0.20, 0.61), (-0.60, 0.0)),
         "ball3": (0.070, (-0.28, 0.20, 0.90), (0.40, 0.0)),
         "ball4": (0.080, (0.28, 0.20, 0.91), (-0.40, 0.0)),
         "ball5": (0.045, (0.00, 0.00, 1.00), (0.25, 0.10))}
RUBBER = (50e6, 0.45)                  # Young's modulus Pa, Poisson's ratio
#: Hertz's stiffness of every pair, N/m^1.5: a 60 mm hard-rubber ball on a flat of the same
C = mbd.hertz(*RUBBER, *RUBBER, 0.06)
RESTITUTION, MASS_REF, SPEED_REF = 0.8, 1.0, 3.4
#: the damping giving RESTITUTION to MASS_REF kg striking at SPEED_REF m/s, N s/m
D = mbd.damping_for_restitution(RESTITUTION, C, MASS_REF, SPEED_REF, n=1.5)
FRICTION = mbd.Coulomb(0.2, 0.15, v_crit=0.01)

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 3.0, 0.005, 1e-8, 1e-9


def mass(radius):
    """A solid ball's mass, kg."""
    return DENSITY * 4.0 / 3.0 * np.pi * radius**3


#: the walls: (name, a point on the plane, the rotation turning the plane's +z to the inside)
WALLS = (("wall_east", (L / 2, 0.0, 0.0), Rotation.from_euler("y", -90, degrees=True)),
         ("wall_west", (-L / 2, 0.0, 0.0), Rotation.from_euler("y", 90, degrees=True)),
         ("wall_north", (0.0, L / 2, 0.0), Rotation.from_euler("x", 90, degrees=True)),
         ("wall_south", (0.0, -L / 2, 0.0), Rotation.from_euler("x", -90, degrees=True)))


def build_model():
    """The floor (the ground with the environment), four walls and five balls, each ball on
    a SixDof from the floor (drawn at the origin, started at its place by q0)."""
    model = mbd.Model("bouncing_balls")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    floor.add_shape(mbd.Plane(size=L, color="burlywood"), contact=True)
    grounds = [floor]
    for name, at, turn in WALLS:
        # the wall's plane at the box's side, its +z pointing into the box: the solid is
        # outside; drawn as a square of side L centred half a box up
        wall = model.add_ground(name, at=np.add(at, (0.0, 0.0, L / 2)), orientation=turn)
        wall.add_shape(mbd.Plane(size=L, color="lightsteelblue", opacity=0.3), contact=True)
        grounds.append(wall)
    balls = []
    for (name, (radius, start, (vx, vy))), color in zip(BALLS.items(), (
            "tomato", "gold", "seagreen", "royalblue", "orchid")):
        m = mass(radius)
        ball = model.add_body(name, m, (0.0, 0.0, 0.0), np.eye(3) * 0.4 * m * radius**2)
        ball.add_shape(mbd.Sphere(radius, color=color), contact=True)
        model.add(SixDof(f"free_{name}", floor, ball["cg"], q0=(*start, 1.0, 0.0, 0.0, 0.0),
                         v0=(vx, vy, 0.0, 0.0, 0.0, 0.0)))
        balls.append(ball)
    # jointed=True: each ball's SixDof joins it to the floor, and contacts_among leaves out
    # the pairs a joint joins unless asked (a free joint holds nothing together, but it
    # counts); no other joint here
    for contact in mbd.contacts_among(balls + grounds, ElastoGap(c=C, d=D, n=1.5), FRICTION,
                                      jointed=True):
        model.add(contact)
    return model


def first_impacts(result):
    """{ball: (t, contact element)} of each ball's first contact."""
    out = {}
    for ev in result.events:
        if ev.what == "contact begins":
            pair = ev.element.split(":")[0].removeprefix("contact ")
            for ball in pair.split("-"):
                if ball in BALLS and ball not in out:
                    out[ball] = (ev.t, ev.element)
    return out


def free_fall_time(name):
    """sqrt(2 h / g): when the ball, dropped from rest vertically, first touches the floor."""
    radius, start, _ = BALLS[name]
    return float(np.sqrt(2.0 * (start[2] - radius) / G))


def initial_energy():
    """The balls' kinetic energy plus their weight's potential above the floor (centres at
    z = 0), J: no contact can ever store more."""
    return sum(mass(r) * (0.5 * (vx**2 + vy**2) + G * start[2])
               for r, start, (vx, vy) in BALLS.values())


def penetration_bound():
    """The deepest any contact can go, m: the whole initial energy stored in one Hertz
    contact, C delta^2.5 / 2.5 = initial_energy()."""
    return (2.5 * initial_energy() / C) ** 0.4


def ball_collisions(result):
    """[(t_begin, t_end, ball_a, ball_b)] of every contact between two balls."""
    out = []
    for pair in sorted({ev.element.split(":")[0] for ev in result.events}):
        a, b = pair.removeprefix("contact ").split("-")
        if a in BALLS and b in BALLS:
            out += [(t0, t1, a, b) for t0, t1 in result.contact(pair).intervals()]
    return sorted(out)


def horizontal_momentum(result, names, t):
    """The x-y momentum of the balls ``names`` at the row at time t, kg m/s."""
    i = int(np.argmin(abs(result.t - t)))
    return sum(mass(BALLS[n][0]) * result.body(n).velocity("cg")[i, :2] for n in names)


def main(t_end=T_END):
    """Simulate; print the first impacts, the contacts, the energy balance and the
    penetrations; return the result."""
    system = build_model().build()
    result = system.simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL, atol=ATOL)
    print(f"Hertz c = {C:.4e} N/m^1.5, damping d = {D:.4g} N s/m (e = {RESTITUTION} for "
          f"{MASS_REF} kg at {SPEED_REF} m/s)")
    for name, (t, element) in sorted(first_impacts(result).items()):
        print(f"  {name}: first contact at t = {t:.6f} s ({element}); free fall "
              f"sqrt(2 h / g) = {free_fall_time(name):.6f} s")
    begins = [ev for ev in result.events if ev.what == "contact begins"]
    touched = sorted({ev.element.split(":")[0] for ev in begins})
    print(f"{len(begins)} contacts begin in {t_end:g} s ({len(result.events)} events in all); "
          f"pairs that touched: {len(touched)} ({', '.join(touched)})")
    print(result.energy_balance().summary())
    deepest = min(result.contact(pair).gap.min() for pair in touched)
    print(f"deepest penetration {-deepest * 1e3:.3f} mm; the law's bound (all "
          f"{initial_energy():.3f} J in one contact) {penetration_bound() * 1e3:.3f} mm")
    # in the air only gravity (vertical) and their contact act on two balls that strike
    # each other: their horizontal momentum goes through the impact unchanged
    for t0, t1, a, b in ball_collisions(result)[:4]:
        before, after = (horizontal_momentum(result, (a, b), t) for t in (t0, t1))
        print(f"  {a} strikes {b} from t = {t0:.6f} to {t1:.6f} s: their horizontal momentum "
              f"({before[0]:+.6f}, {before[1]:+.6f}) before, ({after[0]:+.6f}, {after[1]:+.6f}) "
              "kg m/s after")
    outside = 0.0
    for name, (radius, _, _) in BALLS.items():
        p = result.body(name).position("cg")
        outside = max(outside, np.max(np.abs(p[:, :2]) + radius - L / 2), np.max(radius - p[:, 2]))
    print(f"the balls reach {outside * 1e3:+.3f} mm beyond the walls and floor at most")
    return result


if __name__ == "__main__":
    main()
