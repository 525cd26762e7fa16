"""The parallelogram windows and the grounded four-bars: the closed-loop models of issue 24.

* :func:`windows_model` — IFToMM benchmark A02 ("two four-bar mechanism", Bayo and Avello)
  generalised to N square windows in the vertical x-y plane: N + 1 cranks (1 m, 1 kg, uniform
  rods) on ground pivots 1 m apart along x, N couplers (1 m, 1 kg) joining their tips, every
  joint a Revolute about z, gravity -9.81 in y. Each window is closed by a cut revolute. The
  windows stay parallelograms, so every crank turns by the same angle theta from +x, as one
  pendulum: ``I theta'' = -g c cos(theta)`` with ``I = (N + 1)/3 + N`` (kg m^2) and
  ``c = (N + 1)/2 + N`` (kg m). Wherever theta passes a multiple of pi all links lie on the
  x-axis: a change point, where the mobility jumps from 1 to N + 1 for an instant.
* :func:`fourbars_model` — K separate grounded four-bars (crank-rocker, 1 kg links), each its
  own machine with one loop: a multi-machine assembly whose machines never touch.
* :func:`pendulum_model` — the windows' one-coordinate equation as a one-body tree (no loop):
  mbd's own error on it at a tolerance is the reference an error on the windows is held to.
* :func:`crank_angle` — the closed form of the windows (scipy's DOP853 on the pendulum
  equation at rtol 1e-13), the reference of the tests and the benchmark.
"""
import numpy as np
from scipy.integrate import solve_ivp

import mbd
from joints import Revolute

G = 9.81


def _rod(length, axis):
    """Inertia about the CG of a uniform 1 kg rod of ``length`` along the world ``axis``
    (0 x, 1 y), with a small axial inertia (1e-4 kg m^2), kg m^2."""
    inertia = np.full(3, length ** 2 / 12)
    inertia[axis] = 1e-4
    return np.diag(inertia)


def windows_model(n, theta0=0.5 * np.pi, tip_speed=1.0, name=None):
    """The model of ``n`` parallelogram windows (module docstring), cranks at ``theta0`` (rad
    from +x) with the first crank's tip moving at ``tip_speed`` (m/s; +x at theta0 = pi/2):
    the cranks' rate is ``-tip_speed`` rad/s. Returns an :class:`mbd.Model`."""
    m = mbd.Model(name or f"windows_{n}")
    ground = m.add_ground("ground", environment=mbd.Environment(gravity=(0.0, -G, 0.0)))
    cranks, couplers = [], []
    for i in range(n + 1):
        pivot = np.array([float(i), 0.0, 0.0])
        # drawn upright (along +y); theta0 is the joints' start
        cranks.append(m.add_body(f"crank{i}", 1.0, pivot + (0, 0.5, 0), _rod(1.0, 1),
                                 cs={"pivot": pivot, "tip": pivot + (0, 1, 0)}))
    for i in range(n):
        a = np.array([float(i), 1.0, 0.0])
        couplers.append(m.add_body(f"coupler{i}", 1.0, a + (0.5, 0, 0), _rod(1.0, 0),
                                   cs={"a": a, "b": a + (1, 0, 0)}))
    z = (0.0, 0.0, 1.0)
    dq, rate = theta0 - 0.5 * np.pi, -tip_speed
    for i in range(n + 1):
        base = ground if i == 0 else m.add_ground(f"ground{i}", at=(float(i), 0.0, 0.0))
        m.add(Revolute(f"pivot{i}", base, cranks[i]["pivot"], axis=z, q0=dq,
                       v0=rate if i == 0 else None))
    for i in range(n):
        m.add(Revolute(f"left{i}", cranks[i]["tip"], couplers[i]["a"], axis=z, q0=-dq))
        m.add(Revolute(f"right{i}", couplers[i]["b"], cranks[i + 1]["tip"], axis=z, q0=dq))
    return m


