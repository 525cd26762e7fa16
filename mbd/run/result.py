"""Results of a run: time, joint state, and named views computed on demand.

Examples
--------
>>> import numpy as np, mbd
>>> from joints import Revolute
>>> m = mbd.Model("p")
>>> g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
>>> b = m.add_body("bob", mass=1.0, cg=(1, 0, 0), inertia=[1e-6] * 3, cs={"o": (0, 0, 0)})
>>> _ = m.add(Revolute("hinge", g, b["o"], axis=(0, 1, 0)))
>>> r = m.simulate(t_end=0.5, output_step=0.25)
>>> r.t
array([0.  , 0.25, 0.5 ])
>>> r.joint("hinge").q.shape, r.body("bob").position("cg").shape
((3,), (3, 3))
"""
from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from ..compiled import layout
from ..compiled.events import Event
from ..control import Input, Sensor
from ..control.signals import coordinate_unit
from ..model.errors import SimulationError
from ..model.files import atomic_open
from . import controls, csvfiles
from .contactview import ContactView
from .evaluation import Evaluation
from .evaluator import Evaluator, contact_points, friction_work_start, work_size
from .failures import Failed
from .views import (
    BodyView,
    ControllerView,
    EnergyBalance,
    ForceView,
    JointView,
    ReactionView,
    contact_intervals,
)

if TYPE_CHECKING:     # (hints only: the system stage is below, mbd.run.controls beside)
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

    from ..system.system import System
    from .controls import Controls

__all__ = ["Result", "Event", "JointView", "BodyView", "ForceView", "ControllerView",
           "ReactionView",
           "EnergyBalance", "contact_intervals"]

#: the longest repr of a Result, characters (a stopped run's message is cut to fit)
REPR_WIDTH = 200


