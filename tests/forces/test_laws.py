"""The 1-D force laws (SPEC §3.2) against SPEC's unit values (§5) and its formulas.

Every law is compared with a plain-Python re-implementation of SPEC's piecewise formula written
here (``_Ref*`` below), which also names the branch each state lies in. From those references:
values on grids covering every branch and both sides of every boundary; the clamps (ElastoGap
never pulls, BISTOP never sticks, a backlash never pulls in contact); the switching functions
(the branch changes exactly where an armed switching function changes sign, the frozen branch
continues SPEC's branch formula smoothly, and the force is continuous across the boundaries
where SPEC's formula is); energies as potentials (finite differences); parameter validation;
and the variable spring's K_min and K(t, state) in a tiny simulation.

Sign: every law returns the force on the follower along +x (Modelica's -f / -tau, BISTOP as
is, the variable spring's -T).
"""
import dataclasses
import math
import re

import numpy as np
import pytest

import mbd
from forces import (
    Actuator,
    Bistop,
    Damper,
    ElastoBacklash,
    ElastoBacklash2,
    ElastoGap,
    Impact,
    JointForce,
    Spring,
    SpringDamper,
    VariableRotationalSpring,
    VariableTranslationalSpring,
)
from joints import Revolute
from mbd.compiled import lawkernels
from mbd.compiled.layout import LAW_SWITCHES

# ---------------------------------------------------------------------------------------------
# Independent references: SPEC §3.2 written out piecewise, with the branch each state is in.
# ``value(x, v, t)`` -> (force on the follower, branch label); ``branch_formula(label, x, v, t)``
# evaluates one branch's expression anywhere (its continuation past the boundary: powers of a
# negative base continue oddly, sign(a)|a|^n, as DESIGN's frozen branches do).
# ---------------------------------------------------------------------------------------------


def _opow(a, n):
    return math.copysign(abs(a) ** n, a)


def STEP(x, x0, h0, x1, h1):
    """SPEC's (Adams') STEP, clamped outside [x0, x1]."""
    if x <= x0:
        return h0
    if x >= x1:
        return h1
    return _cubic(x, x0, h0, x1, h1)


def _cubic(x, x0, h0, x1, h1):
    """STEP's cubic without the clamp (its continuation), evaluated from the nearer end:
    h0 + (h1 - h0) z^2 (3 - 2z) = h1 + (h0 - h1) w^2 (3 - 2w), w = 1 - z, so that a small value
    near x1 is not the round-off of h0 - h0 (the grid probes the clamp boundary, whose place
    depends on that small damping value)."""
    z = (x - x0) / (x1 - x0)
    if z <= 0.5:
        return h0 + (h1 - h0) * z * z * (3.0 - 2.0 * z)
    w = (x1 - x) / (x1 - x0)
    return h1 + (h0 - h1) * w * w * (3.0 - 2.0 * w)


class _RefLinear:
    def __init__(self, c, d, x0):
        self.c, self.d, self.x0 = c, d, x0

    def value(self, x, v, t=0.0):
        return -self.c * (x - self.x0) - self.d * v, ("linear",)

    def branch_formula(self, label, x, v, t=0.0):
        return self.value(x, v)[0]


class _RefElastoGap:
    """Modelica ElastoGap: f_c, f_d = clamp(d v, f_c, -f_c) in contact (x < s_rel0); -f."""

    def __init__(self, c, d, s_rel0, n):
        self.c, self.d, self.s0, self.n = c, d, s_rel0, n

    def value(self, x, v, t=0.0):
        if not x < self.s0 or self.c == 0:
            # without a spring the damping is clamped between +-0: no force in any branch,
            # one branch (the law is the same on both sides of contact: no real switch)
            return 0.0, ("free",)
        f_c = -self.c * abs(x - self.s0) ** self.n
        f_d2 = self.d * v
        if f_d2 < f_c:
            f_d, piece = f_c, "damping clamped at f_c"
        elif f_d2 > -f_c:
            f_d, piece = -f_c, "damping clamped at -f_c"
        else:
            f_d, piece = f_d2, "damping"
        return -(f_c + f_d), ("contact", piece)

    def branch_formula(self, label, x, v, t=0.0):
        if label == ("free",):
            return 0.0
        f_c = -self.c * _opow(self.s0 - x, self.n)
        f_d = {"damping clamped at f_c": f_c, "damping clamped at -f_c": -f_c,
               "damping": self.d * v}[label[1]]
        return -(f_c + f_d)


class _RefElastoBacklash:
    """Modelica ElastoBacklash (second=False) and ElastoBacklash2 (second=True); -tau."""

    def __init__(self, c, d, b, phi_rel0, second=False):
        self.c, self.d, self.b, self.phi0, self.second = c, d, b, phi_rel0, second

    def value(self, x, v, t=0.0):
        c, d, b = self.c, self.d, self.b
        phi_diff = x - self.phi0
        bmax, bmin = b / 2, -b / 2
        if abs(b) <= 1e-10:
            return -(c * phi_diff + d * v), ("plain",)
        if phi_diff > bmax:
            tau_c = c * (phi_diff - bmax)
            if tau_c + d * v <= 0:
                return 0.0, ("upper", "would pull")
            if self.second:
                return -(tau_c + d * v), ("upper", "push")
            piece = "spring" if tau_c <= d * v else "damper"   # min(tau_c, d w)
            return -(tau_c + min(tau_c, d * v)), ("upper", piece)
        if phi_diff < bmin:
            tau_c = c * (phi_diff - bmin)
            if tau_c + d * v >= 0:
                return 0.0, ("lower", "would pull")
            if self.second:
                return -(tau_c + d * v), ("lower", "push")
            piece = "spring" if tau_c >= d * v else "damper"   # max(tau_c, d w)
            return -(tau_c + max(tau_c, d * v)), ("lower", piece)
        return 0.0, ("backlash",)

    def branch_formula(self, label, x, v, t=0.0):
        c, d, b = self.c, self.d, self.b
        phi_diff = x - self.phi0
        if label == ("plain",):
            return -(c * phi_diff + d * v)
        if label == ("backlash",) or label[1] == "would pull":
            return 0.0
        tau_c = c * (phi_diff - b / 2) if label[0] == "upper" else c * (phi_diff + b / 2)
        return -(tau_c + tau_c) if label[1] == "spring" else -(tau_c + d * v)

    def continuous(self, la, lb, v):
        """SPEC's formula is continuous across the boundary between branches la and lb, except
        where ElastoBacklash2's contact begins with a pushing damper torque (it jumps by d w)."""
        if not self.second:
            return True
        return not ({la[0], lb[0]} >= {"backlash"} and "push" in (la[-1], lb[-1]))


class _RefBistop:
    """Adams BISTOP (x2 = inf: IMPACT): the force on the I marker, as SPEC writes it."""

    def __init__(self, x1, x2, k, e, cmax, d):
        self.x1, self.x2, self.k, self.e, self.cmax, self.d = x1, x2, k, e, cmax, d

    def value(self, x, v, t=0.0):
        x1, x2, k, e, cmax, d = self.x1, self.x2, self.k, self.e, self.cmax, self.d
        if x < x1:
            raw = k * (x1 - x) ** e - STEP(x, x1 - d, cmax, x1, 0.0) * v
            ramp = "full" if x <= x1 - d else "ramp"
            return max(raw, 0.0), ("lower", ramp, "push" if raw > 0 else "zero")
        if x <= x2:
            return 0.0, ("gap",)
        raw = -k * (x - x2) ** e - STEP(x, x2, 0.0, x2 + d, cmax) * v
        ramp = "full" if x >= x2 + d else "ramp"
        return min(raw, 0.0), ("upper", ramp, "push" if raw < 0 else "zero")

    def branch_formula(self, label, x, v, t=0.0):
        x1, x2, k, e, cmax, d = self.x1, self.x2, self.k, self.e, self.cmax, self.d
        if label == ("gap",) or label[2] == "zero":
            return 0.0
        if label[0] == "lower":
            damp = cmax if label[1] == "full" else _cubic(x, x1 - d, cmax, x1, 0.0)
            return k * _opow(x1 - x, e) - damp * v
        damp = cmax if label[1] == "full" else _cubic(x, x2, 0.0, x2 + d, cmax)
        return -k * _opow(x - x2, e) - damp * v


