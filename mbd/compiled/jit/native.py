"""Compiled functions called through their machine addresses.

The compiled integrator (:mod:`mbd.run.steppers.dop853`) calls the right-hand side, the switching
functions and the projection of whatever mechanism it runs. Called directly, each of those
would be compiled again inside the integrator's own code (numba links a callee's code into
every caller), once per kind of mechanism; called through its address, each is compiled once,
in its own function, and the integrator once for all of them.

:func:`address` gives the entry address of a compiled function for a signature (compiling it
if need be); :func:`call2` ... :func:`call5` call such an address with numba's
own calling convention from compiled code. numba's first-class function types do the same,
but look the address up in Python at every call from Python (tens of microseconds each);
here it is looked up once per run. :func:`call2f` is :func:`call2` for a function returning a
float, and :func:`call1f` calls a user's compiled f(t) (a law parameter given as a numba
function).

:func:`borrowed` gives views of arrays that hold no reference to them, for the hot path.
"""
from types import FunctionType

import numpy as np
from numba import typeof as _numba_typeof
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from . import interrupts

_TYPES = {}      # an argument's key (see key) -> its numba type
_ENTRIES = {}    # (function, the arguments' keys) -> its compiled entry point


def key(value):
    """What numba's type of an argument depends on, cheap to compute and to hash: for an
    array its dtype, dimensions and flags, for a named tuple its class and fields' keys."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        return (value.dtype, value.ndim, flags.c_contiguous, flags.writeable, flags.aligned)
    if isinstance(value, tuple):
        return (type(value),) + tuple(key(v) for v in value)
    return type(value)


def typeof(value):
    """numba's type of ``value``, remembered by :func:`key` (numba works out a record array's
    type anew at every call from Python, a fraction of a millisecond each)."""
    k = key(value)
    found = _TYPES.get(k)
    if found is None:
        found = _TYPES[k] = _numba_typeof(value)
    return found


def entry(function, args):
    """The compiled entry point of ``function`` for the types of ``args`` (compiled, or loaded
    from the cache, on first use): calling it skips numba's dispatch, which types every
    argument at every call."""
    k = (function, tuple(key(a) for a in args))
    found = _ENTRIES.get(k)
    if found is None:
        sig = tuple(typeof(a) for a in args)
        function.compile(sig)
        found = _ENTRIES[k] = function.overloads[sig].entry_point
    return found


def address(dispatcher, signature):
    """The entry address (int) of ``dispatcher`` compiled for ``signature`` (a numba
    signature; compiled, or loaded from the cache, on first use). The dispatcher keeps the
    code alive.

    Ctrl-C is held until the address is known (:func:`mbd.compiled.jit.interrupts.held`): the
    machine code may be emitted only here, outside numba's compile events and its compiler
    lock, through llvmlite's object-cache callbacks (ctypes), where a KeyboardInterrupt is
    lost or crashes the process (seen: exit by SIGSEGV)."""
    with interrupts.held():
        args = tuple(signature.args)
        if args not in dispatcher.overloads:
            # compiled for the arguments alone, as the warm-up compiles (mbd.run.warmup): numba
            # keys its disk cache by what ``compile`` is given, and a signature with its return
            # type would miss the entry a second process left there and compile it again
            dispatcher.compile(args)
        cres = dispatcher.get_compile_result(signature)    # (checks the return type)
        return cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)


def address_call(context, builder, sig, args):
    """The code of a call of the address args[0] with the arguments after it (an intrinsic's
    codegen: numba's calling convention, an error status propagated)."""
    argtypes = sig.args[1:]
    fnty = context.call_conv.get_function_type(sig.return_type, argtypes)
    pointer = builder.inttoptr(args[0], fnty.as_pointer())
    status, result = context.call_conv.call_function(builder, pointer, sig.return_type,
                                                     argtypes, args[1:])
    with cgutils.if_unlikely(builder, status.is_error):
        context.call_conv.return_status_propagate(builder, status)
    return result


@intrinsic
def call2(typingctx, fn, a, b):
    """fn(a, b) -> int64, fn the address of a compiled function of that signature."""
    if not isinstance(fn, types.Integer):
        return None
    return types.int64(fn, a, b), address_call


@intrinsic
def call1f(typingctx, fn, a):
    """fn(a) -> float64, fn the address of a compiled function of that signature."""
    if not isinstance(fn, types.Integer):
        return None
    return types.float64(fn, a), address_call


@intrinsic
def call2f(typingctx, fn, a, b):
    """fn(a, b) -> float64, fn the address of a compiled function of that signature."""
    if not isinstance(fn, types.Integer):
        return None
    return types.float64(fn, a, b), address_call


@intrinsic
def call3(typingctx, fn, a, b, c):
    """fn(a, b, c) -> int64, fn the address of a compiled function of that signature."""
    if not isinstance(fn, types.Integer):
        return None
    return types.int64(fn, a, b, c), address_call


@intrinsic
def call4(typingctx, fn, a, b, c, d):
    """fn(a, b, c, d) -> int64, fn the address of a compiled function of that signature."""
    if not isinstance(fn, types.Integer):
        return None
    return types.int64(fn, a, b, c, d), address_call


@intrinsic
def call5(typingctx, fn, a, b, c, d, e):
    """fn(a, b, c, d, e) -> int64, fn the address of a compiled function of that signature."""
    if not isinstance(fn, types.Integer):
        return None
    return types.int64(fn, a, b, c, d, e), address_call


def _borrow(context, builder, ty, value):
    """``value`` of type ``ty`` with its arrays (also inside tuples) as views without a
    meminfo; a new reference to anything else."""
    if isinstance(ty, types.Array):
        src = make_array(ty)(context, builder, value)
        out = make_array(ty)(context, builder)
        populate_array(out, data=src.data, shape=src.shape, strides=src.strides,
                       itemsize=src.itemsize, meminfo=None)
        return out._getvalue()
    if isinstance(ty, types.BaseTuple):
        items = [_borrow(context, builder, t, builder.extract_value(value, i))
                 for i, t in enumerate(ty.types)]
        return context.make_tuple(builder, ty, items)
    context.nrt.incref(builder, ty, value)
    return value


@intrinsic
def borrowed(typingctx, value):
    """``value`` (an array, or a tuple of arrays, like the run-stage ``Data``) as views of the
    same memory that hold no reference to it, valid while the caller's own reference is.

    numba counts the references to an array's memory with atomic increments and decrements
    at every view, slice and call that takes it: in a run of the four-bar of
    benchmarks/models.py they took a fifth of perf's samples. A view without a meminfo is not
    counted. Only for arrays that outlive the compiled call that
    borrows them and are never handed back to Python from it.
    """
    def codegen(context, builder, signature, args):
        return _borrow(context, builder, signature.args[0], args[0])
    return value(value), codegen


def python_twin(function):
    """The Python twin of a compiled (``@njit``) ``function``: its own Python code, with
    every compiled function it calls replaced by that one's twin in turn. A formula written
    once runs compiled in the kernels and as this twin from Python (a controller's
    ``derivative`` when the run steps from Python), with no compilation and no second copy
    of it. Made once per function (remembered)."""
    found = _TWINS.get(function)
    if found is None:
        py = function.py_func
        names = dict(py.__globals__)
        for name in py.__code__.co_names:      # the globals its code reads
            value = names.get(name)
            if hasattr(value, "py_func") and value is not function:
                names[name] = python_twin(value)
        found = _TWINS[function] = FunctionType(py.__code__, names, py.__name__,
                                                py.__defaults__, py.__closure__)
    return found


_TWINS = {}      # compiled function -> its Python twin
