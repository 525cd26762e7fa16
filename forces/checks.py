"""The parameter checks the laws share: a real number meeting a rule, or a user function."""
from typing import Callable, Union

from mbd.model import values

#: a parameter that is a number or a Python function (of t, or of t and the state)
Signal = Union[float, Callable[..., float]]


def check(law, name, rule, ok):
    """Validate field ``name`` of the (frozen) ``law`` and store it as a float: a real number
    (not a bool or a string, :func:`mbd.model.values.real`) meeting ``rule``, else ValueError
    naming the law, the parameter, the rule and the value."""
    object.__setattr__(law, name, values.real(getattr(law, name), f"{law.name}: {name}",
                                              rule, ok))


def signal(law, name, forms):
    """How the function given for parameter ``name`` is called (1: ``f(t)``, 2:
    ``f(t, state)``), read once, on construction; ValueError naming the law when it cannot be
    called as one of ``forms``."""
    return values.user_function(getattr(law, name), f"{law.name}: {name}", forms)
