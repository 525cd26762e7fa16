"""A run's sensors, inputs and controllers (SPEC §9): the sample instants, the held values and
the laws that read them.

- **Held values** (the inputs' and the discrete controllers' outputs) change only at known
  instants; each change is kept (:attr:`Controls.times`, :attr:`Controls.values`), and
  :meth:`Controls.apply` writes the values in effect at t into the parameter rows of the laws
  that read them. The run applies them where they change, so the compiled loop reads them
  with no Python per evaluation; a Result applies them at each row's time (the same
  function), so every force it reports is the one the run integrated.
- **Sample instants**: controller c samples at t0 + k T_c (k = 0, 1, ..., computed as a
  product, so every instant is an exact multiple); the piece loop ends a piece there
  (:meth:`next_sample`), then calls :meth:`sample`, which reads the controllers' inputs at
  the state, steps them in the order their outputs feed each other, and holds their outputs
  from that instant on (right-continuous: a row at a sample instant shows the new output).
- **Continuous controllers** (:class:`mbd.control.PID`, ``StateSpace``, ``Gain`` ...): their
  states follow [q, v, W] in the run's state y (:attr:`Controls.slices`). When every one has
  a compiled form (the built-in kinds, a user's numba function) and reads only what the
  compiled code can measure (joint coordinates and rates, CS positions, velocities and
  angular velocities, other controllers' outputs, held values), :meth:`Controls.install`
  writes them into the run's compiled data and the right-hand side evaluates them itself
  (:mod:`mbd.compiled.controlkernels`: no Python per evaluation, and the compiled
  integrator can run the model). Otherwise their derivatives are added to the mechanism's by
  :meth:`Controls.state_derivative` and their outputs written by :meth:`Controls.apply` at
  every evaluation (the state function calls both), from Python, and the run steps with
  scipy's solver.
"""
import bisect

import numpy as np
from numba import types
from scipy.spatial.transform import Rotation

from ..compiled import controlkernels as ck
from ..compiled import statekernels
from ..compiled.jit import native
from ..compiled.layout import (
    CS_ANGULAR_VELOCITY,
    CS_POSITION,
    CS_VELOCITY,
    HELD,
    JOINT_Q,
    JOINT_V,
    MAX_CONTROL_IO,
    MAX_CONTROL_PARAMS,
    OUTPUT,
)
from ..control import Controller, Input, Output, Sensor, quantity, signals
from .evaluation import Evaluation
from .evaluator import Evaluator, work_size
from .failures import Failed


