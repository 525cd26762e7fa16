"""Control in the loop (SPEC §9): sensors, inputs, lookup tables and controllers, elements of
a model like joints and force elements. This stage defines them and checks them against a
built mechanism; the run stage samples and evaluates them (:mod:`mbd.run.controls`). A
controller kind is one module (``pid.py``, ``statespace.py``, ``gain.py``, ``lookup.py``;
``user.py`` a user's function): its classes, its formula written once and its compiled kernel,
registered with one line (:func:`mbd.compiled.registry.register_controller`)."""
from .continuous import Continuous
from .controllers import Controller, Output
from .gain import Gain
from .lookup import Lookup
from .pid import PID, DiscretePID
from .signals import Input, Sensor, quantity
from .statespace import DiscreteStateSpace, StateSpace
from .tables import Table, Table2D
from .user import ContinuousController, DiscreteController

__all__ = ["Controller", "Continuous", "ContinuousController", "DiscreteController",
           "DiscretePID", "DiscreteStateSpace", "Gain", "Input", "Lookup", "Output", "PID",
           "Sensor", "StateSpace", "Table", "Table2D", "quantity"]
