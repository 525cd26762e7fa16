"""mbd: 3-D rigid-body multibody dynamics with force elements.

Build a :class:`Model` (grounds, bodies with CSs, joints from :mod:`joints`, force elements
from :mod:`forces`), ``build()`` it into a :class:`System`, ``simulate`` it into a
:class:`Result`. See README.md for a tour.
"""
from .elements import Element, ForceElement, GearConstraint, Joint, Law, MotionDriver, Primitive
from .errors import AnalysisError, InputError, ModelError, SimulationError
from .model import CS, Body, Environment, Ground, Model
from .events import Event
from .result import ForceView, Result
from .system import Machine, State, System
from .equilibrium import Equilibrium, equilibrium
from .linear import LinearModel, linearize
from .study import sweep

__all__ = ["sweep", "InputError", "Model", "Environment", "Ground", "Body", "CS", "Joint", "Primitive", "ForceElement", "Law", "ForceView", "MotionDriver",
           "GearConstraint",
           "Element", "System", "State", "Machine", "Result", "Event", "ModelError",
           "SimulationError", "AnalysisError", "equilibrium", "Equilibrium", "linearize",
           "LinearModel"]
__version__ = "0.1.0"
