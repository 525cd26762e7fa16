"""The steppers: the two ways of stepping a piece, behind one small interface for the piece
loop (:mod:`mbd.run.pieceloop`).

- :class:`~mbd.run.steppers.scipy.ScipyStepper` steps any scipy ``OdeSolver`` (the classes
  behind ``solve_ivp``) from Python, one step per ``advance``; it serves every method, laws
  whose parameters are Python functions of time and motion drivers.
- :class:`~mbd.run.steppers.compiled.CompiledStepper` runs a whole batch of steps compiled, DOP853
  (:mod:`mbd.run.steppers.dop853`) or Radau IIA (:mod:`mbd.run.steppers.radau`) under their one
  contract (:mod:`mbd.run.steppers.stepping`): the same methods and step control, several
  times faster.

The interface (both classes): made from ``(ev, method, rows, settings, exact, auto,
compile_first)`` (``compile_first(ev, compiled, method)``: compiles the right-hand side it
will call and returns the seconds spent, :func:`mbd.run.warmup.first_right_hand_side`, given
by the piece loop so that the steppers import nothing above them);
``start(t, y, t_bound, first_step, armed)`` begins a piece (``first_step``: its first step,
s; 0: Hairer's rule); ``advance(steps)`` takes at most ``steps`` steps and returns a status of
:mod:`mbd.run.steppers.stepping` (DONE, PAUSED, CROSSED, STIFF), raising the exceptions of
:mod:`mbd.run.failures` where the integration fails; ``t``, ``y``, ``t_old`` (s, the reached state
and the last step's start); ``dense()`` the last step's dense output (a callable of t that
also locates a crossing on itself); ``end_step()`` the state a new piece must start from after
the step's projection, or None; ``go_implicit()`` and ``go_explicit()`` (method "auto");
``nsteps``, ``nfev``, ``compile_time``, ``counts()`` for the stats; ``finite``, the last state
known finite; ``dips()``, after CROSSED, for each switching function that left its side and
came back within the last step a time (s) where it was off it (nan for the others: the double
crossings the signs at the step's ends cannot show, :func:`mbd.compiled.events.turning`).
"""
