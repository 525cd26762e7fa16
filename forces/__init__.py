"""Force elements: 1-D laws and the placements that apply them (DESIGN §4, SPEC §3).

Laws (``forces.laws``): Spring, Damper, SpringDamper, Actuator, ElastoGap, ElastoBacklash,
ElastoBacklash2, Bistop, Impact, VariableRotationalSpring, VariableTranslationalSpring; each law
kind is one module here, registered with :mod:`mbd.registry` when imported (below: one line
per kind; docs/adding-an-element.md).
Placements (``forces.placements``): JointForce (a joint primitive), LineForce (the distance
between two CSs), AxialForce and RotationalForce (along/about an axis fixed in CS A), the
3-D BodySpringDamper, Bushing (Adams' BUSHING: six linear spring-dampers between two CSs,
in CS A's axes, with a preload) and JointStiction (Coulomb friction with exact stick-slip on a
joint primitive).

Laws are frozen dataclasses of their SPEC parameters, validated on construction; change one
with ``dataclasses.replace(law, c=20.0)`` (a new, validated law) and put it in place with a
placement's ``with_law(law)`` (a new element of the same class, name and placement).
"""
# the law kinds, one module each, registered with mbd.registry on import
from . import actuator  # noqa: F401
from . import bistop  # noqa: F401
from . import bushing  # noqa: F401
from . import elastobacklash  # noqa: F401
from . import elastogap  # noqa: F401
from . import linear  # noqa: F401
from . import stiction  # noqa: F401
from . import variablespring  # noqa: F401
from .laws import (Actuator, Bistop, Damper, ElastoBacklash, ElastoBacklash2, ElastoGap, Impact,
                   Spring, SpringDamper, VariableRotationalSpring, VariableTranslationalSpring)
from .placements import (AxialForce, BodySpringDamper, Bushing, JointForce, JointStiction,
                         LineForce, RotationalForce)

__all__ = ["Spring", "Damper", "SpringDamper", "Actuator", "ElastoGap", "ElastoBacklash",
           "ElastoBacklash2", "Bistop", "Impact", "VariableRotationalSpring",
           "VariableTranslationalSpring", "JointForce", "LineForce", "AxialForce",
           "RotationalForce", "BodySpringDamper", "Bushing", "JointStiction"]
