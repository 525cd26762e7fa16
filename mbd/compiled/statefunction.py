"""The dynamics at a state: one function f(t, y) for every mechanism, compiled once.

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

The compiled right-hand side comes in six variants with one signature — tree or constrained
(loops, motion drivers), with or without force elements, and for trees the world-frame or the
link-frame articulated-body algorithm — so a mechanism compiles only the code it uses, and the
integrator (:mod:`mbd.run.stepper`) calls whichever it is given through its address (see
:func:`addresses`), compiled once for all of them. Near a change point of the loops the
constrained variants evaluate at the state moved onto the constraints (:func:`_constrained_rhs`,
:mod:`mbd.compiled.loopsolve`).

Return codes of the compiled functions: 0; the index + 1 of a force element whose load
direction is undefined; or a negative code of :mod:`mbd.compiled.loopsolve` (the rank rule's
verdict). Parameters given as Python functions (a stiffness K(t)) and motion drivers' motions
are written into the data by :func:`refresh` before each evaluation, from Python.
"""
from dataclasses import dataclass, field

import numpy as np
from numba import types

from . import (forcekernels, kernels, lawkernels, layout, loopkernels, loopsolve, loopstructure,
               native, sparsekernels)
from .jitcache import njit
from .layout import NATURAL_MODE, RECORDS, SWITCHING
from ..model.state import State

# ----------------------------------------------------------------------------- compiled


@njit(inline="always")
def _start(y, dy, data):
    """Normalized q into data.q and its rates into dy[:nq]; returns (q, v, the slot of the
    accelerations in dy)."""
    q = data.q
    nq = q.shape[0]
    nv = data.tau.shape[0]
    v = y[nq:nq + nv]
    kernels.normalize_quaternions(y[:nq], data.tree, q)
    kernels.quaternion_rates(q, v, data.tree, dy[:nq])
    return q, v, dy[nq:nq + nv]


@njit(inline="always")
def _work_rates(v, dy, data):
    """When y carries the work accumulators (dy longer than nq + nv), the power of every
    force element (law value times the rate of what it reads, W) and, after a constrained
    solve, of every driver (its force times its coordinate's rate) into them."""
    n = data.q.shape[0] + v.shape[0]
    if dy.shape[0] == n:
        return
    estate = data.estate
    nf = estate.shape[0]
    for i in range(nf):
        X = estate[i]
        dy[n + i] = X.value * X.xdot if X.status == 0 else 0.0
    nd = data.drivers.shape[0]
    if nd:
        m = 6 * data.closures.shape[0] + nd
        lam = sparsekernels.views(data.loopbuf, data.pattern).lam
        for k in range(nd):
            D = data.drivers[k]
            power = lam[m - nd + k] * (v[D.v_index] - D.ratio * v[D.coupled_v])
            if D.element >= 0:      # a stiction lock: its force's work is its element's
                dy[n + D.element] += power
            else:
                dy[n + nf + k] = power


@njit()
def tree_free_world(t, y, dy, data):
    """dy/dt of a tree without force elements or prismatic primitives (world-frame ABA)."""
    q, v, acc = _start(y, dy, data)
    kernels.link_transforms(q, data.tree, data.links, data.scratch)
    kernels.aba_world(v, data.tau, data.tree, data.links, data.scratch, acc)
    return 0


@njit()
def tree_free_link(t, y, dy, data):
    """dy/dt of a tree without force elements (link-frame ABA: links may slide away)."""
    q, v, acc = _start(y, dy, data)
    kernels.link_velocities(q, v, data.tree, data.links, data.scratch)
    kernels.aba(v, data.tau, data.tree, data.links, data.scratch, acc)
    return 0


@njit(inline="always")
def _loads(q, v, data):
    """The force elements' loads into the links' fext and data.tau; returns their status."""
    kernels.clear_loads(data.links, data.tau)
    return forcekernels.element_loads(q, v, data.elements, data.estate, data.mode, data.links,
                                      data.scratch, data.tau)


@njit()
def tree_forced_world(t, y, dy, data):
    """dy/dt of a tree with force elements and no prismatic primitives."""
    q, v, acc = _start(y, dy, data)
    kernels.link_velocities(q, v, data.tree, data.links, data.scratch)
    bad = _loads(q, v, data)
    kernels.aba_world(v, data.tau, data.tree, data.links, data.scratch, acc)
    _work_rates(v, dy, data)
    return bad


