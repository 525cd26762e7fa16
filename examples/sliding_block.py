"""A block pushed across a floor slides to an exact stop, then stays put (SPEC §12): exact
contact friction.

Teaches: ``mbd.Coulomb(mu_s, mu_k, exact=True)``, true stick-slip of a contact's points as
one patch (no smoothing, no creep speed): the box's four lower corners slide with kinetic
friction and stick together exactly where the slip stops, each stick and slip an event; then
a tilt of the floor (gravity turned by THETA, as on an incline) below the friction angle
holds it at rest to round-off.

A steel-ish box of M = 2 kg and side 0.2 m is launched at V0 = 1.5 m/s on a level floor with
mu_s = 0.5, mu_k = 0.4. Slipping, the kinetic friction mu_k N decelerates it at mu_k g, so
(rigid closed form)

    it stops at t* = V0 / (mu_k g) after V0^2 / (2 mu_k g)

and sticks there (the force to hold it, zero on a level floor, is inside the cone mu_s N).

Run: ``python examples/sliding_block.py`` — prints the stick time and the distance against
the closed form, how far it moved after it stuck, and the energy balance (what friction
dissipated: the launch's kinetic energy).
"""
import numpy as np

import mbd
from forces import ElastoGap
from joints import SixDof

M, SIDE = 2.0, 0.2                # mass kg, edge m
V0, MU_S, MU_K = 1.5, 0.5, 0.4    # launch speed m/s, friction coefficients
G = 9.81                          # m/s^2
C, D = 1e7, 300.0                 # the corners' Hertz stiffness N/m^1.5 and damping N s/m

#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 0.6, 0.005, 1e-10, 1e-12


def stop_time():
    """t* = V0 / (mu_k g), s."""
    return V0 / (MU_K * G)


def stop_distance():
    """V0^2 / (2 mu_k g), m."""
    return V0**2 / (2 * MU_K * G)


def build_model():
    """The box on its four lower corners, each at its share of the weight's penetration
    (c delta^1.5 = M g / 4), launched along x."""
    model = mbd.Model("sliding_block")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    floor.add_shape(mbd.Plane(size=1.6, color="lightgray"), contact=True)
    box = model.add_body("box", mass=M, cg=(0.0, 0.0, 0.0),
                         inertia=np.eye(3) * M * SIDE**2 / 6)
    box.add_shape(mbd.Box((SIDE, SIDE, SIDE), color="peru"), contact=True)
    delta = (M * G / (4 * C)) ** (1 / 1.5)
    model.add(SixDof("free", floor, box["cg"],
                     q0=(-0.3, 0.0, SIDE / 2 - delta, 1.0, 0.0, 0.0, 0.0),
                     v0=[V0, 0.0, 0.0, (0.0, 0.0, 0.0)]))
    model.add(mbd.Contact("floor contact", floor, box, ElastoGap(c=C, d=D, n=1.5),
                          mbd.Coulomb(MU_S, MU_K, exact=True)))
    return model


def corner_centre(result):
    """The mean of the box's corners in contact per row (x, m): its witnesses, half the
    penetration above the contact points."""
    contact = result.contact("floor contact")
    corners = contact.point + 0.5 * contact.gap[..., None] * contact.normal
    return np.nanmean(corners[..., 0], axis=1)


def main(t_end=T_END):
    """Simulate; print the stop against the closed form; return the result."""
    result = build_model().build().simulate(t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                            atol=ATOL)
    sticks = [e.t for e in result.events if e.what == "sticks"]
    x = result.body("box").position()[:, 0]
    print(f"events: {[(round(e.t, 9), e.element, e.what) for e in result.events]}")
    if sticks:
        t_stick = sticks[-1]
        at = np.searchsorted(result.t, t_stick)
        print(f"sticks at t = {t_stick:.9f} s (closed form V0 / (mu_k g) = "
              f"{stop_time():.9f} s) after {x[at] - x[0]:.6f} m (closed form "
              f"{stop_distance():.6f} m)")
        corners = corner_centre(result)
        print(f"after it stuck its corners moved {np.abs(corners[at:] - corners[at]).max():.3g} "
              f"m (its centre {abs(x[-1] - x[at]):.3g} m, rocking back level from its "
              "sliding pitch)")
    print(result.energy_balance().summary())
    return result


if __name__ == "__main__":
    main()