class _RefVariableSpring:
    """Simscape Variable Rotational Spring: T = K theta (K >= K_min) else K_min theta; -T."""

    def __init__(self, K, K_min, theta_init):
        self.K = K if callable(K) else (lambda t: K)
        self.K_min, self.theta_init = K_min, theta_init

    def value(self, x, v, t=0.0):
        K = self.K(t)
        theta = self.theta_init + x
        if K >= self.K_min:
            return -(K * theta), ("K",)
        return -(self.K_min * theta), ("K_min",)

    def branch_formula(self, label, x, v, t=0.0):
        K = self.K(t) if label == ("K",) else self.K_min
        return -(K * (self.theta_init + x))


def _ramp_k(t):
    return 5.0 - t


def _wave_k(t):
    return 2.0 + math.cos(3.0 * t)


SPEC_BISTOP = dict(x1=0.0, x2=1.0, k=1000.0, e=1.5, cmax=10.0, d=0.1)


def _cases():
    """pytest params (law, reference, force scale, x samples, v samples, t samples, lines); a
    line is a pair of (x, v, t) end points along which the switching test walks."""
    cases = []

    def add(name, law, ref, scale, xs, vs, ts=(0.0,), lines=()):
        cases.append(pytest.param(law, ref, scale, np.asarray(xs, float), np.asarray(vs, float),
                                  np.asarray(ts, float), list(lines), id=name))

    # boundaries and points 1e-12 .. 1e-3 (relative to the scale of x) either side of them
    def near(points, width):
        offsets = width * np.array([0.0, 1e-12, 1e-9, 1e-6, 1e-3])
        return np.unique(np.concatenate([np.asarray(points, float)[:, None] + offsets,
                                         np.asarray(points, float)[:, None] - offsets]))

    span = np.linspace(-1.0, 1.0, 23)
    add("Spring", Spring(c=7.5, x0=0.3), _RefLinear(7.5, 0.0, 0.3), 10.0,
        0.3 + span, span * 3)
    add("Damper", Damper(d=2.5), _RefLinear(0.0, 2.5, 0.0), 10.0, span, span * 3)
    add("SpringDamper", SpringDamper(c=10.0, d=1.5, x0=1.0), _RefLinear(10.0, 1.5, 1.0), 20.0,
        1.0 + span, span * 3)

    # ElastoGap: contact below s_rel0, damping clamped where d v = f_c and d v = -f_c
    for name, (c, d, s0, n), xs, vmax in [
            ("ElastoGap-SPEC", (10.0, 1.5, 1.5, 1.0), np.linspace(0.0, 2.5, 26), 15.0),
            ("ElastoGap-n2.5", (1e4, 30.0, -0.2, 2.5), np.linspace(-0.6, 0.2, 17), 60.0),
            ("ElastoGap-d0", (10.0, 0.0, 0.0, 1.5), np.linspace(-1.0, 1.0, 21), 5.0),
            ("ElastoGap-c0", (0.0, 2.0, 0.0, 1.0), np.linspace(-1.0, 1.0, 21), 5.0)]:
        xs = np.concatenate([xs, near([s0], 1.0)])
        vs = np.concatenate([np.linspace(-vmax, vmax, 21), [0.0]])
        # (not v = 0 itself: with c = 0 the undamped band |d v| <= -f_c has zero width)
        lines = [((s0 - 1.0, v, 0), (s0 + 0.5, v, 0)) for v in (-vmax / 2, -0.3, 1e-3, 0.4,
                                                                  vmax / 3)]
        lines += [((x, -vmax, 0), (x, vmax, 0)) for x in (s0 - 0.9, s0 - 0.4, s0 - 0.05)]
        lines += [((s0 - 1.0, -vmax, 0), (s0 + 0.3, vmax, 0)),
                  ((s0 - 1.0, vmax, 0), (s0 + 0.3, -vmax, 0))]
        scale = c * 1.5 ** n + d * vmax    # |x - s_rel0| <= 1.5 on the grid
        add(name, ElastoGap(c=c, d=d, s_rel0=s0, n=n), _RefElastoGap(c, d, s0, n), scale,
            xs, vs, lines=lines)

    # ElastoBacklash / 2: contact beyond +-b/2 around phi_rel0, "would pull" and min/max lines
    for cls, second in ((ElastoBacklash, False), (ElastoBacklash2, True)):
        for tag, (c, d, b, phi0), wmax in [
                ("SPEC", (20e3, 50.0, math.pi / 4, 0.0), 40.0),
                ("offset", (100.0, 10.0, 0.2, 0.3), 4.0),
                ("b0", (100.0, 10.0, 0.0, 0.1), 4.0),
                ("b-tiny", (100.0, 10.0, 5e-11, 0.0), 4.0)]:
            xs = np.concatenate([phi0 + np.linspace(-b - 0.3, b + 0.3, 31),
                                 near([phi0 - b / 2, phi0 + b / 2], 1.0)])
            vs = np.concatenate([np.linspace(-wmax, wmax, 21), [0.0]])
            lo, hi = phi0 - b / 2 - 0.3, phi0 + b / 2 + 0.3
            lines = [((lo, w, 0), (hi, w, 0)) for w in (-wmax / 2, -0.37, 0.0, 0.41, wmax / 3)]
            lines += [((x, -wmax, 0), (x, wmax, 0))
                      for x in (lo + 0.02, lo + 0.25, hi - 0.25, hi - 0.02)]
            lines += [((lo, -wmax, 0), (hi, wmax, 0)), ((lo, wmax, 0), (hi, -wmax, 0))]
            scale = c * (0.3 + b) + d * wmax
            if b <= 1e-10:   # a plain spring-damper: nothing switches
                lines = []
            add(f"{cls.__name__}-{tag}", cls(c=c, d=d, b=b, phi_rel0=phi0),
                _RefElastoBacklash(c, d, b, phi0, second), scale, xs, vs, lines=lines)

    # BISTOP / IMPACT: stops at x1, x2, damping ramps of width d, the "never sticks" clamp
    for name, law, p, vmax in [
            ("Bistop-SPEC", Bistop(**SPEC_BISTOP), SPEC_BISTOP, 60.0),
            ("Bistop-seed", Bistop(x1=0.5, x2=9.5, k=1e7, e=2.1, cmax=1.0, d=0.001),
             dict(x1=0.5, x2=9.5, k=1e7, e=2.1, cmax=1.0, d=0.001), 2000.0),
            ("Bistop-e0.8", Bistop(x1=-1.0, x2=1.0, k=50.0, e=0.8, cmax=4.0, d=0.5),
             dict(x1=-1.0, x2=1.0, k=50.0, e=0.8, cmax=4.0, d=0.5), 40.0),
            ("Impact", Impact(x1=0.0, k=1000.0, e=1.5, cmax=10.0, d=0.1),
             dict(SPEC_BISTOP, x2=math.inf), 60.0)]:
        x1, x2, d = p["x1"], p["x2"], p["d"]
        stops = [x1, x1 - d] + ([x2, x2 + d] if math.isfinite(x2) else [])
        xs = np.concatenate([near(stops, d), x1 - d * np.linspace(0, 3, 13)]
                            + ([x2 + d * np.linspace(0, 3, 13), np.linspace(x1, x2, 7)]
                               if math.isfinite(x2) else [x1 + d * np.linspace(0, 3, 7)]))
        vs = np.concatenate([np.linspace(-vmax, vmax, 25), [0.0]])
        lines = []
        for a, sgn in [(x1, -1.0)] + ([(x2, 1.0)] if math.isfinite(x2) else []):
            far, inside = a + sgn * 3 * d, a - sgn * d
            lines += [((inside, w, 0), (far, w, 0)) for w in (-vmax / 2, -1.3, 0.0, 1.1,
                                                              vmax / 2)]
            lines += [((x, -vmax, 0), (x, vmax, 0)) for x in (a + sgn * 0.3 * d,
                                                               a + sgn * 2.1 * d)]
            lines += [((inside, -vmax, 0), (far, vmax, 0)), ((inside, vmax, 0), (far, -vmax, 0))]
        scale = p["k"] * (3 * d) ** p["e"] + p["cmax"] * vmax
        add(name, law, _RefBistop(**p), scale, xs, vs, lines=lines)

    # variable springs: K constant (above, below K_min), K(t) crossing K_min (t = 3; and
    # 2 + cos 3t crossing 1.5 repeatedly)
    xs, vs = np.linspace(-1.0, 1.0, 21), np.array([-2.0, 0.0, 3.0])
    add("VariableRotationalSpring-K", VariableRotationalSpring(K=3.0, K_min=1.0, theta_init=0.2),
        _RefVariableSpring(3.0, 1.0, 0.2), 5.0, xs, vs)
    add("VariableRotationalSpring-K<K_min",
        VariableRotationalSpring(K=0.5, K_min=1.0, theta_init=-0.1),
        _RefVariableSpring(0.5, 1.0, -0.1), 5.0, xs, vs)
    add("VariableRotationalSpring-K(t)",
        VariableRotationalSpring(K=_ramp_k, K_min=2.0, theta_init=0.25),
        _RefVariableSpring(_ramp_k, 2.0, 0.25), 10.0, xs, vs,
        ts=np.concatenate([np.linspace(0.0, 6.0, 13), near([3.0], 1.0)]),
        lines=[((0.3, 0.0, 0.0), (0.3, 0.0, 6.0)), ((-0.7, 1.0, 2.0), (0.4, -1.0, 4.5))])
    add("VariableTranslationalSpring-K(t)",
        VariableTranslationalSpring(K=_wave_k, K_min=1.5, theta_init=0.0),
        _RefVariableSpring(_wave_k, 1.5, 0.0), 5.0, xs, vs, ts=np.linspace(0.0, 4.0, 41),
        lines=[((0.5, 0.0, 0.0), (0.5, 0.0, 4.0))])
    return cases


