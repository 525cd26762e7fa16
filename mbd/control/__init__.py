"""Control in the loop (SPEC §9): sensors, inputs, lookup tables and controllers, elements of
a model like joints and force elements. This stage defines them and checks them against a
built mechanism; the run stage samples and evaluates them (:mod:`mbd.run.controls`)."""
from .controllers import Controller, Output
from .continuous import PID, Continuous, ContinuousController, Gain, Lookup, StateSpace
from .discrete import DiscreteController, DiscretePID, DiscreteStateSpace
from .signals import Input, Sensor, quantity
from .tables import Table, Table2D

__all__ = ["Controller", "Continuous", "ContinuousController", "DiscreteController",
           "DiscretePID", "DiscreteStateSpace", "Gain", "Input", "Lookup", "Output", "PID",
           "Sensor", "StateSpace", "Table", "Table2D", "quantity"]
