"""Stick-slip: the locks of the stiction elements, held or released where a piece begins.

A stiction element (``forces.JointStiction``) that sticks is a constraint row, its lock, which
holds its coordinate at a rate of zero while the force the lock needs stays below f_static; one
that slips is a kinetic friction force opposing its direction. Its mode
(:mod:`mbd.compiled.layout`'s sides: [0] the slip direction, [1] < 0 sticking) changes only where a
piece ends, at a crossing: :class:`Locks` decides there which locks hold, which way a released
element slips, and which changes to log.
"""
import numpy as np

from ..compiled import assembly, loopsolve
from .failures import Failed, projected, raise_status


class Locks:
    """The stiction elements of a run (``system.locks``, indices into its force elements)."""

    def __init__(self, ev):
        self.ev, self.system = ev, ev.system

    def __bool__(self):
        return bool(self.system.locks)

    def __contains__(self, i):
        return i in self.system.locks

    @property
    def sides(self):
        """The current mode's sides (nf, SWITCHES), the data's own array."""
        return self.ev.data.mode["sides"]

    def forces(self, t, y):
        """{stiction element index: the force its lock applies (N or N m)} at (t, y) in the
        current mode (zero for one that slips)."""
        ev = self.ev
        ev.set_locks(self.sides)
        raise_status(ev.derivative(t, y)[1], t, y)
        return ev.lock_forces()

    def settle(self, t, y):
        """Every stiction element the mode has sticking (at a rate of zero) keeps sticking if
        its lock can hold it, |force| < f_static; the others slip the way they are pushed.
        When several cannot, the one furthest past its limit goes first and the rest are
        tried again (releasing one loads the others). A lock whose row depends on the
        mechanism's own rows (a slider at a crank's dead centre, its rate zero whatever the
        crank does) holds nothing and slips the way the mechanism moves it; locks that depend
        on each other (two on one coordinate, or on two geared shafts) share a force that is
        not determined: :class:`mbd.run.failures.Failed` says so. Returns y on the constraints."""
        s, sides = self.system, self.sides
        if not s.locks:
            return y
        stuck = [i for i in s.locks if sides[i, 1] < 0.0]
        if stuck:
            self._release_held_by_mechanism(t, y, stuck)
        while True:
            forces = self.forces(t, y)
            over = [(abs(forces[i]) / s.force_elements[i].law.f_static, i) for i in s.locks
                    if sides[i, 1] < 0.0 and
                    abs(forces[i]) >= s.force_elements[i].law.f_static]
            if not over:
                break
            i = max(over)[1]
            sides[i, 1] = 1.0
            sides[i, 0] = self.slip_direction(t, y, i, -np.sign(forces[i]) or 1.0)
        self.ev.set_locks(sides)
        return projected(self.ev, t, y)

    def _release_held_by_mechanism(self, t, y, stuck):
        """Release the locks ``stuck`` whose rows the mechanism holds already (they slip the
        way it moves them); fail where the remaining ones lock dependent motions."""
        s, sides = self.system, self.sides
        base = self.rows_rank(t, y, [])
        for i in stuck:
            if self.rows_rank(t, y, [i]) == base:     # held by the mechanism already
                sides[i, 1] = 1.0
                sides[i, 0] = self.slip_direction(t, y, i, 1.0)
        stuck = [i for i in stuck if sides[i, 1] < 0.0]
        if len(stuck) > 1 and self.rows_rank(t, y, stuck) < base + len(stuck):
            names = [s.force_elements[i].name for i in stuck]
            raise Failed(f"stick-slip at t = {t:.9g} s: the stiction elements {names} lock "
                         "dependent motions (one coordinate, or coordinates tied by a gear "
                         "or a loop), so how their holding force splits between them is not "
                         "determined; model them as one element (f_static and f_kinetic "
                         "summed, referred to one coordinate)", t)

    def slip_direction(self, t, y, i, preferred):
        """The direction stiction element i, released at (t, y) with a rate of zero, slips:
        ``preferred`` (+-1, the way its lock's force says it is pushed) if its coordinate's
        acceleration, with kinetic friction opposing that way, goes that way too; else the
        other way if that one is consistent (the mechanism moves it regardless, as at a
        dead centre); else ``preferred``."""
        sides, ev = self.sides, self.ev
        sides[i, 1] = 1.0
        k = self.system.nq + int(self.system.elements[i]["v_index"])
        for direction in (preferred, -preferred):
            sides[i, 0] = direction
            ev.set_locks(sides)
            dy, status = ev.derivative(t, y)
            raise_status(status, t, y)
            if dy[k] * direction > 0.0:
                return direction
        return preferred

    def rows_rank(self, t, y, locked):
        """The rank (by the rank rule) of the constraint rows at (t, y) with the locks of the
        stiction elements ``locked`` (indices) holding and the others not."""
        s, drivers = self.system, self.ev.data.drivers
        saved = drivers["active"].copy()
        for k in range(len(s.drivers), len(drivers)):
            drivers[k]["active"] = 1.0 if drivers[k]["element"] in locked else 0.0
        try:
            q = assembly.normalized(s.tree, y[:s.nq])
            G = assembly.Rows(s, self.ev.data)(t, q, y[s.nq:s.nq + s.nv])[0]
        finally:
            drivers["active"] = saved
        sv = np.linalg.svd(G, compute_uv=False)
        return loopsolve.numerical_rank(sv, G.shape[0])

    def push(self, t, y, i, k):
        """The force (N or N m) of the lock of stiction element i where its switching
        function k = 1 (its lock's limit) crossed at (t, y): the way it breaks free; 0.0 for
        any other crossing. Asked before the mode moves past the crossing."""
        return self.forces(t, y)[i] if k == 1 and i in self else 0.0

    def cross(self, t, y, i, pushed):
        """A switching function of element i crossed at (t, y), the mode already moved past
        it (its kind's ``next_mode``: a stiction element whose rate reached zero sticks, if
        its lock holds): one breaking free (its lock ``pushed``, :meth:`push`) slips the way
        the mechanism pushes it. Returns y, settled (:meth:`settle`)."""
        if pushed:
            self.sides[i, 0] = -np.sign(pushed)
        return self.settle(t, y) if self else y

    def changes(self, before):
        """[(element name, what)]: how each stiction element's motion changed from the mode
        ``before`` to the current one: it sticks, breaks free or reverses."""
        found = []
        for i in self.system.locks:
            was, now = before[i], self.sides[i]
            direction = "forwards (+)" if now[0] > 0.0 else "backwards (-)"
            if now[1] < 0.0:
                what = "sticks" if was[1] > 0.0 else None
            elif was[1] < 0.0:
                what = f"breaks free: slips {direction}"
            else:
                what = f"reverses: slips {direction}" if now[0] != was[0] else None
            if what:
                found.append((self.system.force_elements[i].name, what))
        return found
