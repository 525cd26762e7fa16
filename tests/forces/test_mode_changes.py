"""The event log holds real switches only, and all of them, for every law kind (issue 44).

Each case runs a small 1-DOF mechanism — a 1 kg block sliding along x without gravity, released
at x = 0 between stops at +-0.5 m, or a pendulum swinging into a rotational stop — through a
law's branches (both contact sides, approach and rebound, with and without damping, the clamps
and the damping's parts), with rows every millisecond. The law's mode at a state is read
from its formula (``law.branch(x, v, t)``, written from SPEC §3.2, independent of the
switching functions and the event machinery) and compared with the run:

(a) every logged instant changes the element's mode: the formula's mode just before it (the
    row before) differs from the one just after it (the row after);
(b) the run's modes there (``result.force(name).mode``, from the rows' sides: the row before,
    and the event's own row, which carries the mode after) are the formula's;
(c) every change of the formula's mode along the rows falls on a logged instant (no missed
    switch), and the run's mode is the formula's on every other row.
"""
import functools
import itertools
import math

import numpy as np
import pytest

import mbd
from forces import (
    Bistop,
    ElastoBacklash,
    ElastoBacklash2,
    ElastoGap,
    Impact,
    JointForce,
    Spring,
    SpringDamper,
    VariableTranslationalSpring,
)
from joints import Prismatic, Revolute

C = 100.0           # N/m (N m/rad): the contacts' stiffness
T_END = 3.0         # s
STEP = 1e-3         # s: the output step, below the shortest time between two switches


def block(law, v0=1.0, t_end=T_END):
    """The block between +-0.5 m, released at x = 0 with v0 (m/s)."""
    model = mbd.Model("block")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, 0.0)))
    body = model.add_body("block", mass=1.0, cg=(0.0, 0.0, 0.0), inertia=[1.0, 1.0, 1.0])
    slide = model.add(Prismatic("slide", ground, body["cg"], axis=(1.0, 0.0, 0.0), v0=v0))
    model.add(JointForce("law", slide, law))
    return model.simulate(t_end, output_step=STEP, rtol=1e-10, atol=1e-12)


def pendulum(law, q0=0.0, t_end=T_END):
    """A 1 m, 1 kg arm on a hinge about y, released horizontal (q0 rad) under gravity: it
    swings down (q > 0) into the law's upper stop and back."""
    model = mbd.Model("pendulum")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
    arm = model.add_body("arm", mass=1.0, cg=(1.0, 0.0, 0.0), inertia=np.diag([1e-3] * 3),
                         cs={"pivot": (0.0, 0.0, 0.0)})
    hinge = model.add(Revolute("hinge", ground, arm["pivot"], axis=(0, 1, 0), q0=q0))
    model.add(JointForce("law", hinge, law))
    return model.simulate(t_end, output_step=STEP, rtol=1e-10, atol=1e-12)


#: (id, law, how it runs): every branch of every piecewise kind, and smooth laws (one mode)
CASES = [
    ("Bistop without damping", Bistop(x1=-0.5, x2=0.5, k=C, e=1.0, cmax=0.0, d=0.1), block),
    ("Bistop damping ramp only", Bistop(x1=-0.5, x2=0.5, k=C, e=1.5, cmax=2.0, d=0.5), block),
    ("Bistop cmax and clamp", Bistop(x1=-0.5, x2=0.5, k=C, e=1.5, cmax=15.0, d=0.01), block),
    ("Bistop cmax and clamp, lower stop",
     Bistop(x1=-0.5, x2=0.5, k=C, e=1.5, cmax=15.0, d=0.01), lambda law: block(law, v0=-1.0)),
    ("Bistop e=2.1 light", Bistop(x1=-0.5, x2=0.5, k=1e3, e=2.1, cmax=1.0, d=0.001), block),
    ("Impact cmax and clamp", Impact(x1=-0.5, k=C, e=1.5, cmax=15.0, d=0.01),
     lambda law: block(law, v0=-1.0)),
    ("ElastoGap without damping", ElastoGap(c=C, d=0.0, s_rel0=-0.5),
     lambda law: block(law, v0=-1.0)),
    ("ElastoGap light damping", ElastoGap(c=C, d=3.0, s_rel0=-0.5),
     lambda law: block(law, v0=-1.0)),
    ("ElastoGap heavy damping n=1.5", ElastoGap(c=C, d=30.0, s_rel0=-0.5, n=1.5),
     lambda law: block(law, v0=-1.0)),
    ("ElastoBacklash without damping", ElastoBacklash(c=C, d=0.0, b=1.0), block),
    ("ElastoBacklash light damping", ElastoBacklash(c=C, d=3.0, b=1.0), block),
    ("ElastoBacklash heavy damping", ElastoBacklash(c=C, d=30.0, b=1.0), block),
    ("ElastoBacklash2 light damping", ElastoBacklash2(c=C, d=3.0, b=1.0), block),
    ("ElastoBacklash2 heavy damping", ElastoBacklash2(c=C, d=30.0, b=1.0), block),
    ("VariableSpring K(t) falls below K_min",
     VariableTranslationalSpring(K=lambda t: 3.0 - t, K_min=1.0), block),
    ("VariableSpring K(t) crosses K_min both ways",
     VariableTranslationalSpring(K=lambda t: 2.0 + 1.5 * math.sin(4.0 * t), K_min=1.0), block),
    ("Spring", Spring(c=C), block),
    ("SpringDamper", SpringDamper(c=C, d=0.5, x0=0.2), block),
    ("pendulum into a Bistop", Bistop(x1=-0.5, x2=1.0, k=1e3, e=1.5, cmax=20.0, d=0.02),
     pendulum),
    ("pendulum into an ElastoBacklash", ElastoBacklash(c=1e3, d=10.0, b=2.0), pendulum),
]


