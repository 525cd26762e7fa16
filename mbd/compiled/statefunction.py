"""The dynamics at a state, from Python: one function f(t, y) for every mechanism, compiled
once (the compiled functions are :mod:`mbd.compiled.statekernels`).

A System's run-stage data is a :class:`mbd.compiled.layout.Data` (its arrays plus scratch), made by
:func:`state_data`. Everything the run stage and the analyses ask of a state is a free
function of that data:

- :func:`derivative`: dy/dt for y = [q, v] or, as a run integrates it, y = [q, v, W] (the
  force laws in the frozen mode, loops closed; W, :func:`work_size` of them, the work every
  force element and motion driver has done on the mechanism, J, integrated with the motion
  for the run's energy balance);
- :func:`switching`, :func:`natural_mode`, :func:`armed`: the force laws' branches;
- :func:`records`: what every force element reads and applies;
- :func:`reactions`: what every joint transmits and every driver applies;
- :func:`kinematics`: every link's pose and velocity, and the energy, at rows of states.

A mechanism uses one of the nine right-hand side variants (:func:`variant`), so it compiles
only the code it uses, and the integrator (:mod:`mbd.run.steppers.dop853`) calls whichever it
is given through its address (see :func:`addresses`), compiled once for all of them. Parameters
given as Python functions (a stiffness K(t)) and motion drivers' motions are written into the data
by :func:`refresh` before each evaluation, from Python.
"""
from dataclasses import dataclass, field

import numpy as np
from numba import types
from scipy.spatial.transform import Rotation

from . import (forcekernels, lawkernels, layout, loopstructure, registry, rowkernels,
               sparsekernels)
from .jit import native
from .layout import NATURAL_MODE, RECORDS, SWITCHING
from .statekernels import (constrained_forced, constrained_free, constraint_forces,
                           controlled_constrained, controlled_tree_link,
                           controlled_tree_world, elements_and_locks, elements_at,
                           kinematics_rows, near_constraints, no_projection, no_switching,
                           projection,
                           transmitted_loads, tree_forced_link, tree_forced_world,
                           tree_free_link, tree_free_world)
from ..model.state import State


_ADDRESSES = {}


def addresses(sd):
    """(right-hand side, switching function, projection, drift test): the addresses of the
    compiled functions the integrator calls for ``sd``'s mechanism (:mod:`mbd.compiled.jit.native`;
    compiled, or loaded from the cache, on first use, and remembered for the process). The
    drift test (:func:`mbd.compiled.statekernels.near_constraints`) only with constraints: 0
    else (never called)."""
    key = (sd.rhs, sd.switching_function, sd.projection_function, sd.constrained,
           native.key(sd.data))
    found = _ADDRESSES.get(key)
    if found is None:
        y, g, d = types.float64[::1], types.float64[:, ::1], native.typeof(sd.data)
        found = _ADDRESSES[key] = (
            native.address(sd.rhs, types.int64(types.float64, y, y, d)),
            native.address(sd.switching_function, types.int64(y, g, d, types.int64)),
            native.address(sd.projection_function, types.int64(y, d)),
            native.address(near_constraints, types.int64(y, d, types.float64))
            if sd.constrained else 0)
    return found


