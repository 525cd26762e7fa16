"""The errors a user of mbd meets: a model that cannot be built, a run that failed, an
analysis without an answer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

# a Result (the run stage), a Model and a System are hinted Any or object: imports point down
# the stages and form no cycle, type-only imports too (DESIGN §9, tests/test_layout.py)
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .state import State


class InputError(Exception):
    """Bad input from the user outside a model (a model script that cannot be loaded, an
    override that names nothing, a sweep's grid): one message naming the input, the rule and
    the value; the command line reports it on stderr with exit status 2."""


class ModelError(ValueError):
    """A model that cannot be built; ``problems`` lists every problem found, one per line.

    Each problem names the element, the rule it breaks and the offending value.
    """

    def __init__(self, problems: str | Iterable[str]) -> None:
        if isinstance(problems, str):
            problems = [problems]
        self.problems = list(problems)
        if len(self.problems) == 1:
            text = self.problems[0]
        else:
            text = f"{len(self.problems)} problems:\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(text)


class SimulationError(RuntimeError):
    """A run that failed; ``result`` holds everything computed up to the failure, ``t`` the
    time reached (s)."""

    def __init__(self, message: str, result: Any = None, t: float | None = None) -> None:
        super().__init__(message)
        self.result = result
        self.t = t
        if hasattr(result, "stopped"):   # a Result: it tells why it ends early (its repr)
            result.stopped, result.stopped_at = message, t


class AnalysisError(RuntimeError):
    """An analysis without an answer (no static equilibrium: the message names the
    coordinates that run away and the residual); ``state`` holds the last state reached."""

    def __init__(self, message: str, state: State | None = None) -> None:
        super().__init__(message)
        self.state = state


def renamed_link(name: str, holder: object) -> str:
    """The end of a "no body 'NAME'" message where NAME is a URDF link that
    :func:`mbd.from_urdf` named ``NAME_link`` (a joint of the URDF has its name, and an mbd
    model names bodies and joints in one namespace), else "".

    Parameters
    ----------
    name : str
        The name looked up.
    holder : Model or System
        What was searched: a model's bodies and grounds, or a built system's.
    """
    bodies, grounds = getattr(holder, "bodies", ()), getattr(holder, "grounds", ())
    if isinstance(bodies, dict):                      # a System: {name: BodyMap}
        bodies = [getattr(b, "body", b) for b in bodies.values()]
    if isinstance(grounds, dict):
        grounds = list(grounds.values())
    for kind, owners in (("body", bodies), ("ground", grounds)):
        for owner in owners:
            if getattr(owner, "urdf_link", None) == name:
                return (f" (the URDF link '{name}' is the {kind} '{owner.name}' because a "
                        "joint has the same name)")
    return ""