class Reader:
    """A sensor's quantity (:func:`mbd.control.quantity`) read at a state or over a result.

    Attributes
    ----------
    spec : tuple
        What it measures (:func:`mbd.control.quantity`).
    size : int
        How many numbers it is: 1, or 4 (a quaternion), 3 (a rotation vector).
    """

    def __init__(self, system, what):
        self.system, self.what = system, what
        self.spec = quantity(system, what)
        self.size = signals.size(self.spec)

    def rows(self, rows):
        """The quantity at every row of ``rows`` (an :class:`mbd.run.evaluation.Evaluation`:
        a Result's, or a sample's one state): (n,), or (n, size) for a vector."""
        kind = self.spec[0]
        if kind == "joint":
            _, qv, index = self.spec
            return (rows.q if qv == "q" else rows.v)[:, index].copy()
        if kind == "cs":
            _, body, cs, view, axis = self.spec
            b = rows.body(body)
            if view == "angular_velocity":
                return b.angular_velocity[:, axis]
            return getattr(b, view)(cs)[:, axis]
        if kind in ("relative", "cs_acceleration"):
            _, body, cs, view, axis, ref = self.spec
            out = rows.cs_motion(self._cs(body, cs), view)
            if ref is not None:    # Adams: the world difference, in the reference's axes
                reference = signals.cs_of(self.system, ref)
                out = np.einsum("nji,nj->ni", rows.cs_frame(reference)[0],
                                out - rows.cs_motion(reference, view))
            return out[:, axis]
        if kind == "orientation":
            return self._orientation(rows)
        if kind == "reaction":
            _, name, part, axis = self.spec
            view = rows.reaction(name)
            return view.value.copy() if part == "value" else getattr(view, part)[:, axis]
        if kind == "element":
            _, index, field = self.spec
            f = rows.force(self.system.force_elements[index].name)
            return {"value": f.scalar, "x": f.x, "xdot": f.xdot}[field].copy()
        if kind == "contact":
            _, name, field = self.spec
            c = rows.contact(name)
            if field == "fn":
                return c.total_normal_force
            if field == "gap":
                return c.gap.min(axis=1)
            return np.where(c.in_contact, c.slip_speed, 0.0).max(axis=1)
        return rows.energy()

    def at(self, t, y, sides, evaluator):
        """The quantity at the state (t, y) in the mode ``sides`` (None: every side +1): a
        float, or an array (size,) for a vector. The quantities other than a joint's are read
        from the :class:`mbd.run.evaluation.Evaluation` of that one row by ``evaluator`` (an
        :class:`mbd.run.evaluator.Evaluator` of the system: accelerations and reactions
        evaluated at that state with the held values its ``held`` has in effect at t)."""
        if self.spec[0] == "joint":
            _, qv, index = self.spec
            return float(y[index] if qv == "q" else y[self.system.nq + index])
        one = Evaluation(evaluator, [t], np.asarray(y, dtype=float)[None, :],
                         None if sides is None else np.asarray(sides)[None])
        row = self.rows(one)[0]
        return float(row) if self.size == 1 else np.array(row, dtype=float)

    def _cs(self, body, cs):
        return self.system.bodies[body].body[cs]

    def _orientation(self, rows):
        """A CS's orientation (relative to the reference's, if any) at every row: the
        quaternion [w, x, y, z] with a sign continuous over the rows and w >= 0 at the first,
        or the rotation vector (angle in [0, pi], rad), whole or one component."""
        _, body, cs, form, axis, ref = self.spec
        R = rows.cs_frame(self._cs(body, cs))[0]
        if ref is not None:
            R = np.swapaxes(rows.cs_frame(signals.cs_of(self.system, ref))[0], 1, 2) @ R
        if not len(R):
            out = np.zeros((0, self.size if axis is None else axis + 1))
        elif form == "rotation_vector":
            out = Rotation.from_matrix(R).as_rotvec()
        else:
            out = Rotation.from_matrix(R).as_quat()[:, [3, 0, 1, 2]]
            # q and -q are one rotation: keep the sign of the row before (w's at the first)
            dots = np.einsum("ni,ni->n", out[1:], out[:-1])
            sign = np.cumprod(np.concatenate([[-1.0 if out[0, 0] < 0.0 else 1.0],
                                              np.where(dots < 0.0, -1.0, 1.0)]))
            out *= sign[:, None]
        return out if axis is None else out[:, axis].copy()