@dataclass
class StateData:
    """A System's run-stage data and how to evaluate it.

    :meth:`call` calls a compiled function on this data from Python: the types of a System's
    data never change, so each function's compiled entry point is looked up once (numba's
    dispatch would otherwise work out the type of every record array at every call).

    Attributes
    ----------
    system : System
    data : mbd.compiled.layout.Data
        The compiled data (its mode and parameters change during a run).
    rhs : numba dispatcher
        The compiled right-hand side variant this mechanism uses.
    varying : list of (int, Law)
        Force elements whose law parameters are Python functions of time (and state).
    held : object or None
        What writes the law parameters that read signals (inputs, controllers' outputs) at
        (t, y): its ``apply(sd, t, y)`` (:class:`mbd.run.controls.Controls`), called by
        :func:`refresh`.
    constrained : bool
        Loops or motion drivers.
    laws_installed : bool
        Whether the element records hold their law kinds' addresses
        (:func:`install_laws`); a run's first compilation installs them once a second process
        has compiled the kinds (:func:`mbd.run.warmup.first_right_hand_side`), and
        :meth:`call` before any compiled call.
    """

    system: object
    data: object
    rhs: object
    varying: list
    constrained: bool
    entries: dict = field(default_factory=dict)
    held: object = None
    laws_installed: bool = True

    def install_laws(self):
        """The element records' law and measure addresses (:func:`install_laws`), once."""
        if not self.laws_installed:
            install_laws(self.data.elements)
            self.laws_installed = True

    @property
    def nq(self):
        return self.system.nq

    def call(self, function, *args):
        """``function(*args)``, a compiled function called through its entry point for these
        argument types (:func:`mbd.compiled.jit.native.entry`, looked up once per data and
        function)."""
        self.install_laws()           # no compiled call reads a record without them
        found = self.entries.get(function)
        if found is None:
            found = self.entries[function] = native.entry(function, args)
        return found(*args)

    @property
    def switching_function(self):
        """The compiled switching function for the integrator (a no-op without elements)."""
        if self.system.locks:
            return elements_and_locks
        return elements_at if self.data.elements.shape[0] else no_switching

    @property
    def projection_function(self):
        """The compiled projection for the integrator (a no-op for a tree)."""
        return projection if self.constrained else no_projection


def variant(system):
    """The compiled right-hand side for ``system``'s kind of mechanism."""
    forced = len(system.force_elements) > 0
    sliding = bool(np.any(system.tree["jtype"] == layout.PRISMATIC))
    if continuous_controllers(system):      # evaluated where the loads are
        if system.constrained:
            return controlled_constrained
        return controlled_tree_link if sliding else controlled_tree_world
    if system.constrained:
        return constrained_forced if forced else constrained_free
    if forced:
        return tree_forced_link if sliding else tree_forced_world
    return tree_free_link if sliding else tree_free_world


def continuous_controllers(system):
    """How many continuous controllers ``system`` has (a ``CONTROL`` record each)."""
    return sum(1 for c in system.controls if c.continuous)


def work_size(system):
    """How many work accumulators a run's state carries after [q, v]: one per force element,
    then one per motion driver (J, the work each has done on the mechanism)."""
    return len(system.force_elements) + len(system.drivers)


def state_labels(system):
    """What every entry of a run's state y = [q, v, W] is, for messages: "joint 'hinge' q",
    "joint 'free' v3", "work of 'spring'"."""
    labels = [""] * (system.nq + system.nv)
    for name, jm in system.joints.items():
        for what, index, offset in (("q", jm.q_index, 0), ("v", jm.v_index, system.nq)):
            for k, i in enumerate(np.atleast_1d(index)):
                suffix = f"{what}{k}" if np.size(index) > 1 else what
                labels[offset + int(i)] = f"joint '{name}' {suffix}"
    return labels + [f"work of '{e.name}'" for e in (*system.force_elements, *system.drivers)]


def _loop_pattern(system):
    """``system``'s :func:`mbd.compiled.loopstructure.pattern`, worked out once per system (a
    small model's run spent a third of its time on it), a copy for each data."""
    pattern = system.__dict__.get("_loop_pattern")
    if pattern is None:
        pattern = loopstructure.pattern(system.tree, system.closures, system.driver_table,
                                        system.nv)
        object.__setattr__(system, "_loop_pattern", pattern)     # (a frozen dataclass)
    return pattern.copy()