CASES = _cases()
PIECEWISE = [c for c in CASES if c.values[-1]]

# ---------------------------------------------------------------------------------------------
# 1. SPEC's unit values
# ---------------------------------------------------------------------------------------------

SPEC_BISTOP_VALUES = [((0.5, 3.0), 0.0), ((-0.05, -2.0), 21.180339887498953),
                      ((-0.05, 2.0), 1.1803398874989508), ((-0.05, 50.0), 0.0),
                      ((-0.2, -1.0), 99.4427190999916), ((1.05, 2.0), -21.180339887498967),
                      ((1.05, -2.0), -1.180339887498965), ((1.2, 1.0), -99.44271909999156),
                      ((1.05, -100.0), 0.0)]


@pytest.mark.parametrize("state, expected", SPEC_BISTOP_VALUES)
def test_bistop_spec_values(state, expected):
    """SPEC §5's nine BISTOP values (the clamped STEP ramp inside them), to 1e-12 relative."""
    law = Bistop(**SPEC_BISTOP)
    got = law(*state, t=0.0)
    if expected == 0.0:
        assert got == 0.0
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=0.0)


def test_bistop_spec_values_match_reference():
    """The test's own reference reproduces SPEC §5 too (so the grids below test SPEC)."""
    ref = _RefBistop(**SPEC_BISTOP)
    for state, expected in SPEC_BISTOP_VALUES:
        assert ref.value(*state)[0] == pytest.approx(expected, rel=1e-12, abs=0.0)


def test_step_spec_values():
    """SPEC's STEP values inside the ramp; the kernel's cubic is unclamped, SPEC's STEP clamps
    (its clamped use is covered by the BISTOP values and grids)."""
    assert lawkernels.step_ramp(3.25, 3.0, 0.0, 4.0, 1.0) == pytest.approx(0.15625, rel=1e-15)
    assert lawkernels.step_ramp(1.5, 1.0, 1.0, 2.0, 2.0) == pytest.approx(1.5, rel=1e-15)
    assert STEP(3.25, 3, 0, 4, 1) == 0.15625 and STEP(1.5, 1, 1, 2, 2) == 1.5
    # ends of the ramp: value and slope match the flat parts
    assert lawkernels.step_ramp(3.0, 3.0, 0.0, 4.0, 1.0) == 0.0
    assert lawkernels.step_ramp(4.0, 3.0, 0.0, 4.0, 1.0) == 1.0
    h = 1e-6
    for x in (3.0, 4.0):
        slope = (lawkernels.step_ramp(x + h, 3.0, 0.0, 4.0, 1.0)
                 - lawkernels.step_ramp(x - h, 3.0, 0.0, 4.0, 1.0)) / (2 * h)
        assert abs(slope) < 1e-5


def test_law_examples_spec_conventions():
    """Hand-worked values of the sign conventions: the follower feels Modelica's -f."""
    # compressed gap (x = 1 < s_rel0 = 1.5) closing at v = -1: f_c = -5, d v = -1.5 in
    # [f_c, -f_c] -> f = -6.5, the follower is pushed along +x by 6.5
    assert ElastoGap(c=10.0, d=1.5, s_rel0=1.5)(1.0, -1.0) == pytest.approx(6.5, rel=1e-15)
    # an opening gap whose damper would pull: clamped to zero force
    assert ElastoGap(c=10.0, d=1.5, s_rel0=1.5)(1.0, 10.0) == 0.0
    # backlash b = 0.5 at phi = 0.35: tau_c = 20e3 * 0.1 = 2000 pushes the follower back
    assert ElastoBacklash(c=20e3, d=50.0, b=0.5)(0.35, 0.0) == pytest.approx(-2000.0, rel=1e-14)
    assert VariableRotationalSpring(K=4.0, K_min=1.0, theta_init=0.5)(0.25) == pytest.approx(-3.0)
    assert Actuator(2.5)(10.0, -3.0, t=7.0) == 2.5