@functools.lru_cache(maxsize=None)
def simulated(name):
    """The result of the case ``name`` (each case runs once in the module)."""
    _, law, simulate = next(case for case in CASES if case[0] == name)
    return simulate(law)


#: s: an interval between two rows narrower than this is where a crossing was located (its
#: far end, a few units of round-off in t past the zero) and its mode is not compared
SLIVER = 1e-9


def between(result, view, law):
    """The formula's mode between each row and the next (n - 1,): at the midpoint, x by the
    cubic Hermite of x and its rate at the two rows, v linear (the rows are 1 ms apart, or
    closer where two switches are: a clamp's release 0.1 ms before a contact ends)."""
    t, x, v = result.t, view.x, view.xdot
    h = np.diff(t)
    xm = 0.5 * (x[:-1] + x[1:]) + h * (v[:-1] - v[1:]) / 8.0
    vm = 0.5 * (v[:-1] + v[1:])
    tm = 0.5 * (t[:-1] + t[1:])
    modes = np.array([law.branch(a, b, c) for a, b, c in zip(xm, vm, tm)])
    return np.where(h > SLIVER, modes, "")


def around(formula, e):
    """The formula's modes (before, after) an event's row e: on the intervals next to it, or
    past a sliver."""
    before = next(formula[j] for j in range(e - 1, -1, -1) if formula[j])
    after = next(formula[j] for j in range(e, len(formula)) if formula[j])
    return before, after


@pytest.fixture(params=[case[0] for case in CASES])
def run(request):
    """(law, result, the formula's mode between rows, the run's mode per row, the event rows,
    [(instant, [what])])"""
    law = next(case[1] for case in CASES if case[0] == request.param)
    result = simulated(request.param)
    view = result.force("law")
    instants = [(t, [ev.what for ev in group])
                for t, group in itertools.groupby(result.events, key=lambda ev: ev.t)]
    rows = [event_row(result, t) for t, _ in instants]
    return law, result, between(result, view, law), view.mode, rows, instants


def event_row(result, t):
    """The row of an event at t (s): the one row at that time (its sides: the mode after)."""
    rows = np.nonzero(result.t == t)[0]
    assert len(rows) == 1, f"{len(rows)} rows at the event t = {t!r}"
    return rows[0]


#: what the log says where a mode's facet (the parts of its name after the contact) goes from
#: one value to another: the label of the switching function whose side changes
FACET_LABELS = {
    # BISTOP: the STEP's part, the max/min's branch
    ("damping ramp", "damping at cmax"): "damping at cmax",
    ("damping at cmax", "damping ramp"): "damping ramp",
    ("pushes", "zero: would pull"): "stop would pull: zero",
    ("zero: would pull", "pushes"): "stop pushes",
    # ElastoGap: the clamp of d v between f_c and -f_c
    ("damping clamped at f_c", "damping within"): "damping below the spring force",
    ("damping within", "damping clamped at f_c"): "damping clamped at the spring force",
    ("damping within", "damping clamped at -f_c: never pulls"):
        "damping clamped: the gap never pulls",
    ("damping clamped at -f_c: never pulls", "damping within"): "damping no longer clamped",
    # ElastoBacklash(2): zero where the torque would pull, ElastoBacklash's min/max
    ("spring-damper", "zero: would pull"): "contact torque would pull: zero",
    ("zero: would pull", "spring-damper"): "contact torque pushes",
    ("spring-damper", "damping limited to the spring torque"):
        "damping limited to the spring torque",
    ("damping limited to the spring torque", "spring-damper"): "damping torque in use",
    # the variable spring
    ("K in use", "K_min in use"): "K below K_min: K_min in use",
    ("K_min in use", "K in use"): "K in use",
}


