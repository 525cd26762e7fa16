"""The parameter checks the laws share: a real number meeting a rule, or a user function."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Union

from numba import types
from numba.core.dispatcher import Dispatcher

from mbd.model import values

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mbd.model.forceelements import Law

#: a parameter that is a number or a Python function (of t, or of t and the state)
Signal = Union[float, Callable[..., float]]


def check(law: Law, name: str, rule: str, ok: Callable[[float], bool]) -> None:
    """Validate field ``name`` of the (frozen) ``law`` and store it as a float: a real number
    (not a bool or a string, :func:`mbd.model.values.real`) meeting ``rule``, else ValueError
    naming the law, the parameter, the rule and the value."""
    object.__setattr__(law, name, values.real(getattr(law, name), f"{law.name}: {name}",
                                              rule, ok))


def signal(law: Law, name: str, forms: Sequence[str]) -> int:
    """How the function given for parameter ``name`` is called (1: ``f(t)``, 2:
    ``f(t, state)``), read once, on construction; ValueError naming the law when it cannot be
    called as one of ``forms``. A numba function (``@njit``) must be ``f(t)`` of a float
    returning a float: it is compiled for that here, and the run calls it compiled."""
    fn = getattr(law, name)
    arity = values.user_function(fn, f"{law.name}: {name}", forms)
    if isinstance(fn, Dispatcher):
        where = f"{law.name}: {name}"
        if arity != 1:
            raise ValueError(f"{where}: a numba function must be {forms[0]} (t in s), got "
                             f"one of {arity} arguments")
        try:
            fn.compile((types.float64,))
            returns = fn.overloads[(types.float64,)].signature.return_type
        except Exception as err:
            raise ValueError(f"{where}: the numba function {fn.__name__} cannot be compiled "
                             f"for a float t: {type(err).__name__}: "
                             f"{str(err).splitlines()[0]}") from None
        if not isinstance(returns, (types.Float, types.Integer)):
            raise ValueError(f"{where}: the numba function {fn.__name__} must return a float, "
                             f"returns {returns}")
    return arity