def state_data(system, projection_tol=None, laws=True):
    """Fresh run-stage data for ``system`` (one per run or analysis: it holds scratch). With
    ``laws`` False the law kinds' addresses are installed later (:meth:`StateData.install_laws`,
    before any compiled call): a run's first compilation has them compiled by a second
    process meanwhile."""
    pat = _loop_pattern(system)
    data = layout.make_data(system.tree, system.elements, system.closures,
                            system.driver_table, system.nq, system.nv, pat,
                            sparsekernels.buffer_size(pat), continuous_controllers(system))
    data.loop[0]["projection_tol"] = (1e-12 * system.length_scale if projection_tol is None
                                   else projection_tol)
    varying = [(i, fe.law) for i, fe in enumerate(system.force_elements) if fe.law.time_varying]
    if laws:
        install_laws(data.elements)
    for i, fe in enumerate(system.force_elements):     # a user's numba f(t): called compiled
        fn = getattr(fe.law, "compiled_signal", None)
        if fn is not None:
            data.elements[i]["signal"] = native.address(fn, types.float64(types.float64))
            data.elements[i]["signal_slot"] = fe.law.signal_slot
    return StateData(system, data, variant(system), varying, system.constrained,
                     laws_installed=laws)


def install_laws(elements):
    """Write into every element record the address of its law kind's kernel entry in this
    process, and of its placement's measure when that is compiled apart (each compiled, or
    loaded from the cache, the first time it is used)."""
    for i in range(elements.shape[0]):
        elements[i]["law_entry"] = registry.kind(int(elements[i]["law"])).entry()
        elements[i]["measure_entry"] = forcekernels.measure_entry(int(elements[i]["kind"]))


class UserFunctionError(Exception):
    """A parameter function (a law's K(t), an actuator's value(t)) or a driver's motion
    raised, or returned what it must not, at time ``t``; ``element`` is the element's label.
    ``function`` names the function. The run turns it into a :class:`mbd.SimulationError`
    (``__cause__``: the original)."""

    def __init__(self, element, function, t):
        super().__init__(element, function, t)
        self.element, self.function, self.t = element, function, t


def _name(function):
    """How a message names a user's function: ``name()`` (a lambda: its parameters)."""
    name = getattr(function, "__name__", None)
    return f"its function {name}()" if name and name != "<lambda>" else "its function"


def refresh(sd, t, y):
    """Write the parameters given as Python functions, the signals' values (``sd.held``) and
    the drivers' motions at (t, y).

    Raises
    ------
    UserFunctionError
        From any exception in those functions (chained), naming the element and t.
    """
    s = sd.system
    if sd.varying:
        state = State(t, y[:s.nq], y[s.nq:s.nq + s.nv])
        params = sd.data.elements["params"]
        for i, law in sd.varying:
            _parameter_row(s, i, law, t, state, params[i])
    if sd.held is not None:
        sd.held.apply(sd, t, y)
    drivers = sd.data.drivers
    for k, d in enumerate(s.drivers):
        if d.prescribed:         # (a gear's row has no motion: always zero)
            drivers[k]["position"], drivers[k]["velocity"], drivers[k]["acceleration"] = \
                _motion(d, t)


def _parameter_row(s, i, law, t, state, out):
    """Force element i's parameter row at (t, state) into ``out``; raises
    UserFunctionError naming it."""
    try:
        lawkernels.parameter_row(law, t, state, out=out)
    except Exception as err:
        raise UserFunctionError(s.force_elements[i].label(), _name(law.signal), t) from err


def _motion(d, t):
    """(position, velocity, acceleration) of prescribed driver ``d`` at t; raises
    UserFunctionError naming it."""
    try:
        return d.motion(t)
    except Exception as err:
        raise UserFunctionError(d.driver.label(), "its motion", t) from err


def row_inputs(sd, T, Y):
    """What Python gives at every row (t, y) of T (n,), Y (n, width), for the compiled loops
    of :mod:`mbd.compiled.rowkernels`: (P, varying, D, prescribed) with P (n, len(varying),
    MAX_PARAMS) the parameter rows of the elements ``varying`` whose laws are Python functions,
    and D (n, len(prescribed), 3) the motions of the prescribed drivers ``prescribed``."""
    s, n = sd.system, len(T)
    varying = np.array([i for i, _ in sd.varying], dtype=np.int64)
    prescribed = np.array([k for k, d in enumerate(s.drivers) if d.prescribed],
                          dtype=np.int64)
    P = np.zeros((n, len(varying), layout.MAX_PARAMS))
    D = np.zeros((n, len(prescribed), 3))
    by_row = []         # the laws whose rows are not given for all times in one call
    for k, (i, law) in enumerate(sd.varying):
        rows = law.parameter_rows(T)
        if rows is None:
            by_row.append((k, i, law))
        else:
            P[:, k, :rows.shape[1]] = rows
    for r in range(n if by_row or len(prescribed) else 0):
        t, y = float(T[r]), Y[r]
        state = State(t, y[:s.nq], y[s.nq:s.nq + s.nv])
        for k, i, law in by_row:
            _parameter_row(s, i, law, t, state, P[r, k])
        for k, j in enumerate(prescribed):
            D[r, k] = _motion(s.drivers[j], t)
    return P, varying, D, prescribed


