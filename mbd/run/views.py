"""The named views of a Result: a joint's coordinates, a body's motion, a force element, a
controller's samples, a reaction, the energy balance (each computed when asked for, from the
rows' :class:`mbd.run.evaluation.Evaluation`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..compiled.rowkernels import rotate_rows, rotations

# the rows a view reads (an mbd.run.evaluation.Evaluation, whose module imports this one) are
# hinted Any: type-only imports form no cycle either (DESIGN §9, tests/test_layout.py)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import ArrayLike
    from scipy.spatial.transform import Rotation

    from ..model.builder import CS
    from ..system.system import BodyMap, JointMap


class JointView:
    """A joint's coordinates over the run: ``q`` (n,) or (n, nq), ``v`` (n,) or (n, nv)."""

    def __init__(self, rows: Any, jm: JointMap) -> None:
        self.name = jm.joint.name
        self.joint = jm.joint
        q = rows.q[:, jm.q_index]
        v = rows.v[:, jm.v_index]
        self.q = q[:, 0] if q.shape[1] == 1 else q
        self.v = v[:, 0] if v.shape[1] == 1 else v


class BodyView:
    """A body's motion over the run, in world coordinates."""

    def __init__(self, rows: Any, bm: BodyMap) -> None:
        self._rows = rows
        self._map = bm
        self.name = bm.body.name

    def _cs(self, cs):
        body = self._map.body
        frame = body[cs] if isinstance(cs, str) else cs
        if frame.owner is not body:
            raise ValueError(f"body '{body.name}': {frame!r} is not one of its CSs")
        return self._map.cs_local(frame)

    def position(self, cs: str | CS = "cg") -> np.ndarray:
        """World position of a CS origin (n, 3), m; default the CG."""
        p_local, _ = self._cs(cs)
        R, p = self._rows.link_poses()
        link = self._map.link
        return p[:, link] + R[:, link] @ p_local

    @property
    def rotation(self) -> Rotation:
        """The body's orientation relative to its drawing pose: a scipy Rotation of n."""
        R, _ = self._rows.link_poses()
        return rotations(R[:, self._map.link] @ self._map.rotation.T)

    def cs_rotation(self, cs: str | CS) -> Rotation:
        """World orientation of a CS (its axes): a scipy Rotation of n."""
        _, R_local = self._cs(cs)
        R, _ = self._rows.link_poses()
        return rotations(R[:, self._map.link] @ R_local)

    def velocity(self, cs: str | CS = "cg") -> np.ndarray:
        """World velocity of a CS origin (n, 3), m/s."""
        p_local, _ = self._cs(cs)
        R, _ = self._rows.link_poses()
        V = self._rows.link_velocities()[:, self._map.link]
        local = V[:, 3:] + np.cross(V[:, :3], p_local)
        return rotate_rows(R[:, self._map.link], local)

    @property
    def angular_velocity(self) -> np.ndarray:
        """World angular velocity (n, 3), rad/s."""
        R, _ = self._rows.link_poses()
        V = self._rows.link_velocities()[:, self._map.link]
        return rotate_rows(R[:, self._map.link], V[:, :3])


class ControllerView:
    """A controller over the run. A discrete one's samples: ``t`` (k,) the sample instants (s,
    exact multiples of its period from t0), ``x`` (k, n) its state before each sample, ``u``
    (k, m) its inputs and ``y`` (k, p) its outputs, held from each instant to the next. A
    continuous one's at every row: ``t`` the rows' times, ``x`` its states, ``u`` its inputs,
    ``y`` its outputs."""

    def __init__(self, name: str,
                 samples: Sequence[tuple[float, ArrayLike, ArrayLike, ArrayLike]]) -> None:
        self.name = name
        self.t = np.array([s[0] for s in samples])
        k = len(samples)
        self.x, self.u, self.y = (np.array([s[j] for s in samples]).reshape(k, -1)
                                  for j in (1, 2, 3))

    def __len__(self):
        return len(self.t)


