"""The compiled core's jit tooling: the cached ``njit`` and its stale-cache guard
(:mod:`.jitcache`), compiled functions called by address and their numba types
(:mod:`.native`), and Ctrl-C held while numba compiles (:mod:`.interrupts`)."""
