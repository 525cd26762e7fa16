"""The prescribed force: Actuator, a law of the core's kind ``constant`` (a value that does
not depend on x or v, a constant or a function of time; :mod:`mbd.compiled.constant`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mbd.compiled.constant import KIND
from mbd.compiled.laws import CompiledLaw
from mbd.model import values
from mbd.model.elements import Signal
from mbd.model.values import finite as _finite

from .checks import Signal as _Signal
from .checks import check as _check
from .checks import signal as _signal

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from mbd.model.state import State


@dataclass(frozen=True)
class Actuator(CompiledLaw):
    """A prescribed force or torque on the follower along +x: a constant, a function of
    time ``value(t)`` (s -> N or N m), evaluated at every right-hand side call (what it
    returns must be a real, finite number, :func:`mbd.model.values.returned`), or a signal
    (an ``mbd.Input``, a controller's output): its value held by the run, written where it
    changes (the compiled loop stays free of Python).

    >>> Actuator(2.5)(0.0)
    2.5
    """

    value: _Signal | Signal

    #: the parameters' units ({F}: N or N.m, {L}: m or rad, by the coordinate)
    units = {'value': '{F}'}
    kind = KIND
    name = "Actuator"

    def __post_init__(self):
        if isinstance(self.value, Signal):
            return
        if callable(self.value):
            _signal(self, "value", ("value(t)",))
        else:
            _check(self, "value", "finite", _finite)

    @property
    def signal(self) -> Callable[..., float] | None:
        """The function of time giving the value, or None for a constant or a signal."""
        return self.value if self.time_varying else None

    @property
    def time_varying(self) -> bool:
        return callable(self.value) and not isinstance(self.value, Signal)

    def parameters(self, t: float = 0.0, state: State | None = None) -> tuple[float, ...]:
        if not self.time_varying:     # a constant, or a signal's value before the run
            return (float(self.value),)
        return (values.returned(self.value(t), self.name, "value(t)", t),)

    def parameter_rows(self, T: np.ndarray) -> np.ndarray | None:
        value = values.returned_rows(self.value, T) if self.time_varying else None
        return None if value is None else value[:, None]