class Result:
    """The outcome of a run.

    Attributes
    ----------
    system : System
    t : ndarray (n,)
        Output times, s.
    q, v : ndarray (n, nq), (n, nv)
        Joint positions (unit quaternions for spherical primitives) and velocities.
    work : ndarray (n, nf + nd) or None
        The work each force element, then each motion driver, has done on the mechanism since
        the start, J (None for rows made without it); see :meth:`energy_balance`.
    events : list of Event
        ``(t, element, what)`` in time order.
    stats : dict
        Integrator figures: nfev, nsteps, pieces, events, method, rtol, atol,
        exact_switching, stepper ("compiled" or "scipy"), wall_time (s, the whole run),
        compile_time (s of it spent compiling numba kernels; 0.0 when all came from the cache)
        and t_end (s, the end the run was asked for).
    stopped : str or None
        Why the run ended before ``t_end``: the message of the :class:`mbd.SimulationError`
        that carried this result (a failure, or "interrupted at t = ..." after Ctrl-C); None
        for a run that was not stopped. ``stopped_at`` is the time it reached, s.
    """

    def __init__(self, system: System, t: ArrayLike, y: ArrayLike, events: Iterable[Event] = (),
                 stats: dict[str, Any] | None = None,
                 sides: np.ndarray | SideRuns | None = None,
                 controls: Controls | None = None) -> None:
        t = np.asarray(t, dtype=float)
        width = system.nq + system.nv
        y = np.asarray(y, dtype=float)
        y = y.reshape(len(t), -1) if len(t) else y.reshape(0, width)
        parts = row_parts(system, y.shape[1], controls)
        self._hold(system, t, *[None if part is None else y[:, part].copy() for part in parts],
                   events=events, stats=stats, sides=sides, controls=controls)

    @classmethod
    def of_parts(cls, system: System, t: ArrayLike, q: np.ndarray, v: np.ndarray,
                 work: np.ndarray | None, controller_states: np.ndarray | None,
                 events: Iterable[Event] = (), stats: dict[str, Any] | None = None,
                 sides: np.ndarray | SideRuns | None = None,
                 controls: Controls | None = None) -> Result:
        """A Result that holds these arrays themselves, not copies (a run's rows, assembled
        once: :mod:`mbd.run.outputrows`): t (n,) s, q (n, nq), v (n, nv), work (n, nf + nd) J
        or None, the continuous controllers' states (n, their count) or None (zeros), sides
        (n, nf, SWITCHES), None, or :class:`SideRuns` (expanded into the array on first
        use). q's quaternions are scaled to unit length in place."""
        result = cls.__new__(cls)
        result._hold(system, np.asarray(t, dtype=float), q, v, work, controller_states,
                     events=events, stats=stats, sides=sides, controls=controls)
        return result

    def _hold(self, system, t, q, v, work, controller_states, events, stats, sides, controls):
        self.system = system
        self.controls = controls
        self.t = t
        self.q, self.v, self.work = q, v, work
        nc = controls.n_states if controls is not None else 0
        #: the continuous controllers' states at every row (n, their count)
        self.controller_states = (controller_states if controller_states is not None
                                  else np.zeros((len(t), nc)))
        _normalize_quaternions(self.q, system.tree)  # report unit quaternions
        self.events = list(events)
        self.stats = dict(stats or {})
        nf = len(system.force_elements)
        # the branch of every force law at every row (see mbd.compiled.lawkernels)
        self._side_runs = sides if isinstance(sides, SideRuns) else None
        self._sides = (None if self._side_runs is not None else
                       np.ones((len(t), nf, layout.SWITCHES)) if sides is None
                       else np.asarray(sides, dtype=float))
        self._evaluation = None
        self.stopped = self.stopped_at = None   # set by the SimulationError that carries it

    def __repr__(self):
        """One line: the model, the rows' time span, their number, the state's size, the
        events, and whether the run reached its end (else where it stopped, and why)."""
        s, n = self.system, len(self.t)
        span = f"t = {self.t[0]:g} to {self.t[-1]:g} s" if n else "no rows"
        t_end = self.stats.get("t_end")
        if (n and t_end is not None and np.isfinite(t_end)
                and (self.stopped is not None or self.t[-1] < t_end)):
            span += f" of {t_end:g} s"
        text = (f"<mbd.Result '{s.name}': {span}, {n} row{'s' * (n != 1)} of "
                f"{s.nq} q + {s.nv} v, {len(self.events)} event{'s' * (len(self.events) != 1)}")
        if self.stopped is not None:
            why = " ".join(str(self.stopped).split())     # one line
            text += ("; stopped" + (f" at t = {self.stopped_at:g} s" if self.stopped_at
                                    is not None else "") + ": ")
            room = REPR_WIDTH - len(text) - 1
            text += why if len(why) <= room else why[:room - 3] + "..."
        elif t_end is not None and n and self.t[-1] >= t_end:
            text += "; complete"
        return text + ">"

    @property
    def sides(self) -> np.ndarray:
        """The side of every switching function at every row (n, nf, SWITCHES): the branch of
        every force law (see :mod:`mbd.compiled.lawkernels`)."""
        if self._sides is None:      # a run's: kept as runs of equal rows until now
            self._sides = self._side_runs.all(len(self.t))
        return self._sides

    def sides_of(self, rows: ArrayLike) -> np.ndarray:
        """:attr:`sides` of some rows (indices), without the whole array."""
        if self._sides is None:
            return self._side_runs.rows(np.asarray(rows))
        return self._sides[rows]

    @property
    def evaluation(self) -> Evaluation:
        """The rows' :class:`mbd.run.evaluation.Evaluation` (made on first use): what the
        views are computed from, through an :class:`mbd.run.evaluator.Evaluator` with the
        run's held signals."""
        if self._evaluation is None:
            self._evaluation = Evaluation(Evaluator(self.system, held=self.controls),
                                          self.t, self.state_rows(), lambda: self.sides)
        return self._evaluation

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_evaluation"] = None     # compiled data and what it worked out: made again
        return state

    def __len__(self):
        return len(self.t)

    def joint(self, name: str) -> JointView:
        """The coordinates of joint ``name`` over the run (a JointView)."""
        return self.evaluation.joint(name)

    def sensor(self, name: str) -> np.ndarray:
        """Sensor ``name``'s quantity at every row: (n,) for a scalar quantity, (n, 4) for a
        quaternion [w, x, y, z] and (n, 3) for a rotation vector (rad), in the units and
        axes :mod:`mbd.control.signals` gives.

        Raises
        ------
        KeyError
            For a name that is no sensor of the model (the sensors named).
        """
        sensors = {c.name: c for c in self.system.controls if isinstance(c, Sensor)}
        if name not in sensors:
            raise KeyError(f"no sensor '{name}'; the sensors are {sorted(sensors) or 'none'}")
        return controls.Reader(self.system, sensors[name].what).rows(self.evaluation)

    def controller(self, name: str) -> ControllerView:
        """Discrete controller ``name``'s samples (a ControllerView)."""
        controls = self.controls
        samples = getattr(controls, "samples", {})
        if name in samples:
            return ControllerView(name, samples[name])
        continuous = {c.name: c for c in getattr(controls, "continuous", ())}
        if name not in continuous:
            raise KeyError(f"no controller '{name}'; the controllers are "
                           f"{sorted(samples) + sorted(continuous) or 'none'}")
        c, rows = continuous[name], self.state_rows()
        try:     # (a controller that drives nothing and has no state is first called here)
            u = [[controls.value(item, t, y, None) for item in controls.inputs_of[name]]
                 for t, y in zip(self.t, rows)]
            out = [controls.continuous_output(c, t, y) for t, y in zip(self.t, rows)]
        except Failed as err:
            raise SimulationError(f"reading controller '{name}' from the rows: {err.message}",
                                  t=err.t) from None
        return ControllerView(name, list(zip(self.t, rows[:, controls.slices[name]], u, out)))

    def state_rows(self) -> np.ndarray:
        """The rows as the run's state had them (n, width): [q (nq), v (nv), W (the work
        accumulators, J; zeros for rows made without them), the continuous controllers'
        states] (a new array)."""
        work = self.work if self.work is not None else np.zeros(
            (len(self.t), work_size(self.system)))
        return np.hstack([self.q, self.v, work, self.controller_states])

    def input(self, name: str) -> np.ndarray:
        """The value Input ``name`` held at every row (n,)."""
        inputs = {c.name: c for c in self.system.controls if isinstance(c, Input)}
        if name not in inputs:
            raise KeyError(f"no input '{name}'; the inputs are {sorted(inputs) or 'none'}")
        if self.controls is None:
            return np.full(len(self.t), inputs[name].initial)
        j = self.controls.column[name]
        return np.array([self.controls.held_at(t)[j] for t in self.t])

    def force(self, name: str) -> ForceView:
        """The force element ``name`` over the run (a ForceView)."""
        return self.evaluation.force(name)

    def contact(self, name: str) -> ContactView:
        """The contact element ``name`` over the run, its points side by side (a
        :class:`mbd.run.contactview.ContactView`: points, normals, gaps, normal and friction
        forces, slip; ``.intervals()``)."""
        return self.evaluation.contact(name)

    def reaction(self, name: str) -> ReactionView:
        """The reaction of joint, motion driver or gear ``name`` over the run: a
        ReactionView."""
        return self.evaluation.reaction(name)

    def body(self, name: str) -> BodyView:
        """The motion of body ``name`` (a BodyView)."""
        return self.evaluation.body(name)

    def kinetic_energy(self) -> np.ndarray:
        """Kinetic energy (n,), J."""
        return self._energies()[:, 0]

    def potential_energy(self) -> np.ndarray:
        """Potential energy (n,), J: gravity (zero at the world origin) plus the springs of the
        force elements."""
        return self._energies()[:, 1]

    def energy(self) -> np.ndarray:
        """Total mechanical energy (n,), J: kinetic plus potential."""
        return self._energies().sum(axis=1)

    def _energies(self):
        return self.evaluation.energies()

    def energy_balance(self) -> EnergyBalance:
        """The run's :class:`EnergyBalance`: kinetic and gravitational energy against the work
        of every force element, motion driver and gear, with what each element stored, and
        what the passive ones dissipated and the sources supplied.

        Sources by their kind: motion drivers, and the elements whose law is a prescribed
        force (``forces.Actuator``, the core's law kind ``constant``: a constant, a function
        of time, a controller's output). Gears are ideal constraints. Every other element is
        a source or passive by the sign of its net outflow over the run (see
        :class:`EnergyBalance`).

        Raises
        ------
        ValueError
            For a Result made without the work accumulators (not by a run).
        """
        if self.work is None:
            raise ValueError("energy_balance: this Result has no work accumulators (it was "
                             "not made by a run)")
        s = self.system
        E = self.evaluation.tree_energies()
        work, stored, roles = {}, {}, {}
        zero = np.zeros(len(self.t))
        for k, fe in enumerate(s.force_elements):
            # a contact's points are booked together, under the contact's name
            name = fe.contact.name if fe.placement == "contact" else fe.name
            energy = self.force(fe.name).energy
            work[name] = work.get(name, zero) + self.work[:, k] - self.work[0, k]
            stored[name] = stored.get(name, zero) + energy - energy[0]
            if getattr(getattr(fe.law, "kind", None), "name", None) == "constant":
                roles[name] = "actuator"
        for k, d in enumerate(s.drivers):
            column = self.work[:, len(s.force_elements) + k]
            work[d.name] = column - column[0]
            roles[d.name] = "driver" if d.prescribed else "gear"
        first = friction_work_start(s)
        for k, i in enumerate(contact_points(s)):     # friction, apart from the normal law
            name = f"{s.force_elements[i].contact.name} friction"
            column = self.work[:, first + k]
            work[name] = work.get(name, zero) + column - column[0]
            stored[name] = zero
        return EnergyBalance(self.t, E[:, 0] - E[0, 0], E[:, 1] - E[0, 1], work, stored,
                             roles)

    def columns(self) -> tuple[list[str], np.ndarray]:
        """(names, table): every exported column — time, joint q and v, body CG positions,
        energies and the work of every force element and motion driver — as a list of names
        and an (n, k) array (their units: :meth:`column_units`)."""
        groups = self._column_groups()
        names = [name for group in groups for name in group[0]]
        return names, np.column_stack([c for group in groups for c in group[2]()])

    def column_units(self) -> list[str]:
        """The SI unit of every column of :meth:`columns`, in its order: "s" (t), "m" or
        "rad" (a joint's q, by its primitive; "1" for a component of a spherical
        primitive's unit quaternion), "m/s" or "rad/s" (its v), "m" (CG positions), "J"
        (energies and work)."""
        return [unit for group in self._column_groups() for unit in group[1]]

    def _column_groups(self):
        """The exported columns, group by group in the files' order: [(names, units, a
        function giving the group's columns)], so that names, units and values cannot part."""
        s = self.system
        groups = [(["t"], ["s"], lambda: [self.t])]
        for jname, jm in s.joints.items():
            for label, data, idx in (("q", self.q, jm.q_index), ("v", self.v, jm.v_index)):
                names = [f"{jname}.{label}" if len(idx) == 1 else f"{jname}.{label}{k}"
                         for k in range(len(idx))]
                units = [_q_unit(s, i) if label == "q" else coordinate_unit(s, i) + "/s"
                         for i in idx]
                groups.append((names, units,
                               lambda data=data, idx=idx: [data[:, i] for i in idx]))
        for bname in s.bodies:
            groups.append(([f"{bname}.cg.{axis}" for axis in "xyz"], ["m"] * 3,
                           lambda bname=bname: list(self.body(bname).position("cg").T)))
        groups.append((["kinetic_energy", "potential_energy"], ["J", "J"],
                       lambda: list(self._energies().T)))
        if self.work is not None:
            names = [f"{e.name}.work" for e in list(s.force_elements) + list(s.drivers)] + [
                f"{s.force_elements[i].name}.friction_work" for i in contact_points(s)]
            groups.append((names, ["J"] * len(names), lambda: list(self.work.T)))
        return groups

    def to_csv(self, path: str | os.PathLike) -> str | os.PathLike:
        """Write every column (see :meth:`columns`) to a CSV file, and their units beside it,
        each whole or not at all.

        The CSV is a plain table: a line of column names, then a row a line, so that every
        reader takes it as it is (``pandas.read_csv(path)``, ``numpy.loadtxt(path,
        delimiter=",", skiprows=1)``, a spreadsheet). Values are written in the shortest
        form that reads back as the same double (``repr``); the times of the output grid as
        the decimals it is made of (``0.3``, not ``0.30000000000000004``, the double
        ``3 * 0.1``), every other time (an event's, t_end, where a run stopped) exactly.
        The units (:meth:`column_units`) go to :func:`mbd.run.csvfiles.units_path`
        (``run.units.csv``): the same names, then a line of their SI units.
        :func:`mbd.read_csv` reads both.
        """
        names, table = self.columns()
        return csvfiles.write_csv(path, names, self.column_units(), table,
                                  [e.t for e in self.events])

    def to_npz(self, path: str | os.PathLike | BinaryIO,
               columns: bool = True) -> str | os.PathLike | BinaryIO:
        """Write the run to a NumPy .npz file, whole or not at all.

        Every column of :meth:`columns` is an array of its own under its name (``"t"``,
        ``"hinge.q"``, ``"arm.cg.x"``, ``"kinetic_energy"``, ``"strap.work"`` ...; SI units
        as in the CSV: s, m or rad, m/s or rad/s, J), so a reader needs no column order.
        Also: ``q`` (n, nq) and ``v`` (n, nv), the whole state; ``columns``, the names in
        the CSV's order (``np.column_stack([data[c] for c in data["columns"]])`` is the
        CSV's table); the event log as ``event_t`` (s), ``event_element`` and
        ``event_what`` (strings), and as ``events``, its (t, element, what) rows in an
        object array (``np.load(path, allow_pickle=True)["events"]``; every other key
        loads without pickle).

        Parameters
        ----------
        path : str, path-like or binary file object
            Where to write (a file object is written in place).
        columns : bool
            False: the state alone, ``t``, ``q``, ``v``, ``work`` (the accumulators, J; (n, 0)
            without them) and the event log, written at disk speed (the columns follow from
            the state: a long run's take seconds to work out, too long after a Ctrl-C).

        Examples
        --------
        ::

            with np.load("run.npz") as data:
                angle = data["hinge.q"]          # (n,) rad
        """
        names, table = self.columns() if columns else (["t"], self.t[:, None])
        arrays = dict(t=self.t, q=self.q, v=self.v, columns=np.array(names),
                      **self.event_arrays())
        # each column under its own name (no (n, k) table beside them: it would double the
        # file); only "t" can meet a key above (the same array): every other column name
        # holds a "." or ends in "_energy"
        arrays.update((name, table[:, k]) for k, name in enumerate(names) if name != "t")
        if not columns:
            arrays["work"] = (self.work if self.work is not None
                              else np.zeros((len(self.t), 0)))
        if hasattr(path, "write"):
            np.savez(path, **arrays)
            return path
        with atomic_open(path, "wb") as fh:
            np.savez(fh, **arrays)
        return path

    def event_counts(self) -> list[tuple[str, int]]:
        """How many events each element had, most first: [(element, count)], a contact's
        points counted under the contact's name (the summary of a log of thousands: a
        robot's feet, balls settling in a box)."""
        grouped = {}
        for name, indices in getattr(self.system, "contacts", {}).items():
            for i in indices:
                grouped[self.system.force_elements[i].name] = name
        counts = Counter(grouped.get(e.element, e.element) for e in self.events)
        return counts.most_common()

    def event_arrays(self) -> dict[str, np.ndarray]:
        """The event log as arrays, as :meth:`to_npz` writes it: ``event_t`` (s),
        ``event_element`` and ``event_what`` (strings), and ``events``, its (t, element,
        what) rows in an object array."""
        return dict(events=np.array([(e.t, e.element, e.what) for e in self.events],
                                    dtype=object),
                    event_t=np.array([e.t for e in self.events], dtype=float),
                    event_element=np.array([e.element for e in self.events], dtype=str),
                    event_what=np.array([e.what for e in self.events], dtype=str))


