"""The scene's colours (RGB in [0, 1]) and the states they show.

Contact laws colour their coil or marker green while free and red in contact; stiction
laws blue while they stick and orange while they slip; grey where the state is unknown (a
System drawn at a state, without a Result). A label's frame takes the state's colour over a
pale tint of it.

Examples
--------
>>> contact_color(None) == UNKNOWN_COLOR, contact_color(1) == CONTACT_COLOR
(True, True)
>>> stiction_color(True) == STUCK_COLOR, stiction_color(False) == SLIP_COLOR
(True, True)
>>> contact_frame(0) == (FREE_COLOR, FREE_TINT), contact_frame(None) == (UNKNOWN_COLOR, None)
(True, True)
"""
from __future__ import annotations

#: a contact element's colours (a law's ``drawn_state`` "contact", :class:`mbd.Law`)
FREE_COLOR = (0.0, 0.75, 0.0)
CONTACT_COLOR = (0.9, 0.0, 0.0)
UNKNOWN_COLOR = (0.6, 0.6, 0.6)
#: label backgrounds: a pale tint of the contact colours
FREE_TINT = (0.9, 1.0, 0.9)
CONTACT_TINT = (1.0, 0.86, 0.86)
#: a stiction element's colours (``drawn_state`` "stuck")
STUCK_COLOR = (0.1, 0.35, 0.85)
SLIP_COLOR = (1.0, 0.55, 0.0)
STUCK_TINT = (0.86, 0.9, 1.0)
SLIP_TINT = (1.0, 0.93, 0.84)
#: the colours that say something, kept exact in a GIF's palette
STATE_COLORS = (FREE_COLOR, CONTACT_COLOR, UNKNOWN_COLOR, FREE_TINT, CONTACT_TINT,
                STUCK_COLOR, SLIP_COLOR, STUCK_TINT, SLIP_TINT)
FLOOR_COLOR = (0.95, 0.95, 0.96)
FLOOR_LINE_COLOR = (0.84, 0.84, 0.87)
#: bodies without a colour of their own, in turn
PALETTE = ((0.12, 0.47, 0.71), (1.0, 0.5, 0.05), (0.58, 0.40, 0.74), (0.55, 0.34, 0.29),
           (0.89, 0.47, 0.76), (0.74, 0.74, 0.13), (0.09, 0.75, 0.81))
JOINT_COLOR = (0.45, 0.45, 0.45)
GROUND_COLOR = (0.2, 0.2, 0.2)
SPRING_COLOR = (0.25, 0.25, 0.3)
BUSHING_COLOR = (0.15, 0.15, 0.15)
#: a Bistop's stop positions (thin rings or bars): dark, clear of the state colours
LIMIT_COLOR = (0.3, 0.2, 0.15)
GEAR_COLOR = (0.72, 0.6, 0.25)          # brass
#: a Plane without a colour of its own: light, so that what stands on it shows
PLANE_COLOR = (0.8, 0.8, 0.82)
GEAR_TEETH_COLOR = (0.5, 0.4, 0.12)
#: the contact shapes drawn on request (``collisions=True``: a robot's collision geometry),
#: a strong orange, see-through at :data:`COLLISION_OPACITY`
COLLISION_COLOR = (1.0, 0.4, 0.0)
COLLISION_OPACITY = 0.4


def contact_color(state: object) -> tuple[float, float, float]:
    """The colour of a contact state: None unknown (grey), falsy not in contact (green),
    truthy in contact (red)."""
    if state is None:
        return UNKNOWN_COLOR
    return CONTACT_COLOR if state else FREE_COLOR


def stiction_color(state: object) -> tuple[float, float, float]:
    """The colour of a stiction element: None unknown (grey), truthy stuck (blue), falsy
    slipping (orange)."""
    if state is None:
        return UNKNOWN_COLOR
    return STUCK_COLOR if state else SLIP_COLOR


def contact_frame(state: object
                  ) -> tuple[tuple[float, float, float], tuple[float, float, float] | None]:
    """(frame colour, background tint or None) of the label of a contact element in
    ``state`` (as :func:`contact_color`; no tint when unknown)."""
    return contact_color(state), None if state is None else CONTACT_TINT if state else FREE_TINT


def stiction_frame(state: object
                   ) -> tuple[tuple[float, float, float], tuple[float, float, float] | None]:
    """(frame colour, background tint or None) of the label of a stiction element in
    ``state`` (as :func:`stiction_color`; no tint when unknown)."""
    return stiction_color(state), None if state is None else STUCK_TINT if state else SLIP_TINT