# ---------------------------------------------------------------------------------------------
# 2. Every law against the reference on a grid covering every branch
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("law, ref, scale, xs, vs, ts, lines", CASES)
def test_law_matches_spec_formula_on_grid(law, ref, scale, xs, vs, ts, lines):
    """law(x, v, t) == SPEC's piecewise formula on a grid crossing every branch boundary
    (boundary points and 1e-12 .. 1e-3 either side), to 1e-12 of the force scale; and every
    branch of the law is visited."""
    seen = set()
    worst = 0.0
    for t in ts:
        for x in xs:
            # the damping boundaries depend on x: add d v = +-f_c (gap), d v = +-tau_c
            # (backlash), raw = 0 (BISTOP) and points just off them
            extra = []
            if isinstance(ref, _RefElastoGap) and ref.d > 0 and x < ref.s0:
                fc = ref.c * abs(x - ref.s0) ** ref.n
                extra = [fc / ref.d, -fc / ref.d]
            elif isinstance(ref, _RefElastoBacklash) and ref.d > 0 and ref.b > 1e-10:
                phid = x - ref.phi0
                tc = (ref.c * (phid - ref.b / 2) if phid > ref.b / 2 else
                      ref.c * (phid + ref.b / 2) if phid < -ref.b / 2 else 0.0)
                extra = [tc / ref.d, -tc / ref.d]
            elif isinstance(ref, _RefBistop):
                for damp, pen in ((STEP(x, ref.x1 - ref.d, ref.cmax, ref.x1, 0.0), ref.x1 - x),
                                  (STEP(x, ref.x2, 0.0, ref.x2 + ref.d, ref.cmax), x - ref.x2)):
                    if pen > 0 and damp > 0:
                        extra.append(math.copysign(ref.k * pen ** ref.e / damp, ref.x1 - x))
            vb = np.array(extra)
            for v in np.concatenate([vs, vb, vb * (1 + 1e-9), vb * (1 - 1e-9), vb * 1.01,
                                     vb * 0.99]):
                want, label = ref.value(x, v, t)
                got = law(x, v, t)
                seen.add(label)
                err = abs(got - want)
                worst = max(worst, err)
                assert err <= 1e-12 * scale + 1e-13 * abs(want), (x, v, t, got, want, label)
    assert worst <= 1e-12 * scale
    expected = _all_branches(ref)
    assert expected <= seen, f"branches not visited: {expected - seen}"


def _all_branches(ref):
    """The branches SPEC's formula has for this parameter set (the grid must visit each)."""
    if isinstance(ref, _RefLinear):
        return {("linear",)}
    if isinstance(ref, _RefElastoGap):
        if ref.c == 0:       # no force anywhere: one branch
            return {("free",)}
        if ref.d == 0:       # d v = 0 lies in [f_c, -f_c]
            pieces = ["damping"]
        else:
            pieces = ["damping", "damping clamped at f_c", "damping clamped at -f_c"]
        return {("free",)} | {("contact", p) for p in pieces}
    if isinstance(ref, _RefElastoBacklash):
        if abs(ref.b) <= 1e-10:
            return {("plain",)}
        pieces = ["would pull", "push"] if ref.second else ["would pull", "spring", "damper"]
        return {("backlash",)} | {(s, p) for s in ("upper", "lower") for p in pieces}
    if isinstance(ref, _RefBistop):
        sides = ["lower", "upper"] if math.isfinite(ref.x2) else ["lower"]
        out = {(s, r, c) for s in sides for r in ("full", "ramp") for c in ("push", "zero")}
        return out | {("gap",)}
    if isinstance(ref, _RefVariableSpring):
        return {ref.value(0.0, 0.0, t)[1] for t in (0.0, 1.0, 3.5, 6.0)}
    raise AssertionError(ref)


def test_actuator_constant_and_signal():
    """Actuator: the prescribed value on the follower, whatever x and v; value(t) evaluated at t;
    a signal that is not finite is refused when evaluated."""
    const = Actuator(-4.25)
    wave = Actuator(lambda t: 3.0 * math.sin(2.0 * t))
    for x in (-1.0, 0.0, 2.5):
        for v in (-3.0, 0.0, 1.0):
            for t in (0.0, 0.4, 2.0):
                assert const(x, v, t) == -4.25
                assert wave(x, v, t) == pytest.approx(3.0 * math.sin(2.0 * t), rel=1e-15,
                                                      abs=1e-300)
    assert wave.time_varying and not const.time_varying
    with pytest.raises(ValueError, match=r"^Actuator: value\(t\) must return a finite real "
                                         r"number, got nan at t = 1\.0 s$"):
        Actuator(lambda t: math.nan)(0.0, 0.0, 1.0)


# ---------------------------------------------------------------------------------------------
# 3. The clamps
# ---------------------------------------------------------------------------------------------

def test_elastogap_never_pulls():
    """ElastoGap: the force on the follower along +x is >= 0 everywhere (it pushes the follower
    out of the gap or is zero), on a dense grid, for several parameter sets."""
    for c, d, s0, n in [(10.0, 1.5, 1.5, 1.0), (1e4, 30.0, -0.2, 2.5), (1.0, 100.0, 0.0, 1.0),
                        (0.0, 5.0, 0.0, 1.0)]:
        law = ElastoGap(c=c, d=d, s_rel0=s0, n=n)
        for x in np.linspace(s0 - 1.0, s0 + 0.5, 61):
            for v in np.linspace(-200.0, 200.0, 61):
                assert law(x, v) >= 0.0, (c, d, s0, n, x, v)
            # the boundary of the clamp, where the damper alone would pull hardest
            fc = c * max(s0 - x, 0.0) ** n
            if d > 0:
                for v in (fc / d * (1 + 1e-12), fc / d * 10):
                    assert law(x, v) >= 0.0


def test_bistop_never_sticks():
    """BISTOP/IMPACT: force >= 0 below x1 (it pushes towards the gap), <= 0 above x2, 0 in the
    gap, on a dense grid of (x, xdot) through both damping ramps."""
    for law in (Bistop(**SPEC_BISTOP), Bistop(x1=-1.0, x2=1.0, k=50.0, e=0.8, cmax=4.0, d=0.5),
                Impact(x1=0.0, k=1000.0, e=1.5, cmax=10.0, d=0.1)):
        for x in np.linspace(law.x1 - 0.4, min(law.x2, 2.0) + 0.4, 81):
            for v in np.linspace(-500.0, 500.0, 81):
                f = law(x, v)
                if x < law.x1:
                    assert f >= 0.0, (x, v, f)
                elif x > law.x2:
                    assert f <= 0.0, (x, v, f)
                else:
                    assert f == 0.0, (x, v, f)


@pytest.mark.parametrize("cls", [ElastoBacklash, ElastoBacklash2])
def test_backlash_never_pulls_in_contact(cls):
    """ElastoBacklash/2: in upper contact the torque on the follower is <= 0 (tau >= 0 pushes
    it back), in lower contact >= 0, in the backlash exactly 0."""
    for c, d, b, phi0 in [(20e3, 50.0, math.pi / 4, 0.0), (100.0, 400.0, 0.2, 0.3)]:
        law = cls(c=c, d=d, b=b, phi_rel0=phi0)
        for x in phi0 + np.linspace(-b - 0.5, b + 0.5, 81):
            for w in np.linspace(-300.0, 300.0, 61):
                f = law(x, w)
                if x - phi0 > b / 2:
                    assert f <= 0.0, (x, w, f)
                elif x - phi0 < -b / 2:
                    assert f >= 0.0, (x, w, f)
                else:
                    assert f == 0.0, (x, w, f)


# ---------------------------------------------------------------------------------------------
# 4. Switching functions
# ---------------------------------------------------------------------------------------------

def _mode(law, x, v, t):
    """The natural sides at (x, v, t) and the key of the branch they select: the sides of the
    armed switching functions (the others cannot matter in that mode)."""
    s = law.sides(x, v, t)
    row = lawkernels.parameter_row(law, t)
    key = tuple(float(s[k]) if lawkernels.armed(law.code, row, s, k) else 0.0
                for k in range(LAW_SWITCHES))
    return s, key, row


def _armed_crossing(law, s, row, pa, pb):
    """Does an armed switching function (armed in mode s, evaluated with frozen sides s) take
    opposite signs at the points pa and pb? Returns the indices that do."""
    ga = law.switching(pa[0], pa[1], pa[2], sides=s)
    gb = law.switching(pb[0], pb[1], pb[2], sides=s)
    return [k for k in range(LAW_SWITCHES)
            if lawkernels.armed(law.code, row, s, k) and (ga[k] >= 0) != (gb[k] >= 0)]


