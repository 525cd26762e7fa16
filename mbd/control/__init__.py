"""Control in the loop (SPEC §9): sensors, inputs and controllers, elements of a model like
joints and force elements. This stage defines them and checks them against a built
mechanism; the run stage samples them (:mod:`mbd.run.controls`)."""
from .controllers import (PID, Continuous, ContinuousController, Controller, DiscreteController,
                          DiscretePID, DiscreteStateSpace, Gain, Output, StateSpace)
from .signals import Input, Sensor, quantity

__all__ = ["Controller", "Continuous", "ContinuousController", "DiscreteController",
           "DiscretePID", "DiscreteStateSpace", "Gain", "Input", "Output", "PID", "Sensor",
           "StateSpace", "quantity"]
