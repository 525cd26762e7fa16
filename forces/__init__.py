"""Force elements: 1-D laws and the placements that apply them (DESIGN §4, SPEC §3).

Laws: Spring, Damper, SpringDamper, Actuator, ElastoGap, ElastoBacklash, ElastoBacklash2,
Bistop, Impact, VariableRotationalSpring, VariableTranslationalSpring, TableForce,
Table2DForce. Each maps a relative coordinate x (m or rad), its rate v and time t to the force
(N) or torque (N m) on the follower along +x (Modelica's laws report the cut force ``f`` of
flange b, so the follower feels ``-f``; BISTOP already returns the force on the I marker).
Each law kind is one module here (its parameter record, compiled formulas, switch labels and
classes), registered with :mod:`mbd.compiled.registry` when imported: one import line per
kind below (docs/adding-an-element.md).

Placements (``forces.placements``): JointForce (a joint primitive), LineForce (the distance
between two CSs), AxialForce and RotationalForce (along/about an axis fixed in CS A), the
3-D BodySpringDamper, Bushing (Adams' BUSHING: six linear spring-dampers between two CSs,
in CS A's axes, with a preload) and JointStiction (Coulomb friction with exact stick-slip on a
joint primitive).

Laws are frozen dataclasses of their SPEC parameters, validated on construction; change one
with ``dataclasses.replace(law, c=20.0)`` (a new, validated law) and put it in place with a
placement's ``with_law(law)`` (a new element of the same class, name and placement).
Calling a law evaluates its compiled formula:

>>> from forces import Bistop
>>> round(Bistop(x1=0, x2=1, k=1000, e=1.5, cmax=10, d=0.1)(-0.05, -2.0), 9)
21.180339887

Every law is a frozen dataclass whose fields are its SPEC parameters, validated on
construction (``__post_init__``). A law never changes after that: an override is a new law,
``dataclasses.replace(law, c=20.0)``, validated as the constructor validates.

>>> import dataclasses
>>> from forces import ElastoGap
>>> gap = ElastoGap(c=10.0, d=1.5, s_rel0=1.5)
>>> dataclasses.replace(gap, c=20.0)
ElastoGap(c=20.0, d=1.5, s_rel0=1.5, n=1.0)
>>> dataclasses.replace(gap, n=0.5)
Traceback (most recent call last):
    ...
ValueError: ElastoGap: n must be >= 1 and finite, got 0.5
"""
# the law kinds, one module each, registered with mbd.compiled.registry on import
from . import bushing, stiction  # noqa: F401  (the Bushing's and JointStiction's laws)
from .actuator import Actuator
from .bistop import Bistop, Impact
from .elastobacklash import ElastoBacklash, ElastoBacklash2
from .elastogap import ElastoGap
from .linear import Damper, Spring, SpringDamper
from .placements import (
                         AxialForce,
                         BodySpringDamper,
                         Bushing,
                         JointForce,
                         JointStiction,
                         LineForce,
                         RotationalForce,
)
from .table import Table2DForce, TableForce
from .variablespring import VariableRotationalSpring, VariableTranslationalSpring

__all__ = ["Spring", "Damper", "SpringDamper", "Actuator", "ElastoGap", "ElastoBacklash",
           "ElastoBacklash2", "Bistop", "Impact", "VariableRotationalSpring",
           "VariableTranslationalSpring", "TableForce", "Table2DForce", "JointForce", "LineForce",
           "AxialForce", "RotationalForce", "BodySpringDamper", "Bushing", "JointStiction"]
