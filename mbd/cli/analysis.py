"""``mbd equilibrium`` and ``mbd modes``: the analyses of SPEC §6 on a model script, their
tables printed and their CSVs written (the modes' shapes with their signs: :func:`modes_rows`)."""
import csv
import os

import numpy as np

from ..model.files import atomic_open
from ..study.scripts import output_folder
from .common import load, written


def _analysis_header(command, system, applied):
    lines = [f"mbd {command}: {system.name}",
             f"  machines: {len(system.machines)}, bodies: {len(system.bodies)}, "
             f"joints: {len(system.joints)}, force elements: {len(system.force_elements)}, "
             f"DOF: {system.dof}"]
    if applied:
        lines.append("  settings: " + ", ".join(applied))
    return lines


def _csv_value(value):
    """A CSV cell: numbers in full precision (%.17g), booleans as true/false, text as is."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.17g}"
    return str(value)


def equilibrium_rows(eq):
    """(name, value) rows of ``mbd equilibrium``'s CSV: every joint coordinate at rest (named
    as in a run's CSV: ``hinge.q``, ``ball.q0`` .. ``ball.q3`` for a quaternion), then ``t``,
    ``residual``, ``iterations``, ``method``, ``stable``, and per force element each entry of
    its branch at rest (``stop.contact``)."""
    rows = []
    for name, jm in eq.system.joints.items():
        idx = list(jm.q_index)
        for k, i in enumerate(idx):
            rows.append((f"{name}.q" if len(idx) == 1 else f"{name}.q{k}", float(eq.state.q[i])))
    rows += [("t", float(eq.state.t)), ("residual", eq.residual), ("iterations", eq.iterations),
             ("method", eq.method), ("stable", bool(eq.stable))]
    for element, state in eq.active.items():
        rows += [(f"{element}.{key}", value) for key, value in state.items()]
    return rows


def _write_equilibrium_csv(eq, path):
    def write(path):
        with atomic_open(path, "w") as fh:
            out = csv.writer(fh, lineterminator="\n")   # quotes "dynamic, then newton"
            out.writerow(["quantity", "value"])
            out.writerows((name, _csv_value(value)) for name, value in equilibrium_rows(eq))
        return path
    return written(write, path)


#: the leading columns of ``mbd modes``' CSV (then the shape: see :func:`modes_rows`)
MODE_COLUMNS = ("mode", "frequency_hz", "damped_frequency_hz", "damping_ratio", "growth_rate",
                "kind")

#: how ``mbd modes``' CSV scales and signs each shape (also printed by the command)
SHAPE_CONVENTION = ("each shape scaled so that its largest-magnitude coordinate is +1; the "
                    "others signed relative to it (COORD: real part, COORD.imag: imaginary "
                    "part, 0 for an undamped or real mode)")


def modes_rows(linear):
    """(header, rows) of ``mbd modes``' CSV: one row per mode of ``linear.modes()`` (numbered
    from 1), :data:`MODE_COLUMNS`, then the mode's shape as :class:`mbd.Mode` gives it, signs
    kept: per joint coordinate ``hinge.q`` its real part (rad or m), then per coordinate
    ``hinge.q.imag`` its imaginary part.

    The sign is deterministic: a shape is scaled so that its largest-magnitude coordinate is
    +1 (real); a coordinate moving against it is negative; a damped mode's phase lag
    is the imaginary part. Re-reading the CSV gives ``mode.shape`` to the last bit
    (``%.17g``)."""
    names = list(linear.coordinates)
    header = list(MODE_COLUMNS) + names + [f"{c}.imag" for c in names]
    rows = []
    for k, m in enumerate(linear.modes(), 1):
        shape = [complex(m.shape[c]) for c in names]
        # + 0.0 writes a negative zero (a shape's exact zero, flipped) as 0
        rows.append([k, m.frequency, m.damped_frequency, m.damping_ratio, m.growth_rate,
                     m.kind] + [z.real + 0.0 for z in shape] + [z.imag + 0.0 for z in shape])
    return header, rows


def _write_modes_csv(linear, path):
    header, rows = modes_rows(linear)

    def write(path):
        with atomic_open(path, "w") as fh:
            out = csv.writer(fh, lineterminator="\n")
            out.writerow(header)
            out.writerows([_csv_value(c) for c in row] for row in rows)
        return path
    return written(write, path), len(rows)


def equilibrium_command(args):
    from .. import equilibrium
    _, model, applied = load(args)
    system = model.build()
    out = output_folder(args.out)
    eq = equilibrium(system, t=args.t)
    csv = _write_equilibrium_csv(eq, os.path.join(out, f"{system.name}_equilibrium.csv"))
    lines = _analysis_header("equilibrium", system, applied) + [eq.table(),
                                                                 f"  results: {csv}"]
    print("\n".join(lines))
    return 0


def _start_at_rest(system, t):
    """The start state at rest: the joints' q0 (loops assembled, drivers at their positions
    at t), v = 0."""
    from ..compiled import assembly
    from ..model.state import State
    from ..run.evaluator import Evaluator
    start = system.initial_state(t0=t)
    q = assembly.normalized(system.tree, start.q)
    zero = np.zeros(system.nv)
    if system.cut_joints or system.drivers:
        q, _ = assembly.initial(system, Evaluator(system).data,
                                State(t, q, zero), {}, {})
    return State(t, q, zero)


def _state_table(system, state):
    lines = [f"the start state at rest of '{system.name}' at t = {state.t:g} s (--at-start: "
             "linearized there, an equilibrium or not)",
             f"  {'joint':<20} {'coordinate(s)':<40}"]
    for name, jm in system.joints.items():
        q = state.q[jm.q_index]
        text = (f"{q[0]:+.10g}" if len(q) == 1
                else "[" + ", ".join(f"{x:+.6g}" for x in q) + "]")
        lines.append(f"  {name:<20} {text:<40}")
    return "\n".join(lines)


def modes_command(args):
    from .. import equilibrium, linearize
    _, model, applied = load(args)
    system = model.build()
    out = output_folder(args.out)
    lines = _analysis_header("modes", system, applied)
    if args.at_start:
        state = _start_at_rest(system, args.t)
        linear = linearize(system, state)
        lines.append(_state_table(system, state))
    else:
        eq = equilibrium(system, t=args.t)
        linear = eq.linear
        lines.append(eq.table())
    lines.append(f"linear model: {2 * linear.dof} states ({', '.join(linear.state_names)})"
                 if linear.dof else "linear model: no states (0 DOF)")
    lines.append(linear.table())
    csv, n = _write_modes_csv(linear, os.path.join(out, f"{system.name}_modes.csv"))
    lines.append(f"  modes: {csv} ({n} mode{'s' if n != 1 else ''}; {SHAPE_CONVENTION})")
    if args.animate:
        for k in range(n):
            gif = os.path.join(out, f"{system.name}_mode{k + 1}.gif")
            try:
                from viz import animate_mode
                from viz.render import GIF_SIZE
                animate_mode(linear, k, gif, fps=15, size=GIF_SIZE, progress=False)
            except Exception as err:   # a missing renderer must not lose the tables written
                lines.append(f"  animation of mode {k + 1}: skipped, {type(err).__name__}: {err}")
            else:
                lines.append(f"  animation of mode {k + 1}: {gif}")
    print("\n".join(lines))
    return 0


def add_parsers(sub, setting, robot=()):
    """The ``equilibrium`` and ``modes`` subcommands of ``sub`` (``setting``: the arguments of
    ``--set``; ``robot``: the parent parsers of the URDF options)."""
    from .run import MODEL_HELP
    analysis_time = dict(type=float, default=0.0, metavar="T",
                         help="time of the analysis, s (time-dependent laws and motion "
                         "drivers are taken there; default 0)")
    eq = sub.add_parser("equilibrium", parents=[*robot], help="find where a model script's "
                        "mechanism (or a URDF robot) rests (static equilibrium): print it and "
                        "write it as CSV")
    eq.add_argument("model", help=MODEL_HELP)
    eq.add_argument("--out", default="mbd-out", help="output folder (default: mbd-out)")
    eq.add_argument("--set", **setting)
    eq.add_argument("--t", **analysis_time)
    eq.set_defaults(run=equilibrium_command)

    modes = sub.add_parser("modes", parents=[*robot], help="linearize a model script's "
                           "mechanism (or a URDF robot) about its equilibrium and write its "
                           "modes (frequency, damping, shape)")
    modes.add_argument("model", help=MODEL_HELP)
    modes.add_argument("--out", default="mbd-out", help="output folder (default: mbd-out)")
    modes.add_argument("--set", **setting)
    modes.add_argument("--t", **analysis_time)
    modes.add_argument("--animate", action="store_true",
                       help="also write an animated GIF of every mode")
    modes.add_argument("--at-start", action="store_true",
                       help="linearize about the start state at rest (the joints' q0, loops "
                       "closed) instead of the equilibrium")
    modes.set_defaults(run=modes_command)
