"""The compiled core: the flat layout records a built system is laid out in, the numba
kernels over them (tree dynamics, force and law kernels, loop closures and their sparse
solve), the state function, assembly and projection, and the cached ``njit`` with its
stale-cache guard. It reads flat arrays only, never model objects."""
# Ctrl-C during any compilation is held until it ends (numba's cache would lose it)
from .jit import interrupts  # noqa: F401,E402
