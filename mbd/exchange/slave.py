"""What runs inside an mbd FMU (the FMU's generated module subclasses these with the slave
class of pythonfmu3 or pythonfmu, see :mod:`mbd.exchange.fmu`).

The FMU carries its model script and a description (``spec``, a dict): the model's name,
the script's file name, the ``--set`` overrides it was exported with, its run settings and
its variables (:mod:`mbd.exchange.variables`). An instance keeps every variable's value by
name; the master sets parameters and inputs, and at the end of initialization the model is
loaded, its parameters applied as ``--set`` applies them, built and started as a live
simulation (:class:`mbd.run.live.Simulation`); ``doStep(t, h)`` holds the inputs from t and
advances the simulation to t + h, with exact events inside the step, then reads the sensors.
FMU states are the simulation's snapshots (``save``/``restore``). A failure never escapes into
the master: its message goes to the FMU's log and the call returns an error status (FMI 3:
fmi3Error; FMI 2: fmi2Discard, asking to terminate, and a Python warning: see
:meth:`Model.report` and :func:`fmi2_model`).
"""
import os
import sys
import traceback
import warnings

#: the FMI causalities of the variables' kinds
CAUSALITY = ("input", "output", "parameter")


class Model:
    """The behaviour of an mbd FMU, whichever FMI version (see the module); the version's
    class below adds the variables' declaration and the status values."""

    def __init__(self, spec, **kwargs):
        super().__init__(**kwargs)
        self.spec = spec
        self.values = {v["name"]: float(v["start"]) for v in spec["variables"]}
        self.simulation, self.failure, self.t, self.stepped = None, None, 0.0, False
        self.description = spec["description"]
        self.declare(spec["variables"])

    # --------------------------------------------------------------- the variables' values

    def getter(self, name):
        return lambda: self.values[name]

    def setter(self, name):
        def set_value(value):
            self.values[name] = float(value)
        return set_value

    # --------------------------------------------------------------- the run

    def start(self, t0):
        """Load the model with the parameters set, build it and start it at ``t0`` (s);
        a failure is logged and kept for the steps to report."""
        try:
            self.simulation = self._started(t0)
            self.t = t0
            self._read_outputs()
        except Exception as err:      # never into the master: logged, reported by doStep
            self.failure = self._message("the model could not start", err)
            self.log(self.failure, status=self.error_status)   # reported again by doStep

    def _started(self, t0):
        from ..study.scripts import apply_override, apply_setting, load_script, model_of
        script = os.path.join(self.resources, self.spec["script"])
        model = model_of(load_script(script), script)
        for text in self.spec["sets"]:
            apply_setting(model, text)
        for v in self.spec["variables"]:
            value = self.values[v["name"]]
            if v["causality"] == "parameter" and value != float(v["start"]):
                name, param = v["name"].rsplit(".", 1)
                apply_override(model, name, param, value, f"FMU parameter {v['name']}")
        simulation = model.build().start(t0=t0, **self.spec["options"])
        self._set_inputs(simulation)
        return simulation

    def _set_inputs(self, simulation):
        for v in self.spec["variables"]:
            if v["causality"] == "input":
                simulation.set_input(v["name"], self.values[v["name"]])

    def _read_outputs(self):
        for v in self.spec["variables"]:
            if v["causality"] == "output":
                self.values[v["name"]] = float(self.simulation.read(v["name"]))

    def advance(self, current_time, step_size):
        """One communication step: True when it went well, else the failure logged."""
        if self.failure is not None:
            self.report(self.failure)
            return False
        try:
            if not self.stepped and current_time != self.t:
                # FMI 3.0 through pythonfmu3: the start time arrives with the first step
                self.simulation, self.t = self._started(current_time), current_time
            self.stepped = True
            self._set_inputs(self.simulation)
            self.simulation.advance_to(current_time + step_size)
            self.t = self.simulation.t
            self._read_outputs()
            return True
        except Exception as err:
            self.report(self._message(f"the step from t = {current_time!r} s failed", err))
            return False

    def report(self, message):
        """Tell the master of a failure: the FMU's log, with the error status (the step then
        returns the version's failure status)."""
        self.log(message, status=self.error_status)

    def _message(self, what, err):
        return (f"mbd model '{self.spec['model']}': {what}: {type(err).__name__}: {err}\n"
                + "".join(traceback.format_exception(err)[-3:]))

    # --------------------------------------------------------------- FMU states

    def _get_fmu_state(self):
        snapshot = None if self.simulation is None else self.simulation.save()
        return {"values": dict(self.values), "t": self.t, "snapshot": snapshot}

    def _set_fmu_state(self, state):
        self.values, self.t = dict(state["values"]), state["t"]
        if state["snapshot"] is not None:
            self.simulation.restore(state["snapshot"])


def _start(variable):
    """A variable's start value in the modelDescription: none for an output (FMI: it is
    calculated)."""
    return None if variable["causality"] == "output" else float(variable["start"])


