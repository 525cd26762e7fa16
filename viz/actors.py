"""What a :class:`viz.scene.Scene` draws, built once when the scene is made: the actors of a
System and its annotations.

What is drawn:

- bodies: their shapes (``body.add_shape``), in their colour, else in the colours a mesh
  file gives its parts (a robot's COLLADA meshes), else one of the palette's; a body without
  shapes is drawn as its
  *inertia-equivalent ellipsoid*: the uniform solid ellipsoid with the body's mass and
  principal moments, semi-axes ``a_i^2 = 5/(2m) (I_j + I_k - I_i)`` along the principal axes,
  centred on the CG (each semi-axis at least 2 % of the drawing's size, so that point masses
  stay visible);
- grounds: their shapes (``ground.add_shape``: a robot's base), else small dark cubes
  (with the joints' markers);
- joints (unless ``markers`` is off, as it is by default for a robot drawn in its meshes),
  at the follower CS (the base CS when the follower is a ground), one marker per
  primitive: revolute a pin along its axis, prismatic a thin rail along its axis, spherical a
  ball (axes after the first primitive of a joint are drawn as in the reference pose);
- line and axial force elements (and BodySpringDamper): a coil between the two CS origins,
  re-generated each frame; a Bushing: a rubber sleeve fixed to A around CS A's z axis and a
  pin fixed to B along CS B's z axis; a JointForce: a marker on its primitive at the joint's
  follower CS (the base CS when the follower is a ground): for a revolute primitive a washer on the
  pin (a spiral for a law without contact), for a prismatic one a collar around the body;
- a Bistop's (or Impact's) stops, on a JointForce's first primitive or an AxialForce: thin
  dark rings square to the axis at x1 and x2 (where the collar stands at each stop), or on a
  revolute primitive two radial bars at x1 and x2 joined by an arc, fixed to the base;
- contact colours: gap, backlash and stop laws (ElastoGap, ElastoBacklash, ElastoBacklash2,
  Bistop, Impact) colour their coil or marker by their contact state (green not in contact,
  red in contact); without a Result (a System drawn at a state) the contact is unknown: grey;
- stick-slip colours: a JointStiction's marker (a washer or collar, as a contact law's) is
  blue while it sticks and orange while it slips (grey without a Result);
- contact points (SPEC §12: a ``Contact`` laid out as one element per point): nothing of
  their own, their shapes are the picture (a ``Plane`` a light square); with ``contacts``
  (and a Result) a small red ball at each point while it touches and a red arrow along its
  force on b, drawn over everything else (a point under a ball would be hidden by it), the
  run's largest contact force :data:`CONTACT_ARROW` of the drawing's size long;
- a GearConstraint: two brass wheels with a toothed rim and a white spoke, one on each geared
  primitive's moving side, radii in the ratio; where the axes are parallel and apart the
  pitch circles touch: two discs for a pair turning opposite ways (ratio < 0), a ring gear
  round the smaller wheel for one turning the same way (ratio > 0); a rack (prismatic side)
  as a bar, its pinion at its pitch radius;
- collision shapes (``collisions``): every contact shape not drawn already (attached with
  ``drawn=False``: a robot's collision geometry), see-through orange, moving with its body;
- a floor: a light grid plane under everything the motion reaches, square to gravity;
- annotations (:mod:`viz.overlay`): a title (the model's name and what it holds), the time
  (``t = 1.234 s``), a label per force element (its kind and name, e.g. ``Bistop 'stops'``:
  :func:`viz.naming.element_label`) joined to it by a leader line and framed in its contact
  colour, placed clear of the bodies' boxes as seen (by default only up to
  :data:`MAX_LABELS` of them), and a legend of the colours
  shown (grounds; the contact and stick-slip states, or grey "state unknown" without a
  Result; the dark grey frame of a label whose element has no state, "no contact state");
- optional CS triads (``show_cs``: x red, y green, z blue) and trails (paths of named CSs).

The meshes are :mod:`viz.elements`'s, the colours :mod:`viz.colors`'s; the Scene moves the
actors and recolours them by state (:meth:`viz.scene.Scene.set_state`) and lays the floor
(:meth:`viz.scene.Scene.fit`).
"""
import numpy as np
import pyvista as pv

