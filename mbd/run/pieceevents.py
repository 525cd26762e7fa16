"""The piece loop's events (:class:`PieceEvents`, the part of :class:`mbd.run.pieceloop.Run`
that handles a law's switch): the earliest crossing of the armed switching functions located
on a step's dense output, the piece ended there, the new mode (the stiction locks pushed and
settled, :mod:`mbd.run.locks`), every switch logged as an :class:`mbd.Event`, and the check
for chattering (:mod:`mbd.compiled.events`); with exact switching off, the switches found at
the steps' ends logged.
"""
import numpy as np

from ..compiled import events, layout
from .failures import Failed


class PieceEvents:
    """The events of a :class:`mbd.run.pieceloop.Run` (whose base class this is): it reads
    the run's ``system`` and ``settings`` and reads and writes its evaluator ``ev`` and
    current ``sides``, its stepper ``stepping``, output rows ``rows``, stiction ``locks``, the
    piece's ``armed`` switching functions, the event log ``events``, the chatter ``watch``,
    the ``logged`` sides (exact switching off) and the next piece's ``first_step``."""

    def locate(self, ta, tb, y_b, dense):
        """The earliest crossing in the step (ta, tb] (s) that ended at y_b, located on its
        dense output: (t, (element, switch), dense, ta, tb), the arguments of :meth:`end_at`.
        A switching function that left its side and came back within the step (the stepper
        found it off its side at a time ``dips``) crossed first between ta and that time.

        The piece then ends at t, not tb: every other armed function is judged again by its
        sign just before t (:meth:`off_before`), and one off its side there crossed first,
        in (ta, t). At tb it may be back on its side, and the double-crossing screen may
        miss it: BISTOP's clamp turns positive in a contact's last microns and reaches 0
        exactly where the contact ends, its sign there round-off's."""
        tol = events.time_tolerance(ta, tb)
        mask = np.zeros_like(self.armed)
        g_b = self.ev.switching(tb, y_b)
        events.crossed_mask(self.armed, g_b, self.ev.data.mode, mask)
        ends = np.where(mask, tb, self.stepping.dips())
        t, first = self.earliest(ends, dense, ta, tol)
        scale = None
        while first is not None:
            if scale is None:       # the functions' size on the step: what round-off is
                g_a = self.ev.switching(ta, dense(ta))
                scale = self.ROUNDOFF * np.maximum(abs(g_a), abs(g_b))
            t_hit, earlier = self.earliest(self.off_before(t, first, ta, tol, scale, dense),
                                           dense, ta, tol)
            if earlier is None or not t_hit < t:
                break
            t, first = t_hit, earlier
        return t, first, dense, ta, tb

    #: a switching function within this share of its size on a step (the larger of its
    #: values at the step's ends) of zero is zero to round-off: its sign there tells nothing
    ROUNDOFF = 4096.0 * events.EPS

    def earliest(self, ends, dense, ta, tol):
        """(t, (i, k)): the earliest crossing of the switching functions (i, k) that are off
        their sides at the times ``ends`` (s; nan: not), each located in (ta, its end];
        (inf, None) where none is."""
        t, first = np.inf, None
        for i, k in zip(*np.nonzero(np.isfinite(ends))):
            t_hit = dense.locate(i, k, self.sides[i, k], ta, ends[i, k], tol)
            if t_hit < t:
                t, first = t_hit, (i, k)
        return t, first

    def off_before(self, t, first, ta, tol, scale, dense):
        """For every armed switching function but ``first`` (the one whose crossing at t, s,
        ends the piece): a time in (ta, t] where it is off its side just before t, or nan.
        Its sign at t where its value there is not zero to round-off (``scale``, per
        function), else at the first of t - 256 tol, 8 times that, ... back towards ta
        where it is not; where it is zero to round-off back to the step's middle, or not
        finite, nan (not judged: as before the piece was cut back)."""
        ends = np.full(self.armed.shape, np.nan)
        sides = self.sides
        g = self.ev.switching(t, dense(t))
        at, back = t, 256.0 * tol
        open_ = self.armed & np.isfinite(scale)     # a stop at infinity is not judged
        open_[first] = False
        while True:
            open_ &= np.isfinite(g)
            clear = open_ & (abs(g) > scale)
            # off its side (departed: a zero counts as +1), judged on whole arrays
            ends[clear & ((g >= 0.0) != (sides > 0.0))] = at
            open_ &= ~clear
            if not open_.any() or not back < 0.5 * (t - ta):
                return ends
            at, back = t - back, 8.0 * back
            g = self.ev.switching(at, dense(at))

    def end_at(self, t, first, dense, ta, tb):
        """End the piece at the crossing (t, first) located in the step (ta, tb] (s) with the
        dense output ``dense``: the mode updated and the switches logged; returns (t, y)
        there."""
        tol = events.time_tolerance(ta, tb)
        y = dense(t)
        self.rows.until(t, dense, inclusive=False)     # in the old branches
        y, switched = self.switch(t, y, *first, dense, tol, tb)
        # the next piece begins with a step of sqrt(rtol) times this one, and the controller
        # regrows it within a few steps. Where a law switches its force is not smooth (a
        # contact force ~ pen^e starts with its first derivatives zero, or infinite for
        # e < 2), and the usual initial step is sized from those derivatives: measured by the
        # energy balance of a block in a Bistop slot, the run's error was up to 90 times rtol
        # with it, 2 to 17 times with this one
        self.first_step = np.sqrt(self.settings.rtol) * (tb - ta)
        if switched:
            self.rows.event_row(t, y, dense)
            self.check_chatter()
        return t, y

    def switch(self, t, y, i, k, dense, tol, tb):
        """Switching function k of element i crossed at (t, y) in a step that ends at tb: the
        mode from just past the crossing, the locks settled, every switch logged. Returns
        (y, whether any was)."""
        ev, sides = self.ev, self.sides
        before = sides.copy()
        armed = ev.armed(before)
        passage = (k == layout.PLACEMENT_SWITCH and self.system.force_elements[i].placement
                   == "line" and self.at_anchor(t, y, i))
        pushed = self.locks.push(t, y, i, k)
        held = self.patches.push(t, y, i, k)
        # the branches from just past the crossing: a switch armed by it may be exactly zero
        # there (BISTOP's force at the first touch) and only its sign a moment later tells
        # (within the step: past its end the dense output is an extrapolation, wild where
        # the step is shorter than h, as the first steps after a jump of the state are)
        past = max(min(t + 256.0 * tol, tb), t)
        ev.natural_mode(past, dense(past))
        if k != layout.PLACEMENT_SWITCH:   # a line's new reference starts on its + side
            # (and a contact patch's stick or slip is Patches' to decide, below)
            # across, whatever round-off says at the crossing: the element's next mode
            sides[i, k] = before[i, k]
            ev.next_mode(t, y, i, k)
        y = self.locks.cross(t, y, i, pushed)
        if self.patches:
            y = self.patches.cross(t, y, i, k, held)
        # log every element whose mode changed here: other elements may switch at the same
        # instant (two identical gaps); stiction elements and contact patches say how they
        # move
        found = self.locks.changes(before) + self.patches.changes(before)
        found += self.law_switches(before, sides.copy(), armed)
        if passage:
            found.append((self.system.force_elements[i].name,
                          "passes through its anchor: the force direction reverses"))
        self.log_all(t, y, found)
        return y, bool(found)

    def at_anchor(self, t, y, i):
        """Whether line element i's CS B is at its CS A (|r| at round-off of the drawing's
        size): a passage through the anchor, not a turn of the line past its reference."""
        self.ev.switching(t, y)
        X = self.ev.data.estate[i]
        return np.linalg.norm(X["point_b"] - X["point_a"]) <= 1e-8 * self.system.length_scale

    def law_switches(self, before, after, armed_before):
        """[(element name, what)]: the law switches from the sides ``before`` to ``after``
        (armed_before: the functions armed in ``before``), one the mode of an element really
        changed by (:func:`mbd.compiled.events.real_switches`); a line's reference and a
        stiction element (its lock says how it moves, :meth:`Locks.changes`) are not law
        switches."""
        armed_before = armed_before.copy()
        armed_after = self.ev.armed(after)
        for mask in (armed_before, armed_after):
            mask[:, layout.PLACEMENT_SWITCH] = False
            mask[self.system.locks] = False
        found = []
        for i, k in events.real_switches(before, after, armed_before, armed_after):
            fe = self.system.force_elements[i]
            found.append((fe.name, fe.law.describe(k, after[i, k], after[i])))
        return found

    def log_all(self, t, y, found):
        """Log the switches ``found`` [(element name, what)] at (t, y)."""
        for element, what in found:
            self.events.append(events.Event(float(t), element, what))
            self.watch.switched(float(t), element, y)

    def check_chatter(self):
        """Fail when the switches chatter (checked after the event row is written, so the
        failed run's rows include every logged event)."""
        found = self.watch.chattering()
        if found:
            element, count, t_first, t_last = found
            last = self.events[-1]
            raise Failed(f"chattering: force element '{element}' switched {count} times "
                         f"between t = {t_first:.12g} s and {t_last:.12g} s (last: {last.what}) "
                         "while the state did not change to the integration tolerance; the law "
                         "keeps crossing a branch boundary without the motion progressing",
                         last.t)

    def log_natural_switches(self, t, y):
        """Exact switching off: log the branches that changed since the last logged ones
        (a switch that can act both before and after, as exact switching logs it); returns
        whether any did."""
        before = self.logged
        self.ev.natural_mode(t, y)
        after = self.sides.copy()
        found = self.law_switches(before, after, self.ev.armed(before))
        self.log_all(t, y, found)
        self.logged = after
        return bool(found)