@njit()
def tree_forced_link(t, y, dy, data):
    """dy/dt of a tree with force elements (link-frame ABA)."""
    q, v, acc = _start(y, dy, data)
    kernels.link_velocities(q, v, data.tree, data.links, data.scratch)
    bad = _loads(q, v, data)
    kernels.aba(v, data.tau, data.tree, data.links, data.scratch, acc)
    _work_rates(v, dy, data)
    return bad


@njit(inline="always")
def _solve(q, v, data, acc):
    """The constrained accelerations (the solve's ``xp``) and constraint forces (``lam``) in
    the data's buffer (the kinematics and loads done): RNEA bias, the constraint rows and the
    sparse solve (:func:`mbd.compiled.loopsolve.dynamics`); the accelerations also into acc (nv).
    Returns the rank rule's verdict, or 1 where the accelerations are not finite (a trial
    state too far out: they are NaN then, for the integrator's error control to reject)."""
    nv = v.shape[0]
    V_ = sparsekernels.views(data.loopbuf, data.pattern)
    z = V_.x
    for k in range(nv):
        z[k] = 0.0
    kernels.rnea(z, data.tree, data.links, data.scratch, V_.f)     # C
    for k in range(nv):
        V_.f[k] = data.tau[k] - V_.f[k]                            # f = tau - C
    loopkernels.constraint_rows(q, v, data.tree, data.links, data.scratch, data.closures,
                                data.drivers, V_.G, V_.b, V_.g)
    status = loopsolve.dynamics(V_, data.pattern, data.loop, data.drivers, data.tree,
                                data.links, data.scratch)
    if status == 1 or not loopkernels.finite(V_.xp):
        for k in range(nv):
            V_.xp[k] = np.nan
        status = 1
    for k in range(nv):
        acc[k] = V_.xp[k]
    return status


@njit(inline="always")
def _constrained(q, v, acc, dy, data, bad):
    """The constrained accelerations into acc (the kinematics and loads done), the work rates
    into dy's accumulators (when it has them) (:func:`_solve`)."""
    status = _solve(q, v, data, acc)
    if status == 1:           # not finite: NaN accelerations, no verdict
        return bad
    _work_rates(v, dy, data)
    return bad if bad != 0 else status


@njit()
def _constrained_at(y, dy, data, forced):
    """dy/dt at y of a mechanism with loops or motion drivers (and force elements where
    ``forced``); compiled once, called up to twice per evaluation (not inlined)."""
    q, v, acc = _start(y, dy, data)
    kernels.link_velocities(q, v, data.tree, data.links, data.scratch)
    bad = _loads(q, v, data) if forced else 0
    return _constrained(q, v, acc, dy, data, bad)


@njit(inline="always")
def _constrained_rhs(y, dy, data, forced):
    """dy/dt at y; near a change point (a direction weaker than
    :data:`mbd.compiled.loopsolve.NEAR_CROSSING`), at y moved onto the constraints
    (:func:`mbd.compiled.loopsolve.project`): there the motion turns off its branch by its offset over
    the direction's strength squared, and an integrator's stage, which is off the
    constraints by its own error, would take it along."""
    bad = _constrained_at(y, dy, data, forced)
    if data.closures.shape[0] == 0 or bad != 0 or \
            not data.loop[0].smallest < loopsolve.NEAR_CROSSING:
        return bad
    nq, nv = data.q.shape[0], data.tau.shape[0]
    yp = sparsekernels.views(data.loopbuf, data.pattern).yp
    for i in range(nq + nv):
        yp[i] = y[i]
    if projection(yp, data) != 0:       # not onto the branch here: as it is
        return _constrained_at(y, dy, data, forced)
    return _constrained_at(yp, dy, data, forced)


@njit()
def constrained_free(t, y, dy, data):
    """dy/dt of a mechanism with loops or motion drivers and no force elements."""
    return _constrained_rhs(y, dy, data, False)


@njit()
def constrained_forced(t, y, dy, data):
    """dy/dt of a mechanism with loops or motion drivers and force elements."""
    return _constrained_rhs(y, dy, data, True)


@njit()
def no_switching(y, g, data, task):
    """The switching functions of a mechanism without force elements: none."""
    return 0


