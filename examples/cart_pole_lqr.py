"""An inverted pendulum on a cart, balanced by LQR state feedback designed from the model.

Teaches: control in the loop (SPEC §9) from design to run. ``mbd.linearize`` of the open
loop about the upright state, with the cart's force ``Actuator`` as the input and the four
joint states as outputs, gives (A, B); ``scipy.linalg.solve_continuous_are`` gives the LQR
gain K; ``mbd.Gain("lqr", -K, [four Sensors])`` closes the loop (``u = -K x`` at every
instant, a static controller) and drives the same ``Actuator``, now ``Actuator(gain)``.

The cart (M = 1 kg) slides along world x on a Prismatic ``rail``; the pole (m = 0.2 kg, a
uniform rod 2 l = 1 m long, its CG l = 0.5 m above the pivot, J_cg = m (2 l)^2 / 12) turns
on a Revolute ``hinge`` about y, upright at q = 0 (gravity -z; q > 0 leans it towards +x).
With x, theta the rail and hinge coordinates, F the push on the cart and J = J_cg + m l^2,
Lagrange's equations are

    (M + m) x'' + m l cos(theta) theta'' - m l sin(theta) theta'^2 = F
    m l cos(theta) x'' + J theta'' - m g l sin(theta) = 0,

linear about the upright: A and B of the state [x, theta, x', theta'] follow from the mass
matrix [[M + m, m l], [m l, J]] (the test checks ``linearize`` against them). The weights
Q = diag(100, 10, 10, 1), R = 1 (SI units) weigh the cart's excursion most: the slowest
closed-loop pair is at Re lambda = -2.4 1/s, and the push of the 0.2 rad catch peaks at its
first value, K_theta 0.2 = 13 N.

The closed loop's eigenvalues are found twice more, independently of the design's
eig(A - B K): ``mbd.linearize`` of the closed-loop model (no inputs: the Gain acts in the
linearized dynamics), and a fit to a run -- a second run from a 1e-4 rad tilt (the nonlinear
terms ~1e-8 of the linear ones), whose sampled states, X_{k+1} = Phi X_k, give Phi by least
squares and lambda = log(eig Phi) / h.

Run: ``python examples/cart_pole_lqr.py`` -- prints K, the catch of a 0.2 rad tilt (the
pole's angle and the cart's position coming back to ~0) and the three sets of eigenvalues.
``python -m mbd run examples/cart_pole_lqr.py --animate`` writes the animation of the catch.
"""
import numpy as np
import scipy.linalg

import mbd
from forces import Actuator, JointForce
from joints import Prismatic, Revolute

M_CART, M_POLE, L = 1.0, 0.2, 0.5      # kg, kg, m (pivot to the pole's CG; the pole is 2 L)
J_POLE = M_POLE * (2 * L) ** 2 / 12.0  # kg m^2, the pole about its CG
G = 9.81                               # m/s^2
PIVOT = 0.06                           # m, the pivot above the cart's CG (no dynamic effect)
Q = np.diag([100.0, 10.0, 10.0, 1.0])   # weights of x (m), theta (rad), x', theta'
R = np.array([[1.0]])                  # weight of F (N)
STATES = ["rail.q", "hinge.q", "rail.v", "hinge.v"]
TILT = 0.2                             # rad, the start of main()'s run
SMALL_TILT = 1e-4                      # rad, the start of the run the eigenvalues are fit to

T_END, OUTPUT_STEP, RTOL, ATOL = 5.0, 0.01, 1e-10, 1e-12


