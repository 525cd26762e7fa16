"""``mbd fmu MODEL.py -o MODEL.fmu``: export a model script as an FMI co-simulation FMU
(:func:`mbd.exchange.export_fmu`)."""
import os
import sys
import warnings

from ..exchange import export_fmu
from ..exchange.fmu import identifier
from .common import script_only


def fmu_command(args):
    script_only("fmu", args.model)
    path = args.output or identifier(os.path.splitext(os.path.basename(args.model))[0]) + ".fmu"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        written = export_fmu(args.model, path, fmi=args.fmi, sets=args.set)
    for warning in caught:       # one line each, not Python's (file, line and source)
        print(f"mbd fmu: warning: {warning.message}", file=sys.stderr)
    print(f"mbd fmu: wrote {written} (FMI {args.fmi}.0 co-simulation; it runs with mbd "
          "installed where it runs)")
    return 0


def add_parsers(sub, setting):
    """The ``fmu`` subcommand of ``sub`` (``setting``: the arguments of ``--set``)."""
    fmu = sub.add_parser("fmu", help="export a model script as an FMI co-simulation FMU "
                         "(inputs: its Inputs, outputs: its Sensors, parameters: what --set "
                         "changes)")
    fmu.add_argument("model", help="Python file defining build_model() -> mbd.Model")
    fmu.add_argument("-o", "--output", default=None,
                     help="the .fmu file to write (default: MODEL.fmu in this folder)")
    fmu.add_argument("--fmi", type=int, choices=(3, 2), default=3,
                     help="FMI version (default 3; 2 for older masters)")
    fmu.add_argument("--set", **setting)
    fmu.set_defaults(run=fmu_command)
