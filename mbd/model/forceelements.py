"""The force element contracts the core reads (DESIGN §4): a :class:`Law` (a scalar force
from (x, v, t)) and the :class:`ForceElement` that places it in the mechanism.

Concrete laws and force elements live in the ``forces`` package, one module per law kind; the
core knows only these contracts (DESIGN §1).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .elements import Element, Signal

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .state import State


class Law:
    """The 1-D law contract (DESIGN §4): a scalar force on the follower along +x from (x, v, t).

    A built-in law belongs to a registered law kind (``kind``, see :mod:`mbd.compiled.registry`):
    its compiled formula, known to the core by the kind's ``code``, reads the law's parameter row,
    packed by name from the kind's parameter record; its branches are fixed by *sides* of its
    switching functions (see :mod:`mbd.compiled.lawkernels`). Subclasses (one module per kind in
    ``forces``) validate their parameters on construction and describe their switches and
    states.

    Attributes
    ----------
    kind : mbd.compiled.registry.Kind
        The registered law kind.
    switch_names : tuple of (str, str)
        For each switching function, what the law does on its negative and positive side
        (used in the event log); empty for a smooth law.
    """

    kind = None
    switch_names = ()
    #: what a picture colours the element by: a key of :meth:`states`, "contact" (nonzero
    #: while in contact: red, else green) or "stuck" (true while it sticks: blue, else
    #: orange); None: drawn plainly
    drawn_state = None
    #: the units of its parameters, for exchange (an FMU's parameters): name -> unit, "{F}"
    #: the force's (N or N.m) and "{L}" the coordinate's (m or rad) where they depend on it
    units = {}
    #: as a contact's normal law: the slot of its parameter row past which (a gap above it)
    #: it exerts nothing and its only armed switch is its first (contact), so that a broad
    #: phase may leave the points of shapes that far apart unmeasured; None: none such
    reach_slot = None

    @property
    def code(self) -> int | None:
        """The compiled formula's code (int), None for a law of no registered kind."""
        return None if self.kind is None else self.kind.code

    def signals(self) -> list[tuple[int, str, Signal]]:
        """[(slot, parameter name, signal)]: the parameters of its kind's record given a
        :class:`mbd.model.elements.Signal` (an Input, a controller's output), whose values the
        run holds."""
        names = getattr(self.kind, "parameters", ())
        return [(slot, name, getattr(self, name)) for slot, name in enumerate(names)
                if isinstance(getattr(self, name, None), Signal)]

    def parameters(self, t: float = 0.0, state: State | None = None) -> tuple[float, ...]:
        """The parameter row (at most ``MAX_PARAMS`` floats) at time t (s) and ``state``: the
        kind's parameters, by name."""
        return tuple(getattr(self, name) for name in self.kind.parameters)

    def parameter_rows(self, T: np.ndarray) -> np.ndarray | None:
        """The parameter rows (n, at most ``MAX_PARAMS``) at the times T (n,) s, each what
        :meth:`parameters` gives there, in one call where the law's parameters are a function
        of time that answers for an array (:func:`mbd.model.values.returned_rows`); None
        otherwise (they are then worked out row by row, with the state)."""
        return None

    @property
    def time_varying(self) -> bool:
        """True when the parameters depend on time or state (Python callables: slow path)."""
        return False

    def energy(self, x: ArrayLike, params: np.ndarray,
               sides: np.ndarray | None = None) -> np.ndarray:
        """Potential energy (J) stored at the rows ``x`` (n,), with the parameter rows in use
        ``params`` (n, MAX_PARAMS) and the sides (n, LAW_SWITCHES; by default all +1); zeros
        for a law without one."""
        return np.zeros_like(np.asarray(x, dtype=float))

    def states(self, x: np.ndarray, v: np.ndarray, t: np.ndarray, sides: np.ndarray,
               params: np.ndarray) -> dict[str, np.ndarray]:
        """Per-row element state for ``result.force(name).state``: a dict of (n,) arrays, from
        the rows' law inputs, times, sides (n, SWITCHES) and parameters in use."""
        return {}

    def stops(self) -> tuple[float, ...]:
        """The finite positions (m or rad) at which the law stops its coordinate, which a
        picture marks; () for a law without stops."""
        return ()

    #: the name of the one mode of a law without branches
    SMOOTH = "smooth"

    @property
    def modes(self) -> tuple[str, ...]:
        """The names of its modes (its formula's branches) with these parameters; a law
        without branches has one, :attr:`SMOOTH`. A mode changes exactly where the event log
        says a switch happened (docs/adding-an-element.md)."""
        return (self.SMOOTH,)

    def branch(self, x: float, v: float = 0.0, t: float = 0.0) -> str:
        """The mode (one of :attr:`modes`) the law's formula is in at the coordinate x (m or
        rad), its rate v and time t (s): written from the formula itself (SPEC §3.2), not from
        the switching functions, so that a test can check the run's modes and its event log
        against it."""
        return self.SMOOTH

    def mode(self, sides: np.ndarray) -> str:
        """The mode (one of :attr:`modes`) the run integrates in with the sides ``sides``
        (LAW_SWITCHES,) of a result row: read from the sides of the armed functions only."""
        return self.SMOOTH

    def describe(self, k: int, side: float, sides: np.ndarray | None = None) -> str:
        """What switching function k's new ``side`` means in the mode ``sides``, for the event
        log."""
        if k < len(self.switch_names):
            negative = side < 0
            if sides is not None and self.mirrored(k, sides):
                negative = not negative
            return self.switch_names[k][0 if negative else 1]
        return f"switch {k} -> {'-' if side < 0 else '+'}"

    def mirrored(self, k: int, sides: np.ndarray) -> bool:
        """True when, in the mode ``sides``, switching function k's sides mean the opposite of
        ``switch_names[k]`` (a clamp written for one contact side, met on the other)."""
        return False


class ForceElement(Element):
    """A force element: a :class:`Law` placed in the mechanism (DESIGN §4).

    The core reads:

    - ``placement``: "joint" (a revolute/prismatic primitive's coordinate), "line" (the
      distance between two CSs), "axial" (B's displacement relative to A along an axis fixed in
      A) or "rotational" (B's rotation relative to A about such an axis);
    - ``law``: a :class:`Law`;
    - ``joint`` and ``primitive`` for "joint"; ``cs_a``, ``cs_b`` and ``axis`` (world,
      reference configuration) for the others;
    - ``endpoints``: the CSs it acts between, which make a composite machine when they lie on
      different machines (SPEC §1).
    """

    placement = None
    law = None
    #: whether its load is a vector (a bushing's wrench, a body spring-damper's force), not
    #: one value along a coordinate: a picture plots the magnitude of its world load, and a
    #: sensor cannot read it as one number
    vector_valued = False
    #: the units of the parameters its ``with_parameters`` changes, as :attr:`Law.units`
    units = {}
    joint = None
    primitive = 0
    cs_a = None
    cs_b = None
    axis = None

    @property
    def endpoints(self) -> tuple[Any, Any]:
        if self.placement == "joint":
            j = self.joint
            return (getattr(j, "base", None), getattr(j, "follower", None))
        return (self.cs_a, self.cs_b)

    def label(self) -> str:
        return f"{type(self).__name__} '{self.name}'"

    def parameters_text(self) -> str:
        """The element's parameters as a user gives them, for messages: its law's, e.g.
        ``Spring(c=10000.0, x0=0.0)``."""
        return repr(self.law)
