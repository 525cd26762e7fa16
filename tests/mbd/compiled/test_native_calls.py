"""The calls through a compiled function's address (mbd.compiled.jit.native.call2 ... call5,
call1f, call2f): from compiled code each passes its arguments in order to the function at the
address and returns what it returns, an exception raised there reaches the caller, and an
argument in the address's place that is not an integer is refused when the caller compiles.

The callers here are small uncached numba functions compiled in this process: the
intrinsics' typing and code generation run only when a caller is compiled, never when a
kernel is loaded from numba's disk cache.
"""
import numpy as np
import pytest
from numba import njit, types
from numba.core.errors import TypingError

from mbd.compiled.jit import native

i8, f8 = types.int64, types.float64


@njit(cache=False)
def _two(a, b):
    return a + 10 * b


@njit(cache=False)
def _three(a, b, c):
    return a + 10 * b + 100 * c


@njit(cache=False)
def _four(a, b, c, d):
    return a + 10 * b + 100 * c + 1000 * d


@njit(cache=False)
def _five(a, b, c, d, e):
    return a + 10 * b + 100 * c + 1000 * d + 10000 * e


@njit(cache=False)
def _square(t):
    return t * t + 0.5


@njit(cache=False)
def _difference(t, c):
    return t - 2.0 * c


#: (intrinsic, target, the target's signature, the arguments): each argument at its own
#: place value, so the result shows the order they arrived in
CASES = [
    (native.call2, _two, i8(i8, i8), (1, 2)),
    (native.call3, _three, i8(i8, i8, i8), (1, 2, 3)),
    (native.call4, _four, i8(i8, i8, i8, i8), (1, 2, 3, 4)),
    (native.call5, _five, i8(i8, i8, i8, i8, i8), (1, 2, 3, 4, 5)),
    (native.call1f, _square, f8(f8), (3.0,)),
    (native.call2f, _difference, f8(f8, f8), (7.0, 0.25)),
]


def _through(intrinsic):
    """A compiled caller of ``intrinsic(fn, *args)``."""
    @njit(cache=False)
    def call(fn, *args):
        return intrinsic(fn, *args)
    return call


@pytest.mark.parametrize("intrinsic, target, signature, args", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_a_call_through_an_address_gives_the_functions_value(intrinsic, target, signature,
                                                            args):
    address = native.address(target, signature)
    got = _through(intrinsic)(address, *args)
    assert got == target.py_func(*args)         # the plain Python function's value
    assert isinstance(got, float if signature.return_type == f8 else int)
    # the place values: 54321 for call5's (1, 2, 3, 4, 5)
    if signature.return_type == i8:
        assert got == int("".join(str(a) for a in reversed(args)))


@njit(cache=False)
def _checked(a, b):
    if a < 0:
        raise ValueError("a negative count")
    return a + b


def test_an_exception_at_the_address_reaches_the_caller():
    """The call propagates the callee's error status: its exception is raised from the
    caller, with its message, and a call that does not raise gives its value."""
    call = _through(native.call2)
    address = native.address(_checked, i8(i8, i8))
    assert call(address, 2, 3) == 5
    with pytest.raises(ValueError, match="a negative count"):
        call(address, -1, 3)


@pytest.mark.parametrize("intrinsic, target, signature, args", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_a_non_integer_in_the_address_place_is_a_typing_error(intrinsic, target, signature,
                                                              args):
    """A float (or a function itself) where the address goes: no call is generated, the
    caller fails to compile naming the intrinsic and the argument types."""
    name = intrinsic.__name__
    with pytest.raises(TypingError, match=rf"{name}\(float64"):
        _through(intrinsic)(1.5, *args)
    with pytest.raises(TypingError, match=name):
        _through(intrinsic)(np.zeros(1), *args)


def test_a_measure_call_is_typed_for_its_entrys_records_alone():
    """forcekernels.call_measure (a bushing's measure through its address): a non-integer
    address, or records of other formats than the entry is compiled for, fail when the caller
    compiles, naming the call (no call of the wrong signature is generated)."""
    from mbd.compiled import forcekernels

    @njit(cache=False)
    def measure(address, i, elements, estate, links, scratch):
        return forcekernels.call_measure(address, i, elements, estate, links, scratch)

    records = np.zeros(1)           # a float array where the element records go
    with pytest.raises(TypingError, match=r"call_measure\(float64"):
        measure(1.5, 0, records, records, records, records)
    with pytest.raises(TypingError, match="call_measure: arguments .* compiled for"):
        measure(1, 0, records, records, records, records)
