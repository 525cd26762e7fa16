"""Force elements: 1-D laws and the placements that apply them (DESIGN §4, SPEC §3).

Laws (``forces.laws``): Spring, Damper, SpringDamper, Actuator, ElastoGap, ElastoBacklash,
ElastoBacklash2, Bistop, Impact, VariableRotationalSpring, VariableTranslationalSpring.
Placements (``forces.placements``): JointForce (a joint primitive), LineForce (the distance
between two CSs), AxialForce and RotationalForce (along/about an axis fixed in CS A), the
3-D BodySpringDamper, Bushing (Adams' BUSHING: six linear spring-dampers between two CSs,
in CS A's axes, with a preload) and JointStiction (Coulomb friction with exact stick-slip on a
joint primitive).

Laws are frozen dataclasses of their SPEC parameters, validated on construction; change one
with ``dataclasses.replace(law, c=20.0)`` (a new, validated law) and put it in place with a
placement's ``with_law(law)`` (a new element of the same class, name and placement).
"""
from .laws import (Actuator, Bistop, Damper, ElastoBacklash, ElastoBacklash2, ElastoGap, Impact,
                   Spring, SpringDamper, VariableRotationalSpring, VariableTranslationalSpring)
from .placements import (AxialForce, BodySpringDamper, Bushing, JointForce, JointStiction,
                         LineForce, RotationalForce)

__all__ = ["Spring", "Damper", "SpringDamper", "Actuator", "ElastoGap", "ElastoBacklash",
           "ElastoBacklash2", "Bistop", "Impact", "VariableRotationalSpring",
           "VariableTranslationalSpring", "JointForce", "LineForce", "AxialForce",
           "RotationalForce", "BodySpringDamper", "Bushing", "JointStiction"]
