"""mbd: 3-D rigid-body multibody dynamics with force elements.

Build a :class:`Model` (grounds, bodies with CSs and their shapes, joints from :mod:`joints`,
force elements from :mod:`forces`, sensors, inputs and controllers from :mod:`mbd.control`),
``build()`` it into a :class:`System`, ``simulate`` it into a :class:`Result`. See README.md
for a tour.
"""
from __future__ import annotations

import os as _os
import signal as _signal
import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING


def _interrupted_while_starting(signum, frame):
    """Ctrl-C while the command line imports numpy, numba and the kernels (about a second and a
    half): a clean message, no traceback; nothing was run or written yet."""
    _sys.stderr.write("mbd: interrupted while starting: nothing was run or written\n")
    _sys.stderr.flush()
    _os._exit(130)


# the command line's process (``mbd ...``, ``python -m mbd ...``; sys.argv[0] is "-m" while
# -m imports the package): Ctrl-C before mbd.cli.main() takes over is a clean exit
if (_sys.argv and (_sys.argv[0] == "-m" or _os.path.basename(_sys.argv[0]) in ("mbd", "mbd.exe"))
        and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler):
    _signal.signal(_signal.SIGINT, _interrupted_while_starting)

from .analysis.equilibrium import Equilibrium, equilibrium
from .analysis.linear import LinearModel, linearize
from .compiled.events import Event
from .control import (
    PID,
    ContinuousController,
    DiscreteController,
    DiscretePID,
    DiscreteStateSpace,
    Gain,
    Input,
    Lookup,
    Sensor,
    StateSpace,
    Table,
    Table2D,
)
from .exchange import export_fmu, from_urdf
from .model.builder import CS, Body, Environment, Ground, Model
from .model.contacts import Contact, Coulomb, contacts_among, damping_for_restitution, hertz
from .model.drivers import GearConstraint, MotionDriver
from .model.elements import Element, Joint, Primitive
from .model.errors import AnalysisError, InputError, ModelError, SimulationError
from .model.forceelements import ForceElement, Law
from .model.shapes import Box, Capsule, ConvexMesh, Cylinder, Mesh, Plane, Sphere
from .model.state import State
from .run.csvfiles import read_csv
from .run.live import Simulation, Snapshot
from .run.result import ForceView, Result
from .run.simulate import simulate as _run_simulate
from .study.sweeps import sweep
from .system.system import Machine, System
from .system.system import build as _build_system

if _TYPE_CHECKING:
    from typing import Any


# The stage facades (DESIGN §9). A model builds into a System and a System runs: each method
# calls a later stage than its class's, so it is bound here, where both stages are known,
# rather than imported upward inside the method.
def _build(self) -> System:
    """Validate everything and compile the model into an immutable :class:`~mbd.System`.

    Raises :class:`~mbd.ModelError` listing every problem found.
    """
    return _build_system(self)


def _simulate(self, t_end: float, **options: Any) -> Result:
    """Integrate from the initial state to ``t_end`` (s); see
    :func:`mbd.run.simulate.simulate`."""
    return _run_simulate(self, t_end, **options)


def _start(self, **options: Any) -> Simulation:
    """A live simulation from the initial state (a :class:`~mbd.run.live.Simulation`: set
    inputs, advance, read, save and restore, the result so far); options as
    :class:`mbd.run.live.Simulation` takes them."""
    return Simulation(self, **options)


Model.build = _build
System.simulate = _simulate
System.start = _start
del _build, _simulate, _start

__all__ = ["sweep", "export_fmu", "from_urdf", "InputError", "Model", "Environment", "Ground", "Body", "CS", "Joint",
           "Primitive", "ForceElement", "Law", "ForceView", "MotionDriver", "GearConstraint",
           "Sensor", "Input", "DiscretePID", "DiscreteStateSpace", "DiscreteController", "Gain",
           "PID", "StateSpace", "ContinuousController", "Table", "Table2D", "Lookup",
           "Element", "System", "State", "Machine", "Result", "Event", "ModelError",
           "SimulationError", "AnalysisError", "equilibrium", "Equilibrium", "linearize",
           "LinearModel", "Simulation", "Snapshot", "read_csv", "Box", "Cylinder", "Sphere",
           "Capsule", "Mesh", "Plane", "ConvexMesh", "Contact", "Coulomb", "contacts_among", "hertz",
           "damping_for_restitution"]
__version__ = "0.1.0"