def pendulum_model(n, theta0=0.5 * np.pi, tip_speed=1.0):
    """The one-coordinate equation of :func:`windows_model` (``I theta'' = -g c cos(theta)``)
    as one body on a Revolute "pivot0" about z at the origin, no loop: its CG at d = (I - j) / c
    from the pivot and its mass c / d, so that its moment about the pivot is c and its inertia
    there I (j = 1e-4 kg m^2 its own about z). Its joint coordinate is the windows' pivot0 and
    its energy theirs. Returns an :class:`mbd.Model`."""
    inertia, moment = inertia_and_moment(n)
    own = 1e-4
    d = (inertia - own) / moment
    m = mbd.Model(f"pendulum_{n}")
    ground = m.add_ground("ground", environment=mbd.Environment(gravity=(0.0, -G, 0.0)))
    arm = m.add_body("arm", moment / d, (0.0, d, 0.0), np.diag([own, own, own]),
                     cs={"pivot": (0.0, 0.0, 0.0)})
    m.add(Revolute("pivot0", ground, arm["pivot"], axis=(0.0, 0.0, 1.0),
                   q0=theta0 - 0.5 * np.pi, v0=-tip_speed))
    return m


def inertia_and_moment(n):
    """(I, c) of the windows' pendulum equation: kg m^2 about a pivot, kg m."""
    return (n + 1) / 3 + n, (n + 1) / 2 + n


def crank_angle(n, t, theta0=0.5 * np.pi, tip_speed=1.0):
    """The closed form: every crank's angle theta(t) (rad from +x) and rate at the times t,
    from ``I theta'' = -g c cos(theta)`` integrated by scipy's DOP853 at rtol 1e-13."""
    inertia, moment = inertia_and_moment(n)
    t = np.atleast_1d(np.asarray(t, dtype=float))
    sol = solve_ivp(lambda _, y: (y[1], -G * moment * np.cos(y[0]) / inertia),
                    (0.0, float(t[-1])), [theta0, -tip_speed], method="DOP853",
                    t_eval=t, rtol=1e-13, atol=1e-13)
    return sol.y[0], sol.y[1]


def windows_energy(n, theta, omega):
    """The windows' energy at crank angle theta and rate omega, J (gravity zero at y = 0)."""
    inertia, moment = inertia_and_moment(n)
    return 0.5 * inertia * omega ** 2 + G * moment * np.sin(theta)


#: the crank-rocker of every grounded four-bar: pivots 0 and 4 m apart, crank 1, coupler
#: 4.717, rocker 3.5 (m) in the x-y plane
_A, _B, _C, _D = ((0, 0, 0), (0, 1, 0), (4, 3.5, 0), (4, 0, 0))


def fourbars_model(k, spacing=10.0, crank_rate=2.0):
    """``k`` separate grounded four-bars side by side along z (``spacing`` m apart), each
    its own machine (its own ground with an environment), 1 kg links, the crank turning at
    ``crank_rate`` rad/s at the start. Returns an :class:`mbd.Model`."""
    m = mbd.Model(f"fourbars_{k}")
    z = (0.0, 0.0, 1.0)
    for j in range(k):
        off = np.array([0.0, 0.0, spacing * j])
        A, B, C, D = (np.array(p, dtype=float) + off for p in (_A, _B, _C, _D))
        g = m.add_ground(f"g{j}", at=A,
                         environment=mbd.Environment(gravity=(0.0, -G, 0.0)))
        g2 = m.add_ground(f"h{j}", at=D)
        links = []
        for name, p, q in (("crank", A, B), ("coupler", B, C), ("rocker", C, D)):
            u = q - p
            length = np.linalg.norm(u)
            u /= length
            inertia = length ** 2 / 12 * (np.eye(3) - np.outer(u, u)) + 1e-4 * np.outer(u, u)
            links.append(m.add_body(f"{name}{j}", 1.0, (p + q) / 2, inertia,
                                    cs={"a": p, "b": q}))
        crank, coupler, rocker = links
        m.add(Revolute(f"j1_{j}", g, crank["a"], axis=z, v0=crank_rate))
        m.add(Revolute(f"j2_{j}", crank["b"], coupler["a"], axis=z))
        m.add(Revolute(f"j3_{j}", coupler["b"], rocker["a"], axis=z))
        m.add(Revolute(f"j4_{j}", rocker["b"], g2, axis=z))
    return m