def _address(function, *args):
    """The entry address of compiled ``function`` for the types of ``args`` (compiled, or
    loaded from the cache, where the run has not used it yet)."""
    return native.address(function, types.int64(*(native.typeof(a) for a in args)))


def set_locks(sd, sides):
    """Hold the rate of every stiction element that sticks in the mode ``sides`` (nf,
    SWITCHES) by its lock row, and release the others; when that changes the rows, the run's
    rank is taken again at the next evaluation. Returns whether it did."""
    drivers, s = sd.data.drivers, sd.system
    changed = False
    for k in range(len(s.drivers), len(drivers)):
        active = 1.0 if sides[drivers[k]["element"], 1] < 0.0 else 0.0
        if drivers[k]["active"] != active:
            drivers[k]["active"] = active
            changed = True
    if changed:
        sd.data.loop[0]["rank"] = -1
    return changed


def lock_forces(sd):
    """{stiction element index: the force (N) or torque (N m) its lock applied on its
    coordinate in the last constrained evaluation} (zero for one that slips)."""
    s = sd.system
    lam = np.zeros(s.n_rows)
    sd.call(constraint_forces, sd.data, lam)
    return dict(zip(s.locks, lam[s.n_rows - len(s.locks):].tolist()))


def derivative(sd, t, y, dy=None):
    """(dy/dt at (t, y), status): the compiled right-hand side in the current mode, after
    :func:`refresh`. ``status`` as the module docstring says."""
    y = np.ascontiguousarray(y, dtype=float)
    dy = np.empty_like(y) if dy is None else dy
    refresh(sd, t, y)
    status = int(sd.call(sd.rhs, float(t), y, dy, sd.data))
    if sd.held is not None and sd.held.n_states and not sd.held.compiled:
        sd.held.state_derivative(t, y, dy)      # the rates of controllers run from Python
    return dy, status


def switching(sd, t, y, g=None):
    """The switching functions (nf, SWITCHES) at (t, y) in the current mode."""
    y = np.ascontiguousarray(y, dtype=float)
    g = np.zeros((len(sd.system.force_elements), layout.SWITCHES)) if g is None else g
    refresh(sd, t, y)
    sd.call(sd.switching_function, y, g, sd.data, SWITCHING)
    return g


def natural_mode(sd, t, y):
    """Set the data's mode to the branches the state (t, y) selects."""
    if not sd.system.force_elements:
        return
    y = np.ascontiguousarray(y, dtype=float)
    refresh(sd, t, y)
    sd.call(elements_at, y, np.zeros((len(sd.system.force_elements), layout.SWITCHES)), sd.data,
            NATURAL_MODE)


def next_mode(sd, t, y, i, k):
    """Move element i's sides in the data's mode to its kind's next mode after its switching
    function k crossed at (t, y) (by default: to k's other side)."""
    switching(sd, t, y)       # the element's x and rate at the crossing
    E, X = sd.data.elements[i], sd.data.estate[i]
    lawkernels.next_mode(E["law"], E["params"], X["x"], X["xdot"], sd.data.mode[i]["sides"],
                         k)


def armed(sd, sides=None):
    """Boolean mask (nf, SWITCHES) of the switching functions that can change a branch in the
    current mode (or the mode with the given ``sides``)."""
    data = sd.data
    out = np.zeros((data.elements.shape[0], layout.SWITCHES), dtype=np.bool_)
    if not len(out):
        return out
    mode = data.mode
    if sides is not None:
        mode = mode.copy()
        mode["sides"] = sides
    sd.call(forcekernels.armed, data.elements, mode, out)
    return out


