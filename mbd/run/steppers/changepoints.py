"""Change points passed in one step, with no evaluation near them (issue 44).

At a change point of a closed loop (a parallelogram's links collinear for an instant) the
constraint rows lose rank while the motion goes on smoothly. Near it, at a direction's strength
s, the constrained right-hand side is as sensitive to a state off its branch as 1 / s^2 (a
velocity off it by e turns the accelerations by e / s, and the motion off its branch grows as
it nears the point, as the level sets of the closures turn from one branch into the other):
round-off alone, 1e-16 over s^2, exceeds a tight tolerance wherever an evaluation falls close
to the point, and an integrator whose error estimate then rejects the step shortens it, which
brings its evaluations closer still. The motion itself is smooth through the point, so the
compiled steppers step over it:

* after every accepted step the weakest direction's strength at its end is compared with the
  last step's; where it falls, its rate along the motion (one more evaluation a short way back)
  gives the time t* where it reaches zero, a linear extrapolation of ``s ~ k |t - t*|``
  (:func:`plan`);
* DOP853: a step that would come near t* is sized so that t* falls in the middle of the widest
  gap between the method's nodes (the times inside a step where it evaluates: its twelve
  stages and the three of its dense output), its evaluations a good share of the step away
  from the point; a step that would end short of t* is shortened so that the next one jumps the
  point at full size (and the step after a shortened one is not made shorter for it); a jump
  the error control rejects is tried again in the same gap, shorter, after a shorter step up
  to it (:func:`place`). A jump is held to its error estimate times :data:`JUMP_STRICTNESS`
  (an estimate near the point may miss its error), the estimate measured on the constraints
  (the step's end and its embedded solutions projected first) where the plain one fails;
* Radau: where the strength falls below :data:`HANDOVER` it hands the run to DOP853
  (CHANGE_POINT), which jumps the point and hands it back (JUMPED, :func:`handing_back`):
  an implicit step's Newton iteration evaluates at its collocation points whatever their
  distance from t*, and its error estimate is no measure of a jump's.

Where the strength does not reach zero (a minimum above it) this costs at most a shorter step;
where the motion cannot go on (a dead centre driven into, a lock-up), the jump is rejected and
the steps shrink to the singular configuration, which the run names as before.
"""
import numpy as np

from ...compiled.jit.jitcache import njit
from ...compiled.jit.native import call4
from .stepping import SLOPE, STAGE

#: the strength's rate along the motion is a difference over this share of the last step
BACK = 0.01
#: Radau hands a change point over to DOP853 where the weakest direction's strength is falling
#: and below this (the strengths are of the scaled constraint rows, 1 where they are at their
#: full strength): an implicit step's Newton iteration and its error estimate answer a stage
#: state's drift off the constraints by as much over the strength squared, which no Radau step
#: can jump; DOP853 jumps it and hands the run back (:func:`handing_back`)
HANDOVER = 0.1
#: ... after at most this many steps, where the strength never reached zero
JUMP_STEPS = 50
#: a step that jumps a change point is held to its error estimate times this
JUMP_STRICTNESS = 20.0
#: a step that jumps a change point may be this much longer than the error control's choice
#: (its error then about GROWTH^8 / SAFETY^8 ~ 1.8 times what the control aims at: a rejection
#: is retried in another gap)
GROWTH = 1.2


def widest_gap(nodes):
    """Where a step of a method with the given nodes (shares of the step, in [0, 1]) puts a
    change point: the middle of the widest gap between them (as a share of the step) and the
    gap's half width, an array [ratio, half width]."""
    c = np.unique(np.clip(np.r_[0.0, np.asarray(nodes, dtype=float), 1.0], 0.0, 1.0))
    k = int(np.argmax(np.diff(c)))
    half = (c[k + 1] - c[k]) / 2.0
    return np.array([c[k] + half, half])


@njit(inline="always")
def plan(f, st, weakest, y, ydot, tmp, gap):
    """After an accepted step that ended at (st.t, y), moving at ydot, where the weakest
    direction's strength is ``weakest`` (the rank rule's record of the evaluation there):
    where it is falling towards zero, the time t* it reaches it (st.t_cross; -inf where none
    is near) for :func:`place` to size the next steps by. ``gap``: the method's
    :func:`widest_gap`. The strength's rate is a difference over a short way back along the motion
    (one more evaluation of the right-hand side, made only where the last two step ends say
    t* may be near; a failing one plans nothing)."""
    S = st[0]
    before = S.weakest
    S.weakest = weakest
    S.t_cross = -np.inf
    h = S.h_abs
    if not (0.0 < weakest < before) or not (S.h_prev > 0.0 and h > 0.0):
        return
    # the secant through the last two step ends: t* is not near, or worth a closer look
    if weakest * S.h_prev >= 2.0 * (1.0 + gap[0]) * h * (before - weakest):
        return
    tau = BACK * S.h_prev
    ys = tmp[STAGE]
    for i in range(y.shape[0]):
        ys[i] = y[i] - tau * ydot[i]
    bad = call4(f.rhs, S.t - tau, ys, tmp[SLOPE], f.data)
    S.nfev += 1
    back = f.data.loop[0].smallest
    if bad == 0 and back > weakest:
        S.t_cross = S.t + weakest * tau / (back - weakest)


@njit(inline="always")
def place(t_cross, t, h_abs, min_step, gap, retry):
    """The size of the step to try from t (s) where a change point is expected at t_cross
    (:func:`plan`), about h_abs (the error control's choice, s): h_abs where t_cross lies
    beyond that step and the next one's jump; else a step that puts it in the middle of the
    widest gap between the method's nodes (``gap``, :func:`widest_gap`), at most GROWTH h_abs
    long on a first attempt and h_abs on a retry after the error control rejected one
    (``retry``), or, where that step would be longer, a step that ends the gap's share of h_abs
    short of t_cross, for the next one to jump it. (A jump with t_cross nearer a node, in a
    narrower gap, passes error estimates that miss its error: an evaluation close to the point
    answers a stage's drift off the constraints by as much over the strength squared.)"""
    x = t_cross - t
    r = gap[0]
    longest = h_abs if retry else GROWTH * h_abs
    if not x > 0.0 or x >= (1.0 + r) * longest:
        return h_abs
    h = x / r if x <= r * longest else min(x - r * h_abs, h_abs)
    return h if h >= min_step else h_abs


@njit(inline="always")
def approaching(weakest, before):
    """Whether a change point is near: the weakest direction's strength, ``before`` at the
    last step's end and ``weakest`` at this one's, falling and below :data:`HANDOVER`."""
    return 0.0 < weakest < before and weakest < HANDOVER


@njit(inline="always")
def handing_back(S, weakest, before):
    """Whether DOP853, jumping a change point for Radau (S.jump_only set), hands the run back
    after this step: the strength no longer falling towards zero (the point is behind), or
    :data:`JUMP_STEPS` steps taken."""
    return S.jump_only != 0 and (not approaching(weakest, before)
                                 or S.nsteps - S.jump_only >= JUMP_STEPS)
