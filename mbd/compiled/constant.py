"""The law kind ``constant``: a force or torque that does not depend on x or v (a constant, or
a value set per evaluation). The core owns it because it uses it itself: diagnosis freezes an
element at its present force with it, and linearization takes its elements as inputs. Its law
class is :class:`forces.Actuator`."""
from .jit.jitcache import njit
from .registry import register

#: the parameter record: the force or torque on the follower (N or N m)
PARAMETERS = ("value",)
VALUE = 0


@njit()
def force(p, x, v, s):
    """The value itself (N or N m)."""
    return p[VALUE]


@njit()
def odd_at_zero(p):
    """Only no force at all is odd in v at x = 0."""
    return p[VALUE] == 0.0


KIND = register("constant", PARAMETERS, force=force, odd_at_zero=odd_at_zero)
