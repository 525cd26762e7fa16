"""``result.contact(name)``: a :class:`mbd.Contact` over the run, its points side by side."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .views import contact_intervals

if TYPE_CHECKING:
    from .views import ForceView

#: a point's state per row: out of contact, in contact and slipping (regularized friction
#: slips at every nonzero tangential load, creeping below v_crit), or stuck (exact friction)
OPEN, SLIP, STICK = "open", "slip", "stick"


class ContactView:
    """A contact element over the run: each of its points (P of them, in the order of
    ``names``) per row (n rows).

    Attributes
    ----------
    names : list of str
        The points' force elements (``result.force(name)`` reads one alone), e.g.
        ``"floor: box corner 3"``.
    t : ndarray (n,)
        s.
    in_contact : ndarray (n, P) of bool
        Whether the point is in contact (the normal law's contact state; a law without one:
        its force is not zero).
    point : ndarray (n, P, 3)
        The contact point, world, m: the midpoint of the witness points; NaN where the point
        is not in contact.
    normal : ndarray (n, P, 3)
        The unit normal from a into b.
    gap : ndarray (n, P)
        The signed distance along the normal, m (negative: penetration).
    rate : ndarray (n, P)
        Its rate, m/s.
    fn : ndarray (n, P)
        The normal law's force on b along the normal, N.
    friction : ndarray (n, P, 3)
        The friction force on b, world, N.
    slip : ndarray (n, P, 3)
        The slip velocity (b's material point relative to a's, in the tangent plane), m/s.
    state : ndarray (n, P) of str
        ``"open"``, or in contact ``"slip"`` or ``"stick"`` (exact friction: the patch is
        held).
    sticks : ndarray (n,) of bool
        Whether the patch sticks (exact friction; False otherwise).
    """

    def __init__(self, name: str, t: np.ndarray, points: list[ForceView],
                 sticks: np.ndarray | None = None) -> None:
        self.name, self.t = name, t
        self.names = [p.name for p in points]
        n = len(t)

        def stack(values: list[Any], shape: tuple[int, ...] = ()) -> np.ndarray:
            return (np.stack(values, axis=1) if values
                    else np.zeros((n, 0) + shape))
        self.gap = stack([p.x for p in points])
        self.rate = stack([p.xdot for p in points])
        self.fn = stack([p.scalar for p in points])
        self.normal = stack([p.records["direction"] for p in points], (3,))
        self.friction = stack([p.records["friction"] for p in points], (3,))
        relative = stack([p.records["vel_b"] - p.records["vel_a"] for p in points], (3,))
        along = np.einsum("npk,npk->np", relative, self.normal)
        self.slip = relative - along[..., None] * self.normal
        self.in_contact = stack([_in_contact(p) for p in points])
        self.point = stack([p.records["point_b"] for p in points], (3,))
        self.point[~self.in_contact] = np.nan
        self.sticks = (np.zeros(n, dtype=bool) if sticks is None
                       else np.asarray(sticks, dtype=bool))
        self.state = np.where(self.in_contact, np.where(self.sticks[:, None], STICK, SLIP),
                              OPEN)

    @property
    def total_normal_force(self) -> np.ndarray:
        """(n,) N: the points' normal forces summed (the support a resting body gets)."""
        return self.fn.sum(axis=1)

    @property
    def force(self) -> np.ndarray:
        """(n, 3) N: the world force on b from every point, normal and friction."""
        return (self.fn[..., None] * self.normal + self.friction).sum(axis=1)

    @property
    def slip_speed(self) -> np.ndarray:
        """(n, P) m/s: the points' slip speeds |slip|."""
        return np.linalg.norm(self.slip, axis=2)

    def intervals(self) -> list[tuple[float, float]]:
        """[(t_begin, t_end)] where any point is in contact, in order; t_end is nan for a
        contact still going at the end. With exact switching the rows include the event
        times, so the intervals are exact."""
        any_point = self.in_contact.any(axis=1) if self.in_contact.size else np.zeros(
            len(self.t), dtype=bool)
        return [(a, b) for a, b, _ in contact_intervals(self.t, any_point.astype(int))]

    def __repr__(self):
        return (f"ContactView({self.name!r}: {len(self.names)} points, {len(self.t)} rows, "
                f"{len(self.intervals())} contact intervals)")


def _in_contact(point: ForceView) -> np.ndarray:
    """(n,) bool: the point is in contact by its law's contact state (nonzero), else by a
    nonzero normal force."""
    state = point.state.get("contact")
    if state is None:
        return point.scalar != 0.0
    return np.asarray(state) != 0