@pytest.mark.parametrize("law, ref, scale, xs, vs, ts, lines", PIECEWISE)
def test_branch_changes_exactly_where_an_armed_switching_function_changes_sign(
        law, ref, scale, xs, vs, ts, lines):
    """Along lines in (x, v, t): (a) the branch law.sides selects is SPEC's branch (a one-to-one
    map between the armed sides and the reference's branch labels); (b) between neighbouring
    samples SPEC's branch changes if and only if an armed switching function changes sign;
    (c) with the sides frozen, the law continues its branch's SPEC formula past the boundary;
    (d) at each boundary (bisected to round-off) the two branches give the same force wherever
    SPEC's formula is continuous there."""
    key_of_label, label_of_key = {}, {}
    n = 601
    # an irrational offset keeps samples off the exact boundaries
    fractions = (np.arange(n) + 0.5 * (math.sqrt(5) - 1)) / n
    changes = 0
    for pa, pb in lines:
        pa, pb = np.asarray(pa, float), np.asarray(pb, float)
        points = pa + fractions[:, None] * (pb - pa)
        prev = None
        for p in points:
            s, key, row = _mode(law, *p)
            label = ref.value(*p)[1]
            # (a) the same armed sides always mean the same SPEC branch and vice versa
            assert key_of_label.setdefault(label, key) == key, (p, label, key)
            assert label_of_key.setdefault(key, label) == label, (p, label, key)
            if prev is not None:
                p0, s0, row0, label0 = prev
                crossed = _armed_crossing(law, s0, row0, p0, p)
                # (b) a branch change <=> an armed switching function changed sign
                assert bool(crossed) == (label != label0), (p0, p, label0, label, crossed)
                if label != label0:
                    changes += 1
                    # (c) frozen sides: the old branch's formula, continued past the boundary
                    got = law(p[0], p[1], p[2], sides=s0)
                    want = ref.branch_formula(label0, *p)
                    assert got == pytest.approx(want, rel=1e-12, abs=1e-12 * scale), (p, label0)
                    _check_boundary(law, ref, scale, p0, p)
            prev = (p, s, row, label)
    assert changes >= 1 or len(_all_branches(ref)) == 1      # (ElastoGap c = 0: one branch)


def _check_boundary(law, ref, scale, pa, pb):
    """Bisect SPEC's branch change between neighbouring samples pa and pb to 1e-12 of their
    distance; in a bracket widened to 1e-6 of it either side (so that a tie at the exact
    boundary, SPEC's strict or non-strict inequality against the kernel's zero-counts-as-
    positive, cannot matter) an armed switching function changes sign; and where SPEC's
    formula is continuous the two branches, frozen, agree at the boundary."""
    la = ref.value(*pa)[1]
    lo, hi = 0.0, 1.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if ref.value(*(pa + mid * (pb - pa)))[1] == la:
            lo = mid
        else:
            hi = mid
    p_at = pa + 0.5 * (lo + hi) * (pb - pa)
    p_lo = pa + max(lo - 1e-6, 0.0) * (pb - pa)
    p_hi = pa + min(hi + 1e-6, 1.0) * (pb - pa)
    s_lo, _, row_lo = _mode(law, *p_lo)
    s_hi, _, _ = _mode(law, *p_hi)
    assert _armed_crossing(law, s_lo, row_lo, p_lo, p_hi), (p_lo, p_hi)
    lb = ref.value(*p_hi)[1]
    if getattr(ref, "continuous", lambda la, lb, v: True)(la, lb, p_at[1]):
        f_lo = law(p_at[0], p_at[1], p_at[2], sides=s_lo)
        f_hi = law(p_at[0], p_at[1], p_at[2], sides=s_hi)
        assert abs(f_lo - f_hi) <= 1e-9 * scale, (p_at, la, lb, f_lo, f_hi)


def test_elastobacklash2_jumps_at_contact():
    """The one boundary where SPEC's formula is discontinuous: ElastoBacklash2's contact begins
    with the full damper torque d w (pushing), and the law does jump there."""
    law = ElastoBacklash2(c=100.0, d=10.0, b=0.2)
    w = 1.5
    assert law(0.1 - 1e-12, w) == 0.0
    assert law(0.1 + 1e-12, w) == pytest.approx(-10.0 * w, rel=1e-9)
    # while ElastoBacklash's contact torque starts from 0 (continuous)
    assert abs(ElastoBacklash(c=100.0, d=10.0, b=0.2)(0.1 + 1e-12, w)) < 1e-9


def test_contact_is_strict_at_the_boundaries():
    """SPEC's contact conditions are strict (x < s_rel0, phi_diff > b/2, x < x1, x > x2): a state
    exactly on the boundary is out of contact, one ulp past it is in contact and pushes. (The
    driver restarts a piece one round-off past a located contact start: were the stop itself
    counted as contact, BISTOP's clamp would start the contact at zero force.)"""
    law = Bistop(**dict(SPEC_BISTOP, x1=0.25))   # (one ulp below 0 would underflow)
    for x, v, sgn in ((1.0, 2.0, 1.0), (0.25, -2.0, -1.0)):
        assert law(x, v) == 0.0
        s = law.sides(x, v)
        assert s[0] == 1.0 and s[1] == 1.0                      # in the gap
        past = np.nextafter(x, x + sgn)
        s = law.sides(past, v)
        assert (s[0] < 0) != (s[1] < 0)                         # in one contact
        assert -sgn * law(past, v) > 0.0 and law(past, v, sides=s) == law(past, v)
        assert lawkernels.armed(law.code, lawkernels.parameter_row(law), s, 3)
        assert (s[3] > 0) == (sgn < 0)                          # the side that pushes
    gap2 = ElastoBacklash2(c=100.0, d=10.0, b=0.5, phi_rel0=0.5)     # (exact in binary)
    for x, w in ((0.75, 1.0), (0.25, -1.0)):
        assert gap2(x, w) == 0.0 and gap2.sides(x, w)[0] == 1.0 and gap2.sides(x, w)[1] == 1.0
    assert ElastoGap(c=10.0, d=1.5, s_rel0=1.5)(1.5, -3.0) == 0.0


def test_smooth_laws_have_no_armed_switches():
    """The linear laws, the actuator and ElastoBacklash with b <= 1e-10 never switch."""
    for law in (Spring(c=3.0), Damper(d=1.0), SpringDamper(c=1.0, d=2.0), Actuator(1.0),
                ElastoBacklash(c=10.0, d=1.0, b=0.0), ElastoBacklash2(c=10.0, d=1.0, b=1e-11)):
        for x, v in [(-1.0, 2.0), (0.0, 0.0), (3.0, -1.0)]:
            s = law.sides(x, v)
            row = lawkernels.parameter_row(law)
            assert not any(lawkernels.armed(law.code, row, s, k)
                           for k in range(LAW_SWITCHES))


# ---------------------------------------------------------------------------------------------
# 5. Energy: a potential of the conservative part
# ---------------------------------------------------------------------------------------------