def records(sd, t, y, sides, out=None):
    """The element records (nf ELEMENT_STATE records) at (t, y) in the branches ``sides``
    (nf, SWITCHES), and the parameter rows in use; a sticking stiction element's value is its
    lock's force. The records are written into ``out`` when given (a row of a Result's
    table: one copy), else returned as a copy of the data's ``estate``; the parameter rows are
    the data's own (copy what is kept)."""
    y = np.ascontiguousarray(y, dtype=float)
    refresh(sd, t, y)
    sd.data.mode["sides"] = sides
    sd.data.mode["reference"] = 0.0       # every line as it is (SPEC 3.1), not continued
    sd.call(elements_at, y, np.zeros((0, layout.SWITCHES)), sd.data, RECORDS)
    if out is None:
        out = sd.data.estate.copy()
    else:
        out[:] = sd.data.estate
    stuck = [i for i in sd.system.locks if sides[i, 1] < 0.0]
    if stuck:       # a sticking element's force is its lock's
        set_locks(sd, sides)
        derivative(sd, t, y)
        forces = lock_forces(sd)
        for i in stuck:
            out[i]["value"] = forces[i]
    return out, sd.data.elements["params"]


def record_rows(sd, T, Y, SIDES, inputs=None):
    """The element records (n, nf ELEMENT_STATE) at every row (t, y) of T (n,), Y (n, width)
    in the branches SIDES (n, nf, SWITCHES) (see :func:`records`), and {element: its
    parameter rows in use (n, MAX_PARAMS)} for the elements whose parameters change over the
    run (Python functions, signals).

    One compiled loop (:func:`mbd.compiled.rowkernels.records`) after the parameters of
    Python functions are worked out row by row (``inputs``: those of :func:`row_inputs`, when
    the caller has them); with held signals (``sd.held``) row by row (:func:`records`). A
    sticking stiction element's rows are then evaluated alone (its value is its lock's force,
    from the constrained solve).
    """
    s, data = sd.system, sd.data
    n, nf = len(T), len(s.force_elements)
    out = layout.records(layout.ELEMENT_STATE, (n, nf))
    if not n or not nf:
        return out, {}
    if sd.held is not None:
        varying = {i for i, _ in sd.varying} | {b[0] for b in sd.held.held + sd.held.computed}
        params = {i: np.zeros((n, layout.MAX_PARAMS)) for i in varying}
        for r in range(n):
            _, row = records(sd, T[r], Y[r], SIDES[r], out=out[r])
            for i in varying:
                params[i][r] = row[i]
        return out, params
    Y = np.ascontiguousarray(Y, dtype=float)
    SIDES = np.ascontiguousarray(SIDES, dtype=float)
    P, varying, _, _ = row_inputs(sd, T, Y) if inputs is None else inputs
    data.mode["reference"] = 0.0       # every line as it is (SPEC 3.1), not continued
    g = np.zeros((0, layout.SWITCHES))
    address = _address(elements_at, Y[0], g, data, RECORDS)
    sd.call(rowkernels.records, address, Y, SIDES, P, varying, data,
            data.estate.view(np.uint8), out.view(np.uint8).reshape(n, -1))
    if s.locks:     # rows where one sticks: its lock's force, from the constrained solve
        stuck = np.nonzero((SIDES[:, s.locks, 1] < 0.0).any(axis=1))[0]
        for r in stuck:
            records(sd, T[r], Y[r], SIDES[r], out=out[r])
    return out, {i: P[:, k] for k, i in enumerate(varying)}