class ForceView:
    """A force element over the run.

    Attributes
    ----------
    value : ndarray
        The load on the follower: (n,) the law's value along +x (N or N m) for 1-D
        placements; (n, 3) the world force vector on CS B (N) for a BodySpringDamper; (n, 6)
        [force; torque] on CS B in CS A's axes (N, N m) for a bushing.
    x, xdot : ndarray (n,)
        What the law read: the joint coordinate, the distance, the axial displacement (m) or
        the angle (rad), and its rate (a bushing: its stored energy, J, and the power it
        delivers to the mechanism, W).
    vector : ndarray (n, 3)
        The world load on B: force (N) for line, axial and bushing placements, torque (N m)
        for a rotational one; zeros for a joint placement (it acts in joint space).
    deflection, rate : ndarray (n, 6) or None
        A bushing's deflection [d; theta] (m, rad) and rates [ddot; w] (m/s, rad/s) of B
        relative to A in A's axes (None for other placements).
    state : dict of ndarray
        The element's state per row (e.g. ``contact``, ``branch``, ``K``), as its law defines.
    mode : ndarray (n,) of str
        The law's mode per row (one of ``law.modes``), from the row's sides.
    energy : ndarray (n,)
        Potential energy stored in the element, J (worked out when first read).
    records : ndarray (n,) of ``ELEMENT_STATE``
        Everything the element measured and applied per row (:mod:`mbd.compiled.layout`):
        e.g. a contact point's ``point_b``, ``direction`` (its normal), ``friction``.
    """

    def __init__(self, rows: Any, index: int) -> None:
        fe = rows.system.force_elements[index]
        rec = rows.force_records()[:, index]
        params = rows.force_params(index)
        self.name = fe.name
        self.element = fe
        self.x, self.xdot = rec["x"].copy(), rec["xdot"].copy()
        self.vector = rec["vector"].copy()
        self.scalar = rec["value"].copy()
        self.value = self.vector if fe.vector_valued else self.scalar
        self.records = rec
        self.deflection = self.rate = None
        if fe.placement == "bushing":
            self.value = rec["wrench"].copy()
            self.deflection, self.rate = rec["deflection"].copy(), rec["rate"].copy()
        sides = rows.sides[:, index]
        self.state = fe.law.states(self.x, self.xdot, rows.t, sides, params)
        self._energy_inputs = (params, sides)
        self._t = rows.t

    @property
    def mode(self) -> np.ndarray:
        """The law's mode per row (n,) of str, one of ``law.modes``: the branch the run
        integrated in, read from the row's sides (an event's row: the mode after it)."""
        law, sides = self.element.law, self._energy_inputs[1]
        return np.array([law.mode(row) for row in sides])

    @property
    def energy(self) -> np.ndarray:
        """Potential energy stored in the element per row (n,), J (worked out when read)."""
        params, sides = self._energy_inputs
        return self.element.law.energy(self.x, params, sides)

    def contacts(self) -> list[tuple[float, float, int]]:
        """[(t_begin, t_end, side)] of every contact of a gap, backlash or stop element (side:
        -1 lower/+1 upper for BISTOP and backlash, -1 for ElastoGap's one side); t_end is nan
        for a contact still going at the end. Exact event times with exact switching."""
        if "contact" not in self.state:
            raise ValueError(f"force element '{self.name}' has no contact state")
        contact = np.asarray(self.state["contact"])
        return contact_intervals(self._t, -contact.astype(int) if contact.dtype == bool
                                 else contact)


def contact_intervals(t: np.ndarray, contact: ArrayLike) -> list[tuple[float, float, int]]:
    """[(t_begin, t_end, side)] of the runs where ``contact`` (per row) is nonzero; side is its
    sign, t_end is nan for a contact still going at the last row. With exact switching the
    rows include the event times, so the intervals are exact."""
    out = []
    side = np.sign(np.asarray(contact, dtype=float))
    for i in range(len(t)):
        if side[i] != 0 and (i == 0 or side[i - 1] != side[i]):
            out.append([float(t[i]), np.nan, int(side[i])])
        if out and np.isnan(out[-1][1]) and (side[i] != out[-1][2]):
            out[-1][1] = float(t[i])
    return [tuple(x) for x in out]


class ReactionView:
    """What a joint transmits from its base to its follower over the run (or a driver's
    driving force).

    Attributes
    ----------
    force : ndarray (n, 3)
        The force on the follower from the base through the joint, N, in the base CS's axes.
    torque : ndarray (n, 3)
        Its moment about the follower CS's origin, N m, in the base CS's axes.
    value : ndarray (n,)
        For a motion driver: the force (N) or torque (N m) it applies along its coordinate.
        For a gear: what it applies on joint_b's coordinate (it applies ``-ratio`` times that
        on joint_a's).
    unique : bool
        False when the joint is in a loop with redundant constraint equations: the reactions
        shown are one valid choice among many, the one with the smallest constraint forces at
        the loop-closing (cut) joint (see ``system.report()``).
    """

    def __init__(self, name: str, force: np.ndarray | None = None,
                 torque: np.ndarray | None = None, value: np.ndarray | None = None,
                 unique: bool = True) -> None:
        self.name = name
        self.force, self.torque, self.value, self.unique = force, torque, value, unique


