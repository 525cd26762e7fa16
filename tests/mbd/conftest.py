"""Fixtures the tests of mbd share."""
import pytest
from scipy import integrate

from mbd.run import pieceloop
from mbd.run.steppers.compiled import CompiledStepper


@pytest.fixture
def interrupted_at_step(monkeypatch):
    """Make the run raise KeyboardInterrupt at integrator step ``n`` (set the returned dict's
    "at")."""
    calls = {"n": 0, "at": 6}
    step, advance = integrate.DOP853.step, CompiledStepper.advance

    def interrupt(real):
        def wrapped(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == calls["at"]:
                raise KeyboardInterrupt
            return real(*args, **kwargs)
        return wrapped
    monkeypatch.setattr(integrate.DOP853, "step", interrupt(step))
    monkeypatch.setattr(CompiledStepper, "advance", interrupt(advance))
    monkeypatch.setattr(pieceloop.Run, "BATCH", 1)
    return calls