class Controls:
    """The sensors, inputs and controllers of a run of ``system`` from t0 (s).

    Attributes
    ----------
    times : list of float
        Where the held values changed (t0 first), s.
    values : list of ndarray
        The held values from each of those instants, by :attr:`keys`.
    samples : dict
        Per discrete controller: [(t, x_k, u_k, y_k)], one per sample.
    """

    def __init__(self, system, t0):
        self.system, self.t0 = system, float(t0)
        named = {c.name: c for c in system.controls}
        self.controllers = _feeding_order([c for c in system.controls
                                           if isinstance(c, Controller)], named)
        self.inputs_of = {c.name: c.resolve(named) for c in self.controllers}
        self.discrete = [c for c in self.controllers if c.period is not None]
        self.continuous = [c for c in self.controllers if c.period is None]
        # where each continuous controller's states lie in y: after [q, v, W] (W with the
        # contact points' friction accumulators: work_size)
        start = system.nq + system.nv + work_size(system)
        self.slices = {}
        for c in self.continuous:
            self.slices[c.name] = slice(start, start + c.n_states)
            start += c.n_states
        self.n_states = sum(c.n_states for c in self.continuous)
        self.readers = {c.name: Reader(system, c.what) for c in system.controls
                        if isinstance(c, Sensor)}
        self.keys = ([c.key for c in system.controls if isinstance(c, Input)]
                     + [Output(c, k).key for c in self.discrete for k in range(c.outputs)])
        self.column = {key: j for j, key in enumerate(self.keys)}
        start = {c.key: c.initial for c in system.controls if isinstance(c, Input)}
        start.update({Output(c, k).key: float(c.initial_output[k])
                      for c in self.discrete for k in range(c.outputs)})
        self.times = [self.t0]
        self.values = [np.array([start[key] for key in self.keys])]
        self.held, self.computed = _bindings(system, self.column, named)
        self.program, self.interpreted = _program(system, self.continuous, self.inputs_of,
                                                  self.column, self.computed)
        #: whether the continuous controllers are evaluated compiled (see the module)
        self.compiled = self.program is not None and bool(self.continuous)
        self._evaluation = None
        self.k = {c.name: 0 for c in self.discrete}
        self.x = {c.name: c.initial_state() for c in self.discrete}
        self.samples = {c.name: [] for c in self.discrete}
        self._rows_evaluator = None

    # ------------------------------------------------------------------ held values

    def held_at(self, t):
        """The held values in effect at t (s): the last change at or before t."""
        return self.values[max(bisect.bisect_right(self.times, t) - 1, 0)]

    def hold(self, t, changes):
        """Hold the values ``changes`` {key: value} from t (s) on."""
        row = self.values[-1].copy()
        for key, value in changes.items():
            row[self.column[key]] = value
        if self.times[-1] == t:
            self.values[-1] = row
        else:
            self.times.append(float(t))
            self.values.append(row)

    def apply(self, ev, t, y):
        """Write into ``ev``'s parameter rows what the laws read at (t, y): the held values
        in effect at t and the continuous controllers' outputs there (compiled: the held
        values they read, and t and their states from y, when given, for the kernel called
        next, which evaluates them)."""
        params = ev.data.elements["params"]
        row = self.held_at(t)
        for i, slot, j in self.held:
            params[i][slot] = row[j]
        if self.compiled:
            self.install(ev)
            control = ev.data.control
            for i, j, column in self.program.held:
                control[i]["u"][j] = row[column]
            if y is not None:     # (the kernel called next evaluates them at y itself)
                ev.call(statekernels.controls_take, float(t),
                        np.ascontiguousarray(y, dtype=float), ev.data)
            return
        for i, slot, controller, k in self.computed:
            params[i][slot] = self.continuous_output(controller, t, y)[k]

    def install(self, ev):
        """Write the compiled controllers into ``ev``'s data (once per data): their records
        (:data:`mbd.compiled.layout.CONTROL`) and their kinds' kernels' addresses."""
        control = ev.data.control
        if not len(control) or control[0]["address"] != 0:
            return
        signature = types.int64(types.float64[::1], native.typeof(ev.data), types.int64)
        for i, (c, entry) in enumerate(zip(self.continuous, self.program.entries)):
            kind, params = c.compiled_form()
            R = control[i]
            R["n_in"], R["n_out"], R["n_states"] = len(entry.sources), c.outputs, c.n_states
            R["state_at"] = self.slices[c.name].start
            for j, (source, index, axis, point, value) in enumerate(entry.sources):
                R["source"][j], R["index"][j], R["axis"][j] = source, index, axis
                R["point"][j], R["u"][j] = point, value
            R["params"][:len(params)] = params
            R["x"][:c.n_states] = c.initial_state()
            R["n_bind"] = len(entry.bindings)
            for b, (element, slot, k) in enumerate(entry.bindings):
                R["bind_element"][b], R["bind_slot"][b], R["bind_output"][b] = element, slot, k
            R["address"] = kind.address(signature)

    def failure_message(self, data, status, t):
        """What the compiled controller that made the right-hand side's ``status`` (see
        :func:`mbd.compiled.controlkernels.failed`) returned at t (s), as
        :func:`_check_returned` says it for one evaluated from Python."""
        i, code = ck.failed(status)
        c, R = self.continuous[i], data.control[i]
        if code == ck.WRONG_RATES:
            return (f"{c.label()} at t = {t:.9g} s: its state derivative must be "
                    f"{c.n_states} finite number(s); it returned another number of them")
        if code == ck.WRONG_OUTPUTS:
            return (f"{c.label()} at t = {t:.9g} s: its output must be {c.outputs} finite "
                    "number(s); it returned another number of them")
        out, rates = R["out"][:c.outputs], R["xdot"][:c.n_states]
        what, got, size = (("its output", out, c.outputs) if not np.all(np.isfinite(out))
                           else ("its state derivative", rates, c.n_states))
        message = (f"{c.label()} at t = {t:.9g} s: {what} must be {size} finite number(s), "
                   f"got {got.tolist()!r}")
        # the inputs it read: a Lookup's table says where they lie outside its breakpoints
        why = c.why_not_finite(R["u"][:R["n_in"]].copy()) if what == "its output" else None
        return f"{message}: {why}" if why else message

    def _compiled_record(self, c, t, y):
        """Compiled controller c's record after an evaluation at (t, y) (on data of this
        object's own, made once)."""
        if self._evaluation is None:
            self._evaluation = Evaluator(self.system, held=self)
        ev = self._evaluation
        y = np.ascontiguousarray(y, dtype=float)
        ev.refresh(t, y)
        status = int(ev.call(statekernels.controls_at, float(t), y, ev.data))
        if status != 0:
            raise Failed(self.failure_message(ev.data, status, t), t)
        return ev.data.control[self.continuous.index(c)]

    def initial_states(self):
        """The continuous controllers' start states, in their order in y."""
        return np.concatenate([c.initial_state() for c in self.continuous] + [np.zeros(0)])

    def state_derivative(self, t, y, dy):
        """Write the continuous controllers' state derivatives at (t, y) into ``dy``."""
        for c in self.continuous:
            if c.n_states:
                dy[self.slices[c.name]] = (self._compiled_record(c, t, y)["xdot"][:c.n_states]
                                           if self.compiled else self._evaluate(c, t, y)[0])

    # ------------------------------------------------------------------ signals

    def value(self, item, t, y, sides):
        """The value of a controller's input ``item`` (a float, Sensor, Input or Output) at
        the state (t, y) in the mode ``sides``."""
        if isinstance(item, float):
            return item
        if isinstance(item, Sensor):
            return self.readers[item.name].at(t, y, sides, self.rows_evaluator())
        if isinstance(item, Output) and item.controller.period is None:
            return self.continuous_output(item.controller, t, y)[item.k]
        return float(self.held_at(t)[self.column[item.key]])

    def continuous_output(self, controller, t, y):
        """A continuous controller's outputs at (t, y) (s, state)."""
        if self.compiled:
            return self._compiled_record(controller, t, y)["out"][:controller.outputs].copy()
        return self._evaluate(controller, t, y, outputs_only=True)[1]

    def _evaluate(self, c, t, y, outputs_only=False):
        """(x', y) of continuous controller c at (t, y); its inputs read only where they
        are needed (an output with no feedthrough does not read them). Raises
        :class:`mbd.run.failures.Failed` naming it where it returns what it must not."""
        x = np.asarray(y)[self.slices[c.name]]
        if outputs_only and not c.feedthrough:
            u = np.zeros(len(self.inputs_of[c.name]))
        else:
            u = np.array([self.value(item, t, y, None) for item in self.inputs_of[c.name]])
        try:
            xdot, out = c.derivative(t, x.copy(), u)
        except Exception as err:
            raise Failed(f"{c.label()} raised {type(err).__name__} at t = {t:.9g} s: "
                         f"{err}", t) from err
        xdot, out = np.asarray(xdot, dtype=float), np.asarray(out, dtype=float)
        _check_returned(c, t, x, xdot, out, "its state derivative")
        return xdot, out

    def rows_evaluator(self):
        """The :class:`mbd.run.evaluator.Evaluator` the sensors are read with at a state
        (:meth:`Reader.at`), the held values these controls hold in effect: data of its own,
        made once (a sensor read while the run's data is evaluated must not change it)."""
        if self._rows_evaluator is None:
            self._rows_evaluator = Evaluator(self.system, held=self)
        return self._rows_evaluator

    # ------------------------------------------------------------------ samples

    def next_sample(self, t):
        """The earliest sample instant after t (s) (inf without discrete controllers)."""
        return min((self.t0 + self.k[c.name] * c.period for c in self.discrete),
                   default=np.inf)

    def due(self, t):
        """Whether a discrete controller samples at t (s)."""
        return any(self.t0 + self.k[c.name] * c.period == t for c in self.discrete)

    def sample(self, ev, t, y, sides):
        """Step every discrete controller due at t (s) at the state y, in the order their
        outputs feed each other, hold their outputs from t on and write them into ``ev``.
        Raises :class:`mbd.run.failures.Failed` naming a controller that returned what it
        must not."""
        for c in self.discrete:
            if self.t0 + self.k[c.name] * c.period != t:
                continue
            u = np.array([self.value(item, t, y, sides) for item in self.inputs_of[c.name]])
            x = self.x[c.name]
            try:
                x_next, out = c.update(t, x, u)
            except Exception as err:
                raise Failed(f"{c.label()} raised {type(err).__name__} at t = {t:.9g} s: "
                             f"{err}", t) from err
            x_next, out = np.asarray(x_next, dtype=float), np.asarray(out, dtype=float)
            _check_returned(c, t, x, x_next, out, "its next state")
            self.samples[c.name].append((float(t), x.copy(), u, out.copy()))
            self.x[c.name] = x_next
            self.k[c.name] += 1
            self.hold(t, {Output(c, k).key: out[k] for k in range(c.outputs)})
        self.apply(ev, t, y)

    def set_input(self, ev, t, name, value):
        """Hold Input ``name`` at ``value`` from t (s) on, written into ``ev``."""
        self.hold(t, {name: value})
        self.apply(ev, t, None)

    def snapshot(self):
        """A copy that later samples do not change (for a Result made mid-run)."""
        copy = object.__new__(Controls)
        copy.__dict__.update(self.__dict__)
        copy.times, copy.values = list(self.times), list(self.values)
        copy.samples = {name: list(s) for name, s in self.samples.items()}
        copy.k, copy.x = dict(self.k), dict(self.x)
        copy._rows_evaluator = copy._evaluation = None
        return copy

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_rows_evaluator"] = state["_evaluation"] = None   # compiled data: made again
        return state


