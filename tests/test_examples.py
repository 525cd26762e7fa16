"""Every example runs (shortened) and shows what it claims."""
import importlib.util
import pathlib

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_example_is_covered_here():
    covered = {"pendulum", "tumbling_handle"}
    assert {p.stem for p in EXAMPLES.glob("*.py")} == covered


def test_pendulum_matches_exact_solution(capsys):
    module = load("pendulum")
    result = module.main(t_end=2.0)
    theta = np.pi / 2 - result.joint("hinge").q
    for t, exact in module.EXACT.items():
        assert theta[np.argmin(abs(result.t - t))] == pytest.approx(exact, abs=1e-6)
    assert "exact" in capsys.readouterr().out


def test_tumbling_handle_flips():
    result = load("tumbling_handle").main(t_end=6.0)
    y_axis = result.body("handle").rotation.apply([0.0, 1.0, 0.0])
    assert y_axis[:, 1].min() < -0.9          # the spin axis turned over
