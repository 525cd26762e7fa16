"""A URDF robot whose joints start outside their ``<limit>`` (:func:`mbd.from_urdf`'s
``start``): the joints found (:func:`outside_limits`), the message naming them and the ways out
(:func:`outside_text`), the warning at import and the model whose ``build()`` refuses them
(:class:`Robot`)."""
import numpy as np

from forces import Bistop

from ..model.builder import Model
from ..model.errors import ModelError

__all__ = ["STARTS", "StartOutsideLimits", "Robot", "outside_limits", "outside_text"]

#: what ``from_urdf(start=...)`` does with a joint whose start lies outside its <limit>
STARTS = ("checked", "inside", "anywhere")


class StartOutsideLimits(UserWarning):
    """``from_urdf``'s warning: joints start outside their ``<limit>`` (``build()`` will
    refuse them unless their starts change); the message names each, its limits and start."""


class Robot(Model):
    """The :class:`mbd.Model` :func:`from_urdf` returns: its ``build()`` first refuses a
    joint that starts outside its URDF ``<limit>`` (unless ``from_urdf(start="anywhere")``),
    naming each, its limits and its start, and the ways to start it inside."""

    def __init__(self, name="model", description=""):
        super().__init__(name, description)
        self.urdf_stops = []          # [(joint name, its end stop's name)]
        self.urdf_start = "checked"   # from_urdf's start
        self.urdf_moved = []          # start="inside": [(joint name, start, the limit)]

    def build(self):
        """Refuse joints that start outside their limits (ModelError naming each, see
        :func:`from_urdf`'s ``start``); then :meth:`mbd.Model.build`."""
        if self.urdf_start != "anywhere":
            outside = outside_limits(self)
            if outside:
                raise ModelError(outside_text(self, outside))
        return super().build()


def outside_limits(model):
    """[(joint, start, lower, upper, stop)] of the URDF's limited joints of ``model`` whose
    start (the joint's ``q0``, as edited since) lies outside the stop's gap [x1, x2] (the
    stop's limits, as edited or ``--set`` since; a stop taken out of the model is left
    out)."""
    # by name: --set replaces a force element by one with the new parameters
    elements = {getattr(e, "name", None): e for e in model.elements}
    out = []
    for joint_name, stop_name in model.urdf_stops:
        joint, stop = elements.get(joint_name), elements.get(stop_name)
        if not isinstance(getattr(stop, "law", None), Bistop) or getattr(
                stop, "joint", None) is not joint:
            continue
        try:
            q = float(joint.initial_q()[0])
        except ModelError:            # a malformed q0: build() names it
            continue
        if q < stop.law.x1 or q > stop.law.x2:
            out.append((joint, q, stop.law.x1, stop.law.x2, stop))
    return out


def outside_text(model, outside, consequence=""):
    """The message on the joints ``outside`` (of :func:`outside_limits`): each joint, its start and
    limits, the energy their stops would release (J), ``consequence`` ("; ..." or "") and the
    ways out (from Python and from the command line)."""
    parts, energy = [], 0.0
    for joint, q, x1, x2, stop in outside:
        unit = "m" if joint.primitives[0].kind == "P" else "rad"
        parts.append(f"'{joint.name}' starts at {q:.6g} {unit}, outside its limits "
                     f"[{x1:.6g}, {x2:.6g}] {unit}")
        law = stop.law
        energy += float(law.energy(np.array([q]), np.array([law.parameters()]))[0])
    joint, q, x1, x2, _ = outside[0]         # the example start of one's own
    inside = x1 if q < x1 else x2
    count = (f"{len(outside)} joints start outside their" if len(outside) > 1
             else "a joint starts outside its")
    return (f"URDF robot '{model.name}': {count} <limit> ({'; '.join(parts)}): a run would "
            f"start with the end stops pressed in, which would release {energy:.3g} J at "
            f"once{consequence}. Start them inside: from_urdf(..., start='inside') starts "
            f"each at its nearest limit (mbd run/check ROBOT.urdf --start inside); a start of "
            f"your own: from_urdf(..., q0={{'{joint.name}': {inside:.6g}, ...}}), the joint's "
            f"q0, or --set {joint.name}.q0={inside:.6g}; limits='ignore' (--limits ignore) "
            "drops the stops; start='anywhere' (--start anywhere) keeps these starts, in the "
            "stops, on purpose")