@njit()
def elements_at(y, g, data, task):
    """The force elements at y, in the current mode: their switching functions into g
    (nf, SWITCHES) (``task`` SWITCHING), the mode the state selects into data.mode
    (NATURAL_MODE; g is scratch) or their records into data.estate (RECORDS; a line without a
    reference direction measured as it is). Returns the records' status as element_loads,
    else 0."""
    q = data.q
    nq = q.shape[0]
    v = y[nq:nq + data.tau.shape[0]]
    kernels.normalize_quaternions(y[:nq], data.tree, q)
    kernels.link_velocities(q, v, data.tree, data.links, data.scratch)
    if task == SWITCHING:
        forcekernels.switching_values(q, v, data.elements, data.estate, data.mode, data.links,
                                      data.scratch, g)
    elif task == NATURAL_MODE:
        forcekernels.natural_mode(q, v, data.elements, data.estate, data.mode, data.links,
                                  data.scratch, g)
    else:
        return _loads(q, v, data)
    return 0


@njit()
def elements_and_locks(y, g, data, task):
    """:func:`elements_at` for a mechanism with stiction elements: while one sticks, its
    breakaway switching function (slot 1) is |lambda| - f_s, lambda the force its lock
    needs, from the constrained solve at y (the loads and the solve overwrite the data's
    scratch, as an evaluation of the right-hand side does)."""
    status = elements_at(y, g, data, task)
    if task != SWITCHING:
        return status
    drivers = data.drivers
    nd = drivers.shape[0]
    stuck = False
    for k in range(nd):          # a lock that holds (drivers and gears hold always)
        stuck = stuck or (drivers[k].element >= 0 and drivers[k].active > 0.0)
    if not stuck:
        return 0
    q = data.q
    v = y[q.shape[0]:q.shape[0] + data.tau.shape[0]]
    _loads(q, v, data)
    V_ = sparsekernels.views(data.loopbuf, data.pattern)
    _solve(q, v, data, V_.x)     # the accelerations into work (only lam is wanted)
    m = 6 * data.closures.shape[0] + nd
    for k in range(nd):
        D = drivers[k]
        if D.element >= 0 and D.active > 0.0:
            g[D.element, 1] = abs(V_.lam[m - nd + k]) - data.elements[D.element].params[0]
    return 0


@njit()
def no_projection(y, data):
    """A tree has no constraints to project onto."""
    return 0


@njit()
def projection(y, data):
    """y moved onto the constraints in place (:func:`mbd.compiled.loopsolve.project`)."""
    return loopsolve.project(y, data.q.shape[0], data.tau.shape[0], data.tree, data.links,
                             data.scratch, data.closures, data.drivers, data.loopbuf,
                             data.pattern, data.loop)


@njit(inline="always")
def _add_closure_force(links, link, sign, lam, c, p):
    """links[link].fext += sign * closure c's force lam (world [moment about p; force])."""
    if link < 0:
        return
    S = links[link]
    d0, d1, d2 = p[0] - S.p0[0], p[1] - S.p0[1], p[2] - S.p0[2]
    f0, f1, f2 = lam[6 * c + 3], lam[6 * c + 4], lam[6 * c + 5]
    m0 = lam[6 * c] + d1 * f2 - d2 * f1          # the moment about the link origin
    m1 = lam[6 * c + 1] + d2 * f0 - d0 * f2
    m2 = lam[6 * c + 2] + d0 * f1 - d1 * f0
    for a in range(3):
        S.fext[a] += sign * (S.E0[a, 0] * m0 + S.E0[a, 1] * m1 + S.E0[a, 2] * m2)
        S.fext[3 + a] += sign * (S.E0[a, 0] * f0 + S.E0[a, 1] * f1 + S.E0[a, 2] * f2)


@njit()
def constraint_forces(data, out):
    """out (m) = the constraint forces of the last constrained evaluation: per cut joint the
    world [moment; force] on its chain's end (the follower feels minus that, moment about the
    chain's end), then the drivers' forces along their coordinates."""
    m = out.shape[0]
    lam = sparsekernels.views(data.loopbuf, data.pattern).lam
    for k in range(m):
        out[k] = lam[k]