class EnergyBalance:
    """Where a run's energy went, row by row (J, each term its change since the first row).

    The work every force element, motion driver and gear does on the mechanism is integrated
    with the motion (the run's state carries it, see :mod:`mbd.run.evaluator`), so
    the balance::

        kinetic + gravity + stored + dissipated = supplied   (+ residual)

    holds to the integration tolerance whatever the elements do, and its ``residual``
    measures the run's accuracy. Each force element's work W splits into the change S of
    the energy its law stores (its spring) and the rest, -(W + S), its net outflow: what it
    took out of the mechanism. Each element is booked on one side of the balance, for the
    whole run:

    - **supplied** (a source): a motion driver (its work), an element whose law is a
      prescribed force (``forces.Actuator``: a constant, a function of time or a
      controller's output; its work), and any other element whose net outflow at the last
      row is negative beyond the run's integration error (its largest residual): a
      stiffness varying in time, negative damping, a preload, a user's law that pushes. Its
      ``supplied`` is W + S, the energy it put in beyond what it stored. A source that took
      more out than it put in over the run (a motor braking) shows a negative supply;
    - **dissipated** (passive): every other force element (dampers, contacts, friction,
      springs), its ``dissipated`` -(W + S) >= 0 up to the integration error;
    - a gear is an ideal constraint: its work, zero up to the integration error, is booked
      with ``supplied`` so that the balance stays exact.

    Parameters
    ----------
    t, kinetic, gravity : ndarray (n,)
        Times (s) and the changes of kinetic and gravitational energy since the first row
        (J).
    work, stored : dict of str to ndarray (n,)
        As the attributes below; ``stored`` names the force elements, and a name of
        ``work`` not in it is a motion driver or a gear.
    roles : dict of str to str, optional
        The roles known from the elements' kinds: ``"actuator"`` for a force element,
        ``"driver"`` or ``"gear"`` for the others (default ``"driver"``); a force element
        without one is booked by the sign of its net outflow.

    Attributes
    ----------
    t : ndarray (n,)
        s.
    kinetic : ndarray (n,)
        Change of the kinetic energy since the first row, J.
    gravity : ndarray (n,)
        Change of the potential energy of gravity, J.
    work : dict of str to ndarray (n,)
        The work done on the mechanism by each force element, motion driver and gear, J.
    stored : dict of str to ndarray (n,)
        Per force element: the change of the energy its law stores (its spring), J.
    dissipated : dict of str to ndarray (n,)
        Per force element: ``-(work + stored)`` for a passive one, zeros for a source, J.
    supplied : dict of str to ndarray (n,)
        Per force element, motion driver and gear: ``work + stored`` for a source element,
        ``work`` for a driver or gear, zeros for a passive element, J.
    role : dict of str to str
        Per name: ``"passive"``, ``"actuator"`` (a source by its law), ``"source"`` (a
        source by the sign of its net outflow), ``"driver"`` or ``"gear"``.
    residual : ndarray (n,)
        ``kinetic + gravity - sum(work)``, J (zero but for the integration error); equal to
        ``kinetic + gravity + total_stored + total_dissipated - total_supplied``.
    scale : float
        The largest magnitude among the terms over the run, J (the residual's yardstick).

    Examples
    --------
    ``result.energy_balance()`` makes one from a run; by hand, a damper and a motion driver:

    >>> t = np.array([0.0, 1.0])
    >>> balance = EnergyBalance(t, kinetic=np.array([0.0, 2.0]), gravity=np.array([0.0, -1.0]),
    ...                         work={"damper": np.array([0.0, -0.5]),
    ...                               "drive": np.array([0.0, 1.5])},
    ...                         stored={"damper": np.zeros(2)}, roles={"drive": "driver"})
    >>> print(balance.summary())
    kinetic +2 + gravity -1 + stored in springs +0 + dissipated 0.5 = supplied 1.5 J,
    residual 0 J (largest residual 0.0e+00 of the largest term)
    >>> print("\\n".join(balance.lines()))
    damper: work -0.5 J = -(stored +0 + dissipated 0.5)
    drive: work +1.5 J = supplied (motion driver)
    >>> balance                                                  # doctest: +ELLIPSIS
    EnergyBalance at t = 1 s, each term its change since t = 0 s (J):
      kinetic             +2 J
      gravity             -1 J   potential energy
    ...
    """

    def __init__(self, t: np.ndarray, kinetic: np.ndarray, gravity: np.ndarray,
                 work: Mapping[str, np.ndarray], stored: Mapping[str, np.ndarray],
                 roles: Mapping[str, str] | None = None) -> None:
        self.t, self.kinetic, self.gravity = t, kinetic, gravity
        self.work, self.stored = work, stored
        total = sum(work.values(), np.zeros_like(t))
        self.residual = kinetic + gravity - total
        terms = [kinetic, gravity, *work.values(), *stored.values()]
        self.scale = max(float(np.abs(x).max(initial=0.0)) for x in terms)
        roles = dict(roles or {})
        # a net supply within the run's own error is no supply: a spring stays passive
        noise = max(float(np.abs(self.residual).max(initial=0.0)),
                    64.0 * np.finfo(float).eps * self.scale)
        self.role, self.dissipated, self.supplied = {}, {}, {}
        zero = np.zeros_like(t)
        for name, w in work.items():
            if name not in stored:             # a motion driver or a gear: no law, no spring
                self.role[name] = roles.get(name, "driver")
                self.supplied[name] = w
                continue
            outflow = -(w + stored[name])
            role = roles.get(name)
            if role is None:
                role = "source" if len(t) and outflow[-1] < -noise else "passive"
            self.role[name] = role
            if role == "passive":
                self.dissipated[name], self.supplied[name] = outflow, zero
            else:
                self.dissipated[name], self.supplied[name] = zero, -outflow

    @property
    def total_stored(self) -> np.ndarray:
        """(n,) J: the change of the energy stored in the elements' springs."""
        return sum(self.stored.values(), np.zeros_like(self.t))

    @property
    def total_dissipated(self) -> np.ndarray:
        """(n,) J: what the passive elements took out since the first row."""
        return sum(self.dissipated.values(), np.zeros_like(self.t))

    @property
    def total_supplied(self) -> np.ndarray:
        """(n,) J: what the sources (drivers, actuators, ...) put in since the first row."""
        return sum(self.supplied.values(), np.zeros_like(self.t))

    @property
    def relative_residual(self) -> float:
        """The largest |residual| over the run relative to :attr:`scale` (0 when nothing
        moved)."""
        worst = float(np.abs(self.residual).max(initial=0.0))
        return worst / self.scale if self.scale > 0.0 else worst

    def totals(self, row: int = -1) -> tuple[float, float, float, float, float, float]:
        """The balance at a row in its engineering terms, J: (kinetic, gravity, stored,
        dissipated, supplied, residual) with kinetic + gravity + stored + dissipated -
        supplied = residual (see the class for which element goes where)."""
        k = row
        stored = sum((x[k] for x in self.stored.values()), 0.0)
        lost = sum((x[k] for x in self.dissipated.values()), 0.0)
        fed = sum((x[k] for x in self.supplied.values()), 0.0)
        return (float(self.kinetic[k]), float(self.gravity[k]), float(stored), float(lost),
                float(fed), float(self.residual[k]))

    def summary(self) -> str:
        """The balance over the run (at the last row) in one line, J."""
        kinetic, gravity, stored, lost, fed, residual = self.totals()
        return (f"kinetic {kinetic:+.6g} + gravity {gravity:+.6g} + stored in springs "
                f"{stored:+.6g} + dissipated {lost:.6g} = supplied {fed:.6g} J, residual "
                f"{residual:.2g} J (largest residual {self.relative_residual:.1e} of the "
                f"largest term)")

    def lines(self) -> list[str]:
        """Per force element, motion driver and gear over the run (at the last row), one
        line each: its work and where the balance books it, J."""
        out = []
        for name, work in self.work.items():
            role, head = self.role[name], f"{name}: work {work[-1]:+.6g} J"
            if role == "passive":
                out.append(f"{head} = -(stored {self.stored[name][-1]:+.6g} + dissipated "
                           f"{self.dissipated[name][-1]:.6g})")
            elif role in ("actuator", "source"):
                why = ("an actuator" if role == "actuator"
                       else "a source: it gave more work than its spring released")
                out.append(f"{head} = supplied {self.supplied[name][-1]:.6g} - stored "
                           f"{self.stored[name][-1]:+.6g} ({why})")
            elif role == "gear":
                out.append(f"{head} (gear: an ideal constraint, it does no work)")
            else:
                out.append(f"{head} = supplied (motion driver)")
        return out

    def __repr__(self):
        if not len(self.t):
            return "EnergyBalance of no rows"
        kinetic, gravity, stored, lost, fed, residual = self.totals()
        rows = [("kinetic", kinetic, ""), ("gravity", gravity, "potential energy"),
                ("stored", stored, "in the elements' springs"),
                ("dissipated", lost, "by the passive elements: dampers, contacts, friction"),
                ("supplied", fed, "by the sources: motion drivers, actuators, ...")]
        text = [f"EnergyBalance at t = {self.t[-1]:g} s, each term its change since "
                f"t = {self.t[0]:g} s (J):"]
        text += [f"  {what:<11}{value:+12.6g} J" + (f"   {note}" if note else "")
                 for what, value, note in rows]
        text.append(f"  {'residual':<11}{residual:+12.2g} J   = kinetic + gravity + stored + "
                    "dissipated - supplied")
        text.append(f"  relative residual {self.relative_residual:.1e}   (the largest "
                    f"|residual| over {len(self.t)} rows / the largest term, "
                    f"{self.scale:.4g} J)")
        return "\n".join(text)