def expected_log(before, after):
    """The log's entries (sorted) where the mode goes from ``before`` to ``after``: a contact
    that begins or ends is one entry (the damping's facets of a contact come and go with
    it: no switch of their own); within a contact, one entry per facet that changes."""
    b, a = before.split(", "), after.split(", ")
    if a[0] != b[0]:
        if a[0].endswith("contact"):
            return [f"{a[0]} begins"]
        if b[0].endswith("contact"):
            return [f"{b[0]} ends"]
        return [FACET_LABELS[b[0], a[0]]]
    return sorted(FACET_LABELS[x, y] for x, y in zip(b[1:], a[1:]) if x != y)


def test_the_modes_are_the_laws_own(run):
    law, _, formula, modes, _, _ = run
    assert set(formula) - {""} <= set(law.modes) and set(modes) <= set(law.modes)


def test_every_logged_switch_changes_the_mode_the_formula_gives(run):
    """(a) and (b): the formula's modes just before and just after every logged instant
    differ, each entry there is one of the changes between them (no entry for a function
    whose side changed nothing), and the run's modes are those (the row before an event
    holds the mode before it, the event's row the mode after it)."""
    law, result, formula, modes, rows, instants = run
    for e, (t, what) in zip(rows, instants):
        assert 0 < e < len(result.t) - 1, (t, what)      # the run goes on past each event
        before, after = around(formula, e)
        assert before != after, (t, what, before)
        assert sorted(what) == expected_log(before, after), (t, before, after)
        assert modes[e - 1] == before, (t, what, modes[e - 1], before)
        assert modes[e] == after, (t, what, modes[e], after)


def test_every_change_of_mode_is_logged(run):
    """(c): the run's mode changes at the events' rows only, and between every two rows it is
    the formula's there: a change of the formula's mode that no event logged would show as a
    difference."""
    law, result, formula, modes, rows, instants = run
    changed = np.nonzero(modes[1:] != modes[:-1])[0] + 1
    assert list(changed) == rows, (changed, instants)
    wrong = np.nonzero((modes[:-1] != formula) & (formula != ""))[0]
    assert not len(wrong), [(result.t[j], modes[j], formula[j]) for j in wrong[:5]]
    assert len(set(formula)) > 1 or not instants


def test_the_runs_go_through_the_branches():
    """The cases reach every mode of their laws (not an empty test): both contacts, BISTOP's
    ramp, cmax and clamp on both sides, ElastoGap's three clamps, ElastoBacklash's limit and
    zero on both sides."""
    def reached(*names):
        return set().union(*(simulated(name).force("law").mode for name in names))

    laws = dict((name, law) for name, law, _ in CASES)
    assert reached("Bistop cmax and clamp", "Bistop cmax and clamp, lower stop") == set(
        laws["Bistop cmax and clamp"].modes)
    assert reached("ElastoGap light damping", "ElastoGap heavy damping n=1.5") == set(
        laws["ElastoGap light damping"].modes)
    assert reached("ElastoBacklash light damping", "ElastoBacklash heavy damping") == set(
        laws["ElastoBacklash light damping"].modes)
    assert reached("ElastoBacklash2 light damping", "ElastoBacklash2 heavy damping") == set(
        laws["ElastoBacklash2 light damping"].modes)
    assert reached("VariableSpring K(t) crosses K_min both ways") == set(
        laws["VariableSpring K(t) crosses K_min both ways"].modes)


@pytest.mark.parametrize("cmax, d", [(2.0, 0.5), (15.0, 0.01)], ids=["ramp", "cmax"])
def test_bistop_upper_contact_end_logs_the_contact_end_only(cmax, d):
    """Issue 44: as BISTOP's upper contact ends, the log said 'damping ramp' and 'stop pushes'
    at the same instant, though neither changed anything (the ramp and clamp functions are
    unarmed out of contact); the lower contact's end did not. Each contact's end is one
    entry, the upper one as the lower one, and the mode after it is the gap."""
    law = Bistop(x1=-0.5, x2=0.5, k=C, e=1.5, cmax=cmax, d=d)
    for v0, stop in ((1.0, "upper"), (-1.0, "lower")):
        result = block(law, v0=v0, t_end=2.0)
        instants = [(t, [ev.what for ev in group])
                    for t, group in itertools.groupby(result.events, key=lambda ev: ev.t)]
        ends = [(t, what) for t, what in instants if any("contact ends" in w for w in what)]
        assert ends and ends[0][1] == [f"{stop} stop contact ends"], instants
        assert all(len(what) == 1 for _, what in ends), ends
        assert result.force("law").mode[event_row(result, ends[0][0])] == "gap"


def test_a_mode_read_from_the_sides_is_the_formulas():
    """Pointwise, away from any run: the mode the law's own switching functions select
    (``law.sides``) is the one its formula gives, over a grid of states through every
    branch."""
    laws = [law for _, law, _ in CASES]
    xs = np.linspace(-1.2, 1.2, 97)
    vs = np.linspace(-20.0, 20.0, 41)
    for law in laws:
        for x, v in itertools.product(xs, vs):
            assert law.mode(law.sides(x, v, 1.0)) == law.branch(x, v, 1.0), (law, x, v)
