"""The user's functions an evaluation calls from Python (a law parameter's K(t), an
actuator's value(t), a driver's motion), each call wrapped so that what it raises names the
element, the function and the time."""
from ..compiled import lawkernels


class UserFunctionError(Exception):
    """A parameter function (a law's K(t), an actuator's value(t)) or a driver's motion
    raised, or returned what it must not, at time ``t``; ``element`` is the element's label.
    ``function`` names the function. The run turns it into a :class:`mbd.SimulationError`
    (``__cause__``: the original)."""

    def __init__(self, element, function, t):
        super().__init__(element, function, t)
        self.element, self.function, self.t = element, function, t


def _name(function):
    """How a message names a user's function: ``name()`` (a lambda: its parameters)."""
    name = getattr(function, "__name__", None)
    return f"its function {name}()" if name and name != "<lambda>" else "its function"


def parameter_row(s, i, law, t, state, out):
    """Force element i's parameter row at (t, state) into ``out``; raises
    UserFunctionError naming it."""
    try:
        lawkernels.parameter_row(law, t, state, out=out)
    except Exception as err:
        raise UserFunctionError(s.force_elements[i].label(), _name(law.signal), t) from err


def motion(d, t):
    """(position, velocity, acceleration) of prescribed driver ``d`` at t; raises
    UserFunctionError naming it."""
    try:
        return d.motion(t)
    except Exception as err:
        raise UserFunctionError(d.driver.label(), "its motion", t) from err
