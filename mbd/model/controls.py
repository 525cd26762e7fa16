"""The contract of the control elements (``mbd.control``) the core consumes: the
:class:`ControlElement` (a sensor, an input, a controller; the values they hold are
signals, :class:`mbd.model.elements.Signal`)."""
from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any

from .elements import Element

# the System a check reads (a later stage's) is hinted Any: imports point down the stages,
# type-only imports too (DESIGN §9, tests/test_layout.py)
if TYPE_CHECKING:
    from collections.abc import Mapping


class ControlElement(Element):
    """A sensor, an input or a controller (``mbd.control``): named, added with
    :meth:`mbd.Model.add` and checked against the built mechanism by :meth:`check`. Its
    numeric parameters in :attr:`settable` can be overridden (``--set pid.kp=40``, sweeps):
    :meth:`with_parameters` makes a new element through its constructor, which checks them;
    so are the points of its tables in :attr:`tables` (``--set lookup.table.y1=2.5``)."""

    #: what it is, as a report counts it: "sensor", "input" or "controller"
    role = "controller"

    #: the parameters an override may change (numbers its constructor takes)
    settable = ()

    #: the parameters holding a lookup table (:class:`mbd.control.Table`, ``Table2D``), whose
    #: points an override may change (``--set lookup.table.y1=2.5``): a new table each time
    tables = ()

    #: whether it is a continuous controller (evaluated at every right-hand side; a run's
    #: compiled data holds a record for each, :mod:`mbd.compiled.controlkernels`)
    continuous = False

    def __init_subclass__(cls, **options):
        # remember the arguments each element is made with, for with_parameters
        super().__init_subclass__(**options)
        init = cls.__dict__.get("__init__")
        if init is None:
            return
        signature = inspect.signature(init)

        @functools.wraps(init)
        def recording(self, *args, **kwargs):
            if "_arguments" not in self.__dict__:        # the class made, not a base
                bound = signature.bind(self, *args, **kwargs)
                bound.apply_defaults()
                self._arguments = dict(list(bound.arguments.items())[1:])
            init(self, *args, **kwargs)
        cls.__init__ = recording

    def with_parameters(self, **changes: Any) -> ControlElement:
        """A new element like this one with the numbers ``changes`` (from :attr:`settable`)
        or new tables (from :attr:`tables`), made and checked by its constructor."""
        known = tuple(self.settable) + tuple(self.tables)
        unknown = [k for k in changes if k not in known]
        if unknown:
            raise ValueError(f"{self.label()} has no settable parameter {unknown[0]!r}; its "
                             f"settable parameters are: {', '.join(known) or 'none'}")
        return type(self)(**{**self._arguments, **changes})

    def describe(self) -> str:
        """One line for a report: what it is and its parameters."""
        return self.label()

    def check(self, system: Any, controls: Mapping[str, ControlElement]) -> list[str]:
        """The problems (list of str) of this element in ``system`` with the other control
        elements ``controls`` (name -> element); empty when it is well formed."""
        return []

    def label(self) -> str:
        return f"{type(self).__name__} '{self.name}'"