def _q_unit(system, i):
    """The unit of position coordinate ``i``: "m" on a prismatic primitive, "1" in a
    spherical one's unit quaternion, else "rad"."""
    link = next(link for link in system.tree if link["qadr"] <= i < link["qadr"] + (
        4 if link["jtype"] == layout.SPHERICAL else link["nd"]))
    return {layout.PRISMATIC: "m", layout.SPHERICAL: "1"}.get(int(link["jtype"]), "rad")


class SideRuns:
    """The sides of a run's rows as runs of equal rows (they change only where a law switches
    or a piece begins): run k's ``values[k]`` (nf, SWITCHES) hold from row ``starts[k]`` on.
    A few arrays instead of nf x SWITCHES numbers a row (for a long run, more than its
    state)."""

    def __init__(self, starts: ArrayLike, values: ArrayLike) -> None:
        self.starts = np.asarray(starts, dtype=np.int64)
        self.values = np.asarray(values, dtype=float)

    def rows(self, rows: ArrayLike) -> np.ndarray:
        """The sides of rows ``rows`` (indices), (len(rows), nf, SWITCHES)."""
        return self.values[np.searchsorted(self.starts, rows, side="right") - 1]

    def all(self, n: int) -> np.ndarray:
        """The sides of rows 0 ... n - 1 (the first run starts at 0), (n, nf, SWITCHES)."""
        return np.repeat(self.values, np.diff(np.append(self.starts, n)), axis=0)


