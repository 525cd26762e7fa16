"""Ctrl-C while numba compiles is held until the compilation ends, then raised.

numba keeps its disk cache's bookkeeping in ctypes callbacks: a KeyboardInterrupt raised
inside one is printed ("Exception ignored on calling ctypes callback function") and lost, and
the compilation then fails with a RuntimeError or goes on as if nothing happened, so the run
neither stops cleanly nor keeps its rows (or the process dies of SIGSEGV). A listener on
numba's compile events and on its compiler lock (installed when this module is imported, with
:mod:`mbd.compiled`) holds SIGINT from the start of the outermost compilation of the main
thread to its end, and raises it there as Python would have. The lock's events also cover a
kernel's first load from the cache, which numba does before (and without) a compile event,
through the same callbacks. A compilation takes at most a few seconds: the wait is bounded by
it. (:func:`mbd.compiled.jit.native.address` holds it too: the machine code may be emitted only
when the address is asked for, outside both.)
"""
import contextlib
import signal
import threading

from numba.core import event


@contextlib.contextmanager
def held():
    """Hold Ctrl-C (SIGINT) until the block is done, then act on it as the handler in place
    before would have (Python's raises KeyboardInterrupt). Only in the main thread, where
    signals are handled; elsewhere a plain block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        run_pending()
        signal.signal(signal.SIGINT, previous)
    if caught:
        if callable(previous):
            previous(signal.SIGINT, None)       # Python's handler: raises KeyboardInterrupt
        elif previous != signal.SIG_IGN:
            raise KeyboardInterrupt


def run_pending():
    """Run the Python handlers of signals already received. A signal the kernel delivers to
    another thread (numpy's BLAS threads, a library's) is recorded at once, but CPython 3.11
    may run its handler only at the main thread's next check; ``pthread_sigmask`` makes that
    check (the mask itself is left as it is)."""
    if threading.current_thread() is threading.main_thread():
        signal.pthread_sigmask(signal.SIG_BLOCK, ())


class _Holding(event.Listener):
    """Holds SIGINT over the outermost numba compilation of the main thread."""

    def __init__(self):
        self.depth, self.block = 0, None

    def on_start(self, ev):
        if threading.current_thread() is not threading.main_thread():
            return
        self.depth += 1
        if self.depth == 1:
            self.block = held()
            self.block.__enter__()

    def on_end(self, ev):
        if threading.current_thread() is not threading.main_thread():
            return
        self.depth -= 1
        if self.depth == 0 and self.block is not None:
            block, self.block = self.block, None
            block.__exit__(None, None, None)      # raises a held Ctrl-C


#: the process's listener (registered once, on import): on compilations and on the compiler
#: lock, which numba takes around a cache load as well as a compilation
LISTENER = _Holding()
event.register("numba:compile", LISTENER)
event.register("numba:compiler_lock", LISTENER)