@njit()
def transmitted_loads(y, dy, data, lam, tau):
    """Every link's force from its parent side (the links' ``f``) at y with the accelerations
    dy[nq:] and the constraint forces lam (see :func:`constraint_forces`), after a
    right-hand-side evaluation at y left the element loads in the data: the closures' forces
    act on the chains' ends and, reversed, on the followers' links (and are taken off again).
    ``tau`` (nv) receives the generalized forces."""
    q = data.q
    nq = q.shape[0]
    nv = data.tau.shape[0]
    tree, links, scratch, closures = data.tree, data.links, data.scratch, data.closures
    kernels.link_velocities(q, y[nq:nq + nv], tree, links, scratch)
    for sign in (1.0, -1.0):       # on for RNEA, then off again: fext keeps the elements' loads
        for c in range(closures.shape[0]):
            p = links[closures[c].end].p0
            _add_closure_force(links, closures[c].end, sign, lam, c, p)
            _add_closure_force(links, closures[c].base, -sign, lam, c, p)
        if sign > 0.0:
            kernels.rnea(dy[nq:nq + nv], tree, links, scratch, tau)


@njit()
def kinematics_rows(Y, data, R, p, V, E):
    """At every row of Y (n, nq + nv): the world rotation R (n, nl, 3, 3) and origin p
    (n, nl, 3) of every link, its spatial velocity V (n, nl, 6, link coordinates) and the
    tree's kinetic and potential energy E (n, 2)."""
    q = data.q
    nq = q.shape[0]
    nv = data.tau.shape[0]
    links = data.links
    for n in range(Y.shape[0]):
        kernels.normalize_quaternions(Y[n, :nq], data.tree, q)
        kernels.link_velocities(q, Y[n, nq:nq + nv], data.tree, links, data.scratch)
        for i in range(links.shape[0]):
            for a in range(3):
                p[n, i, a] = links[i].p0[a]
                for b in range(3):
                    R[n, i, a, b] = links[i].E0[b, a]
            for k in range(6):
                V[n, i, k] = links[i].vel[k]
        E[n, 0], E[n, 1] = kernels.energies(data.tree, links, data.scratch)


# ----------------------------------------------------------------------------- Python side

_ADDRESSES = {}


def addresses(sd):
    """(right-hand side, switching function, projection): the addresses of the compiled
    functions the integrator calls for ``sd``'s mechanism (:mod:`mbd.compiled.native`; compiled, or
    loaded from the cache, on first use, and remembered for the process)."""
    key = (sd.rhs, sd.switching_function, sd.projection_function, native.key(sd.data))
    found = _ADDRESSES.get(key)
    if found is None:
        y, g, d = types.float64[::1], types.float64[:, ::1], native.typeof(sd.data)
        found = _ADDRESSES[key] = (
            native.address(sd.rhs, types.int64(types.float64, y, y, d)),
            native.address(sd.switching_function, types.int64(y, g, d, types.int64)),
            native.address(sd.projection_function, types.int64(y, d)))
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
    constrained : bool
        Loops or motion drivers.
    """

    system: object
    data: object
    rhs: object
    varying: list
    constrained: bool
    entries: dict = field(default_factory=dict)

    @property
    def nq(self):
        return self.system.nq

    def call(self, function, *args):
        """``function(*args)``, a compiled function called through its entry point for these
        argument types (:func:`mbd.compiled.native.entry`, looked up once per data and function)."""
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
    if system.constrained:
        return constrained_forced if forced else constrained_free
    sliding = bool(np.any(system.tree["jtype"] == layout.PRISMATIC))
    if forced:
        return tree_forced_link if sliding else tree_forced_world
    return tree_free_link if sliding else tree_free_world


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


def state_data(system, projection_tol=None):
    """Fresh run-stage data for ``system`` (one per run or analysis: it holds scratch)."""
    pat = loopstructure.pattern(system.tree, system.closures, system.driver_table, system.nv)
    data = layout.make_data(system.tree, system.elements, system.closures,
                            system.driver_table, system.nq, system.nv, pat,
                            sparsekernels.buffer_size(pat))
    data.loop[0]["projection_tol"] = (1e-12 * system.length_scale if projection_tol is None
                                   else projection_tol)
    varying = [(i, fe.law) for i, fe in enumerate(system.force_elements) if fe.law.time_varying]
    return StateData(system, data, variant(system), varying, system.constrained)


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
    """Write the parameters given as Python functions and the drivers' motions at (t, y).

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
            try:
                params[i] = lawkernels.parameter_row(law, t, state)
            except Exception as err:
                raise UserFunctionError(s.force_elements[i].label(), _name(law.signal), t) \
                    from err
    drivers = sd.data.drivers
    for k, d in enumerate(s.drivers):
        if not d.prescribed:         # a gear: its row's motion is always zero
            continue
        try:
            drivers[k]["position"], drivers[k]["velocity"], drivers[k]["acceleration"] = \
                d.motion(t)
        except Exception as err:
            raise UserFunctionError(d.driver.label(), "its motion", t) from err


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
    return dy, int(sd.call(sd.rhs, float(t), y, dy, sd.data))


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


