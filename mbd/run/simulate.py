"""simulate(): a System integrated from its (assembled) initial state into a Result.

The run stage in parts: the dynamics at a state (:mod:`mbd.run.evaluator`), the events
(:mod:`mbd.compiled.events`), the piece loop (:mod:`mbd.run.pieceloop`), the two ways of stepping a
piece (:mod:`mbd.run.steppers`) and this thin entry point, which checks the settings, picks the
stepper and assembles the initial state of a mechanism with loops or drivers
(:mod:`mbd.compiled.assembly`).
"""
import math
import os

import numpy as np
from scipy import integrate

from ..compiled import assembly, layout
from ..model import validate
from . import evaluator, pieceloop
from .evaluator import Evaluator
from .progress import ProgressBar
from .progress import enabled as _progress_enabled
from .settings import MAX_STEPS, Settings
from .steppers.compiled import CompiledStepper
from .steppers.compiled import blocker as loop_blocker
from .steppers.scipy import Integrand, ScipyStepper

METHODS = {"RK23": integrate.RK23, "RK45": integrate.RK45, "DOP853": integrate.DOP853,
           "Radau": integrate.Radau, "BDF": integrate.BDF, "LSODA": integrate.LSODA}


def output_times(t0, t_end, output_step):
    """Exact multiples of ``output_step`` from ``t0`` up to ``t_end``, and ``t_end`` itself."""
    n = int(np.floor((t_end - t0) / output_step * (1.0 + 1e-12)))
    # in place, one array (a grid of millions of rows is made in a fraction of a second,
    # which a Ctrl-C waits for): t0 + output_step * k, then t_end after the kept ones
    times = np.arange(n + 2, dtype=float)
    times *= output_step
    times += t0
    # the last multiple may round to just above t_end: t_end itself closes the grid
    kept = max(int(np.searchsorted(times[:n + 1], t_end - 1e-12 * max(1.0, abs(t_end)))), 1)
    times[kept] = t_end
    return times[:kept + 1]


#: the most output rows one integrator step may span (its max_step is at most this many output
#: steps): the rows of one step are written in one compiled call, which neither Ctrl-C nor the
#: progress bar interrupts; 10 000 rows take a few milliseconds
ROWS_PER_STEP = 10_000
#: the share of the machine's physical memory a run's output rows may take (estimated by
#: :func:`row_bytes`): the rest is left to the Result's views, plots and the system
MEMORY_SHARE = 0.5
#: the memory assumed where the machine's cannot be read (os.sysconf: not on Windows), bytes
ASSUMED_MEMORY = 8 * 2 ** 30
#: bytes a row costs besides its state and its sides: its time, in the grid, in the blocks of
#: rows (:mod:`mbd.run.outputrows`) and in the Result
ROW_OVERHEAD = 3 * 8


def output_row_count(t0, t_end, output_step):
    """``len(output_times(t0, t_end, output_step))``, counted without making the grid.

    Examples
    --------
    >>> output_row_count(0.0, 2.0, 0.01)        # 0, 0.01, ..., 1.99, then t_end = 2
    201
    >>> output_row_count(0.0, 1e6, 1e-6)        # the grid of 8 TB it did not make
    1000000000000
    """
    n = int(np.floor((t_end - t0) / output_step * (1.0 + 1e-12)))
    below = t_end - 1e-12 * max(1.0, abs(t_end))     # the multiples kept lie below it
    k = min(n, max(0, math.ceil((below - t0) / output_step) - 1))   # the last one kept
    # the grid's own rounding decides at the boundary (t0 + output_step * k, as it is made)
    while k < n and t0 + output_step * (k + 1) < below:
        k += 1
    while k > 0 and not t0 + output_step * k < below:
        k -= 1
    return k + 2        # t0 ... the k-th multiple, then t_end


def row_bytes(system):
    """(columns, bytes): the columns of a run's table of rows, nq + nv + the work
    accumulators (:func:`mbd.compiled.evaluator.work_size`), and the memory one row takes
    while a run writes it and after (bytes): the table three times (the compiled stepper's,
    the blocks of rows and the Result's), the sides of every switching function twice (the
    blocks and the Result), and :data:`ROW_OVERHEAD`."""
    columns = system.nq + system.nv + evaluator.work_size(system)
    sides = len(system.force_elements) * layout.SWITCHES
    return columns, 8 * (3 * columns + 2 * sides) + ROW_OVERHEAD


