"""Controller kinds as registered kinds (DESIGN §10): each built-in continuous kind is one module
of mbd.control with one formula, registered with its kernel; the compiled kernel and the
Python side run that same formula (its Python twin). Checked against the textbook forms
written here (numpy's matrix products, the PID law as SPEC §9 gives it), and the registry's
refusals named."""
import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

import mbd
from mbd.compiled import registry
from mbd.compiled.jit.native import python_twin
from mbd.control import gain, lookup, pid, statespace

#: a formula's compiled value and its Python twin's differ by the summation's rounding at
#: most (numba may fuse multiply-adds): a few ulp of the largest term
ULPS = 8 * np.finfo(float).eps


def test_every_built_in_continuous_kind_is_registered_with_its_kernel():
    controllers = [mbd.PID("p", "a", kp=1.0, tf=0.1),
                   mbd.StateSpace("s", [[0.0]], [[1.0]], [[1.0]], [[0.0]], inputs=["a"]),
                   mbd.Gain("g", [1.0], inputs=["a"]),
                   mbd.Lookup("l", mbd.Table([0.0, 1.0], [0.0, 2.0]), "a"),
                   mbd.Lookup("l2", mbd.Table2D([0.0, 1.0], [0.0, 1.0], [[0.0, 1.0],
                                                                      [1.0, 2.0]]),
                              ("a", "b"))]
    kinds = [c.compiled_form()[0] for c in controllers]
    assert [k.name for k in kinds] == ["pid", "state_space", "gain", "lookup", "lookup2d"]
    for kind, module in zip(kinds, (pid, statespace, gain, lookup, lookup), strict=True):
        assert registry.controller_kind(kind.name) is kind
        assert kind.kernel in (module.kernel, getattr(module, "kernel2d", None))


def test_a_kind_registered_twice_or_unknown_is_named():
    with pytest.raises(ValueError, match="controller kind 'pid' is registered already"):
        registry.register_controller("pid", (), pid.kernel)
    with pytest.raises(KeyError, match=r"no controller kind 'nope'; the kinds are \[.*'pid'"):
        registry.controller_kind("nope")


def test_a_python_twin_calls_the_twins_of_what_it_calls():
    twin = python_twin(pid.rates)
    assert not isinstance(twin, Dispatcher) and twin.__code__ is pid.rates.py_func.__code__
    assert twin.__globals__["pid_output"] is python_twin(pid.pid_output)
    assert python_twin(pid.rates) is twin          # made once


def pid_by_hand(kp, ki, kd, tf, lo, hi, x, u):
    """SPEC §9's continuous PID, written out: (rates, output)."""
    e = u[0] - u[1]
    if tf > 0.0:
        z_rate = (e - x[1]) / tf
        d = kd * z_rate
    else:
        d = -kd * u[2]
    raw = kp * e + x[0] + d
    clipped = min(max(raw, lo), hi)
    winding = (raw > hi and ki * e > 0.0) or (raw < lo and ki * e < 0.0)
    rates = [0.0 if winding else ki * e] + ([z_rate] if tf > 0.0 else [])
    return np.array(rates), np.array([clipped])


@pytest.mark.parametrize("case", [
    dict(kp=2.0, ki=1.5, kd=0.3, tf=0.1, lo=-np.inf, hi=np.inf, x=[0.1, 0.2], u=[1.0, 0.3]),
    dict(kp=40.0, ki=5.0, kd=3.0, tf=0.0, lo=-1.0, hi=1.0, x=[0.2], u=[0.5, 0.1, 2.0]),
    dict(kp=40.0, ki=5.0, kd=0.0, tf=0.0, lo=-1.0, hi=1.0, x=[-0.5], u=[-0.5, 0.1]),
])
def test_the_pid_formula_compiled_and_its_twin_match_the_law(case):
    P = np.array([case["kp"], case["ki"], case["kd"], case["tf"], case["lo"], case["hi"],
                  1.0])
    x, u = np.array(case["x"]), np.array(case["u"] + [0.0] * (3 - len(case["u"])))
    want_rates, want_out = pid_by_hand(*P[:6], x, u)
    for formula in (pid.rates, python_twin(pid.rates)):
        xdot, out = np.zeros(len(x)), np.zeros(1)
        formula(P, x, u, xdot, out)
        scale = np.abs(P[:3]).max() * (np.abs(u).max() + np.abs(x).max())
        np.testing.assert_allclose(xdot, want_rates, rtol=0, atol=ULPS * scale)
        np.testing.assert_allclose(out, want_out, rtol=0, atol=ULPS * scale)
    # the controller's own derivative is the twin's
    c = mbd.PID("p", "a", kp=case["kp"], ki=case["ki"], kd=case["kd"], tf=case["tf"],
                rate="r" if case["tf"] == 0.0 and case["kd"] != 0.0 else None,
                limits=(case["lo"], case["hi"]))
    got_rates, got_out = c.derivative(0.0, x, u[:len(c.inputs)])
    np.testing.assert_allclose(got_rates, want_rates, rtol=0, atol=ULPS * scale)
    np.testing.assert_allclose(got_out, want_out, rtol=0, atol=ULPS * scale)


def test_the_linear_formula_is_a_state_space_model_and_a_gain():
    rng = np.random.default_rng(7)
    n, m, p = 3, 2, 2
    A, B, C, D = (rng.normal(size=s) for s in ((n, n), (n, m), (p, n), (p, m)))
    x, u = rng.normal(size=n), rng.normal(size=m)
    scale = 10.0 * (np.abs(x).max() + np.abs(u).max())
    P = np.concatenate([A.ravel(), B.ravel(), C.ravel(), D.ravel()])
    for formula in (statespace.linear, python_twin(statespace.linear)):
        x_out, y = np.zeros(n), np.zeros(p)
        formula(P, n, m, p, x, u, x_out, y)
        np.testing.assert_allclose(x_out, A @ x + B @ u, rtol=0, atol=ULPS * scale)
        np.testing.assert_allclose(y, C @ x + D @ u, rtol=0, atol=ULPS * scale)
    continuous = mbd.StateSpace("s", A, B, C, D, inputs=["a", "b"])
    sampled = mbd.DiscreteStateSpace("d", A, B, C, D, inputs=["a", "b"], period=0.01)
    for got in (continuous.derivative(0.0, x, u), sampled.update(0.0, x, u)):
        np.testing.assert_allclose(got[0], A @ x + B @ u, rtol=0, atol=ULPS * scale)
        np.testing.assert_allclose(got[1], C @ x + D @ u, rtol=0, atol=ULPS * scale)
    K, offset = rng.normal(size=(p, m)), rng.normal(size=p)
    g = mbd.Gain("g", K, inputs=["a", "b"], offset=offset)
    np.testing.assert_allclose(g.derivative(0.0, np.zeros(0), u)[1], K @ u + offset, rtol=0,
                               atol=ULPS * scale)