def fmi3_model(Fmi3Slave):
    """The FMI 3.0 behaviour over pythonfmu3's ``Fmi3Slave`` (given, so that this module
    imports without pythonfmu3)."""
    from pythonfmu3 import Float64, Fmi3Causality, Fmi3Status, Fmi3StepResult, Fmi3Variability
    from pythonfmu3.unit import Unit

    from .variables import base_units

    class Fmi3Model(Model, Fmi3Slave):
        error_status = Fmi3Status.error

        def declare(self, variables):
            names = sorted({v["unit"] for v in variables if v["unit"]} | {"s"})
            self.register_units([Unit(n, **(base_units(n) or {})) for n in names])
            self.register_variable(Float64(
                "time", causality=Fmi3Causality.independent,
                variability=Fmi3Variability.continuous, unit="s", description="time",
                getter=lambda: self.t))
            for v in variables:
                kind = getattr(Fmi3Causality, v["causality"])
                variability = (Fmi3Variability.fixed if v["causality"] == "parameter"
                               else Fmi3Variability.continuous)
                self.register_variable(Float64(
                    v["name"], start=_start(v), causality=kind,
                    variability=variability, unit=v["unit"] or None,
                    description=v["description"], getter=self.getter(v["name"]),
                    setter=None if v["causality"] == "output" else self.setter(v["name"])))

        def exit_initialization_mode(self):
            # pythonfmu3 does not pass fmi3EnterInitializationMode's start time: 0, until
            # the first step says otherwise
            self.start(self.t)

        def do_step(self, current_time, step_size):
            if self.advance(current_time, step_size):
                return Fmi3StepResult()
            return Fmi3StepResult(status=Fmi3Status.error)

    return Fmi3Model


#: what an FMI 2 failure's warning adds to its message: what the master was told
FMI2_STATUS = ("FMI 2: doStep returned fmi2Discard with fmi2Terminated (the FMU asks to end "
               "the run; its last successful time is t = {t!r} s): a master such as FMPy ends "
               "the run there without an error")


def fmi2_model(Fmi2Slave):
    """The FMI 2.0 behaviour over pythonfmu's ``Fmi2Slave``: pythonfmu 0.7 declares no units
    and no initial unknowns, which :meth:`to_xml` adds.

    A failure: pythonfmu's ``doStep`` returns fmi2Discard and sets fmi2Terminated for a
    ``do_step`` that returns False, the only failure status it lets Python give (an exception
    is fmi2Fatal, and frees the slave the master still holds); FMPy's ``simulate_fmu`` then
    ends the run at the last successful time and returns its rows, raising nothing. And
    pythonfmu passes log messages to the master's logger only with debug logging on
    (``loggingOn``, ``fmi2SetDebugLogging``). So the message is also given as a
    ``RuntimeWarning`` in the process the FMU runs in (a Python master's own: printed by
    default, collected by ``warnings.catch_warnings(record=True)`` around the master's calls;
    where warnings are made errors it is printed to stderr instead, as no exception may pass
    through the binary)."""
    from xml.etree.ElementTree import SubElement

    from pythonfmu import Fmi2Causality, Fmi2Variability, Real
    from pythonfmu.enums import Fmi2Status

    from .variables import base_units

    class RealWithUnit(Real):
        def __init__(self, name, unit=None, **options):
            super().__init__(name, **options)
            self.unit = unit

        def to_xml(self):
            element = super().to_xml()
            if self.unit:
                element.find("Real").set("unit", self.unit)
            return element

    class Fmi2Model(Model, Fmi2Slave):
        error_status = Fmi2Status.error

        def declare(self, variables):
            for v in variables:
                kind = getattr(Fmi2Causality, v["causality"])
                variability = (Fmi2Variability.fixed if v["causality"] == "parameter"
                               else Fmi2Variability.continuous)
                self.register_variable(RealWithUnit(
                    v["name"], unit=v["unit"], start=_start(v), causality=kind,
                    variability=variability, description=v["description"],
                    getter=self.getter(v["name"]),
                    setter=None if v["causality"] == "output" else self.setter(v["name"])))

        def report(self, message):
            super().report(message)
            text = (message.splitlines()[0] + "\n" + FMI2_STATUS.format(t=self.t))
            try:
                warnings.warn(text, RuntimeWarning, stacklevel=2)
            except Exception:    # warnings made errors: never raised into the binary
                print(f"RuntimeWarning: {text}", file=sys.stderr)

        def setup_experiment(self, start_time, stop_time, tolerance):
            self.t = start_time

        def exit_initialization_mode(self):
            self.start(self.t)

        def do_step(self, current_time, step_size):
            return self.advance(current_time, step_size)

        def to_xml(self, model_options=None):
            root = super().to_xml({} if model_options is None else model_options)
            names = sorted({v["unit"] for v in self.spec["variables"] if v["unit"]})
            if names:
                units = root.makeelement("UnitDefinitions", {})
                for name in names:
                    unit = SubElement(units, "Unit", name=name)
                    base = base_units(name)
                    if base is not None:
                        SubElement(unit, "BaseUnit", {k: str(e) for k, e in base.items()})
                root.insert(list(root).index(root.find("CoSimulation")) + 1, units)
            structure = root.find("ModelStructure")
            outputs = structure.find("Outputs")
            if outputs is not None and structure.find("InitialUnknowns") is None:
                unknowns = SubElement(structure, "InitialUnknowns")
                for unknown in outputs:
                    SubElement(unknowns, "Unknown", index=unknown.get("index"))
            return root

    return Fmi2Model
