"""A linear model's inputs and outputs by name (:func:`mbd.analysis.linear.linearize`'s
``inputs`` and ``outputs``): the columns of B for Actuator force elements, the model's Inputs
and discrete controllers, and joint coordinates (:func:`input_columns`); the function
y(q, v, x_c) of the named outputs: joint coordinates, rates, CS positions, Sensors,
controllers' states and outputs (:func:`output_function`); the held values an input raises
(:func:`held_inputs`, :func:`with_held`: D's columns); the names of the continuous
controllers' states (:func:`controller_state_names`). ``dyn`` is the linearization's
:class:`mbd.analysis.linear.Dynamics` about the operating state.
"""
import numpy as np

from ..compiled import assembly, constant, dynamics
from ..control import Controller, Input, Sensor
from ..control.controllers import output_named
from ..model.errors import renamed_link
from ..run.controls import Reader
from . import coordinates


def controller_state_names(controls):
    """The names of the continuous controllers' states in their order in x: "pid.x" for a
    controller of one state, "pid.x0", "pid.x1", ... otherwise (as joint coordinates are
    named)."""
    names = []
    for c in controls.continuous:
        names += [f"{c.name}.x" if c.n_states == 1 else f"{c.name}.x{k}"
                  for k in range(c.n_states)]
    return names


def held_inputs(system):
    """Name -> held-value key of the model's Inputs and discrete controllers."""
    return {c.name: c.key for c in system.controls
            if isinstance(c, Input) or (isinstance(c, Controller) and c.period is not None)}


def with_held(dyn, key, du, f):
    """f() with the held value ``key`` raised by ``du`` (restored after)."""
    values_now = dyn.controls.values[-1]
    j = dyn.controls.column[key]
    base = values_now[j]
    try:
        values_now[j] = base + du
        return f()
    finally:
        values_now[j] = base


def input_columns(dyn, names):
    """B (2 dof + nc, nu): inputs are Actuator force elements (u: an added value, N or N m),
    the model's Inputs and discrete controllers (u: the value they hold, which the laws and
    the continuous controllers reading them take: B has rows for the controllers' states
    too) or joint coordinates (u: a generalized force on it)."""
    system, chart = dyn.system, dyn.chart
    coords = coordinates.coordinate_names(system)
    elements = {fe.name: i for i, fe in enumerate(system.force_elements)}
    held = held_inputs(system)
    n = chart.dof
    B = np.zeros((2 * n + dyn.nc, len(names)))
    q, v = dyn.q0, dyn.v0
    idx = chart.independent
    Minv = None
    for k, name in enumerate(names):
        if name in held:
            du = 1.0
            up = with_held(dyn, held[name], du, lambda: dyn.derivatives(q, v))
            down = with_held(dyn, held[name], -du, lambda: dyn.derivatives(q, v))
            B[n:2 * n, k] = ((up[0] - down[0]) / (2 * du))[idx]
            B[2 * n:, k] = (up[1] - down[1]) / (2 * du)
        elif name in elements:
            fe = system.force_elements[elements[name]]
            if system.elements[elements[name]]["law"] != constant.KIND.code:
                raise ValueError(f"linearize: input '{name}' is a {fe.law.name} force element; "
                                 "an input must be an Actuator force element or a joint "
                                 f"coordinate (one of {coords})")
            # (the controllers read no force element's value: x_c's rows stay 0)
            B[n:2 * n, k] = dyn.value_column(elements[name])[idx]
        else:
            i = _coordinate_index(system, coords, name, "input")
            Minv = dyn.inverse_mass(q) if Minv is None else Minv
            B[n:2 * n, k] = Minv[idx, i]
    return B


def _coordinate_index(system, coords, name, what):
    if name in coords:
        return coords.index(name)
    if name in system.joints and len(system.joints[name].v_index) == 1:
        return int(system.joints[name].v_index[0])
    elements = [fe.name for fe in system.force_elements]
    raise ValueError(f"linearize: {what} {name!r} names no joint coordinate"
                     + (", Actuator force element, Input or discrete controller"
                        if what == "input" else "")
                     + f"; the joint coordinates are {coords}"
                     + (f", the force elements {elements}" if what == "input" else ""))