ENERGY_CASES = [
    ("Spring", Spring(c=7.5, x0=0.3), np.linspace(-1.0, 1.5, 41), []),
    ("ElastoGap n=1", ElastoGap(c=10.0, d=1.5, s_rel0=1.5, n=1.0), np.linspace(0.0, 2.5, 41),
     [1.5]),
    ("ElastoGap n=2.5", ElastoGap(c=1e4, d=30.0, s_rel0=-0.2, n=2.5),
     np.linspace(-0.6, 0.2, 41), [-0.2]),
    ("ElastoBacklash", ElastoBacklash(c=20e3, d=50.0, b=math.pi / 4, phi_rel0=0.1),
     np.linspace(-1.0, 1.2, 45), [0.1 - math.pi / 8, 0.1 + math.pi / 8]),
    ("ElastoBacklash b=0", ElastoBacklash(c=100.0, d=5.0, b=0.0, phi_rel0=0.2),
     np.linspace(-1.0, 1.0, 21), []),
    ("ElastoBacklash2", ElastoBacklash2(c=100.0, d=5.0, b=0.2), np.linspace(-1.0, 1.0, 41),
     [-0.1, 0.1]),
    ("Bistop", Bistop(**SPEC_BISTOP), np.linspace(-0.4, 1.4, 46), [0.0, 1.0]),
    ("Bistop e=0.8", Bistop(x1=-1.0, x2=1.0, k=50.0, e=0.8, cmax=4.0, d=0.5),
     np.linspace(-2.0, 2.0, 41), [-1.0, 1.0]),
    ("Impact", Impact(x1=0.0, k=1000.0, e=1.5, cmax=10.0, d=0.1), np.linspace(-0.4, 0.6, 41),
     [0.0]),
    ("VariableRotationalSpring", VariableRotationalSpring(K=3.0, K_min=1.0, theta_init=0.2),
     np.linspace(-1.0, 1.0, 21), []),
    ("VariableRotationalSpring K<K_min",
     VariableRotationalSpring(K=0.5, K_min=1.0, theta_init=-0.1), np.linspace(-1.0, 1.0, 21), []),
    ("VariableTranslationalSpring", VariableTranslationalSpring(K=2.0, K_min=1.0),
     np.linspace(-1.0, 1.0, 21), []),
]


@pytest.mark.parametrize("law, xs, kinks", [pytest.param(*c[1:], id=c[0]) for c in ENERGY_CASES])
def test_energy_is_the_potential_of_the_force_at_rest(law, xs, kinks):
    """-dE/dx == law(x, 0) by central differences (relative 1e-6 of the force scale) away from
    the kinks of the force; E >= 0 and E = 0 where the force is zero (gap, backlash)."""
    h = 1e-6
    xs = np.array([x for x in xs if all(abs(x - k) > 10 * h for k in kinks)])
    params = np.tile(lawkernels.parameter_row(law), (len(xs), 1))
    e_plus = law.energy(xs + h, params)
    e_minus = law.energy(xs - h, params)
    e0 = law.energy(xs, params)
    forces = np.array([law(x, 0.0) for x in xs])
    scale = np.max(np.abs(forces))
    assert scale > 0
    np.testing.assert_allclose(-(e_plus - e_minus) / (2 * h), forces, rtol=1e-6,
                               atol=1e-6 * scale)
    assert np.all(e0 >= 0.0)
    assert np.all(e0[forces == 0.0] == 0.0)


# ---------------------------------------------------------------------------------------------
# 6. Validation
# ---------------------------------------------------------------------------------------------

_GAP = dict(c=10.0, d=1.5, s_rel0=1.5, n=1.0)
_BL = dict(c=100.0, d=1.0, b=0.2, phi_rel0=0.0)
_IMP = dict(x1=0.0, k=1000.0, e=1.5, cmax=10.0, d=0.1)
BAD = [
    # (law, good parameters, bad parameter, bad value, rule as the message states it)
    (Spring, dict(c=1.0, x0=0.0), "c", -1.0, ">= 0"),
    (Spring, dict(c=1.0, x0=0.0), "c", math.nan, ">= 0"),
    (Spring, dict(c=1.0, x0=0.0), "c", math.inf, "finite"),
    (Spring, dict(c=1.0, x0=0.0), "x0", math.nan, "finite"),
    (Spring, dict(c=1.0, x0=0.0), "c", "abc", "a real number"),
    (Spring, dict(c=1.0, x0=0.0), "c", "10", "a real number"),
    (Spring, dict(c=1.0, x0=0.0), "c", None, "a real number"),
    (Damper, dict(d=1.0), "d", -0.5, ">= 0"),
    (Damper, dict(d=1.0), "d", "2", "a real number"),
    (SpringDamper, dict(c=1.0, d=1.0), "c", -2.0, ">= 0"),
    (SpringDamper, dict(c=1.0, d=1.0), "d", -2.0, ">= 0"),
    (SpringDamper, dict(c=1.0, d=1.0), "d", math.nan, ">= 0"),
    (Actuator, dict(value=1.0), "value", math.nan, "finite"),
    (Actuator, dict(value=1.0), "value", "1", "a real number"),
    (ElastoGap, _GAP, "c", -1.0, ">= 0"),
    (ElastoGap, _GAP, "d", -1.0, ">= 0"),
    (ElastoGap, _GAP, "n", 0.5, ">= 1"),
    (ElastoGap, _GAP, "n", math.nan, ">= 1"),
    (ElastoGap, _GAP, "s_rel0", math.nan, "finite"),
    (ElastoGap, _GAP, "c", "stiff", "a real number"),
    (ElastoBacklash, _BL, "c", 0.0, "> 0"),
    (ElastoBacklash, _BL, "c", -5.0, "> 0"),
    (ElastoBacklash, _BL, "d", -1.0, ">= 0"),
    (ElastoBacklash, _BL, "b", -0.1, ">= 0"),
    (ElastoBacklash, _BL, "phi_rel0", math.inf, "finite"),
    (ElastoBacklash2, _BL, "c", 0.0, "> 0"),
    (ElastoBacklash2, _BL, "b", -0.1, ">= 0"),
    (ElastoBacklash2, _BL, "d", math.nan, ">= 0"),
    (Bistop, SPEC_BISTOP, "x2", 0.0, "> x1"),
    (Bistop, SPEC_BISTOP, "x2", -1.0, "> x1"),
    (Bistop, SPEC_BISTOP, "x2", math.inf, "finite"),
    (Bistop, SPEC_BISTOP, "x1", math.nan, "finite"),
    (Bistop, SPEC_BISTOP, "k", -1.0, ">= 0"),
    (Bistop, SPEC_BISTOP, "e", 0.0, "> 0"),
    (Bistop, SPEC_BISTOP, "e", -1.5, "> 0"),
    (Bistop, SPEC_BISTOP, "cmax", -1.0, ">= 0"),
    (Bistop, SPEC_BISTOP, "d", 0.0, "> 0"),
    (Bistop, SPEC_BISTOP, "d", -0.1, "> 0"),
    (Bistop, SPEC_BISTOP, "d", math.nan, "> 0"),
    (Impact, _IMP, "e", 0.0, "> 0"),
    (Impact, _IMP, "d", 0.0, "> 0"),
    (Impact, _IMP, "k", -1.0, ">= 0"),
    (Impact, _IMP, "x1", math.nan, "finite"),
    (VariableRotationalSpring, dict(K=1.0, K_min=0.5), "K_min", 0.0, "> 0"),
    (VariableRotationalSpring, dict(K=1.0, K_min=0.5), "K_min", -1.0, "> 0"),
    (VariableRotationalSpring, dict(K=1.0, K_min=0.5), "K", math.nan, "finite"),
    (VariableRotationalSpring, dict(K=1.0, K_min=0.5), "theta_init", math.inf, "finite"),
    (VariableTranslationalSpring, dict(K=1.0, K_min=0.5), "K_min", 0.0, "> 0"),
    (VariableTranslationalSpring, dict(K=1.0, K_min=0.5), "K", "soft", "a real number"),
]


