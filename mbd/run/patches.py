"""Stick-slip of contacts: the patches of exact friction (``Coulomb(exact=True)``), held or
released where a piece begins.

A patch is a contact's points together. While it sticks, the tree's accelerations are solved
with its slip (and, on two or more points, its spin) held at zero
(:func:`mbd.compiled.patchkernels.hold_patches`); while it slips, its points carry kinetic
friction. Its mode is its first point's: sides[PLACEMENT_SWITCH] -1 sticking, +1 slipping,
and the slip's direction d0 in that point's ``reference``. :class:`Patches` decides where a
piece ends at a crossing (or begins) which patches hold, which way a released one slips, and
what to log, as :mod:`mbd.run.locks` does for a joint's stiction.
"""
import numpy as np

from ..compiled.layout import PLACEMENT_SWITCH
from ..compiled.patchkernels import CONE_EDGE, PIVOTS, SLIP_START
from ..compiled.statekernels import patches_projected
from .evaluator import contact_points, friction_work_start
from .failures import raise_status

STICK, SLIP = -1.0, 1.0
#: how far inside the static cone a breaking patch's slip must be held (|K^-1 a0| mu_k
#: against mu_s, Patches._breaks) for it to pivot: nearer (mu_k = mu_s, a slip that starts
#: unaccelerated) it slips
BREAK_MARGIN = 1e-2
#: the time step (s) of the central difference of a breaking patch's slip acceleration
BREAK_STEP = 1e-7