from .colors import (
    BUSHING_COLOR,
    COLLISION_COLOR,
    COLLISION_OPACITY,
    CONTACT_COLOR,
    FREE_COLOR,
    GROUND_COLOR,
    JOINT_COLOR,
    LIMIT_COLOR,
    PALETTE,
    PLANE_COLOR,
    SLIP_COLOR,
    SPRING_COLOR,
    STUCK_COLOR,
    UNKNOWN_COLOR,
)
from .elements import (
    bushing_parts,
    drawn_state,
    ellipsoid,
    gear_parts,
    joint_force_marker,
    joint_markers,
    stop_limit_marks,
)
from .naming import default_title, element_label
from .overlay import FRAME_COLOR, Overlay
from .shapes import Plane, coil_points, polyline, transformed, triad

#: the most force elements a picture labels by default (``Scene(labels=None)``)
MAX_LABELS = 8
#: the length of the arrow of the run's largest contact force, a fraction of the drawing's
#: size (``Scene(contacts=True)``)
CONTACT_ARROW = 0.25


class SceneActors:
    """The building half of :class:`viz.scene.Scene` (a mixin): its actors, one per drawn part,
    and its annotations (:mod:`viz.overlay`), made once from the system.

    The Scene sets what these methods read and fill (its ``plotter``, ``system``, ``length``,
    ``lighting``, ``markers``, ``trails`` and ``size``; the dicts of actors its docstring lists,
    ``_local_bounds``, ``_static_points`` and ``_anchors``) before it calls :meth:`_build`,
    and gives the world place of a CS at link poses (its ``_cs_world``).
    """

    def _add(self, mesh, owner, color, opacity=1.0, **kw):
        """Add ``mesh`` (in the owner's link frame, or world for owner None) as an actor."""
        actor = self.plotter.add_mesh(mesh, color=color, opacity=opacity,
                                      lighting=self.lighting, **kw)
        self.parts.append((actor, mesh, owner, color, opacity))
        if owner is None:
            self._static_points.append(np.array(mesh.bounds).reshape(3, 2).T)
        else:
            self.body_actors[owner].append(actor)
            b = np.array(mesh.bounds).reshape(3, 2)
            corners = np.array([[b[0, i], b[1, j], b[2, k]] for i in range(2)
                                for j in range(2) for k in range(2)])
            self._local_bounds[owner].append(corners)
        return actor

    def _build(self, show_cs):
        s = self.system
        L = self.length
        for i, (name, bm) in enumerate(s.bodies.items()):
            body = bm.body
            if body.shapes:
                for shape, cs_name in body.shapes:
                    p, R = bm.cs_local(body.frames[cs_name])
                    self._shape(shape, R, p, name, PALETTE[i % len(PALETTE)])
            else:
                self._add(ellipsoid(bm, L), name, PALETTE[i % len(PALETTE)])
            if show_cs:
                for cs in body.frames.values():
                    p, R = bm.cs_local(cs)
                    self._add(transformed(triad(0.08 * L), R, p), name, None, scalars="rgb",
                              rgb=True, line_width=2)
        for g in s.grounds.values():
            shapes = getattr(g, "shapes", ())
            if shapes:                 # fixed in the world (a robot's base): no cube then
                self.ground_actors[g.name] = [
                    self._shape(shape, g.rotation, g.position, None, GROUND_COLOR)
                    for shape in shapes]
            elif self.markers:
                self._cubes += 1
                c = 0.03 * L
                self._add(pv.Box(bounds=(-c, c, -c, c, -c, c)).translate(g.position,
                                                                           inplace=False),
                          None, GROUND_COLOR)
            if show_cs:
                self._add(transformed(triad(0.08 * L), g.rotation, g.position), None, None,
                          scalars="rgb", rgb=True, line_width=2)
        if self.collisions:
            self._collision_shapes()
        for jm in s.joints.values() if self.markers else ():
            self._joint(jm.joint)
        for fe in s.force_elements:
            self._force(fe)
        for dm in s.drivers if self.markers else ():
            if hasattr(dm.driver, "joint_a") and hasattr(dm.driver, "joint_b"):
                self._gear(dm.driver)
        if self.contacts and self.contact_points:
            self._contact_layer()
        for key in self.trails:
            line = pv.PolyData(np.zeros((1, 3)))
            actor = self.plotter.add_mesh(line, color=(0.1, 0.1, 0.1), line_width=2,
                                          lighting=False)
            self.trail_lines[key] = (actor, line)

    def _collision_shapes(self):
        """Draw every contact shape not drawn already (``collisions``: attached with
        ``drawn=False``, a robot's collision geometry), in :data:`COLLISION_COLOR` at
        :data:`COLLISION_OPACITY`: a body's in its link frame, placed by its CS (found by
        the CS's name, as the drawn shapes are), a ground's fixed in the world."""
        s = self.system
        for name, bm in s.bodies.items():
            body = bm.body
            drawn = {id(shape) for shape, _ in body.shapes}
            for shape, cs in getattr(body, "contact_shapes", ()):
                if id(shape) in drawn:
                    continue
                p, R = bm.cs_local(body.frames[cs.name])
                self.collision_actors.append(self._add(
                    transformed(shape.polydata(), R, p), name, COLLISION_COLOR,
                    COLLISION_OPACITY))
        for g in s.grounds.values():
            drawn = {id(shape) for shape in getattr(g, "shapes", ())}
            for shape, _ in getattr(g, "contact_shapes", ()):
                if id(shape) in drawn:
                    continue
                self.collision_actors.append(self._add(
                    transformed(shape.polydata(), g.rotation, g.position), None,
                    COLLISION_COLOR, COLLISION_OPACITY))

    def _shape(self, shape, R, p, owner, default):
        """Draw ``shape`` placed by (R, p) in its owner's link frame (the world for a ground's
        shape, owner None): in its own colour, else in the colours its file gives its parts
        (a robot's COLLADA meshes), else in ``default``."""
        mesh = transformed(shape.polydata(), R, p)
        if shape.color is None and "rgb" in mesh.cell_data:
            return self._add(mesh, owner, None, shape.opacity, scalars="rgb", rgb=True)
        if shape.color is not None:
            color = shape.color
        else:       # a floor or a wall in the body's dark colour would hide what stands on it
            color = PLANE_COLOR if isinstance(shape, Plane) else default
        return self._add(mesh, owner, color, shape.opacity)

    def _annotate(self, title, show_labels=None):
        """The overlay: title, time stamp, one label per force element it can place (none
        with ``show_labels`` False, or None and more than :data:`MAX_LABELS` of them), and
        the legend: the grounds' colour, and the contact colours when something shows a
        contact state."""
        if title is None:
            heading, subtitle = default_title(self.system)
        elif isinstance(title, tuple):
            heading, subtitle = title
        else:
            heading, subtitle = title, None
        labels = [(fe.name, element_label(fe)) for fe in self.system.force_elements
                  if fe.name in self._anchors]
        if show_labels is False or (show_labels is None and len(labels) > MAX_LABELS):
            labels = []
        legend = self._legend(None, [name for name, _ in labels])
        return Overlay(self.plotter.renderer, self.size, heading, subtitle, labels, legend)

    def _legend(self, states, labelled):
        """The legend's entries [(RGB, text)] for what is shown in ``states`` (as
        :meth:`set_state` takes them; None: nothing known) with the force elements
        ``labelled``: the grounds' cubes; green and red while a contact element's state is
        known, blue and orange a stiction element's; grey "state unknown" for one whose state
        is not (a System drawn without a Result); and the dark grey frame of a label whose
        element has no state to show (a spring, a damper); the marks of stop limits."""
        states = states or {}
        legend = [(GROUND_COLOR, "ground")] if self._cubes else []
        if any(states.get(name) is not None for name in self.contact_actors):
            legend += [(FREE_COLOR, "not in contact"), (CONTACT_COLOR, "in contact")]
        if any(states.get(name) is not None for name in self.stiction_actors):
            legend += [(STUCK_COLOR, "stuck"), (SLIP_COLOR, "slipping")]
        if any(states.get(name) is None for name in [*self.contact_actors,
                                                     *self.stiction_actors]):
            legend.append((UNKNOWN_COLOR, "state unknown"))
        if any(name not in self.contact_actors and name not in self.stiction_actors
               for name in labelled):
            legend.append((FRAME_COLOR, "no contact state"))
        if self.limit_actors:
            legend.append((LIMIT_COLOR, "stop limits"))
        if self.contact_marks:
            legend.append((CONTACT_COLOR, "contact points, forces"))
        if self.collision_actors:
            legend.append((COLLISION_COLOR, "collision shapes"))
        return legend

    def _joint(self, joint):
        owner, meshes = joint_markers(self.system, joint, self.length)
        for mesh in meshes:
            self._add(mesh, owner, JOINT_COLOR)

    def _force(self, fe):
        contact = drawn_state(fe) == "contact"
        placement = getattr(fe, "placement", "")
        if placement == "contact":
            # no marker and no label: the shapes are the picture (a box on a plane has 8
            # points), the points and forces only on request (:meth:`_contact_layer`)
            self.contact_points.append(fe)
        elif placement in ("line", "axial") and fe.cs_a is not None and fe.cs_b is not None:
            pts = coil_points(np.zeros(3), np.array([0.0, 0.0, 1.0]), 0.02 * self.length)
            line = polyline(pts)
            color = UNKNOWN_COLOR if contact else SPRING_COLOR
            actor = self.plotter.add_mesh(line, color=color, line_width=3, lighting=False)
            self.coils[fe.name] = (actor, line)
            if contact:
                self.contact_actors[fe.name] = actor
            self._anchors[fe.name] = ("coil", fe.name)
            self._limits(fe)
        elif placement == "joint" and fe.joint is not None:
            if not self.markers:
                return
            self._limits(fe)       # sized on the body alone, before its collar is added
            stiction = drawn_state(fe) == "stuck"
            owner, p, mesh = joint_force_marker(
                self.system, fe, contact or stiction, self.length, self._local_bounds)
            actor = self._add(mesh, owner, UNKNOWN_COLOR if contact or stiction
                              else SPRING_COLOR, line_width=3)
            if contact:
                self.contact_actors[fe.name] = actor
            if stiction:
                self.stiction_actors[fe.name] = actor
            self._anchors[fe.name] = ("point", owner, p)
        elif placement == "bushing" and fe.cs_a is not None and fe.cs_b is not None:
            for owner, mesh in bushing_parts(self.system, fe, self.length):
                self._add(mesh, owner, BUSHING_COLOR)
            self._anchors[fe.name] = ("cs", fe.cs_b)
        elif fe.cs_b is not None:   # a rotational placement, or one of the user's own
            self._anchors[fe.name] = ("cs", fe.cs_b)

    def _contact_layer(self):
        """The actors of the contact points' balls and arrows (``contacts``), empty and hidden
        until a Result's row shows a point touching (:meth:`viz.scene.Scene.update`). They
        are in a renderer of their own over the scene's, sharing its camera: drawn over
        everything else, as a point under a ball is hidden by the ball."""
        from vtkmodules.vtkRenderingCore import vtkRenderer
        window = self.plotter.ren_win
        window.SetNumberOfLayers(max(2, window.GetNumberOfLayers()))
        top = vtkRenderer()
        top.SetLayer(1)
        top.InteractiveOff()
        top.SetActiveCamera(self.plotter.renderer.GetActiveCamera())
        window.AddRenderer(top)
        self._contact_renderer = top
        for kind in ("dots", "arrows"):
            mesh = pv.Sphere(radius=0.01 * self.length)     # a placeholder, replaced per frame
            actor = pv.Actor(mapper=pv.DataSetMapper(mesh))
            # flat, in the state colour exactly: a GIF's palette keeps it
            actor.prop.color = CONTACT_COLOR
            actor.prop.lighting = False
            actor.visibility = False
            top.AddActor(actor)
            self.contact_marks[kind] = (actor, mesh)

    def _limits(self, fe):
        """A Bistop's or Impact's stop positions, thin marks fixed where the coordinate is
        measured from (:func:`viz.elements.stop_limit_marks`)."""
        marks = stop_limit_marks(self.system, fe, self.length, self._local_bounds)
        if marks is not None:
            owner, mesh = marks
            self.limit_actors[fe.name] = self._add(mesh, owner, LIMIT_COLOR, line_width=2)

    def _gear(self, gear):
        for owner, mesh, color, options, pitch in gear_parts(self.system, gear, self.length):
            actor = self._add(mesh, owner, color, **options)
            if pitch is not None:
                self.gear_discs.setdefault(gear.name, []).append((owner, actor, pitch))

    def _anchor_point(self, how, ends, Rl, pl):
        """The world point a force element's label points at: the middle of its coil, its
        joint marker, or its CS B."""
        if how[0] == "coil":
            pa, pb = ends[how[1]]
            return 0.5 * (pa + pb)
        if how[0] == "point":
            owner, p = how[1], how[2]
            if owner is None:
                return p
            link = self.system.bodies[owner].link
            return pl[link] + Rl[link] @ p
        return self._cs_world(how[1], Rl, pl)[0]
