"""examples/gearbox.py shows what it claims: its contacts and angles against its closed form,
and the closed form itself against a plain integration of the relative angle."""
import importlib.util
import pathlib

import numpy as np
from scipy.integrate import solve_ivp

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "gearbox.py"


def load():
    spec = importlib.util.spec_from_file_location("gearbox", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_closed_form_is_the_one_coordinate_equation():
    """x'' = f(x)/mu + a0, f the undamped backlash torque, integrated by scipy: the example's
    piecewise x(t) to 1e-9 rad."""
    gb = load()

    def rhs(t, z):
        x, v = z
        over = max(x - 0.5 * gb.B, 0.0) + min(x + 0.5 * gb.B, 0.0)
        return [v, -gb.C * over / gb.MU + gb.A0]

    t = np.linspace(0.0, 0.3, 301)
    ref = solve_ivp(rhs, (0.0, 0.3), [0.0, 0.0], t_eval=t, rtol=1e-12, atol=1e-14,
                    method="DOP853", max_step=1e-4)
    np.testing.assert_allclose(gb.relative_angle(t), ref.y[0], atol=1e-9)


def test_the_run_meets_the_closed_form(capsys):
    gb = load()
    result = gb.main(t_end=0.3)
    out = capsys.readouterr().out
    assert "largest difference from the closed form" in out
    begins = [e.t for e in result.events if e.what == "upper contact begins"]
    expected = gb.contacts(0.3)
    assert len(begins) == len(expected) == 3
    np.testing.assert_allclose(begins, [b for b, _ in expected], atol=1e-8)
    q_m, q_l = gb.angles(result.t)
    np.testing.assert_allclose(result.joint("motor_shaft").q, q_m, atol=1e-6)
    np.testing.assert_allclose(result.joint("load_shaft").q, q_l, atol=1e-6)
    # the gear's torque on the load: J_l times its acceleration, less the load torque, with
    # q_p'' = (r T_l + J_m x'') / (J_m + J_e) and x'' from the piece the row is in
    x = gb.relative_angle(result.t)
    xdd = gb.A0 - gb.C / gb.MU * np.maximum(x - 0.5 * gb.B, 0.0)
    acc = gb.RATIO * (gb.RATIO * gb.T_LOAD + gb.JM * xdd) / (gb.JM + gb.JE)
    np.testing.assert_allclose(result.reaction("mesh").value, gb.JL * acc - gb.T_LOAD,
                               atol=1e-6)
