"""The named views of a Result: a joint's coordinates, a body's motion, a force element, a
controller's samples, a reaction, the energy balance (each computed when asked for)."""
import numpy as np
from scipy.spatial.transform import Rotation


class JointView:
    """A joint's coordinates over the run: ``q`` (n,) or (n, nq), ``v`` (n,) or (n, nv)."""

    def __init__(self, result, jm):
        self.name = jm.joint.name
        self.joint = jm.joint
        q = result.q[:, jm.q_index]
        v = result.v[:, jm.v_index]
        self.q = q[:, 0] if q.shape[1] == 1 else q
        self.v = v[:, 0] if v.shape[1] == 1 else v


class BodyView:
    """A body's motion over the run, in world coordinates."""

    def __init__(self, result, bm):
        self._result = result
        self._map = bm
        self.name = bm.body.name

    def _cs(self, cs):
        body = self._map.body
        frame = body[cs] if isinstance(cs, str) else cs
        if frame.owner is not body:
            raise ValueError(f"body '{body.name}': {frame!r} is not one of its CSs")
        return self._map.cs_local(frame)

    def position(self, cs="cg"):
        """World position of a CS origin (n, 3), m; default the CG."""
        p_local, _ = self._cs(cs)
        R, p = self._result._link_poses()
        link = self._map.link
        return p[:, link] + R[:, link] @ p_local

    @property
    def rotation(self):
        """The body's orientation relative to its drawing pose: a scipy Rotation of n."""
        R, _ = self._result._link_poses()
        return Rotation.from_matrix(R[:, self._map.link] @ self._map.rotation.T)

    def cs_rotation(self, cs):
        """World orientation of a CS (its axes): a scipy Rotation of n."""
        _, R_local = self._cs(cs)
        R, _ = self._result._link_poses()
        return Rotation.from_matrix(R[:, self._map.link] @ R_local)

    def velocity(self, cs="cg"):
        """World velocity of a CS origin (n, 3), m/s."""
        p_local, _ = self._cs(cs)
        R, _ = self._result._link_poses()
        V = self._result._link_velocities()[:, self._map.link]
        local = V[:, 3:] + np.cross(V[:, :3], p_local)
        return np.einsum("nij,nj->ni", R[:, self._map.link], local)

    @property
    def angular_velocity(self):
        """World angular velocity (n, 3), rad/s."""
        R, _ = self._result._link_poses()
        V = self._result._link_velocities()[:, self._map.link]
        return np.einsum("nij,nj->ni", R[:, self._map.link], V[:, :3])