def physical_memory():
    """The machine's physical memory, bytes (:data:`ASSUMED_MEMORY` where it cannot be
    read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return ASSUMED_MEMORY


def check_output_rows(system, t0, t_end, output_step):
    """Refuse, before anything is allocated, a run whose output rows would not fit in memory.

    The limit: the rows' estimated memory (:func:`row_bytes`: the numbers of the table of
    nq + nv + work columns three times, the sides twice, the times) must be at most
    :data:`MEMORY_SHARE` (half) of the machine's physical memory. A limit in bytes rather
    than a fixed number of rows, so that a small model may write as many rows as the machine
    holds and a large one is stopped before it swaps; half, because the Result's views, a
    plot or a CSV of those rows need memory of the same order.

    Parameters
    ----------
    system : System
    t0, t_end, output_step : float
        The run's span and output step, s (checked by
        :func:`mbd.model.validate.run_settings`).

    Raises
    ------
    ValueError
        ``simulate: output_step ...``, saying how many rows that is, the size of their table
        (rows x columns x 8 bytes), the memory of the machine, and the output_step or t_end
        that would fit.
    """
    rows = output_row_count(t0, t_end, output_step)
    columns, per_row = row_bytes(system)
    memory = physical_memory()
    budget = MEMORY_SHARE * memory
    if rows * per_row <= budget:
        return
    fits = max(int(budget // per_row) - 2, 1)       # rows that fit, t0 and t_end aside
    span = t_end - t0
    raise ValueError(
        f"simulate: output_step = {output_step!r} s from t0 = {t0!r} to t_end = {t_end!r} s is "
        f"{rows:,} output rows (and one more per event); their table of {columns} columns "
        f"(nq + nv + work accumulators = {system.nq} + {system.nv} + "
        f"{columns - system.nq - system.nv}) takes {_size(rows * columns * 8)} (rows x "
        f"{columns} x 8 bytes), and the run would hold about {_size(rows * per_row)} while "
        f"it writes them: more than {MEMORY_SHARE:.0%} of this machine's memory "
        f"({_size(memory)}). Give a larger output_step (at least "
        f"{_round(span / fits, math.ceil):.2g} s for this span) or a shorter t_end (at most "
        f"t0 + {_round(fits * output_step, math.floor):.2g} s at this output_step)")


def _round(x, direction):
    """x rounded to two significant digits, up (math.ceil) or down (math.floor)."""
    unit = 10.0 ** (math.floor(math.log10(x)) - 1)
    return direction(x / unit) * unit


def _size(nbytes):
    """A number of bytes for people: '7.3 TiB'."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024.0 or unit == "PiB":
            return f"{nbytes:.3g} {unit}" if unit != "B" else f"{int(nbytes)} B"
        nbytes /= 1024.0


