"""What every continuous controller has (SPEC §9): its states integrated with the
mechanism's, its outputs functions of the state at every instant; see
:mod:`mbd.control.controllers`. The kinds, one module each: :mod:`mbd.control.pid`,
:mod:`mbd.control.statespace`, :mod:`mbd.control.gain`, :mod:`mbd.control.lookup`,
:mod:`mbd.control.user`."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .controllers import Controller
from .signals import STATE_KINDS, Sensor, quantity

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..compiled.registry import ControllerKind
    from ..model.controls import ControlElement
    from ..system.system import System


class Continuous(Controller):
    """What a continuous controller has: ``derivative(t, x, u) -> (x', y)`` (s, its states,
    its inputs), its ``n_states`` and their start values ``x0``; and, when it can be evaluated
    inside the compiled right-hand side, its :meth:`compiled_form`."""

    continuous = True

    def initial_state(self) -> np.ndarray:
        return self.x0.copy()

    def compiled_form(self) -> tuple[ControllerKind, np.ndarray] | None:
        """(its kind's kernel, its parameter row) for the compiled right-hand side
        (:mod:`mbd.compiled.controlkernels`), or None where it is evaluated from Python."""
        return None

    def describe(self) -> str:
        text = super().describe()
        if self.compiled_form() is None:
            return text.replace("continuous", "continuous, evaluated from Python", 1)
        return text

    def why_not_finite(self, u: np.ndarray) -> str | None:
        """Why its output is not finite at the inputs u, in words (a table's value asked
        outside its breakpoints), or None where it does not know."""
        return None

    def derivative(self, t: float, x: np.ndarray,
                   u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x' (n_states,), y (outputs,)) at time t (s), state x and inputs u."""
        raise NotImplementedError(f"{type(self).__name__} defines no derivative(t, x, u) -> "
                                  "(x', y), which a continuous controller must")

    def check(self, system: System, controls: Mapping[str, ControlElement]) -> list[str]:
        problems = super().check(system, controls)
        if problems:
            return problems
        for item in self.resolve(controls):
            if not isinstance(item, Sensor):
                continue
            try:
                kind = quantity(system, item.what)[0]
            except ValueError:      # a name that measures nothing: the sensor's check says so
                continue
            if kind not in STATE_KINDS:
                problems.append(f"{self.label()}: its input {item!r} measures a force, an "
                                "acceleration, a reaction or the energy, which a continuous "
                                "controller cannot read at every instant (they may depend on "
                                "its own output); sample it with a discrete controller")
        return problems