class ControllerView:
    """A controller over the run. A discrete one's samples: ``t`` (k,) the sample instants (s,
    exact multiples of its period from t0), ``x`` (k, n) its state before each sample, ``u``
    (k, m) its inputs and ``y`` (k, p) its outputs, held from each instant to the next. A
    continuous one's at every row: ``t`` the rows' times, ``x`` its states, ``u`` its inputs,
    ``y`` its outputs."""

    def __init__(self, name, samples):
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
    energy : ndarray (n,)
        Potential energy stored in the element, J (worked out when first read).
    """

    def __init__(self, result, index):
        fe = result.system.force_elements[index]
        rec = result._force_records()[:, index]
        params = result._force_params(index)
        self.name = fe.name
        self.element = fe
        self.x, self.xdot = rec["x"].copy(), rec["xdot"].copy()
        self.vector = rec["vector"].copy()
        self.scalar = rec["value"].copy()
        self.value = self.vector if getattr(fe, "vector_valued", False) else self.scalar
        self.deflection = self.rate = None
        if fe.placement == "bushing":
            self.value = rec["wrench"].copy()
            self.deflection, self.rate = rec["deflection"].copy(), rec["rate"].copy()
        sides = result.sides[:, index]
        self.state = fe.law.states(self.x, self.xdot, result.t, sides, params)
        self._energy_inputs = (params, sides)
        self._t = result.t

    @property
    def energy(self):
        """Potential energy stored in the element per row (n,), J (worked out when read)."""
        params, sides = self._energy_inputs
        return self.element.law.energy(self.x, params, sides)

    def contacts(self):
        """[(t_begin, t_end, side)] of every contact of a gap, backlash or stop element (side:
        -1 lower/+1 upper for BISTOP and backlash, -1 for ElastoGap's one side); t_end is nan
        for a contact still going at the end. Exact event times with exact switching."""
        if "contact" not in self.state:
            raise ValueError(f"force element '{self.name}' has no contact state")
        contact = np.asarray(self.state["contact"])
        return contact_intervals(self._t, -contact.astype(int) if contact.dtype == bool
                                 else contact)


def contact_intervals(t, contact):
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

    def __init__(self, name, force=None, torque=None, value=None, unique=True):
        self.name = name
        self.force, self.torque, self.value, self.unique = force, torque, value, unique


class EnergyBalance:
    """Where a run's energy went, row by row (J, relative to the first row).

    The work every force element and motion driver does on the mechanism is integrated with
    the motion (the run's state carries it, see :mod:`mbd.compiled.statefunction`), so the balance

        kinetic + gravity = sum of the elements' and drivers' work

    holds to the integration tolerance whatever the elements do, and its ``residual`` measures
    the run's accuracy. Each element's work splits into the change of the energy its law stores
    (``stored``) and the rest (``dissipated``): what its damping took out or, negative, what an
    actuator, a stiffness varying in time or negative damping put in.

    Attributes
    ----------
    t : ndarray (n,)
        s.
    kinetic : ndarray (n,)
        Change of the kinetic energy since the first row, J.
    gravity : ndarray (n,)
        Change of the potential energy of gravity, J.
    work : dict of str to ndarray (n,)
        The work done on the mechanism by each force element and motion driver, J.
    stored : dict of str to ndarray (n,)
        Per force element: the change of the energy its law stores (its spring), J.
    dissipated : dict of str to ndarray (n,)
        Per force element: ``-(work + stored)``, J.
    residual : ndarray (n,)
        ``kinetic + gravity - sum(work)``, J (zero but for the integration error).
    scale : float
        The largest magnitude among the terms over the run, J (the residual's yardstick).
    """

    def __init__(self, t, kinetic, gravity, work, stored):
        self.t, self.kinetic, self.gravity = t, kinetic, gravity
        self.work, self.stored = work, stored
        self.dissipated = {name: -(work[name] + stored[name]) for name in stored}
        total = sum(work.values(), np.zeros_like(t))
        self.residual = kinetic + gravity - total
        terms = [kinetic, gravity, *work.values(), *stored.values()]
        self.scale = max(float(np.abs(x).max(initial=0.0)) for x in terms)

    @property
    def relative_residual(self):
        """The largest |residual| over the run relative to :attr:`scale` (0 when nothing
        moved)."""
        worst = float(np.abs(self.residual).max(initial=0.0))
        return worst / self.scale if self.scale > 0.0 else worst

    def totals(self, row=-1):
        """The balance at a row in its engineering terms, J: (kinetic, gravity, stored,
        dissipated, supplied, residual) with kinetic + gravity + stored + dissipated - supplied
        = residual; ``dissipated`` sums the elements that took energy out, ``supplied`` those
        that put it in (actuators, a stiffness varying in time, negative damping) and the
        drivers' work."""
        k = row
        stored = sum((x[k] for x in self.stored.values()), 0.0)
        lost = sum((x[k] for x in self.dissipated.values() if x[k] > 0.0), 0.0)
        fed = -sum((x[k] for x in self.dissipated.values() if x[k] < 0.0), 0.0)
        fed += sum((self.work[name][k] for name in self.work if name not in self.stored), 0.0)
        return (float(self.kinetic[k]), float(self.gravity[k]), float(stored), float(lost),
                float(fed), float(self.residual[k]))

    def summary(self):
        """The balance over the run in one line."""
        kinetic, gravity, stored, lost, fed, residual = self.totals()
        return (f"kinetic {kinetic:+.6g} + gravity {gravity:+.6g} + stored in springs "
                f"{stored:+.6g} + dissipated {lost:.6g} - supplied {fed:.6g} = {residual:.2g} J "
                f"(largest residual {self.relative_residual:.1e} of the largest term)")

    def lines(self):
        """Per force element and driver over the run: its work, and what it stored and
        dissipated (J), one line each."""
        out = []
        for name, work in self.work.items():
            if name in self.stored:
                out.append(f"{name}: work {work[-1]:+.6g} J = -(stored "
                           f"{self.stored[name][-1]:+.6g}"
                           f" + dissipated {self.dissipated[name][-1]:+.6g})")
            else:
                out.append(f"{name}: work {work[-1]:+.6g} J (motion driver)")
        return out