def simulate(system, t_end, output_step=None, t0=0.0, q0=None, v0=None, rtol=None, atol=None,
             method="DOP853", max_step=np.inf, exact_switching=True, progress=False,
             compiled=None, max_steps=MAX_STEPS, rows_to=None):
    """Integrate ``system`` from its initial state at ``t0`` to ``t_end`` (s).

    Parameters
    ----------
    system : System
    t_end : float
        End time, s.
    output_step : float, optional
        Spacing of output rows, s (rows at exact multiples from t0, plus every event time and
        t_end); at most t_end - t0. Default: 0.01 s, or t_end - t0 when the run is shorter.
    t0 : float
        Start time, s.
    q0, v0 : dict, optional
        Initial values by joint name, overriding the joints' own (see :class:`mbd.Joint`).
    rtol, atol : float, optional
        Integration tolerances; default: the environments' (tightest). They control q, v
        and the controllers' states; the work accumulators (``result.work``, quadratures of
        the elements' power) too in the explicit methods, while Radau, BDF and LSODA
        integrate them with the same steps but leave them out of the error control, as
        SUNDIALS' CVODES does with quadratures by default (see :mod:`mbd.run.settings`).
    method : str or scipy OdeSolver class
        Any ``solve_ivp`` method: "DOP853" (default), "RK45", "RK23", "Radau", "BDF", "LSODA";
        or "auto": DOP853 until Hairer's stiffness test finds the model stiff (h |lambda| past
        DOP853's stability bound in 15 tests in a row), then Radau until the stiffness is
        gone (Radau's step times the spectral radius of its Jacobian within a quarter of
        that bound in 15 tests in a row, :data:`mbd.run.steppers.radau.CALM_STEPS`), then DOP853
        again, and so on,
        both compiled. ``result.stats``: ``switches`` [(t in s, the method from there on)],
        ``methods`` (in the order they ran) and ``stiff_at`` (where it first switched to
        Radau, None if it did not). Where the compiled loop does not apply, scipy's LSODA,
        which switches likewise inside itself.
    max_step : float
        Largest step the integrator may take, s; at most :data:`ROWS_PER_STEP` output steps
        (a step's rows are written in one call, which Ctrl-C waits for).
    exact_switching : bool
        True (default): stop exactly where a force law switches branch and restart there.
        False: every evaluation picks the branch from the state, as a plain ODE with kinks
        (for comparison); switches are then logged, with an output row, at the end of the
        step that crossed them.
    progress : bool or None
        Draw a one-line progress bar on stderr (simulated time, events, wall time), redrawn
        at most 10 times a second. False (default): quiet; None: only when stderr is a
        terminal.
    compiled : bool or None
        Run the whole step loop compiled instead of stepping scipy's solver from Python:
        DOP853 (:mod:`mbd.run.steppers.dop853`) or, for stiff models, Radau IIA (:mod:`mbd.run.steppers.radau`,
        with a finite-difference Jacobian reused across steps as scipy's Radau does); the
        same method and step control, many times faster. None (default): whenever it
        applies — method "DOP853" or "Radau", no motion drivers, exact switching, no law
        parameter given as a Python function of time.
        True: require it (ValueError naming what prevents it); False: never.
    max_steps : int
        The run's step budget (default 1,000,000). The run fails (SimulationError naming the
        cause: a stiff model, a fast mode and the element behind it, or tolerances too tight)
        once it has taken that many steps, or as soon as, past a hundredth of them, its step
        size says it would need more: a stiff or stalled run fails in seconds, not hours.
    rows_to : str or path-like, optional
        A folder (made if missing) to write the rows to as the run makes them: ``t.npy``
        (n,) s, ``q.npy`` (n, nq), ``v.npy`` (n, nv), ``work.npy`` (n, nf + nd) J and, with
        continuous controllers, ``controller_states.npy``, written by a thread beside the
        run. The Result then reads those files memory-mapped instead of a copy of the rows
        in memory: a long run stopped by Ctrl-C or a failure has its rows on disk at once
        (``mbd run`` uses it for a long run). Each file reads as empty until the run ends.

    Returns
    -------
    Result

    Raises
    ------
    TypeError, ValueError
        A bad argument (:func:`mbd.model.validate.run_settings`), or output rows that would
        not fit in memory (:func:`check_output_rows`), before anything is compiled or run.
    SimulationError
        When the integrator fails, the state stops being finite, a force direction is
        undefined, the mechanism reaches a singular configuration, a law chatters, a Python
        function of the model raises, or the run would exceed ``max_steps``;
        ``.result`` holds the rows computed so far. Also on KeyboardInterrupt (Ctrl-C) during
        the run: the message says "interrupted at t = ...", ``__cause__`` is the
        KeyboardInterrupt and ``.result`` holds the rows computed so far.
    """
    run, y = prepare(system, t_end, output_step, t0, q0, v0, rtol, atol, method, max_step,
                     exact_switching, progress, compiled, max_steps, rows_to=rows_to)
    return run.go(y)


