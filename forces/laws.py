"""1-D force laws of SPEC §3: parameters, validation, switches, energy and state.

Each law maps a relative coordinate x (m or rad), its rate v and time t to the force (N) or
torque (N m) on the follower along +x. Modelica's laws report the cut force ``f`` of flange b,
so the follower feels ``-f``; BISTOP already returns the force on the I marker. Each law kind
is one module of this package (``forces/elastogap.py``: its parameter record, compiled
formulas, labels and class, registered with :mod:`mbd.registry`); this module gathers the
classes. Calling a law evaluates its compiled formula:

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
from .actuator import Actuator
from .bistop import Bistop, Impact
from .bushing import BUSHING_COMPONENTS, _BushingLaw, check_six
from .elastobacklash import ElastoBacklash, ElastoBacklash2
from .elastogap import ElastoGap
from .linear import Damper, Spring, SpringDamper, _BodySpringDamperLaw, _Linear
from .stiction import _StictionLaw
from .variablespring import VariableRotationalSpring, VariableTranslationalSpring

__all__ = ["Spring", "Damper", "SpringDamper", "Actuator", "ElastoGap", "ElastoBacklash",
           "ElastoBacklash2", "Bistop", "Impact", "VariableRotationalSpring",
           "VariableTranslationalSpring"]