class Patches:
    """The exact-friction patches of a run (``system.patches``: their first points)."""

    def __init__(self, ev):
        self.ev, self.system = ev, ev.system
        points = contact_points(self.system)
        #: each patch's first point's place among the friction work accumulators
        self.friction_slot = {lead: points.index(lead) for lead in self.system.patches}
        self.pivoting = set()       # the patches logged as pivoting
        self.pivot_points = {}      # {patch: its points in contact where it began to pivot}

    def __bool__(self):
        return bool(self.system.patches)

    @property
    def mode(self):
        """The data's MODE records (the run's current branches)."""
        return self.ev.data.mode

    def _points(self, lead):
        return range(lead, lead + int(self.system.elements[lead]["patch_size"]))

    def _in_contact(self, lead):
        """Patch ``lead``'s points in contact (their ElastoGap's contact side), in order."""
        return tuple(j for j in self._points(lead) if self.mode[j]["sides"][0] < 0.0)

    def touching(self, lead):
        """Whether a point of patch ``lead`` is in contact."""
        return bool(self._in_contact(lead))

    def _sticking(self, lead):
        return self.mode[lead]["sides"][PLACEMENT_SWITCH] < 0.0

    def _pivoting(self, lead):
        return self.mode[lead]["reference"][0] == PIVOTS

    def _holding(self, t, y):
        """{patch: (force on b holding it (3,), N; its normal forces summed, N)} at (t, y)
        in the current mode, for the patches that stick."""
        raise_status(self.ev.derivative(t, y)[1], t, y)
        estate = self.ev.data.estate
        out = {}
        for lead in self.system.patches:
            points = self._in_contact(lead)
            if self._sticking(lead) and points:
                normal = sum(max(float(estate[j]["value"]), 0.0) for j in points)
                out[lead] = (estate[lead]["lock"][:3].copy(), normal)
        return out

    def _slip(self, t, y, lead):
        """Patch ``lead``'s mean slip velocity at (t, y) (world, m/s)."""
        self.ev.switching(t, y)
        return self.ev.data.estate[lead]["slip"].copy()

    def _slips(self, lead, direction):
        sides = self.mode[lead]["sides"]
        sides[PLACEMENT_SWITCH] = SLIP
        norm = float(np.linalg.norm(direction))
        self.mode[lead]["reference"] = direction / norm if norm > 0.0 else 0.0

    def _holds(self):
        """{patch: its points in contact} of the patches that stick."""
        return {lead: self._in_contact(lead) for lead in self.system.patches
                if self._sticking(lead)}

    def _sticks(self, lead):
        self.mode[lead]["sides"][PLACEMENT_SWITCH] = STICK
        self.mode[lead]["reference"] = 0.0

    def _pivots(self, lead):
        """Patch ``lead`` sticks with its spin free (no slip can start where holding its spin
        takes a force past the cone: :meth:`_breaks`), until a point it did not pivot on
        touches (:meth:`settle`; its points lifting and touching again, it pivots on)."""
        self.mode[lead]["sides"][PLACEMENT_SWITCH] = STICK
        self.mode[lead]["reference"] = (PIVOTS, 0.0, 0.0)
        self.pivot_points[lead] = self._holds().get(lead)

    def _slip_acceleration(self, t, y, lead):
        """Patch ``lead``'s mean slip acceleration (world, m/s^2) at (t, y) in the current
        mode: a central difference of its slip velocity along the motion over BREAK_STEP."""
        dy, status = self.ev.derivative(t, y)
        raise_status(status, t, y)
        ahead = self._slip(t, y + BREAK_STEP * dy, lead)
        behind = self._slip(t, y - BREAK_STEP * dy, lead)
        self.ev.refresh(t, y)
        return (ahead - behind) / (2.0 * BREAK_STEP)

    def _breaks(self, t, y, lead, force):
        """Patch ``lead``, its slip zero at (t, y) and held by ``force`` past its cone, breaks
        free if a slip can start: one whose acceleration under kinetic friction is along it.
        Returns whether it slips (its direction set); otherwise the caller makes it pivot.

        The slip acceleration is affine in the slip's direction d (a unit vector in the
        tangent plane): a(d) = a0 - K d, K the kinetic friction's share (mu_k f_n times the
        patch's compliance to a tangential force, with its spin free). A slip starts along d
        where a(d) = lam d with lam > 0, i.e. d = (lam I + K)^-1 a0 of unit length, found by
        a root finder on lam; for a point patch whose points move alike d is against the
        holding force. There is none where |K^-1 a0| <= 1: kinetic friction would stop any
        slip at once (the hold's force is past the cone only for what holds the patch's spin
        about its normal, which no slip mode resists): the patch then pivots, its slip held
        and its spin free (the caller's :meth:`_pivots`), its slip then held by
        |K^-1 a0| mu_k f_n. Where that is within BREAK_MARGIN of mu_s f_n (mu_k = mu_s:
        kinetic friction just balances the push) it slips along K^-1 a0."""
        from scipy.optimize import brentq  # (imported on use)

        normal = np.array(self.ev.data.estate[lead]["patch_normal"], dtype=float)
        along = -np.asarray(force, dtype=float)
        along -= (along @ normal) * normal
        size = float(np.linalg.norm(along))
        if size == 0.0:
            return False
        e1 = along / size
        e2 = np.cross(normal, e1)
        basis = np.column_stack((e1, e2))

        def acceleration(direction):
            self._slips(lead, basis @ direction)
            return basis.T @ self._slip_acceleration(t, y, lead)

        ahead, behind = acceleration(np.array([1.0, 0.0])), acceleration(np.array([-1.0, 0.0]))
        a0 = 0.5 * (ahead + behind)
        K = np.column_stack((0.5 * (behind - ahead), a0 - acceleration(np.array([0.0, 1.0]))))

        def excess(lam):
            try:
                return float(np.linalg.norm(np.linalg.solve(lam * np.eye(2) + K, a0))) - 1.0
            except np.linalg.LinAlgError:     # K singular at lam = 0: nothing stops it
                return np.inf

        at_rest = excess(0.0)
        if at_rest <= 0.0:
            # kinetic friction stops any slip: held by |K^-1 a0| mu_k f_n, a force that only
            # at the static cone's edge (mu_k = mu_s) cannot hold it: there the slip starts
            # unaccelerated; inside, the patch pivots, its slip held in the cone (a slip
            # started that friction slows would stop at once, stick, break again, ...)
            mu_s, mu_k = (float(x) for x in self.system.elements[lead]["friction"][:2])
            if (at_rest + 1.0) * mu_k < mu_s * (1.0 - BREAK_MARGIN):
                return False
            self._slips(lead, basis @ np.linalg.solve(K, a0))
            return True
        high = float(np.linalg.norm(a0)) + float(np.linalg.norm(K)) + 1e-300
        while excess(high) > 0.0:
            high *= 2.0
        low = 0.0 if np.isfinite(at_rest) else 1e-12 * high
        lam = brentq(excess, low, high, xtol=1e-14 * high) if excess(low) > 0.0 else low
        self._slips(lead, basis @ np.linalg.solve(lam * np.eye(2) + K, a0))
        return True

    def projected(self, t, y):
        """y with the sticking patches' slips (and spins) exactly zero, the least change in
        kinetic energy (:func:`mbd.compiled.statekernels.patches_projected`): a plastic
        impact along the patches' rows. The kinetic energy it takes is booked as the work
        of the friction of the patches that stick, each its share by the slip it had, in
        their first points' friction work accumulators, so that the energy balance holds
        across it."""
        s = self.system
        y = np.array(y, dtype=float)
        nqv = s.nq + s.nv
        before = y.copy()
        self.ev.refresh(t, y)
        self.ev.call(patches_projected, y, self.ev.data)
        energy = self.ev.kinematics(np.vstack((before[:nqv], y[:nqv])))[3][:, 0]
        taken = float(energy[1] - energy[0])          # <= 0: the impact dissipates
        if taken != 0.0:
            leads = [lead for lead in s.patches if self._sticking(lead) and self.touching(lead)]
            slips = [float(np.linalg.norm(self._slip(t, before, lead))) for lead in leads]
            total = sum(slips)
            first = nqv + friction_work_start(s)
            for lead, slip in zip(leads, slips):
                share = slip / total if total > 0.0 else 1.0 / len(leads)
                y[first + self.friction_slot[lead]] += share * taken
            self.ev.refresh(t, y)
        return y

    def settle(self, t, y):
        """Every patch: out of contact it slips (nothing to stick to); in contact and fresh
        from the air (no slip direction), it sticks if it does not slip at all, else it slips
        the way it moves; sticking, it keeps sticking while its holding force is inside its
        cone (|f_t| < mu_s f_n), else the one furthest past its cone slips, the way that
        force pushes it, and the rest are tried again. Returns y, the sticking patches' slips
        exactly zero (:meth:`projected`) where a patch began to stick or a sticking one's
        points in contact changed (else y as it was: a projection at every other event
        would move, by round-off, a law's switching function that crossed there back across
        it, and the event would repeat)."""
        holds_before = self._holds()
        for lead in self.system.patches:
            sides = self.mode[lead]["sides"]
            if (self._pivoting(lead) and not set(holds_before.get(lead) or ())
                    <= set(self.pivot_points.get(lead) or ())):
                self._sticks(lead)      # a point it did not pivot on touches: spin held again
            if not self.touching(lead):
                sides[PLACEMENT_SWITCH] = SLIP
                self.mode[lead]["reference"] = 0.0
            elif sides[PLACEMENT_SWITCH] > 0.0 and not np.any(self.mode[lead]["reference"]):
                slip = self._slip(t, y, lead)
                if np.any(slip):
                    self._slips(lead, slip)
                else:
                    self._sticks(lead)
        while True:
            over = []
            for lead, (force, normal) in self._holding(t, y).items():
                mu_s = float(self.system.elements[lead]["friction"][0]) * (1.0 + CONE_EDGE)
                size = float(np.linalg.norm(force))
                if size >= mu_s * normal:
                    over.append((size / max(mu_s * normal, 1e-300), lead, force))
            if not over:
                holds = self._holds()
                if any(holds_before.get(lead) != points for lead, points in holds.items()):
                    return self.projected(t, y)
                return y
            _, lead, force = max(over, key=lambda x: x[0])
            y = self.projected(t, y)        # (its slip exactly zero as it starts)
            if self._breaks(t, y, lead, force):
                continue
            if self._pivoting(lead):
                # pivoting, its slip alone held past the cone: it slips against the force
                self._slips(lead, -force)
            else:
                self._pivots(lead)      # tried again: is its slip alone held in the cone?

    def push(self, t, y, i, k):
        """The force holding patch i where its switching function crossed at (t, y), if it
        stuck (the way it breaks free: against that force); None otherwise. Asked before the
        mode moves past the crossing."""
        if (k != PLACEMENT_SWITCH or i not in self.system.patches
                or self.mode[i]["sides"][PLACEMENT_SWITCH] > 0.0):
            return None
        found = self._holding(t, y).get(i)
        return None if found is None else found[0]

    def cross(self, t, y, i, k, pushed):
        """A switching function of element i crossed at (t, y), the mode already moved past
        it: a patch holding there (``pushed``: its force, :meth:`push`) slips against that
        force; one whose slip stopped tries to stick. Returns y, settled (:meth:`settle`)."""
        if k == PLACEMENT_SWITCH and i in self.system.patches:
            if pushed is not None:          # its slip exactly zero as it starts
                y = self.projected(t, y)
                if not self._breaks(t, y, i, pushed):
                    self._pivots(i)
            else:
                # its slip along d0 reached zero: stopped, it tries to stick (the rest of
                # its slip and its spin brought to zero by the hold, in HOLD_TIME, its
                # work booked: patchkernels.hold_power); still moving (its slip turned
                # across d0), it slips on along its own direction
                slip = self._slip(t, y, i)
                if np.linalg.norm(slip) > SLIP_START:
                    self._slips(i, slip)
                else:
                    self._sticks(i)
        return self.settle(t, y)

    def changes(self, before):
        """[(contact name, what)]: how each patch's motion changed from the mode ``before``
        to the current one: it sticks, it breaks free, or it pivots (:meth:`_pivots`)."""
        found = []
        for lead in self.system.patches:
            was = before[lead][PLACEMENT_SWITCH]
            now = self.mode[lead]["sides"][PLACEMENT_SWITCH]
            name = self.system.force_elements[lead].contact.name
            if now < 0.0 and was > 0.0 and self.touching(lead):
                found.append((name, "sticks"))
            elif now > 0.0 and was < 0.0 and self.touching(lead):
                found.append((name, "breaks free: slips"))
            pivots = now < 0.0 and self._pivoting(lead)
            if pivots and lead not in self.pivoting:
                found.append((name, "pivots: its spin free"))
            elif (lead in self.pivoting and not pivots and now < 0.0 and was < 0.0
                  and self.touching(lead)):
                found.append((name, "sticks"))      # its spin held again
            (self.pivoting.add if pivots else self.pivoting.discard)(lead)
        return found