def output_function(dyn, names):
    """y(q, v, x_c) for the named outputs: joint coordinates ("hinge.q", measured from the
    operating state as the chart measures them), rates ("hinge.v"), CS positions
    ("body.cs.x", world, m), Sensors, controllers' states ("pid.x0") and controllers'
    outputs ("pid", "pid[k]")."""
    system = dyn.system
    coords = coordinates.coordinate_names(system)
    rates = [coordinates.rate_name(c) for c in coords]
    picks = []
    sensors = {c.name: c for c in system.controls if isinstance(c, Sensor)}
    controllers = {c.name: c for c in system.controls if isinstance(c, Controller)}
    state_names = controller_state_names(dyn.controls) if dyn.nc else []
    states = {name: k for k, name in enumerate(state_names)}
    for k, name in enumerate(state_names):      # "pid.x0" for a controller of one state too
        if name.endswith(".x"):
            states.setdefault(name + "0", k)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"linearize: an output name must be a string, got {name!r}")
        if name in sensors:
            reader = Reader(system, sensors[name].what)
            if reader.size != 1:      # one output is one number
                raise ValueError(f"linearize: output '{name}' is a sensor of {reader.size} "
                                 f"numbers ({sensors[name].what}); name a sensor of one of "
                                 "its components as the output (e.g. WHAT[0], or qw/rx... "
                                 "for an orientation)")
            picks.append(("sensor", reader))
            continue
        if name in coords:
            picks.append(("q", coords.index(name)))
            continue
        if name in rates:
            picks.append(("v", rates.index(name)))
            continue
        if name in states:
            picks.append(("x", states[name]))
            continue
        found = _controller_output(controllers, name)
        if found is not None:
            picks.append(found)
            continue
        parts = name.split(".")
        if (len(parts) == 3 and parts[0] in system.bodies and parts[2] in ("x", "y", "z")
                and parts[1] in system.bodies[parts[0]].body.frames):
            bm = system.bodies[parts[0]]
            local = bm.cs_local(bm.body[parts[1]])[0]
            picks.append(("p", (bm.link, local, "xyz".index(parts[2]))))
            continue
        raise ValueError(f"linearize: output {name!r} is not a sensor ({sorted(sensors)}), a "
                         f"joint coordinate ({coords}), a rate ({rates}), a controller's "
                         f"state ({state_names}), a controller's output "
                         f"({_output_names(controllers)}) or a CS position 'body.cs.x|y|z' "
                         f"(bodies {sorted(system.bodies)})"
                         f"{renamed_link(parts[0], system) if len(parts) == 3 else ''}")

    def y(q, v, xc=None):
        out = np.empty(len(picks))
        dq = assembly.difference(system.tree, system.nv, q, dyn.q0)
        full = None
        R = p = None
        for k, (kind, what) in enumerate(picks):
            if kind == "q":
                out[k] = dq[what]
            elif kind == "v":
                out[k] = v[what]
            elif kind == "x":
                out[k] = (dyn.xc0 if xc is None else xc)[what]
            elif kind in ("sensor", "controller"):
                full = dyn.full_state(q, v, xc) if full is None else full
                if kind == "sensor":
                    out[k] = what.at(dyn.t, full, dyn.sides, dyn.controls.rows_evaluator())
                else:
                    out[k] = dyn.controls.continuous_output(what[0], dyn.t, full)[what[1]]
            elif kind == "held":
                out[k] = dyn.controls.held_at(dyn.t)[dyn.controls.column[what]]
            else:
                if R is None:
                    R, p = dynamics.link_poses(system, q)
                link, local, axis = what
                out[k] = p[link, axis] + (R[link] @ local)[axis]
        return out

    return y


def _controller_output(controllers, name):
    """("controller", (controller, k)) for a continuous controller's output ``name`` ("pid"
    or "pid[k]"), ("held", key) for a discrete one's, else None."""
    try:
        output = output_named(controllers, name)
    except KeyError:
        return None
    if output is None:
        return None
    if output.controller.period is not None:
        return ("held", output.key)
    return ("controller", (output.controller, output.k))


def _output_names(controllers):
    """How outputs name the controllers' outputs: "pid", or "ss[0]", "ss[1]", ..."""
    return [name if c.outputs == 1 else f"{name}[{k}]"
            for name, c in controllers.items() for k in range(c.outputs)]
