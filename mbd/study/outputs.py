"""A sweep's outputs: the named scalars read off each run's Result ("REDUCTION:QUANTITY" or
a function of a Result)."""
import numpy as np

from ..model.errors import InputError, renamed_link

#: the reductions of an output over a run's rows ("REDUCTION:QUANTITY")
REDUCTIONS = ("final", "max", "min", "mean", "absmax")


#: the outputs read off the event log ("count:events.NAME", "first:events.NAME")
EVENT_READINGS = ("count", "first")


class Output:
    """A named scalar of a run: ``"REDUCTION:QUANTITY"`` or a function of a Result.

    QUANTITY is ``joint.NAME.q`` / ``joint.NAME.v`` (then ``.K``: the K-th coordinate of a
    joint of several), ``force.NAME.value`` (a 3-D element's -- a BodySpringDamper, a
    bushing -- the magnitude of its world force on B; ``.0``-``.2`` a world component),
    ``body.NAME.CS.x|y|z`` (world, m; CS ``cg`` for the CG) or ``energy`` (J); REDUCTION one of :data:`REDUCTIONS` over the output rows (``mean``: the time average,
    trapezoidal over the rows). ``count:events.NAME`` is the number of switches of element
    NAME, ``first:events.NAME`` the time of its first switch of any kind (nan: none; for
    an element that starts in contact that is its first *release*: use a function of the
    Result, e.g. of ``result.force(NAME).contacts()``, for the first contact itself).
    """

    def __init__(self, column, spec):
        self.column, self.spec = column, spec
        self.function = spec if callable(spec) else None
        if self.function is not None:
            return
        where = f"sweep: output {column!r}"
        if not isinstance(spec, str) or ":" not in spec:
            raise InputError(f"{where}: {spec!r} is not 'REDUCTION:QUANTITY' (e.g. "
                             "'max:force.stop.value') or a function of a Result")
        self.reduction, _, quantity = (s.strip() for s in spec.partition(":"))
        self.parts = quantity.split(".")
        kind = self.parts[0]
        if self.reduction in EVENT_READINGS:
            if kind != "events" or len(self.parts) < 2:
                raise InputError(f"{where}: {self.reduction}: reads the event log: "
                                 f"'{self.reduction}:events.NAME', got {spec!r}")
            self.parts = ["events", ".".join(self.parts[1:])]
        elif self.reduction not in REDUCTIONS:
            raise InputError(f"{where}: unknown reduction {self.reduction!r} in {spec!r}; "
                             f"the reductions are: {', '.join(REDUCTIONS + EVENT_READINGS)}")
        elif kind == "events":
            raise InputError(f"{where}: the event log is read by 'count:' or 'first:', got "
                             f"{spec!r}")
        shapes = {"joint": "joint.NAME.q|v[.K]", "force": "force.NAME.value[.K]",
                  "body": "body.NAME.CS.x|y|z", "energy": "energy"}
        if kind not in shapes and kind != "events":
            raise InputError(f"{where}: unknown quantity {quantity!r}; the quantities are: "
                             f"{', '.join(shapes.values())}")
        ok = {"joint": len(self.parts) in (3, 4) and self.parts[2] in ("q", "v"),
              "force": len(self.parts) in (3, 4) and self.parts[2] == "value",
              "body": len(self.parts) == 4 and self.parts[3] in ("x", "y", "z"),
              "energy": len(self.parts) == 1, "events": True}[kind]
        if ok and len(self.parts) == 4 and kind in ("joint", "force"):
            ok = self.parts[3].isdigit()
        if not ok:
            raise InputError(f"{where}: {quantity!r} is not {shapes[kind]}")

    def check(self, system):
        """Raise InputError when the quantity names nothing in ``system``."""
        if self.function is not None:
            return
        where = f"sweep: output {self.column!r} ({self.spec})"
        kind = self.parts[0]
        if kind == "joint":
            name = self.parts[1]
            if name not in system.joints:
                raise InputError(f"{where}: no joint '{name}'; the joints are: "
                                 f"{', '.join(system.joints)}")
            jm = system.joints[name]
            size = len(jm.q_index if self.parts[2] == "q" else jm.v_index)
            if len(self.parts) == 4 and int(self.parts[3]) >= size:
                raise InputError(f"{where}: joint '{name}' has {size} {self.parts[2]} "
                                 f"coordinate(s), 0 to {size - 1}")
            if len(self.parts) == 3 and size > 1:
                raise InputError(f"{where}: joint '{name}' has {size} {self.parts[2]} "
                                 f"coordinates: say which, e.g. joint.{name}.{self.parts[2]}.0")
        elif kind == "force":
            name = self.parts[1]
            if name not in system.force_index:
                raise InputError(f"{where}: no force element '{name}'; the force elements "
                                 f"are: {', '.join(system.force_index) or 'none'}")
            fe = system.force_elements[system.force_index[name]]
            if len(self.parts) == 4 and (not fe.vector_valued
                                         or int(self.parts[3]) > 2):
                raise InputError(f"{where}: '{name}' has one value" if not
                                 fe.vector_valued else
                                 f"{where}: a world component is 0, 1 or 2")
        elif kind == "body":
            name, cs = self.parts[1], self.parts[2]
            if name not in system.bodies:
                raise InputError(f"{where}: no body '{name}'{renamed_link(name, system)}; "
                                 "the bodies are: "
                                 f"{', '.join(system.bodies)}")
            body = system.bodies[name].body
            if cs not in body.frames:
                raise InputError(f"{where}: body '{name}' has no CS '{cs}'; its CSs are: "
                                 f"{', '.join(body.frames)}")
        elif kind == "events":
            names = set(system.joints) | set(system.force_index) | {d.name for d in
                                                                   system.drivers}
            if self.parts[1] not in names:
                raise InputError(f"{where}: no element '{self.parts[1]}' in the model")

    def of(self, result):
        """The output's value for ``result`` (a float)."""
        if self.function is not None:
            return _number(self.function(result), self.column)
        kind = self.parts[0]
        if kind == "events":
            times = [e.t for e in result.events if e.element == self.parts[1]]
            if self.reduction == "count":
                return float(len(times))
            return float(times[0]) if times else float("nan")
        if kind == "joint":
            view = result.joint(self.parts[1])
            x = view.q if self.parts[2] == "q" else view.v
            if len(self.parts) == 4:
                x = x[:, int(self.parts[3])]
        elif kind == "force":
            view = result.force(self.parts[1])
            x = view.vector if view.element.vector_valued else view.value
            if x.ndim == 2:
                x = x[:, int(self.parts[3])] if len(self.parts) == 4 else np.linalg.norm(x, axis=1)
        elif kind == "body":
            x = result.body(self.parts[1]).position(self.parts[2])[:, "xyz".index(self.parts[3])]
        else:
            x = result.energy()
        return _reduce(self.reduction, result.t, np.asarray(x, dtype=float))


def _reduce(reduction, t, x):
    if reduction == "final":
        return float(x[-1])
    if reduction == "max":
        return float(np.max(x))
    if reduction == "min":
        return float(np.min(x))
    if reduction == "absmax":
        return float(np.max(np.abs(x)))
    span = t[-1] - t[0]       # mean: the time average over the run
    return float(np.trapezoid(x, t) / span) if span > 0 else float(x[-1])


def _number(value, column):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"output {column!r}: the function returned {value!r}, not a "
                         "number") from None
    return number


def outputs_of(outputs):
    """[Output] of the ``outputs`` mapping {column: spec}."""
    if outputs is None:
        return []
    if not isinstance(outputs, dict):
        raise InputError("sweep: outputs must be a dict {column: 'REDUCTION:QUANTITY' or a "
                         f"function of a Result}}, got {type(outputs).__name__}")
    found = []
    for column, spec in outputs.items():
        if not isinstance(column, str) or not column:
            raise InputError(f"sweep: an output's column name must be a non-empty string, "
                             f"got {column!r}")
        found.append(Output(column, spec))
    return found