@pytest.mark.parametrize("cls, good, name, value, rule", BAD,
                         ids=[f"{c.__name__}-{n}={v!r}" for c, _, n, v, _ in BAD])
def test_bad_parameter_is_refused_with_a_message_naming_it(cls, good, name, value, rule):
    """ValueError naming the law, the parameter, the rule and the value."""
    cls(**good)   # the good parameters are accepted
    pattern = (rf"^{cls.__name__}: {name} must be [^,]*{re.escape(rule)}.*, "
               rf"got {re.escape(repr(value))}$")
    with pytest.raises(ValueError, match=pattern):
        cls(**dict(good, **{name: value}))


def test_variable_spring_signal_not_finite_is_refused():
    law = VariableRotationalSpring(K=lambda t: math.nan if t > 1 else 1.0, K_min=0.5)
    assert law(0.5, 0.0, 0.5) == -0.5
    with pytest.raises(ValueError, match=r"^VariableRotationalSpring: K\(t\) must return a "
                                         r"finite real number, got nan at t = 2\.0 s$"):
        law(0.5, 0.0, 2.0)


# ---------------------------------------------------------------------------------------------
# 7. Variable spring: K_min, and K(t, state) in a simulation
# ---------------------------------------------------------------------------------------------

def test_variable_spring_uses_k_min_below():
    """K(t) = 5 - t crossing K_min = 2 at t = 3: torque -K theta before, -K_min theta after;
    the switching function K - K_min changes sign there."""
    law = VariableRotationalSpring(K=_ramp_k, K_min=2.0, theta_init=0.25)
    for t in np.linspace(0.0, 8.0, 33):
        for x in (-0.6, 0.1, 0.9):
            K_used = max(5.0 - t, 2.0)
            assert law(x, 0.3, t) == pytest.approx(-K_used * (0.25 + x), rel=1e-14, abs=1e-15)
    assert law.switching(0.0, 0.0, 3.0 - 1e-9)[0] > 0 > law.switching(0.0, 0.0, 3.0 + 1e-9)[0]
    assert law.sides(0.0, 0.0, 2.9)[0] == 1.0 and law.sides(0.0, 0.0, 3.1)[0] == -1.0


