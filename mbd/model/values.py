"""The rules every value a user hands to mbd obeys: one piece of code per rule.

A *real number* is an ``int``, a ``float``, a numpy integer or floating scalar (or a 0-d
array of one), or any other ``numbers.Real`` -- never a ``bool``, a string, a complex number
or ``None``, which ``float()`` would otherwise turn silently into a number (``float("2")``,
``float(True)``) or a raw error. Arrays of real numbers follow the same rule element by element.
Each check raises an error naming ``what`` (the element and the parameter), the rule and the
value; the caller picks the error class (a :class:`~mbd.ModelError` while a model is built, a
``ValueError`` for a law, ``TypeError``/``ValueError`` for ``simulate``'s arguments).

>>> real(2, "body 'arm': mass")
2.0
>>> real("2", "body 'arm': mass")
Traceback (most recent call last):
    ...
ValueError: body 'arm': mass must be a real number, got '2'
>>> real(-1.0, "Spring: c", ">= 0 and finite", nonnegative)
Traceback (most recent call last):
    ...
ValueError: Spring: c must be >= 0 and finite, got -1.0
"""
from __future__ import annotations

import inspect
import math
import numbers
from typing import TYPE_CHECKING

import numpy as np
from scipy.spatial.transform import Rotation

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import ArrayLike

#: The smallest relative tolerance an integrator can honour in double precision (scipy's own
#: floor): 100 times the machine epsilon, about 2.2e-14.
RTOL_MIN = 100.0 * np.finfo(float).eps

#: How far from 1 the norm of a quaternion given by a user may be (relative): a quaternion
#: computed in double precision is unit to about 1e-16; one off by more is a mistake, not
#: round-off, and mbd does not guess what rotation was meant.
QUATERNION_TOLERANCE = 1e-9

_BOOLS = (bool, np.bool_)


def finite(x: float) -> bool:
    """The rule "finite" (for :func:`real`'s ``ok``)."""
    return math.isfinite(x)


def nonnegative(x: float) -> bool:
    """The rule ">= 0 and finite"."""
    return math.isfinite(x) and x >= 0.0


def positive(x: float) -> bool:
    """The rule "> 0 and finite"."""
    return math.isfinite(x) and x > 0.0


def is_real(value: object) -> bool:
    """True for a real number (see the module docstring): not a bool, a string, a complex
    number, None or an array of more than a number."""
    if isinstance(value, _BOOLS):
        return False
    if isinstance(value, numbers.Real):
        return True
    return (isinstance(value, np.ndarray) and value.ndim == 0
            and value.dtype.kind in "iuf")


def real(value: object, what: str, rule: str | None = None,
         ok: Callable[[float], bool] | None = None, error: type[Exception] = ValueError,
         type_error: type[Exception] | None = None, expected: str = "a real number") -> float:
    """``value`` as a float when it is a real number that meets the rule.

    Parameters
    ----------
    value : object
        What the user gave.
    what : str
        The element and the parameter, e.g. ``"body 'arm': mass"``.
    rule, ok : str and callable, optional
        The rule as the message states it (``"> 0 and finite"``) and its test on the float;
        without them any real number passes (NaN and infinities too: a later check names
        them).
    error, type_error : exception classes
        Raised for a value that breaks the rule, and for a value that is not a real number
        (default: ``error``).
    expected : str
        What the message says was expected of a value that is not a real number.

    Returns
    -------
    float
    """
    if not is_real(value):
        raise (type_error or error)(f"{what} must be {expected}, got {value!r}")
    x = float(value)
    if ok is not None and (math.isnan(x) or not ok(x)):
        raise error(f"{what} must be {rule}, got {value!r}")
    return x


def _has_bool(value):
    """True when a (nested) list or tuple holds a bool, which numpy would turn into 0 or 1
    beside other numbers."""
    if isinstance(value, _BOOLS):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_bool(v) for v in value)
    return False