def build_model(closed=True, tilt=TILT, K=None):
    """The cart and the pole, leaning ``tilt`` rad at rest. Open loop (``closed=False``): the
    push is ``Actuator(0.0)``, the input ``linearize`` perturbs. Closed loop: the push is
    ``Actuator(gain)``, ``gain`` the Gain -K [x, theta, x', theta'] of four Sensors, with K
    the LQR gain (:func:`design`) unless given."""
    model = mbd.Model("cart_pole_lqr")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -G)))
    cart = model.add_body("cart", mass=M_CART, cg=(0.0, 0.0, 0.0),
                          inertia=np.diag([0.01, 0.02, 0.02]),
                          cs={"pivot": (0.0, 0.0, PIVOT)})
    pole = model.add_body("pole", mass=M_POLE, cg=(0.0, 0.0, PIVOT + L),
                          inertia=np.diag([J_POLE, J_POLE, 1e-5]),
                          cs={"pivot": (0.0, 0.0, PIVOT), "tip": (0.0, 0.0, PIVOT + 2 * L)})
    try:      # pictures only: the dynamics ignore the shapes
        import viz
    except ImportError:
        pass
    else:
        cart.add_shape(viz.Box((0.3, 0.18, 0.1), color="steelblue"), cs="cg")
        pole.add_shape(viz.Cylinder(0.012, 2 * L, color="darkorange"), cs="cg")
        pole.add_shape(viz.Sphere(0.03, color="darkorange"), cs="tip")
    rail = model.add(Prismatic("rail", ground, cart["cg"], axis=(1.0, 0.0, 0.0)))
    model.add(Revolute("hinge", cart["pivot"], pole["pivot"], axis=(0.0, 1.0, 0.0), q0=tilt))
    if not closed:
        model.add(JointForce("push", rail, Actuator(0.0)))
        return model
    K = design()[0] if K is None else K
    sensors = [model.add(mbd.Sensor(name, what))
               for name, what in zip(("x", "theta", "x_rate", "theta_rate"), STATES)]
    gain = model.add(mbd.Gain("lqr", -np.atleast_2d(K), sensors))
    model.add(JointForce("push", rail, Actuator(gain)))
    return model


def design():
    """(K (1, 4), A (4, 4), B (4, 1)): the open loop linearized about the upright at rest,
    in the states [x, theta, x', theta'], and the LQR gain for Q, R."""
    system = build_model(closed=False, tilt=0.0).build()
    linear = mbd.linearize(system, system.initial_state(), inputs=["push"], outputs=STATES)
    # the outputs are the states themselves (C = I up to the chart's ordering): A, B in them
    C = linear.C
    A = C @ linear.A @ np.linalg.inv(C)
    B = C @ linear.B
    P = scipy.linalg.solve_continuous_are(A, B, Q, R)
    K = np.linalg.solve(R, B.T @ P)
    return K, A, B


def states(result):
    """[x, theta, x', theta'] at every row (4, n)."""
    return np.array([result.joint("rail").q, result.joint("hinge").q,
                     result.joint("rail").v, result.joint("hinge").v])


def fitted_eigenvalues(result):
    """The eigenvalues of the linear map that carries the states from one output row to the
    next (uniform rows h apart), by least squares: lambda = log(mu) / h, sorted."""
    X = states(result)
    h = result.t[1] - result.t[0]
    assert np.allclose(np.diff(result.t), h, rtol=0, atol=1e-12), "rows must be uniform"
    phi = X[:, 1:] @ np.linalg.pinv(X[:, :-1])
    return np.sort_complex(np.log(np.linalg.eigvals(phi).astype(complex)) / h)


def main(t_end=T_END):
    """Design; run the catch of a TILT rad lean; linearize the closed loop; fit the
    eigenvalues from a SMALL_TILT run; print them all; return (the catch's result, the
    eigenvalues predicted, linearized and measured)."""
    K, A, B = design()
    predicted = np.sort_complex(np.linalg.eigvals(A - B @ K))
    print("LQR gain K (N/m, N/rad, N s/m, N s/rad):", np.array2string(K[0], precision=4))
    result = build_model(K=K).build().simulate(t_end, output_step=OUTPUT_STEP, rtol=RTOL,
                                               atol=ATOL)
    x, theta = result.joint("rail").q, result.joint("hinge").q
    push = result.force("push").value
    print(f"caught from a {TILT} rad tilt: the cart runs to x = {x.min():+.4f} ... "
          f"{x.max():+.4f} m, the push peaks at {np.abs(push).max():.3f} N")
    for t in (1.0, 2.0, 3.0, 4.0, 5.0):
        if t <= t_end:
            i = np.argmin(np.abs(result.t - t))
            print(f"  t = {result.t[i]:3.1f} s: theta = {theta[i]:+.2e} rad, x = {x[i]:+.2e} m")
    small = build_model(K=K, tilt=SMALL_TILT).build().simulate(
        t_end, output_step=OUTPUT_STEP, rtol=1e-12, atol=1e-16)
    measured = fitted_eigenvalues(small)
    closed = build_model(K=K, tilt=0.0).build()
    linearized = np.sort_complex(mbd.linearize(closed, closed.initial_state()).eigenvalues())
    print("closed-loop eigenvalues (1/s):")
    print(f"  {'predicted eig(A - B K)':>24}  {'linearize(closed loop)':>24}  "
          f"{'measured from the run':>24}")
    for values in zip(predicted, linearized, measured):
        print("  " + "  ".join(f"{v.real:+12.6f} {v.imag:+9.6f}j" for v in values))
    return result, predicted, linearized, measured


if __name__ == "__main__":
    main()
