"""The run stage: the simulation driver — the piece loop (events, output rows, step budget,
stiction locks, Ctrl-C, partial results), the steppers (scipy's and the compiled DOP853 and
Radau IIA), the warm-up of compiled kernels, progress, failure diagnosis and the
:class:`Result`."""