def real_array(value: object, what: str, size: int | None = None,
               shape: Sequence[int] | None = None, expected: str | None = None,
               error: type[Exception] = ValueError,
               type_error: type[Exception] | None = None) -> np.ndarray:
    """``value`` as a float array when it holds real numbers only (no bool, string, complex or
    None), reshaped to ``shape`` when given, else flat when ``size`` is given.

    ``expected`` says what was expected in the message (default: ``"real numbers"``, or
    ``"{size} real numbers"``). Sizes and shapes that do not fit raise ``error``; values that
    are not real numbers raise ``type_error`` (default ``error``). Values are not checked for
    finiteness here.
    """
    def message():      # made only when raised: an array's repr costs tens of microseconds
        wanted = expected if expected is not None else (
            f"{size} real numbers" if size is not None else "real numbers")
        return f"{what} must be {wanted}, got {value!r}"
    if isinstance(value, (str, bytes, dict, set)) or value is None or _has_bool(value):
        raise (type_error or error)(message())
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):   # a ragged list
        raise (type_error or error)(message()) from None
    if arr.dtype.kind not in "iuf":
        raise (type_error or error)(message())
    arr = arr.astype(float)
    if shape is not None:
        if arr.shape != tuple(shape):
            raise error(message())
    elif size is not None:
        if arr.size != size:
            raise error(message())
        arr = arr.reshape(-1)
    return arr


def vector3(value: ArrayLike, what: str, error: type[Exception] = ValueError) -> np.ndarray:
    """Three real numbers (any shape of 3 elements) as a float array (3,); not checked for
    finiteness."""
    return real_array(value, what, size=3, error=error)


def unit_quaternion(value: Rotation | ArrayLike, what: str,
                    error: type[Exception] = ValueError) -> np.ndarray:
    """A scalar-first unit quaternion (4,) from a scipy ``Rotation`` or 4 real numbers whose
    norm is 1 to within :data:`QUATERNION_TOLERANCE` (the round-off is then removed).

    A quaternion of another norm, (2, 0, 0, 0) or (0, 0, 0, 0), is refused, not normalised:
    the message gives the norm and asks for a unit quaternion.
    """
    if isinstance(value, Rotation):
        if not value.single:
            raise error(f"{what} must be one rotation, got {len(value)}")
        x, y, z, w = value.as_quat()
        return np.array([w, x, y, z])
    q = real_array(value, what, size=4,
                   expected="a scipy Rotation or a unit quaternion (w, x, y, z)", error=error)
    n = float(np.linalg.norm(q))
    if not np.all(np.isfinite(q)):
        raise error(f"{what} must be a finite unit quaternion (w, x, y, z), got {value!r}")
    if not abs(n - 1.0) <= QUATERNION_TOLERANCE:
        raise error(f"{what} must be a unit quaternion (w, x, y, z): its norm must be 1 to "
                    f"within {QUATERNION_TOLERANCE:g}, got {value!r} of norm {n:.12g}; pass "
                    "a unit quaternion (q / |q|) or a scipy Rotation")
    return q / n


def flag(value: object, what: str, allow_none: bool = False,
         error: type[Exception] = TypeError) -> bool | None:
    """``value`` as a bool when it is True or False (a numpy bool too), or None when
    ``allow_none``; anything else (1, "yes") is refused rather than read as true."""
    if value is None and allow_none:
        return None
    if not isinstance(value, _BOOLS):
        choices = "True, False or None" if allow_none else "True or False"
        raise error(f"{what} must be {choices}, got {value!r}")
    return bool(value)


def tolerances(rtol: float, atol: float, what: str, error: type[Exception] = ValueError,
               type_error: type[Exception] | None = None) -> tuple[float, float]:
    """The integration tolerances ``(rtol, atol)`` as floats, each checked (the one rule for
    the Environment's and ``simulate``'s tolerances).

    ::

        100 eps (about 2.2e-14) <= rtol < 1,   0 < atol < inf

    A smaller rtol cannot be met in double precision; atol = 0 leaves a purely relative
    tolerance, which stalls the step size when a component passes through zero.
    """
    r = real(rtol, f"{what}: rtol",
             f"a finite number with 100 eps = {RTOL_MIN:.3g} <= rtol < 1",
             lambda x: RTOL_MIN <= x < 1.0, error, type_error)
    a = real(atol, f"{what}: atol",
             "finite and > 0 (with atol = 0 the tolerance is purely relative, and the step "
             "size stalls where a component passes through zero)",
             positive, error, type_error)
    return r, a