def row_parts(system: System, width: int, controls: Controls | None = None
              ) -> tuple[slice, slice, slice | None, slice | None]:
    """Where a row of ``width`` values (the run's state: [q, v, W, the continuous controllers'
    states], or a prefix) holds each part: slices of q, v, work and the controllers' states;
    work is None for a row of q and v alone (unless the system has no accumulators: then
    (n, 0)), the controllers' states None for a row without them.

    Raises
    ------
    ValueError
        For a width that is none of these.
    """
    nq, nv = system.nq, system.nv
    nw = work_size(system)
    nc = controls.n_states if controls is not None else 0
    qv = nq + nv
    if width not in (qv, qv + nw, qv + nw + nc):
        raise ValueError(f"Result: rows of {width} values; the system's state has "
                         f"{qv} (q, v), or {qv + nw} with the work accumulators"
                         + (f", {qv + nw + nc} with its controllers' states" if nc else ""))
    # nothing does work in a system without elements and drivers: no accumulators needed
    work = slice(qv, qv + nw) if width > qv or nw == 0 else None
    states = slice(qv + nw, width) if width == qv + nw + nc else None
    return slice(0, nq), slice(nq, qv), work, states


def _normalize_quaternions(Q, tree):
    """Every row of Q (n, nq) with its spherical primitives' quaternions scaled to unit length,
    in place."""
    for a in tree["qadr"][tree["jtype"] == layout.SPHERICAL]:
        Q[:, a:a + 4] /= np.linalg.norm(Q[:, a:a + 4], axis=1, keepdims=True)
