"""The prescribed force: Actuator, a law of the core's kind ``constant`` (a value that does
not depend on x or v, a constant or a function of time; :mod:`mbd.compiled.constant`)."""
from dataclasses import dataclass

from mbd.compiled.laws import CompiledLaw
from mbd.model import values
from mbd.compiled.constant import KIND
from mbd.model.values import finite as _finite

from .checks import Signal as _Signal, check as _check, signal as _signal


@dataclass(frozen=True)
class Actuator(CompiledLaw):
    """A prescribed force or torque on the follower along +x: a constant, or a function of
    time ``value(t)`` (s -> N or N m), evaluated at every right-hand side call; what it
    returns must be a real, finite number (:func:`mbd.model.values.returned`).

    >>> Actuator(2.5)(0.0)
    2.5
    """

    value: _Signal

    kind = KIND
    name = "Actuator"

    def __post_init__(self):
        if callable(self.value):
            _signal(self, "value", ("value(t)",))
        else:
            _check(self, "value", "finite", _finite)

    @property
    def signal(self):
        """The function of time giving the value, or None for a constant."""
        return self.value if callable(self.value) else None

    @property
    def time_varying(self):
        return callable(self.value)

    def parameters(self, t=0.0, state=None):
        if not callable(self.value):
            return (self.value,)
        return (values.returned(self.value(t), self.name, "value(t)", t),)