#: the times at which :func:`returned_rows` checks a function's answer for an array against
#: its answers one time at a time
ROW_CHECKS = 16


def returned_rows(fn: Callable[[np.ndarray], object], T: ArrayLike) -> np.ndarray | None:
    """``fn`` of the times T (n,) s in one call, where it answers for an array as it does for
    each time: its (n,) float values, or None.

    A user's function of time written for one number may answer wrongly for an array without
    raising (``max(t, 0)`` raises, ``t.sum()`` would not), so its answer is taken only when it
    is an (n,) real array, finite everywhere, and equal bit for bit to the float ``fn(t)``
    returns at :data:`ROW_CHECKS` times spread over T, the first and last among them. Otherwise
    (it raised, answered another shape, a NaN, or a value a call of one time does not give)
    None: the caller goes time by time, where a failure is named with its time.
    """
    T = np.asarray(T, dtype=float)
    if len(T) <= 2 * ROW_CHECKS:     # not worth the checks
        return None
    try:
        with np.errstate(all="ignore"):
            rows = fn(T.copy())      # a copy: the function may write to what it is given
    except Exception:               # not a function of arrays: time by time
        return None
    if (not isinstance(rows, np.ndarray) or rows.shape != T.shape
            or rows.dtype.kind not in "iuf"):
        return None
    rows = rows.astype(float)
    if not np.isfinite(rows).all():
        return None
    for r in np.unique(np.linspace(0, len(T) - 1, ROW_CHECKS).round().astype(np.int64)):
        try:
            one = returned(fn(float(T[r])), "", "", T[r])
        except Exception:
            return None
        if one != rows[r]:
            return None
    return rows


def user_function(fn: Callable[..., object], what: str, forms: Sequence[str]) -> int:
    """How a user's function is called: 1 for ``f(t)``, 2 for ``f(t, state)`` (two or more
    parameters, where ``forms`` offers both), read once from its signature; 1 where the
    signature cannot be read. ``ValueError`` naming ``what`` when it cannot be called so (a
    function of no argument, or of three required ones).

    ``forms`` are the calls offered, e.g. ``("K(t)", "K(t, state)")``; ``forms[0]`` takes
    one argument, ``forms[1]`` two.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return 1
    arity = 2 if len(forms) > 1 and len(signature.parameters) >= 2 else 1
    try:
        signature.bind(*([0.0] * arity))
    except TypeError:
        name = getattr(fn, "__name__", type(fn).__name__)
        raise ValueError(f"{what} must be callable as {' or '.join(forms)}, got "
                         f"{name}{signature}") from None
    return arity


def returned(value: object, who: str, call: str, t: float) -> float:
    """The value a user's function returned at time ``t`` (s), as a float.

    It must be a real, finite number (a numpy scalar or an array of one number will do);
    anything else -- the string "5", a bool, a complex number, None, an array of another
    size, NaN, an infinity -- raises ``TypeError`` (not a number) or ``ValueError`` (not
    finite) naming ``who`` (the law or driver), the ``call`` (``"K(t)"``), the time and the
    value. Exceptions raised inside the function are the caller's to see: this is only called
    on what it returned.
    """
    if type(value) is float:   # the common case, fast
        x = value
    elif is_real(value):
        x = float(value)
    elif (isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf"):
        x = float(value.reshape(-1)[0])
    else:
        raise TypeError(f"{who}: {call} must return a finite real number, got {value!r} at "
                        f"t = {float(t)!r} s")
    if not math.isfinite(x):
        raise ValueError(f"{who}: {call} must return a finite real number, got {value!r} at "
                         f"t = {float(t)!r} s")
    return x