def _check_returned(c, t, x, x_next, out, state):
    """Fail naming controller c when its new state (or state derivative: ``state`` says
    which) or output at t (s) has the wrong size or is not finite."""
    for what, got, size in ((state, x_next, x.size), ("its output", out, c.outputs)):
        if got.size != size or not np.all(np.isfinite(got)):
            raise Failed(f"{c.label()} at t = {t:.9g} s: {what} must be {size} finite "
                         f"number(s), got {got.tolist()!r}", t)


def _bindings(system, column, named):
    """The law parameters that read signals: ([(element, slot, held column)], [(element,
    slot, continuous controller, output)]); a controller is the model's element of its name
    ``named`` (an override may have replaced the one the law was given)."""
    held, computed = [], []
    for i, fe in enumerate(system.force_elements):
        for slot, _, signal in fe.law.signals():
            if isinstance(signal, Controller):
                signal = signal[0]
            if isinstance(signal, Output):
                signal = Output(named[signal.controller.name], signal.k)
            if isinstance(signal, Output) and signal.controller.period is None:
                computed.append((i, slot, signal.controller, signal.k))
            else:
                held.append((i, slot, column[signal.key]))
    return held, computed


def _feeding_order(controllers, named):
    """``controllers`` ordered so that each comes after those whose outputs it reads (build()
    has refused algebraic loops)."""
    done, out = set(), []

    def visit(c):
        if c.name in done:
            return
        done.add(c.name)
        for item in c.resolve(named):
            if isinstance(item, Output):
                visit(item.controller)
        out.append(c)

    for c in controllers:
        visit(c)
    return out