def kinematics(sd, Y):
    """(R (n, nl, 3, 3), p (n, nl, 3), V (n, nl, 6), E (n, 2)) at the rows Y (n, nq + nv)
    (see :func:`kinematics_rows`). R, p and V are views of link-major arrays: one link's
    rows, ``R[:, link]``, are contiguous, as the row kernels take them, without a copy."""
    n, nl = len(Y), sd.system.n_links
    R, p, V, E = np.zeros((nl, n, 3, 3)), np.zeros((nl, n, 3)), np.zeros((nl, n, 6)), \
        np.zeros((n, 2))
    sd.call(kinematics_rows, np.ascontiguousarray(Y, dtype=float), sd.data, R, p, V, E)
    return R.transpose(1, 0, 2, 3), p.transpose(1, 0, 2), V.transpose(1, 0, 2), E


def reactions(sd, t, y, sides):
    """Every joint's and driver's reaction at (t, y) in the branches ``sides``.

    Returns ``(wrenches, drivers, status)``: wrenches[name] = (force, moment) (world, N and
    N m, moment about the follower CS origin) that the joint transmits from its base to its
    follower; drivers[name] = the driving force or torque along the driven coordinate.
    """
    wrenches, drivers, _, status = reaction_rows(sd, [t], np.reshape(y, (1, -1)),
                                                 np.asarray(sides)[None])
    return ({name: (F[0], M[0]) for name, (F, M) in wrenches.items()},
            {name: float(value[0]) for name, value in drivers.items()}, status)


def reaction_rows(sd, T, Y, SIDES, R=None, p=None, accelerations=False, inputs=None):
    """:func:`reactions` at every row (t, y) of ``T`` (n,), ``Y`` (n, width) in the branches
    ``SIDES`` (n, nf, SWITCHES): the compiled evaluation at each row (right-hand side,
    constraint forces, transmitted loads), what each joint transmits turned into world
    wrenches for all rows at once.

    ``R`` (n, n_links, 3, 3), ``p`` (n, n_links, 3): the links' world rotations and origins
    at the rows, when the caller has them (a Result's); else they are taken from each
    evaluation. ``inputs``: the rows' :func:`row_inputs`, when the caller has them.

    One compiled loop (:func:`mbd.compiled.rowkernels.reactions`); row by row from Python
    where the rows need what only Python gives at each (held signals, locks).

    Returns ``(wrenches, drivers, acc, status)``: wrenches[name] = (force (n, 3), moment
    (n, 3)); drivers[name] = (n,); acc: every link's spatial acceleration (n, n_links, 6,
    link coordinates, gravity in it as the RNEA's base acceleration) with ``accelerations``,
    else None; status: the last nonzero status of the right-hand side, else 0.
    """
    s = sd.system
    data = sd.data
    n, nl = len(T), s.n_links
    names = list(s.joints)
    first = np.array([s.joints[name].links[0] for name in names], dtype=np.int64)
    loads = np.zeros((n, len(names), 6))
    lam = np.zeros((n, s.n_rows))
    acc = np.zeros((n, nl, 6)) if accelerations else np.zeros((0, 0, 6))
    poses = R is None
    if poses:
        R, p = np.zeros((n, nl, 3, 3)), np.zeros((n, nl, 3))
    Y = np.ascontiguousarray(Y, dtype=float)
    T = np.ascontiguousarray(T, dtype=float)
    SIDES = np.ascontiguousarray(SIDES, dtype=float)
    if sd.held is not None or s.locks:
        status = _reaction_rows_from_python(sd, T, Y, SIDES, first, loads, lam, acc, R, p,
                                            accelerations, poses)
    elif n:
        P, varying, D, prescribed = row_inputs(sd, T, Y) if inputs is None else inputs
        dy, work = np.empty(Y.shape[1]), np.zeros(s.nv)
        addresses = np.array([
            _address(sd.rhs, float(T[0]), Y[0], dy, data),
            _address(constraint_forces, data, lam[0]) if s.n_rows else 0,
            _address(transmitted_loads, Y[0], dy, data, lam[0], work)], dtype=np.int64)
        status = int(sd.call(rowkernels.reactions, addresses, T, Y, SIDES, P, varying, D,
                             prescribed, data, first, loads, lam, acc, R if poses else
                             np.zeros((0, 0, 3, 3)), p if poses else np.zeros((0, 0, 3)),
                             accelerations, poses))
    else:
        status = 0
    return (_wrenches(s, names, loads, lam, R, p), _driver_values(s, lam),
            acc if accelerations else None, status)