def _wheel(law, J):
    """A flywheel (axial inertia J) on a revolute hinge about z, released at q = 0.4 at rest,
    with ``law`` on the hinge; no gravity."""
    m = mbd.Model("wheel")
    post = m.add_ground("post", environment=mbd.Environment(gravity=(0, 0, 0)))
    wheel = m.add_body("wheel", mass=1.0, cg=(0, 0, 0), inertia=[J, J, J], cs={"hub": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", post, wheel["hub"], axis=(0, 0, 1), q0=0.4, v0=0.0))
    m.add(JointForce("spring", hinge, law))
    return m


def test_variable_spring_k_of_t_in_a_simulation():
    """K(t) = 5 - t, K_min = 2: the switch to K_min is logged at t = 3, the recorded K is
    max(5 - t, 2), the torque -K q; after t = 3 the wheel is a plain oscillator J q'' = -2 q
    whose energy J w^2/2 + q^2 stays constant."""
    J = 0.5
    law = VariableRotationalSpring(K=_ramp_k, K_min=2.0)
    r = _wheel(law, J).build().simulate(4.0, output_step=0.05, rtol=1e-10, atol=1e-12)
    assert [e.what for e in r.events] == [law.describe(0, -1.0)]
    assert r.events[0].t == pytest.approx(3.0, abs=1e-9) and "K_min" in r.events[0].what
    K_used = np.maximum(5.0 - r.t, 2.0)
    q, w = r.joint("hinge").q, r.joint("hinge").v
    np.testing.assert_allclose(r.force("spring").state["K"], K_used, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.force("spring").value, -K_used * q, rtol=1e-12, atol=1e-12)
    after = r.t >= 3.0
    energy = 0.5 * J * w[after] ** 2 + 0.5 * 2.0 * q[after] ** 2
    np.testing.assert_allclose(energy, energy[0], rtol=1e-7)


def test_variable_spring_k_of_state_in_a_simulation():
    """A hardening spring K(t, state) = k0 + k3 q^2 of the wheel's own angle: the callable
    receives an mbd.State (t, q, v) of the system at time t, and the Duffing energy
    J w^2/2 + k0 q^2/2 + k3 q^4/4 is conserved (it would not be if the state were stale)."""
    J, k0, k3 = 0.5, 4.0, 30.0
    calls = []

    def stiffness(t, state):
        calls.append((t, state))
        return k0 + k3 * state.q[0] ** 2

    system = _wheel(VariableRotationalSpring(K=stiffness, K_min=0.1), J).build()
    r = system.simulate(2.0, output_step=0.05, rtol=1e-10, atol=1e-12)
    assert calls and all(isinstance(s, mbd.State) for _, s in calls)
    assert all(s.t == t and s.q.shape == (system.nq,) and s.v.shape == (system.nv,)
               for t, s in calls)
    q, w = r.joint("hinge").q, r.joint("hinge").v
    energy = 0.5 * J * w ** 2 + 0.5 * k0 * q ** 2 + 0.25 * k3 * q ** 4
    np.testing.assert_allclose(energy, energy[0], rtol=1e-7)
    assert np.ptp(q) > 0.7   # it did swing through
    assert not r.events      # K never falls to K_min


# ---------------------------------------------------------------------------------------------
# 8. Laws are frozen values: fields are the SPEC parameters, overrides are new laws
# ---------------------------------------------------------------------------------------------

def _k_of_state(t, state):
    return 4.0 + (0.0 if state is None else float(state.q[0]) ** 2)


#: one of every law (the callable forms too) and its parameter fields, as SPEC names them
EVERY_LAW = [
    (Spring(c=7.5, x0=0.3), ("c", "x0")),
    (Damper(d=2.5), ("d",)),
    (SpringDamper(c=10.0, d=1.5, x0=1.0), ("c", "d", "x0")),
    (Actuator(-4.25), ("value",)),
    (Actuator(lambda t: 3.0 * t), ("value",)),
    (ElastoGap(c=10.0, d=1.5, s_rel0=1.5, n=1.0), ("c", "d", "s_rel0", "n")),
    (ElastoBacklash(**_BL), ("c", "d", "b", "phi_rel0")),
    (ElastoBacklash2(**_BL), ("c", "d", "b", "phi_rel0")),
    (Bistop(**SPEC_BISTOP), ("x1", "x2", "k", "e", "cmax", "d")),
    (Impact(**_IMP), ("x1", "k", "e", "cmax", "d")),
    (VariableRotationalSpring(K=3.0, K_min=1.0, theta_init=0.2), ("K", "K_min", "theta_init")),
    (VariableRotationalSpring(K=_ramp_k, K_min=2.0), ("K", "K_min", "theta_init")),
    (VariableTranslationalSpring(K=_k_of_state, K_min=1.5), ("K", "K_min", "theta_init")),
]
_LAW_IDS = [f"{type(law).__name__}-{i}" for i, (law, _) in enumerate(EVERY_LAW)]


def _parameter_names(law):
    return tuple(f.name for f in dataclasses.fields(law) if f.init)


@pytest.mark.parametrize("law, names", EVERY_LAW, ids=_LAW_IDS)
def test_every_law_is_a_frozen_dataclass_of_its_spec_parameters(law, names):
    """A law is an mbd.Law and a frozen dataclass whose constructor fields are its SPEC
    parameters; assigning to any of them (or to any other attribute) raises."""
    assert isinstance(law, mbd.Law)
    assert dataclasses.is_dataclass(law) and type(law).__dataclass_params__.frozen
    assert _parameter_names(law) == names
    for name in names + ("code", "unlisted"):
        before = getattr(law, name, None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(law, name, 1.0)
        assert getattr(law, name, None) is before
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(law, names[0])
    # its repr is the constructor call of its parameters
    assert repr(law).startswith(f"{type(law).__name__}(") and all(
        f"{n}=" in repr(law) for n in names)


def test_laws_without_a_parameter_keep_the_attribute_at_zero():
    """Spring has no d, Damper no c and x0, Impact no x2 (it is +inf): read-only attributes,
    not parameters; the compiled row is still (c, d, x0) and the BISTOP row."""
    assert Spring(c=2.0).d == 0.0 and Spring(c=2.0).parameters() == (2.0, 0.0, 0.0)
    assert (Damper(d=3.0).c, Damper(d=3.0).x0) == (0.0, 0.0)
    assert Damper(d=3.0).parameters() == (0.0, 3.0, 0.0)
    impact = Impact(**_IMP)
    assert impact.x2 == math.inf and impact.parameters()[1] == math.inf
    with pytest.raises(ValueError, match="x2"):
        dataclasses.replace(impact, x2=1.0)   # not a parameter of IMPACT


def test_parameters_are_stored_as_floats_and_laws_are_values():
    law = ElastoGap(c=10, d=np.float64(1.5), s_rel0=1, n=2)
    assert all(type(getattr(law, n)) is float for n in ("c", "d", "s_rel0", "n"))
    assert law == ElastoGap(c=10.0, d=1.5, s_rel0=1.0, n=2.0)
    assert hash(law) == hash(ElastoGap(c=10.0, d=1.5, s_rel0=1.0, n=2.0))
    assert law != ElastoGap(c=10.0, d=1.5, s_rel0=1.0, n=2.5)
    assert ElastoBacklash(**_BL) != ElastoBacklash2(**_BL)


@pytest.mark.parametrize("law, names", EVERY_LAW, ids=_LAW_IDS)
def test_replace_makes_a_new_law_and_leaves_the_old_one(law, names):
    """dataclasses.replace with a good value: a new law of the same class with that value and
    the others unchanged; the original law still has its own."""
    numeric = [n for n in names if not callable(getattr(law, n))]
    before = {n: getattr(law, n) for n in names}
    for name in numeric:
        value = before[name] + 0.5 if name != "x1" else before[name] - 0.5
        new = dataclasses.replace(law, **{name: value})
        assert type(new) is type(law) and new is not law
        assert getattr(new, name) == value
        assert all(getattr(new, n) == before[n] for n in names if n != name)
        assert new.parameters(0.0) != law.parameters(0.0)
    assert {n: getattr(law, n) for n in names} == before


@pytest.mark.parametrize("cls, good, name, value, rule", BAD,
                         ids=[f"{c.__name__}-{n}={v!r}" for c, _, n, v, _ in BAD])
def test_replace_revalidates(cls, good, name, value, rule):
    """dataclasses.replace runs the constructor's checks: the same ValueError naming the law,
    the parameter, the rule and the value."""
    law = cls(**good)
    pattern = (rf"^{cls.__name__}: {name} must be [^,]*{re.escape(rule)}.*, "
               rf"got {re.escape(repr(value))}$")
    with pytest.raises(ValueError, match=pattern):
        dataclasses.replace(law, **{name: value})


def test_bistop_replace_checks_x2_against_the_new_x1():
    law = Bistop(**SPEC_BISTOP)
    with pytest.raises(ValueError, match=r"^Bistop: x2 must be > x1 = 1\.5 and finite, got 1\.0$"):
        dataclasses.replace(law, x1=1.5)
    assert dataclasses.replace(law, x1=-0.5, x2=2.0).parameters()[:2] == (-0.5, 2.0)


def test_a_callable_parameter_stays_the_field():
    """Actuator's value and a variable spring's K given as functions are the fields themselves
    (``signal`` names them too); constants give ``signal`` None."""
    wave = Actuator(_ramp_k)
    assert wave.value is _ramp_k and wave.signal is _ramp_k and wave.time_varying
    assert Actuator(2.0).signal is None and not Actuator(2.0).time_varying
    spring = VariableRotationalSpring(K=_k_of_state, K_min=1.0)
    assert spring.K is _k_of_state and spring.signal is _k_of_state and spring.time_varying
    constant = VariableRotationalSpring(K=3, K_min=1.0)
    assert constant.K == 3.0 and constant.signal is None and not constant.time_varying


def test_replace_of_a_callable_k_keeps_its_arity():
    """K(t, state) stays a function of t and the state after replace() of another parameter;
    replacing K by K(t) calls it with t alone, by a number makes K constant."""
    seen = []

    def k2(t, state):
        seen.append((t, state))
        return 6.0

    state = mbd.State(1.0, np.array([0.5]), np.array([0.0]))
    law = dataclasses.replace(VariableRotationalSpring(K=k2, K_min=1.0), theta_init=0.5)
    assert law.K is k2 and law.stiffness(1.0, state) == 6.0 and seen == [(1.0, state)]
    assert law.parameters(1.0, state) == (6.0, 1.0, 0.5)

    def k1(*t):
        seen.append(t)
        return 3.0

    one = dataclasses.replace(law, K=k1)
    assert one.stiffness(2.0, state) == 3.0 and seen[-1] == (2.0,)
    assert dataclasses.replace(one, K=k2).stiffness(2.0, state) == 6.0
    assert seen[-1] == (2.0, state)
    constant = dataclasses.replace(law, K=8)
    assert constant.K == 8.0 and not constant.time_varying
    assert constant.parameters(5.0, state) == (8.0, 1.0, 0.5)
    with pytest.raises(ValueError, match=r"^VariableRotationalSpring: K must be a real number"):
        dataclasses.replace(law, K="stiff")


@pytest.mark.parametrize("fn, arity", [(_ramp_k, 1), (_k_of_state, 2)])
def test_the_arity_of_k_is_read_once(monkeypatch, fn, arity):
    """inspect.signature of K is read once, on construction, and never while the law is
    evaluated (100 forces, switching functions and parameter rows)."""
    import inspect
    calls = []
    signature = inspect.signature

    def counting(obj, *args, **kwargs):
        if obj is fn:
            calls.append(obj)
        return signature(obj, *args, **kwargs)

    monkeypatch.setattr(inspect, "signature", counting)
    law = VariableTranslationalSpring(K=fn, K_min=2.0, theta_init=0.1)
    assert len(calls) == 1
    state = mbd.State(0.0, np.array([0.3]), np.array([0.0]))
    for t in np.linspace(0.0, 6.0, 100):
        law(0.2, 0.1, t)
        law.switching(0.2, 0.1, t)
        law.parameters(t, state)
    assert len(calls) == 1
    dataclasses.replace(law, K_min=1.0)   # a new law reads its K once
    assert len(calls) == 2


def test_a_laws_energy_over_no_rows_and_over_a_view_of_many():
    """energy() of no rows is empty (an empty result's columns); over a broadcast view of one
    parameter row, longer than the block it is copied in (laws.ENERGY_BLOCK), it is c x^2 / 2
    at every row."""
    import numpy as np

    from forces import Spring
    from mbd.compiled import lawkernels, laws, layout
    law = Spring(c=2.0)
    assert law.energy(np.zeros(0), np.zeros((0, layout.MAX_PARAMS))).shape == (0,)
    n = 2 * laws.ENERGY_BLOCK + 17
    x = np.linspace(-1.0, 1.0, n)
    rows = np.broadcast_to(lawkernels.parameter_row(law), (n, layout.MAX_PARAMS))
    np.testing.assert_allclose(law.energy(x, rows), x * x, rtol=1e-15, atol=0.0)