class Program:
    """The compiled controllers of a run: per controller (in feeding order) an
    :class:`Entry`, and the held values they read, ``held`` [(controller, input, held
    column)]."""

    def __init__(self, entries, held):
        self.entries, self.held = entries, held


class Entry:
    """One compiled controller's inputs, ``sources`` [(source, index, axis, point, value)]
    (:data:`mbd.compiled.layout.CONTROL`'s fields), and the law parameters its outputs are,
    ``bindings`` [(element, slot, output)]."""

    def __init__(self, sources, bindings):
        self.sources, self.bindings = sources, bindings


_CS_SOURCES = {"position": CS_POSITION, "velocity": CS_VELOCITY,
               "angular_velocity": CS_ANGULAR_VELOCITY}


def _program(system, continuous, inputs_of, column, computed):
    """(the :class:`Program` of the continuous controllers ``continuous`` (in feeding order),
    None) when all of them can be evaluated compiled, else (None, why not)."""
    order = {c.name: i for i, c in enumerate(continuous)}
    entries, held = [], []
    for i, c in enumerate(continuous):
        form = c.compiled_form()
        if form is None:
            return None, f"{c.label()} is a Python function"
        inputs = inputs_of[c.name]
        if (max(len(inputs), c.outputs, c.n_states) > MAX_CONTROL_IO
                or form[1].size > MAX_CONTROL_PARAMS):
            return None, (f"{c.label()} is larger than the compiled records hold (at most "
                          f"{MAX_CONTROL_IO} inputs, outputs and states and "
                          f"{MAX_CONTROL_PARAMS} parameters)")
        sources = []
        for j, item in enumerate(inputs):
            zero = np.zeros(3)
            if isinstance(item, float):
                sources.append((HELD, 0, 0, zero, item))
            elif isinstance(item, Input) or (isinstance(item, Output)
                                             and item.controller.period is not None):
                sources.append((HELD, 0, 0, zero, item.initial))
                held.append((i, j, column[item.key]))
            elif isinstance(item, Output):
                k = order[item.controller.name]
                if k >= i:      # a state-only output read before it is evaluated
                    return None, (f"{c.label()} reads the output of {item.controller.label()}, "
                                  "evaluated after it")
                sources.append((OUTPUT, k, item.k, zero, 0.0))
            else:
                spec = quantity(system, item.what)
                if spec[0] == "joint":
                    sources.append((JOINT_Q if spec[1] == "q" else JOINT_V, spec[2], 0, zero,
                                    0.0))
                elif spec[0] == "cs" and spec[3] in _CS_SOURCES:
                    bm = system.bodies[spec[1]]
                    point = bm.cs_local(bm.body[spec[2]])[0]
                    sources.append((_CS_SOURCES[spec[3]], bm.link, spec[4], point, 0.0))
                else:
                    return None, (f"{c.label()} reads {item!r}, which is measured from "
                                  "Python")
        bindings = [(e, slot, k) for e, slot, controller, k in computed
                    if controller.name == c.name]
        if len(bindings) > MAX_CONTROL_IO:
            return None, f"{c.label()} feeds more than {MAX_CONTROL_IO} law parameters"
        entries.append(Entry(sources, bindings))
    return Program(entries, held), None


def blocker(system):
    """Why the compiled loop cannot run ``system``'s controls (a continuous controller
    evaluated from Python at every right-hand side), or None."""
    controls = Controls(system, 0.0)
    if controls.continuous and not controls.compiled:
        return f"the continuous controllers are evaluated from Python: {controls.interpreted}"
    return None