def _reaction_rows_from_python(sd, T, Y, SIDES, first, loads, lam, acc, R, p, accelerations,
                               poses):
    """:func:`reaction_rows`' loop row by row from Python: where the rows need what only
    Python gives at each (held signals, the locks of sticking elements)."""
    s, data = sd.system, sd.data
    links = data.links
    status, work = 0, np.zeros(s.nv)
    for i in range(len(T)):
        data.mode["sides"] = SIDES[i]
        set_locks(sd, SIDES[i])        # the locks that hold in these branches, before the solve
        dy, row_status = derivative(sd, T[i], Y[i])
        status = row_status or status
        if s.n_rows:
            sd.call(constraint_forces, data, lam[i])
        sd.call(transmitted_loads, Y[i], dy, data, lam[i], work)
        loads[i] = links["f"][first]
        if accelerations:
            acc[i] = links["acc"]
        if poses:
            R[i] = np.transpose(links["E0"], (0, 2, 1))
            p[i] = links["p0"]
    return status


def rotate_rows(R, v, transpose=False):
    """R[n] v[n] (or R[n]^T v[n]) at every row: R (n, 3, 3), v (n, 3) or (3,); (n, 3), in
    one compiled pass (:func:`mbd.compiled.rowkernels.rotate`; numpy's einsum takes several
    times as long on such rows)."""
    R, v = _plain(R), np.asarray(v, dtype=float)
    v = _plain(np.tile(v, (len(R), 1)) if v.ndim == 1 else v)
    out = np.empty((len(R), 3))
    rowkernels.rotate(R, v, bool(transpose), out)
    return out


def _plain(a):
    """``a`` as a writable C-contiguous float array (copied only when it is not one): the one
    type the row kernels are compiled for."""
    a = np.asarray(a, dtype=float)
    return a if a.flags.c_contiguous and a.flags.writeable else np.array(a, order="C")


def rotations(R):
    """The scipy Rotation of the rotation matrices R (n, 3, 3), through their quaternions
    (:func:`mbd.compiled.rowkernels.quaternions`): scipy's ``from_matrix`` also checks and
    orthogonalizes every matrix, which rows of rotations from the kinematics do not need."""
    R = _plain(R)
    q = np.empty((len(R), 4))
    rowkernels.quaternions(R, q)
    return Rotation.from_quat(q, scalar_first=True)


def _wrenches(s, names, loads, lam, R, p):
    """{joint: (force, moment)} (n, 3) each, world, from each joint's first link's load
    ``loads`` (n, joints, 6: [moment; force] in link coordinates, from the parent side) and
    the cut joints' multipliers ``lam`` (n, rows): the moment about the follower CS origin."""
    cut = {name: c for c, name in enumerate(s.cut_joints)}
    out = {}
    for k, name in enumerate(names):
        jm = s.joints[name]
        link, local, _ = s.cs_placement(jm.joint.follower)
        p_f = (np.broadcast_to(local, (len(lam), 3)) if link < 0
               else p[:, link] + rotate_rows(R[:, link], local))
        if name in cut:
            c = cut[name]
            force, moment = -lam[:, 6 * c + 3:6 * c + 6], -lam[:, 6 * c:6 * c + 3]
            end = p[:, s.closures[c]["end"]]
            out[name] = (force, moment + np.cross(end - p_f, force))
            continue
        top = jm.links[0]
        force = rotate_rows(R[:, top], loads[:, k, 3:])
        moment = (rotate_rows(R[:, top], loads[:, k, :3])
                  + np.cross(p[:, top] - p_f, force))
        # the chain's parent side exerts this on it; reversed, that side is the follower
        out[name] = (-force, -moment) if jm.reversed else (force, moment)
    return out


def _driver_values(s, lam):
    """{driver or gear: its force or torque along its coordinate (n,)} from ``lam``."""
    start = 6 * len(s.cut_joints)
    return {d.name: lam[:, start + k].copy() for k, d in enumerate(s.drivers)}