def records(sd, t, y, sides):
    """The element records (a copy of the data's ``estate``, nf ELEMENT_STATE records) at
    (t, y) in the branches ``sides`` (nf, SWITCHES), and the parameter rows in use; a
    sticking stiction element's value is its lock's force."""
    y = np.ascontiguousarray(y, dtype=float)
    refresh(sd, t, y)
    sd.data.mode["sides"] = sides
    sd.data.mode["reference"] = 0.0       # every line as it is (SPEC 3.1), not continued
    sd.call(elements_at, y, np.zeros((0, layout.SWITCHES)), sd.data, RECORDS)
    estate, params = sd.data.estate.copy(), sd.data.elements["params"].copy()
    stuck = [i for i in sd.system.locks if sides[i, 1] < 0.0]
    if stuck:       # a sticking element's force is its lock's
        set_locks(sd, sides)
        derivative(sd, t, y)
        forces = lock_forces(sd)
        for i in stuck:
            estate[i]["value"] = forces[i]
    return estate, params


def kinematics(sd, Y):
    """(R, p, V, E) at the rows Y (n, nq + nv) (see :func:`kinematics_rows`)."""
    n, nl = len(Y), sd.system.n_links
    R, p, V, E = np.zeros((n, nl, 3, 3)), np.zeros((n, nl, 3)), np.zeros((n, nl, 6)), \
        np.zeros((n, 2))
    sd.call(kinematics_rows, np.ascontiguousarray(Y, dtype=float), sd.data, R, p, V, E)
    return R, p, V, E


def reactions(sd, t, y, sides):
    """Every joint's and driver's reaction at (t, y) in the branches ``sides``.

    Returns ``(wrenches, drivers, status)``: wrenches[name] = (force, moment) (world, N and
    N m, moment about the follower CS origin) that the joint transmits from its base to its
    follower; drivers[name] = the driving force or torque along the driven coordinate.
    """
    s = sd.system
    data = sd.data
    y = np.ascontiguousarray(y, dtype=float)
    data.mode["sides"] = sides
    set_locks(sd, sides)        # the locks that hold in these branches, before the solve
    dy, status = derivative(sd, t, y)
    lam = np.zeros(s.n_rows)
    if len(lam):
        sd.call(constraint_forces, data, lam)
    sd.call(transmitted_loads, y, dy, data, lam, np.zeros(s.nv))
    links = data.links
    E0, p0 = links["E0"], links["p0"]
    cut = {}
    for c, name in enumerate(s.cut_joints):
        mom, f = lam[6 * c:6 * c + 3], lam[6 * c + 3:6 * c + 6]
        cut[name] = (-f, -mom, p0[s.closures[c]["end"]].copy())
    drivers = {d.name: float(lam[6 * len(s.cut_joints) + k]) for k, d in enumerate(s.drivers)}
    wrenches = {}
    for name, jm in s.joints.items():
        link, local, _ = s.cs_placement(jm.joint.follower)
        p_f = local if link < 0 else p0[link] + E0[link].T @ local
        if name in cut:
            F, M, p = cut[name]
            wrenches[name] = (F, M + np.cross(p - p_f, F))
            continue
        first = jm.links[0]
        R = E0[first].T
        F = R @ links[first]["f"][3:]
        M = R @ links[first]["f"][:3] + np.cross(p0[first] - p_f, F)
        # the chain's parent side exerts this on it; reversed, that side is the follower
        wrenches[name] = (-F, -M) if jm.reversed else (F, M)
    return wrenches, drivers, status

