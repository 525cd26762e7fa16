"""The one way to evaluate the mechanism at a state: :class:`Evaluator`.

An Evaluator holds a System's run-stage data (:class:`mbd.compiled.layout.Data`: its arrays
plus scratch) and evaluates it in the pipeline order of MuJoCo's ``mj_forward`` (position,
velocity, forces, accelerations, reactions), through the compiled kernels of
:mod:`mbd.compiled.statekernels`:

- :meth:`Evaluator.derivative`: dy/dt for y = [q, v] or, as a run integrates it, y = [q, v,
  W] (the force laws in the frozen mode, loops closed; W, :func:`work_size` of them, the
  work every force element and motion driver has done on the mechanism, J, integrated with
  the motion for the run's energy balance);
- :meth:`~Evaluator.switching`, :meth:`~Evaluator.natural_mode`, :meth:`~Evaluator.armed`:
  the force laws' branches;
- :meth:`~Evaluator.records`: what every force element reads and applies;
- :meth:`~Evaluator.reactions`: what every joint transmits and every driver applies;
- :meth:`~Evaluator.kinematics`: every link's pose and velocity, and the energy, at rows of
  states; :meth:`~Evaluator.record_rows` and :meth:`~Evaluator.reaction_rows` the records
  and reactions at rows in one compiled loop (:mod:`mbd.run.evaluatorrows`);
- :meth:`~Evaluator.residuals`: how far a state is from the constraints.

The run's right-hand side, the controllers' sampling (:mod:`mbd.run.controls`), a Result's
views (:class:`mbd.run.evaluation.Evaluation`), linearization and equilibrium all evaluate
through it. A mechanism uses one of the nine right-hand side variants (:func:`variant`), so it
compiles only the code it uses, and the integrator (:mod:`mbd.run.steppers.dop853`) calls
whichever it is given through its address (:meth:`Evaluator.addresses`), compiled once for
all of them. Parameters given as Python functions (a stiffness K(t)), the signals' held
values and motion drivers' motions are written into the data by :meth:`Evaluator.refresh`
before each evaluation, from Python.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numba import types

from ..compiled import assembly, forcekernels, lawkernels, layout, registry, sparsebuffer
from ..compiled.jit import native
from ..compiled.layout import NATURAL_MODE, RECORDS, SWITCHING
from ..compiled.statekernels import (
    constrained_forced,
    constrained_free,
    constraint_forces,
    controlled_constrained,
    controlled_tree_link,
    controlled_tree_world,
    elements_and_locks,
    elements_and_patches,
    elements_at,
    kinematics_rows,
    near_constraints,
    no_projection,
    no_switching,
    projection,
    tree_forced_link,
    tree_forced_world,
    tree_free_link,
    tree_free_world,
    tree_patches,
)
from ..model.state import State
from . import evaluatorrows
from .userfunctions import motion, parameter_row

# what writes the held signals (an mbd.run.controls.Controls, whose module imports this one)
# is hinted Any: type-only imports form no cycle either (DESIGN §9, tests/test_layout.py)
if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike

    from ..system.system import System

    #: what Python gives at every row (:func:`mbd.run.evaluatorrows.row_inputs`): (P,
    #: varying, D, prescribed)
    RowInputs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    #: {joint name: (force, moment)}, world, N and N m
    Wrenches = dict[str, tuple[np.ndarray, np.ndarray]]

#: the integrator's entry addresses, per kind of mechanism and data types (one process)
_ADDRESSES = {}


class Evaluator:
    """A System's run-stage data and how to evaluate the mechanism on it.

    Parameters
    ----------
    system : System
    projection_tol : float, optional
        The loops' projection tolerance (m, rad); default 1e-12 times the model's length
        scale.
    laws : bool
        False: the law kinds' addresses are installed later (:meth:`install_laws`, before any
        compiled call), so that a run's first compilation has them compiled by a second
        process meanwhile.
    held : object, optional
        What writes the law parameters that read signals (inputs, controllers' outputs) at
        (t, y): its ``apply(evaluator, t, y)`` (:class:`mbd.run.controls.Controls`), called by
        :meth:`refresh`.

    Attributes
    ----------
    system : System
    data : mbd.compiled.layout.Data
        The compiled data (its mode and parameters change during a run).
    rhs : numba dispatcher
        The compiled right-hand side variant this mechanism uses (:func:`variant`).
    varying : list of (int, Law)
        Force elements whose law parameters are Python functions of time (and state).
    held : object or None
        As the parameter.
    constrained : bool
        Loops or motion drivers.
    laws_installed : bool
        Whether the element records hold their law kinds' addresses.
    """

    def __init__(self, system: System, projection_tol: float | None = None, laws: bool = True,
                 held: Any = None) -> None:
        self.system, self.held = system, held
        self.data = layout.make_data(system.tree, system.elements, system.closures,
                                     system.driver_table, system.nq, system.nv,
                                     system.loop_pattern.copy(),
                                     sparsebuffer.buffer_size(system.loop_pattern),
                                     continuous_controllers(system), system.broad_shapes,
                                     system.broad_pairs, system.broad_points)
        self.data.loop[0]["projection_tol"] = (1e-12 * system.length_scale
                                               if projection_tol is None else projection_tol)
        self.varying = [(i, fe.law) for i, fe in enumerate(system.force_elements)
                        if fe.law.time_varying]
        self.rhs = variant(system)
        self.constrained = system.constrained
        self.entries = {}
        self.laws_installed = False
        if laws:
            self.install_laws()
        for i, fe in enumerate(system.force_elements):   # a user's numba f(t): called compiled
            fn = getattr(fe.law, "compiled_signal", None)
            if fn is not None:
                self.data.elements[i]["signal"] = native.address(
                    fn, types.float64(types.float64))
                self.data.elements[i]["signal_slot"] = fe.law.signal_slot

    # ------------------------------------------------------------------ compiled calls

    def install_laws(self) -> None:
        """The element records' law and measure addresses (:func:`install_laws`), once."""
        if not self.laws_installed:
            install_laws(self.data.elements)
            self.laws_installed = True

    def call(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)``, a compiled function called through its entry point for these
        argument types (:func:`mbd.compiled.jit.native.entry`, looked up once per data and
        function: the types of a System's data never change, and numba's dispatch would
        otherwise work out the type of every record array at every call)."""
        self.install_laws()           # no compiled call reads a record without them
        found = self.entries.get(function)
        if found is None:
            found = self.entries[function] = native.entry(function, args)
        return found(*args)

    @property
    def switching_function(self) -> Callable[..., Any]:
        """The compiled switching function for the integrator (a no-op without elements)."""
        if self.system.locks:
            return elements_and_locks
        if self.system.patches:
            return elements_and_patches
        return elements_at if self.data.elements.shape[0] else no_switching

    @property
    def records_function(self) -> Callable[..., Any]:
        """The compiled function that writes the element records at a state (RECORDS): the
        switching function's, which solves what a sticking contact patch needs."""
        return elements_and_patches if self.system.patches else elements_at

    @property
    def projection_function(self) -> Callable[..., Any]:
        """The compiled projection for the integrator (a no-op for a tree)."""
        return projection if self.constrained else no_projection

    def addresses(self) -> tuple[int, int, int, int]:
        """(right-hand side, switching function, projection, drift test): the addresses of
        the compiled functions the integrator calls for this mechanism
        (:mod:`mbd.compiled.jit.native`; compiled, or loaded from the cache, on first use,
        and remembered for the process). The drift test
        (:func:`mbd.compiled.statekernels.near_constraints`) only with constraints: 0 else
        (never called)."""
        key = (self.rhs, self.switching_function, self.projection_function, self.constrained,
               native.key(self.data))
        found = _ADDRESSES.get(key)
        if found is None:
            y, g, d = types.float64[::1], types.float64[:, ::1], native.typeof(self.data)
            found = _ADDRESSES[key] = (
                native.address(self.rhs, types.int64(types.float64, y, y, d)),
                native.address(self.switching_function, types.int64(y, g, d, types.int64)),
                native.address(self.projection_function, types.int64(y, d)),
                native.address(near_constraints, types.int64(y, d, types.float64))
                if self.constrained else 0)
        return found

    # ------------------------------------------------------------------ one state

    def refresh(self, t: float, y: np.ndarray) -> None:
        """Write the parameters given as Python functions, the signals' values (``held``)
        and the drivers' motions at (t, y).

        Raises
        ------
        UserFunctionError
            From any exception in those functions (chained), naming the element and t.
        """
        s = self.system
        if self.varying:
            state = State(t, y[:s.nq], y[s.nq:s.nq + s.nv])
            params = self.data.elements["params"]
            for i, law in self.varying:
                parameter_row(s, i, law, t, state, params[i])
        if self.held is not None:
            self.held.apply(self, t, y)
        drivers = self.data.drivers
        for k, d in enumerate(s.drivers):
            if d.prescribed:         # (a gear's row has no motion: always zero)
                drivers[k]["position"], drivers[k]["velocity"], drivers[k]["acceleration"] = \
                    motion(d, t)

    def derivative(self, t: float, y: ArrayLike,
                   dy: np.ndarray | None = None) -> tuple[np.ndarray, int]:
        """(dy/dt at (t, y), status): the compiled right-hand side in the current mode, after
        :meth:`refresh`. ``status``: 0, or what failed (:mod:`mbd.compiled.statekernels`)."""
        y = np.ascontiguousarray(y, dtype=float)
        dy = np.empty_like(y) if dy is None else dy
        self.refresh(t, y)
        status = int(self.call(self.rhs, float(t), y, dy, self.data))
        if self.held is not None and self.held.n_states and not self.held.compiled:
            self.held.state_derivative(t, y, dy)      # the rates of controllers from Python
        return dy, status

    def switching(self, t: float, y: ArrayLike, g: np.ndarray | None = None,
                  exact: bool = False) -> np.ndarray:
        """The switching functions (nf, SWITCHES) at (t, y) in the current mode; every
        contact point measured where ``exact``, else those the broad phase finds near (the
        others' gaps, in the records, only beyond their laws' reach: as the run sees them)."""
        y = np.ascontiguousarray(y, dtype=float)
        g = np.zeros((len(self.system.force_elements), layout.SWITCHES)) if g is None else g
        self.refresh(t, y)
        self.data.broad["exact"] += int(exact)
        try:
            self.call(self.switching_function, y, g, self.data, SWITCHING)
        finally:
            self.data.broad["exact"] -= int(exact)
        return g

    def natural_mode(self, t: float, y: ArrayLike) -> None:
        """Set the data's mode to the branches the state (t, y) selects."""
        if not self.system.force_elements:
            return
        y = np.ascontiguousarray(y, dtype=float)
        self.refresh(t, y)
        self.call(elements_at, y, np.zeros((len(self.system.force_elements), layout.SWITCHES)),
                  self.data, NATURAL_MODE)

    def next_mode(self, t: float, y: ArrayLike, i: int, k: int) -> None:
        """Move element i's sides in the data's mode to its kind's next mode after its
        switching function k crossed at (t, y) (by default: to k's other side)."""
        self.switching(t, y)       # the element's x and rate at the crossing
        E, X = self.data.elements[i], self.data.estate[i]
        lawkernels.next_mode(E["law"], E["params"], X["x"], X["xdot"],
                             self.data.mode[i]["sides"], k)

    def armed(self, sides: np.ndarray | None = None) -> np.ndarray:
        """Boolean mask (nf, SWITCHES) of the switching functions that can change a branch in
        the current mode (or the mode with the given ``sides``)."""
        data = self.data
        out = np.zeros((data.elements.shape[0], layout.SWITCHES), dtype=np.bool_)
        if not len(out):
            return out
        mode = data.mode
        if sides is not None:
            mode = mode.copy()
            mode["sides"] = sides
        self.call(forcekernels.armed, data.elements, mode, out)
        return out

    def records(self, t: float, y: ArrayLike, sides: np.ndarray,
                out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The element records (nf ELEMENT_STATE records) at (t, y) in the branches ``sides``
        (nf, SWITCHES), and the parameter rows in use; a sticking stiction element's value is
        its lock's force. The records are written into ``out`` when given (a row of a
        Result's table: one copy), else returned as a copy of the data's ``estate``; the
        parameter rows are the data's own (copy what is kept)."""
        y = np.ascontiguousarray(y, dtype=float)
        self.refresh(t, y)
        self.data.mode["sides"] = sides
        self.data.mode["reference"] = 0.0       # every line as it is (SPEC 3.1), not continued
        self.call(self.records_function, y, np.zeros((0, layout.SWITCHES)), self.data, RECORDS)
        if out is None:
            out = self.data.estate.copy()
        else:
            out[:] = self.data.estate
        stuck = [i for i in self.system.locks if sides[i, 1] < 0.0]
        if stuck:       # a sticking element's force is its lock's
            self.set_locks(sides)
            self.derivative(t, y)
            forces = self.lock_forces()
            for i in stuck:
                out[i]["value"] = forces[i]
        return out, self.data.elements["params"]

    def set_locks(self, sides: np.ndarray) -> bool:
        """Hold the rate of every stiction element that sticks in the mode ``sides`` (nf,
        SWITCHES) by its lock row, and release the others; when that changes the rows, the
        run's rank is taken again at the next evaluation. Returns whether it did."""
        drivers, s = self.data.drivers, self.system
        changed = False
        for k in range(len(s.drivers), len(drivers)):
            active = 1.0 if sides[drivers[k]["element"], 1] < 0.0 else 0.0
            if drivers[k]["active"] != active:
                drivers[k]["active"] = active
                changed = True
        if changed:
            self.data.loop[0]["rank"] = -1
        return changed

    def lock_forces(self) -> dict[int, float]:
        """{stiction element index: the force (N) or torque (N m) its lock applied on its
        coordinate in the last constrained evaluation} (zero for one that slips)."""
        s = self.system
        lam = np.zeros(s.n_rows)
        self.call(constraint_forces, self.data, lam)
        return dict(zip(s.locks, lam[s.n_rows - len(s.locks):].tolist()))

    def reactions(self, t: float, y: ArrayLike,
                  sides: ArrayLike) -> tuple[Wrenches, dict[str, float], int]:
        """Every joint's and driver's reaction at (t, y) in the branches ``sides``.

        Returns ``(wrenches, drivers, status)``: wrenches[name] = (force, moment) (world, N
        and N m, moment about the follower CS origin) that the joint transmits from its base
        to its follower; drivers[name] = the driving force or torque along the driven
        coordinate.
        """
        wrenches, drivers, _, status = self.reaction_rows([t], np.reshape(y, (1, -1)),
                                                          np.asarray(sides)[None])
        return ({name: (F[0], M[0]) for name, (F, M) in wrenches.items()},
                {name: float(value[0]) for name, value in drivers.items()}, status)

    def residuals(self, t: float, q: np.ndarray, v: np.ndarray) -> tuple[float, float]:
        """(max |g|, max |G v - rates|): how far (t, q, v) is from the constraints (m or rad,
        m/s or rad/s); zeros for a tree."""
        s = self.system
        if not (s.cut_joints or s.drivers):
            return 0.0, 0.0
        G, b, g, w = assembly.Rows(s, self.data)(t, assembly.normalized(s.tree, q), v)
        return float(np.abs(g).max()), float(np.abs(w).max())

    # ------------------------------------------------------------------ rows of states

    def kinematics(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(R (n, nl, 3, 3), p (n, nl, 3), V (n, nl, 6), E (n, 2)) at the rows Y (n, nq +
        nv): every link's rotation and origin (world, m), spatial velocity (link axes, rad/s
        and m/s) and [kinetic, gravitational] energy (J). R, p and V are views of link-major
        arrays: one link's rows, ``R[:, link]``, are contiguous, as the row kernels take
        them, without a copy."""
        n, nl = len(Y), self.system.n_links
        R, p, V, E = np.zeros((nl, n, 3, 3)), np.zeros((nl, n, 3)), np.zeros((nl, n, 6)), \
            np.zeros((n, 2))
        self.call(kinematics_rows, np.ascontiguousarray(Y, dtype=float), self.data, R, p, V, E)
        return R.transpose(1, 0, 2, 3), p.transpose(1, 0, 2), V.transpose(1, 0, 2), E

    def row_inputs(self, T: np.ndarray, Y: np.ndarray) -> RowInputs:
        """What Python gives at every row (:func:`mbd.run.evaluatorrows.row_inputs`)."""
        return evaluatorrows.row_inputs(self, T, Y)

    def record_rows(self, T: np.ndarray, Y: np.ndarray, SIDES: np.ndarray,
                    inputs: RowInputs | None = None) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        """The element records at every row (:func:`mbd.run.evaluatorrows.record_rows`)."""
        return evaluatorrows.record_rows(self, T, Y, SIDES, inputs)

    def reaction_rows(self, T: ArrayLike, Y: ArrayLike, SIDES: ArrayLike,
                      R: np.ndarray | None = None, p: np.ndarray | None = None,
                      accelerations: bool = False, inputs: RowInputs | None = None
                      ) -> tuple[Wrenches, dict[str, np.ndarray], np.ndarray | None, int]:
        """:meth:`reactions` at every row (:func:`mbd.run.evaluatorrows.reaction_rows`)."""
        return evaluatorrows.reaction_rows(self, T, Y, SIDES, R, p, accelerations, inputs)


def reactions_at(system: System, state: State, sides: np.ndarray | None = None
                 ) -> tuple[Wrenches, dict[str, float]]:
    """What every joint transmits and every motion driver applies at ``state`` (an
    :class:`mbd.State`), the force laws in the branches ``sides`` (nf, SWITCHES; default:
    the ones the state selects).

    Returns ``(wrenches, drivers)``: wrenches[joint name] = (force, moment), world, N and
    N m, the moment about the follower CS's origin, that the joint transmits from its base to
    its follower; drivers[name] = the force or torque the driver applies along its coordinate.
    """
    ev = Evaluator(system)
    y = np.concatenate([np.asarray(state.q, dtype=float), np.asarray(state.v, dtype=float)])
    if sides is None:
        ev.natural_mode(state.t, y)
        sides = ev.data.mode["sides"].copy()
    wrenches, drivers, _ = ev.reactions(state.t, y, sides)
    return wrenches, drivers


def variant(system: System) -> Callable[..., Any]:
    """The compiled right-hand side for ``system``'s kind of mechanism."""
    forced = len(system.force_elements) > 0
    sliding = bool(np.any(system.tree["jtype"] == layout.PRISMATIC))
    if continuous_controllers(system):      # evaluated where the loads are
        if system.constrained:
            return controlled_constrained
        return controlled_tree_link if sliding else controlled_tree_world
    if system.constrained:
        return constrained_forced if forced else constrained_free
    if system.patches:      # (build() refuses them with loops, drivers or controllers)
        return tree_patches
    if forced:
        return tree_forced_link if sliding else tree_forced_world
    return tree_free_link if sliding else tree_free_world


def continuous_controllers(system: System) -> int:
    """How many continuous controllers ``system`` has (a ``CONTROL`` record each)."""
    return sum(1 for c in system.controls if c.continuous)


def work_size(system: System) -> int:
    """How many work accumulators a run's state carries after [q, v]: one per force element,
    then one per motion driver, then one per contact point for its friction (J, the work
    each has done on the mechanism)."""
    return len(system.force_elements) + len(system.drivers) + len(contact_points(system))


def friction_work_start(system: System) -> int:
    """Where the contact points' friction work accumulators begin among W (after the force
    elements' and the motion drivers')."""
    return len(system.force_elements) + len(system.drivers)


def contact_points(system: System) -> list[int]:
    """The contact points' indices among the force elements, in order (their friction's
    work accumulators follow the drivers')."""
    return [i for i, fe in enumerate(system.force_elements) if fe.placement == "contact"]


def state_labels(system: System) -> list[str]:
    """What every entry of a run's state y = [q, v, W] is, for messages: "joint 'hinge' q",
    "joint 'free' v3", "work of 'spring'"."""
    labels = [""] * (system.nq + system.nv)
    for name, jm in system.joints.items():
        for what, index, offset in (("q", jm.q_index, 0), ("v", jm.v_index, system.nq)):
            for k, i in enumerate(np.atleast_1d(index)):
                suffix = f"{what}{k}" if np.size(index) > 1 else what
                labels[offset + int(i)] = f"joint '{name}' {suffix}"
    return labels + [f"work of '{e.name}'" for e in (*system.force_elements, *system.drivers)] + [
        f"work of '{system.force_elements[i].name}' friction" for i in contact_points(system)]


def install_laws(elements: np.ndarray) -> None:
    """Write into every element record the address of its law kind's kernel entry in this
    process, and of its placement's measure when that is compiled apart (each compiled, or
    loaded from the cache, the first time it is used)."""
    for i in range(elements.shape[0]):
        elements[i]["law_entry"] = registry.kind(int(elements[i]["law"])).entry()
        elements[i]["measure_entry"] = forcekernels.measure_entry(int(elements[i]["kind"]),
                                                                  int(elements[i]["pair"]))