def prepare(system, t_end, output_step=None, t0=0.0, q0=None, v0=None, rtol=None, atol=None,
            method="DOP853", max_step=np.inf, exact_switching=True, progress=False,
            compiled=None, max_steps=MAX_STEPS, times=None, rows_to=None):
    """The arguments of :func:`simulate` checked: (its :class:`mbd.run.pieceloop.Run`, the
    initial state y); ``times``: other output times than ``output_step``'s (s)."""
    auto = isinstance(method, str) and method == "auto"
    t_end, output_step, t0, method_class, rtol, atol, max_step, max_steps = \
        validate.run_settings(system, METHODS, t_end, output_step, t0, q0, v0, rtol, atol,
                              method, max_step, exact_switching, progress, compiled,
                              max_steps)
    if rows_to is not None:
        rows_to = _rows_folder(rows_to)
    if times is None:    # before the grid, the stepper's table and the rows are made
        check_output_rows(system, t0, t_end, output_step)
        # a step spans at most ROWS_PER_STEP rows: a free flight's step grown to tens of
        # seconds would write millions of rows in one compiled call, out of Ctrl-C's reach
        max_step = min(max_step, ROWS_PER_STEP * output_step)
    stepper_class, method_class = _stepper(system, method_class, exact_switching, compiled,
                                           auto)
    moving = system.nq + system.nv     # the work accumulators follow: quadratures
    settings = Settings(rtol, atol, max_step, max_steps,
                        quadratures=(moving, moving + evaluator.work_size(system)))
    run = pieceloop.Run(system, stepper_class, method_class, settings, exact_switching, t0, t_end,
                        output_times(t0, t_end, output_step) if times is None else times,
                        ProgressBar(t0, t_end, _progress_enabled(progress), label="simulating"),
                        auto=auto, rows_to=rows_to)
    y = _initial_state(system, run.ev.data, q0, v0, t0)
    if run.controls is not None:    # the continuous controllers' states follow
        y = np.concatenate([y, run.controls.initial_states()])
    return run, y


def _rows_folder(folder):
    """``simulate``'s ``rows_to``: the folder made (TypeError for what is not a path,
    ValueError naming the folder and why it cannot be made or written)."""
    if not isinstance(folder, (str, os.PathLike)):
        raise TypeError(f"simulate: rows_to is a folder's path (str or path-like), got "
                        f"{type(folder).__name__}")
    folder = os.fspath(folder)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise ValueError(f"simulate: rows_to {folder!r} cannot be made: "
                         f"{err.strerror or err}") from None
    if not os.access(folder, os.W_OK):
        raise ValueError(f"simulate: rows_to {folder!r} is not writable")
    return folder


def _initial_state(system, data, q0, v0, t0):
    """The run's first y = [q, v, W] at t0 (s): the joints' initial values (``q0``, ``v0``
    overriding them), assembled onto the loops and drivers (with the run's ``data``), the
    work accumulators W at zero (see :mod:`mbd.run.evaluator`)."""
    state = system.initial_state(q0, v0, t0)
    q, v = state.q, state.v
    if system.cut_joints or system.drivers:
        q, v = assembly.initial(system, data, state, q0 or {}, v0 or {})
    return np.concatenate([q, v, np.zeros(evaluator.work_size(system))])


def _stepper(system, method_class, exact_switching, compiled, auto):
    """(the stepper class, the method) of a run: the compiled loop wherever it applies unless
    ``compiled`` is False (ValueError when it is True and the loop does not apply); scipy's
    LSODA for method "auto" from Python (it switches between explicit and implicit itself)."""
    blocker = loop_blocker(system, method_class, exact_switching)
    if compiled and blocker:
        raise ValueError(f"simulate: compiled=True, but the compiled stepper does not apply: "
                         f"{blocker}")
    if compiled is not False and not blocker:
        return CompiledStepper, method_class
    return ScipyStepper, integrate.LSODA if auto else method_class


def rhs_function(system):
    """f(t, y) -> dy/dt for y = [q, v], the force laws in the branches the initial state
    selects (for benchmarks and analysis; ``simulate`` handles the switching)."""
    ev = Evaluator(system)
    state = system.initial_state()
    ev.natural_mode(state.t, np.concatenate([state.q, state.v]))
    return Integrand(ev)
