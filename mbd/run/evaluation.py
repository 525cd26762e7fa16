"""The mechanism evaluated at rows of states: :class:`Evaluation`, what a Result's views and a
sensor read at a sample are computed from (each quantity through the
:class:`mbd.run.evaluator.Evaluator`, worked out when first asked for and kept)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..compiled import layout
from ..compiled.rowkernels import rotate_rows
from ..model.errors import renamed_link
from .contactview import ContactView
from .views import BodyView, ForceView, JointView, ReactionView

if TYPE_CHECKING:     # (hints only: the model stage is below, the evaluator beside)
    from collections.abc import Callable

    from numpy.typing import ArrayLike

    from ..model.builder import CS
    from .evaluator import Evaluator, RowInputs, Wrenches


class Evaluation:
    """Rows of states of a mechanism and what it does at them.

    Parameters
    ----------
    evaluator : mbd.run.evaluator.Evaluator
        Evaluates the rows (its ``held``: the signals' values the rows were run with).
    t : array_like (n,)
        The rows' times, s.
    y : ndarray (n, width)
        The rows as the run's state had them: [q, v, W, the continuous controllers' states]
        (q with unit quaternions).
    sides : ndarray (n, nf, SWITCHES), callable or None
        The force laws' branches at every row (a callable: made when first needed; None:
        every side +1).

    Attributes
    ----------
    system : System
    t, y : ndarray
        As given.
    q, v : ndarray (n, nq), (n, nv)
        Views of y's joint positions and velocities.
    """

    def __init__(self, evaluator: Evaluator, t: ArrayLike, y: np.ndarray,
                 sides: np.ndarray | Callable[[], np.ndarray] | None = None) -> None:
        self.evaluator, self.system = evaluator, evaluator.system
        self.t = np.asarray(t, dtype=float)
        self.y = y
        nq, nv = self.system.nq, self.system.nv
        self.q, self.v = y[:, :nq], y[:, nq:nq + nv]
        self._sides = sides
        self._kinematics = self._accelerations = self._reactions = None
        self._records = self._params = self._inputs = None

    @property
    def sides(self) -> np.ndarray:
        """The force laws' branches at every row (n, nf, SWITCHES)."""
        if self._sides is None:
            self._sides = np.ones((len(self.t), len(self.system.force_elements),
                                   layout.SWITCHES))
        elif callable(self._sides):
            self._sides = self._sides()
        return self._sides

    # ------------------------------------------------------------------ kinematics

    def link_poses(self) -> tuple[np.ndarray, np.ndarray]:
        """(R (n, n_links, 3, 3), p (n, n_links, 3)): every link's rotation and origin,
        world, m."""
        return self._tree()[:2]

    def link_velocities(self) -> np.ndarray:
        """Every link's spatial velocity [w; v] (n, n_links, 6), link axes, rad/s and m/s."""
        return self._tree()[2]

    def tree_energies(self) -> np.ndarray:
        """[kinetic, gravitational] energy of the bodies (n, 2), J."""
        return self._tree()[3]

    def _tree(self):
        if self._kinematics is None:
            nq, nv = self.system.nq, self.system.nv
            self._kinematics = self.evaluator.kinematics(self.y[:, :nq + nv])
        return self._kinematics

    def link_accelerations(self) -> np.ndarray:
        """Every link's spatial acceleration [alpha; a] (n, n_links, 6) in link coordinates
        (a: of the link-fixed point at the link origin, the spatial vector's linear part),
        from the right-hand side at each row (the forces, constraints and held signals of the
        run there); the joints' reactions come from the same evaluation and are kept."""
        if self._accelerations is None:
            R, p = self.link_poses()
            wrenches, values, acc, _ = self.evaluator.reaction_rows(
                self.t, self.y, self.sides, R, p, accelerations=True, inputs=self._row_inputs())
            # gravity enters the RNEA as the base's upward acceleration -g: take it out
            acc[:, :, 3:] += np.einsum("nlji,lj->nli", R, self.system.tree["gravity"])
            self._accelerations = acc
            if self._reactions is None:
                self._reactions = (wrenches, values)
        return self._accelerations

    def cs_frame(self, cs: CS) -> tuple[np.ndarray, np.ndarray]:
        """(R (n, 3, 3), p (n, 3)) of a CS (a body's or a ground): its axes (columns) and
        origin in world coordinates at every row, m."""
        link, local_p, local_R = self.system.cs_placement(cs)
        n = len(self.t)
        if link < 0:         # a ground: fixed in the world
            return np.broadcast_to(local_R, (n, 3, 3)), np.broadcast_to(local_p, (n, 3))
        R, p = self.link_poses()
        return R[:, link] @ local_R, p[:, link] + R[:, link] @ local_p

    def cs_motion(self, cs: CS, view: str) -> np.ndarray:
        """A CS's motion at every row (n, 3), world axes: ``view`` "position" (m) or
        "velocity" (m/s) of its origin, "acceleration" (m/s^2) of its origin,
        "angular_velocity" (rad/s) or "angular_acceleration" (rad/s^2) of what carries it
        (zero for a ground)."""
        link, local_p, _ = self.system.cs_placement(cs)
        n = len(self.t)
        if link < 0:
            return np.tile(local_p, (n, 1)) if view == "position" else np.zeros((n, 3))
        if view == "position":
            return self.cs_frame(cs)[1]
        R = self.link_poses()[0][:, link]
        V = self.link_velocities()[:, link]
        w, v = V[:, :3], V[:, 3:] + np.cross(V[:, :3], local_p)     # link axes
        if view in ("acceleration", "angular_acceleration"):
            A = self.link_accelerations()[:, link]
            if view == "angular_acceleration":
                local = A[:, :3]
            else:
                # the spatial acceleration's linear part is d/dt of the velocity field at a
                # fixed point; the point moving with the body adds w x v
                local = A[:, 3:] + np.cross(A[:, :3], local_p) + np.cross(w, v)
        else:
            local = w if view == "angular_velocity" else v
        return rotate_rows(R, local)

    def cs_rotations(self, cs: CS) -> np.ndarray:
        """World orientation matrices (n, 3, 3) of a CS over the rows."""
        link, _, local = self.system.cs_placement(cs)
        if link < 0:
            return np.broadcast_to(local, (len(self.t), 3, 3))
        R, _ = self.link_poses()
        return R[:, link] @ local

    # ------------------------------------------------------------------ forces and reactions

    def reactions(self) -> tuple[Wrenches, dict[str, np.ndarray]]:
        """({joint: (force (n, 3), moment (n, 3))}, {driver or gear: (n,)}): what every joint
        transmits (world, N and N m about the follower CS's origin) and every driver and gear
        applies (:meth:`mbd.run.evaluator.Evaluator.reaction_rows`)."""
        if self._reactions is None:
            R, p = self.link_poses()
            wrenches, values, _, _ = self.evaluator.reaction_rows(
                self.t, self.y, self.sides, R, p, inputs=self._row_inputs())
            self._reactions = (wrenches, values)
        return self._reactions

    def force_records(self) -> np.ndarray:
        """Per row and element: an ``ELEMENT_STATE`` record (:mod:`mbd.compiled.layout`)."""
        if self._records is None:
            self._records, self._params = self.evaluator.record_rows(
                self.t, self.y, self.sides, self._row_inputs())
        return self._records

    def force_params(self, index: int) -> np.ndarray:
        """Force element ``index``'s parameter rows in use (n, MAX_PARAMS): evaluated per row
        where they change, else a read-only view of its one row."""
        self.force_records()
        if index in self._params:
            return self._params[index]
        return np.broadcast_to(self.system.elements["params"][index],
                               (len(self.t), layout.MAX_PARAMS))

    def _row_inputs(self) -> RowInputs | None:
        """What Python gives at every row (:meth:`mbd.run.evaluator.Evaluator.row_inputs`),
        worked out once for the records and the reactions (none with held signals: those
        rows are evaluated from Python)."""
        if self._inputs is None and self.evaluator.held is None:
            self._inputs = self.evaluator.row_inputs(self.t, self.y)
        return self._inputs

    # ------------------------------------------------------------------ named views

    def joint(self, name: str) -> JointView:
        """The coordinates of joint ``name`` (a JointView)."""
        try:
            return JointView(self, self.system.joints[name])
        except KeyError:
            raise KeyError(f"no joint '{name}'; the joints are {sorted(self.system.joints)}") \
                from None

    def body(self, name: str) -> BodyView:
        """The motion of body ``name`` (a BodyView)."""
        try:
            return BodyView(self, self.system.bodies[name])
        except KeyError:
            raise KeyError(f"no body '{name}'{renamed_link(name, self.system)}; the bodies are "
                           f"{sorted(self.system.bodies)}") from None

    def force(self, name: str) -> ForceView:
        """The force element ``name`` (a ForceView)."""
        index = self.system.force_index
        if name not in index:
            raise KeyError(f"no force element '{name}'; the force elements are "
                           f"{sorted(index)}")
        return ForceView(self, index[name])

    def contact(self, name: str) -> ContactView:
        """The contact element ``name`` (a :class:`mbd.run.contactview.ContactView`)."""
        contacts = self.system.contacts
        if name not in contacts:
            raise KeyError(f"no contact '{name}'; the contacts are {sorted(contacts)}")
        first = contacts[name][0]
        sticks = (self.sides[:, first, layout.PLACEMENT_SWITCH] < 0.0
                  if self.system.elements[first]["patch"] == first
                  else np.zeros(len(self.t), dtype=bool))
        return ContactView(name, self.t, [self.force(self.system.force_elements[i].name)
                                          for i in contacts[name]], sticks)

    def reaction(self, name: str) -> ReactionView:
        """The reaction of joint, motion driver or gear ``name``: a ReactionView."""
        s = self.system
        drivers = {d.name for d in s.drivers}
        if name not in s.joints and name not in drivers:
            raise KeyError(f"no joint, motion driver or gear '{name}'; the joints are "
                           f"{sorted(s.joints)}" + (f", the drivers and gears {sorted(drivers)}"
                                                    if drivers else ""))
        wrenches, values = self.reactions()
        if name in drivers:
            return ReactionView(name, value=values[name])
        F, M = wrenches[name]
        R = self.cs_rotations(s.joints[name].joint.base)          # (n, 3, 3) world
        return ReactionView(name, force=rotate_rows(R, F, transpose=True),
                            torque=rotate_rows(R, M, transpose=True),
                            unique=name not in s.joints_with_redundancy)

    def energies(self) -> np.ndarray:
        """[kinetic, potential] energy (n, 2), J: the potential of gravity (zero at the world
        origin) plus what the force elements' springs store."""
        out = self.tree_energies().copy()
        for name in self.system.force_index:
            out[:, 1] += self.force(name).energy
        return out

    def energy(self) -> np.ndarray:
        """Total mechanical energy (n,), J."""
        return self.energies().sum(axis=1)
