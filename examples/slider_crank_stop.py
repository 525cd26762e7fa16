"""A free-running slider-crank whose slider strikes elastic end stops.

Teaches: a slider-crank loop (three revolutes and a prismatic; the engine closes the loop
itself) started from a crank angle, the rest assembled; an Adams BISTOP between a ground
marker and the slider (``AxialForce(name, J, I, Bistop(...))``: x is the slider's position
along the marker's x axis); the impacts in ``result.events``; the stop force from
``result.force(name)``; and that an undamped stop gives back all the energy it takes.

The crank (0.3 m, 2 kg) turns about y at the origin; the connecting rod (1 m, 1 kg) drives a
3 kg slider along the x axis, whose stroke is 0.7 m .. 1.3 m. Gravity acts along -z, so the
crank also swings like a pendulum. Released with the crank pointing down (slider at
x = 0.954 m) at 6 rad/s, the slider would run the whole stroke, but stops at X1 = 0.8 m and
X2 = 1.2 m (stiffness K = 1e6 N/m^1.5, exponent E = 1.5, damping CMAX = 50 N s/m reached at
DEPTH = 1 mm penetration) throw it back: the mechanism rocks between the stops.

Tolerances: a contact lasts ~25 ms with a peak of ~1.3 kN; the driver stops exactly where a
contact begins and ends, so every piece is smooth. With undamped stops the energy is kept to
~1e-8 of itself at rtol = atol = 1e-10 (measured: 5e-7 at 1e-9, 2e-5 at 1e-8). Between impacts
nothing dissipates, so the damped run loses energy only in contact. The 0.2 ms output rows
catch the peak force to ~1e-4.

Run: ``python examples/slider_crank_stop.py`` — prints every impact with the slider speed
before and after and the peak stop force; ``main(cmax=0.0)`` runs the undamped stops.
"""
import numpy as np

import mbd
from forces import AxialForce, Bistop
from joints import Prismatic, Revolute

CRANK, ROD = 0.3, 1.0               # m
STOPS = dict(x1=0.8, x2=1.2, k=1e6, e=1.5, cmax=50.0, d=1e-3)
OMEGA0 = 6.0                        # rad/s, the crank's initial speed
#: the run settings of main() and of ``mbd run``: end time (s), output step (s), rtol, atol
T_END, OUTPUT_STEP, RTOL, ATOL = 2.0, 2e-4, 1e-10, 1e-10
Y = (0.0, 1.0, 0.0)


def build_model(cmax=STOPS["cmax"]):
    """The slider-crank, drawn with the crank along +x, released with the crank pointing down
    (q0 = pi/2 about +y) at OMEGA0; ``cmax`` (N s/m) may be changed (0: no damping)."""
    model = mbd.Model("slider_crank_stop")
    ground = model.add_ground("ground",
                              environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    pin, wrist = np.array([CRANK, 0.0, 0.0]), np.array([CRANK + ROD, 0.0, 0.0])
    # J: the stops' marker on the ground, at the origin, x along the slide
    J = model.add_ground("J", at=(0.0, 0.0, 0.0))
    guide = model.add_ground("guide", at=wrist)
    crank = model.add_body("crank", 2.0, pin / 2, [1e-3, 0.015, 0.015],
                           cs={"axis": (0, 0, 0), "pin": pin})
    rod = model.add_body("rod", 1.0, (pin + wrist) / 2, [1e-3, 1 / 12, 1 / 12],
                         cs={"pin": pin, "wrist": wrist})
    slider = model.add_body("slider", 3.0, wrist, [0.005, 0.01, 0.01], cs={"I": wrist})
    model.add(Revolute("crankshaft", ground, crank["axis"], axis=Y, q0=np.pi / 2,
                       v0=OMEGA0, exact=True))
    model.add(Revolute("crank_pin", crank["pin"], rod["pin"], axis=Y))
    model.add(Revolute("wrist_pin", rod["wrist"], slider["I"], axis=Y))
    model.add(Prismatic("slide", guide, slider["I"], axis=(1.0, 0.0, 0.0)))
    model.add(AxialForce("stops", J, slider["I"], Bistop(**dict(STOPS, cmax=cmax))))
    return model


def impacts(result):
    """[(t_begin, t_end, stop)] of every contact, at the exact event times; stop is -1 (x1)
    or +1 (x2). A contact still going at the end of the run has t_end = nan."""
    return result.force("stops").contacts()


def main(t_end=T_END, cmax=STOPS["cmax"]):
    """Simulate; print every impact and the peak stop force; return the result."""
    result = build_model(cmax).build().simulate(t_end=t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                                atol=ATOL)
    stops = result.force("stops")
    speed = result.joint("slide").v
    for t0, t1, stop in impacts(result):
        i0 = np.flatnonzero(result.t == t0)[0]            # every event has an output row
        i1 = np.flatnonzero(result.t == t1)[0] if np.isfinite(t1) else len(result.t) - 1
        print(f"impact on x{1 if stop < 0 else 2} at t = {t0:.6f} s for "
              f"{1e3 * (result.t[i1] - t0):.2f} ms: slider speed {abs(speed[i0]):.4f} -> "
              f"{abs(speed[i1]):.4f} m/s, peak force {abs(stops.value[i0:i1 + 1]).max():.0f} N")
    energy = result.energy()
    print(f"peak stop force {abs(stops.value).max():.1f} N; energy {energy[0]:.4f} -> "
          f"{energy[-1]:.4f} J")
    return result


if __name__ == "__main__":
    main()
