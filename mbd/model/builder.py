"""The mutable model builder: grounds, bodies with coordinate systems, joints, force elements.

Everything is given in world coordinates of the reference (drawing) configuration, where every
joint coordinate is zero. Nothing is checked against physics here beyond what is needed to
store a value; :meth:`Model.build` checks every rule at once and reports all problems in one
:class:`~mbd.model.errors.ModelError`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.spatial.transform import Rotation

from . import values
from .elements import Element
from .errors import ModelError
from .rotations import as_rotation_matrix
from .shapes import Box, Capsule, ConvexMesh, Cylinder, Plane, Shape, Sphere

# what simulate returns (an mbd.Result, the run stage's) is hinted Any: imports point down the
# stages, type-only imports too (DESIGN §9, tests/test_layout.py)
if TYPE_CHECKING:
    from typing import TypeVar

    from numpy.typing import ArrayLike

    _E = TypeVar("_E", bound=Element)
    _S = TypeVar("_S", bound=Shape)
    #: an orientation: a scipy Rotation, a 3x3 rotation matrix or a unit quaternion (w, x, y, z)
    Orientation = Rotation | ArrayLike


class Environment:
    """Gravity and solver settings of a machine (Simscape's *Machine Environment*).

    Parameters
    ----------
    gravity : sequence of 3 float
        Gravitational acceleration in world coordinates, m/s^2, e.g. ``(0, 0, -9.81)``.
        It is required: mbd never assumes a physical constant.
    rtol, atol : float, optional
        Default relative and absolute integration tolerances for the machine's states
        (rtol 1e-8, atol 1e-10); ``simulate`` may override them. The rule is
        ``simulate``'s (:func:`mbd.model.values.tolerances`): 100 eps <= rtol < 1, atol > 0.
    assembly_tolerance : float, optional
        How far apart (m) the origins of a joint's two CSs may be in the reference
        configuration and still count as coincident (default 1e-9 m), finite and > 0.

    Every value must be a real number (not a bool or a string); a bad one raises
    :class:`~mbd.ModelError` naming it.

    Examples
    --------
    >>> env = Environment(gravity=(0.0, 0.0, -9.81))
    >>> env.gravity
    array([ 0.  ,  0.  , -9.81])
    """

    def __init__(self, gravity: ArrayLike, rtol: float = 1e-8, atol: float = 1e-10,
                 assembly_tolerance: float = 1e-9) -> None:
        self.gravity = _vector3(gravity, "Environment: gravity")
        self.rtol, self.atol = values.tolerances(rtol, atol, "Environment", error=ModelError)
        self.assembly_tolerance = values.real(assembly_tolerance,
                                              "Environment: assembly_tolerance",
                                              "finite and > 0", values.positive, ModelError)
        if not np.all(np.isfinite(self.gravity)):
            raise ModelError(f"Environment: gravity must be finite, got {self.gravity}")

    def __repr__(self):
        return f"Environment(gravity={tuple(self.gravity)}, rtol={self.rtol}, atol={self.atol})"


class CS:
    """A coordinate system fixed to a body or to the world (a ground).

    Attributes
    ----------
    name : str
        Its name, unique within its owner.
    owner : Body or Ground
        What it is fixed to.
    position : ndarray (3,)
        Origin in world coordinates of the reference configuration, m.
    rotation : ndarray (3, 3)
        Axes in world coordinates of the reference configuration (columns are the CS's x, y, z).
    """

    def __init__(self, owner: Body | Ground | None, name: str, position: ArrayLike,
                 rotation: Orientation | None = None) -> None:
        self.owner = owner
        self.name = name
        if owner is self:
            what = f"ground '{name}'"
        elif owner is not None:
            what = f"CS '{owner.name}.{name}'"
        else:
            what = f"CS '{name}'"
        self.position = _vector3(position, f"{what}: position")
        self.rotation = _orientation(rotation, f"{what}: orientation")

    @property
    def model(self) -> Model:
        """The model this CS belongs to."""
        return self.owner.model

    @property
    def full_name(self) -> str:
        """``body.cs`` for a body's CS, the ground's name for a ground."""
        return self.name if self.owner is self else f"{self.owner.name}.{self.name}"

    def __repr__(self):
        return f"CS({self.full_name!r}, at={tuple(np.round(self.position, 12))})"


class Ground(CS):
    """A CS fixed in the world; one of them carries the machine's :class:`Environment`."""

    #: the URDF link this ground is, where from_urdf named it otherwise (:func:`mbd.model.errors.renamed_link`)
    urdf_link = None

    def __init__(self, model: Model, name: str, at: ArrayLike = (0.0, 0.0, 0.0),
                 environment: Environment | None = None,
                 orientation: Orientation | None = None) -> None:
        self._model = model
        self.environment = environment
        self.shapes = []   # shapes for pictures, fixed in the world
        self.contact_shapes = []   # (shape, CS) pairs that contacts touch (add_shape)
        super().__init__(self, name, at, orientation)
        if environment is not None and not isinstance(environment, Environment):
            raise ModelError(f"ground '{name}': environment must be an mbd.Environment, "
                             f"got {type(environment).__name__}")

    @property
    def model(self) -> Model:
        return self._model

    def add_shape(self, shape: _S, contact: bool = False, drawn: bool = True) -> _S:
        """Attach a shape (:mod:`mbd.model.shapes`, e.g. a robot base's ``Mesh``, a floor's
        ``Plane``), placed in this ground's CS and fixed in the world. Returns the shape.

        With ``contact=True`` the shape is also one that a :class:`mbd.Contact` naming this
        ground touches (SPEC §12); otherwise it is only drawn. ``drawn=False`` (with
        ``contact=True``): a shape for contact only, drawn only where pictures are asked for
        contact shapes (a robot's collision geometry beside its visual meshes)."""
        if not contact and not drawn:
            raise ModelError(f"ground '{self.name}': add_shape: a shape neither drawn nor for "
                             "contact is of no use (drawn=False is for contact=True)")
        if drawn:
            self.shapes.append(shape)
        if _contact_shape(shape, f"ground '{self.name}'", contact):
            self.contact_shapes.append((shape, self))
        return shape

    def __repr__(self):
        return f"Ground({self.name!r}, at={tuple(self.position)})"


class Body:
    """A rigid body: mass, CG, inertia about the CG and named coordinate systems.

    Index a body with a CS name to get the CS: ``arm["tip"]``. Every body has a CS ``"cg"`` at
    its centre of gravity (world-parallel axes) unless the user names one so.
    """

    #: the URDF link this body is, where from_urdf named it otherwise (:func:`mbd.model.errors.renamed_link`)
    urdf_link = None

    def __init__(self, model: Model, name: str, mass: float, cg: ArrayLike, inertia: ArrayLike,
                 cs: dict[str, ArrayLike | tuple[ArrayLike, Orientation]] | None = None,
                 weightless: bool = False) -> None:
        self.model = model
        self.name = name
        # a mass of 0 with a rotational inertia is refused at build() unless meant
        self.weightless = bool(weightless)
        # only the type here: build() checks the values (finite, > 0, ...) all at once
        self.mass = values.real(mass, f"body '{name}': mass", error=ModelError)
        self.cg = _vector3(cg, f"body '{name}': cg")
        self.inertia = values.real_array(inertia, f"body '{name}': inertia",
                                         expected="a 3x3 matrix or its 3 principal moments",
                                         error=ModelError)
        if self.inertia.shape == (3,):
            self.inertia = np.diag(self.inertia)
        if self.inertia.shape != (3, 3):
            raise ModelError(f"body '{name}': inertia must be a 3x3 matrix or its 3 principal "
                             f"moments, got shape {self.inertia.shape}")
        self.frames = {}
        self.shapes = []   # (shape, CS name) pairs for pictures
        self.contact_shapes = []   # (shape, CS) pairs that contacts touch (add_shape)
        if cs is not None and not isinstance(cs, dict):
            raise ModelError(f"body '{name}': cs must be a dict {{name: point or (point, "
                             f"orientation)}}, got {type(cs).__name__}")
        for cs_name, spec in (cs or {}).items():
            self.add_cs(cs_name, *_cs_spec(spec, f"body '{name}': CS '{cs_name}'"))
        if "cg" not in self.frames:
            self.frames["cg"] = CS(self, "cg", self.cg)

    def add_cs(self, name: str, position: ArrayLike, orientation: Orientation | None = None) -> CS:
        """Add a CS at ``position`` (world, reference configuration, m) and return it."""
        if not isinstance(name, str) or not name:
            raise ModelError(f"body '{self.name}': a CS name must be a non-empty string, got {name!r}")
        if name in self.frames and name != "cg":
            raise ModelError(f"body '{self.name}': CS '{name}' is defined twice")
        self.frames[name] = CS(self, name, position, orientation)
        return self.frames[name]

    def add_shape(self, shape: _S, cs: str = "cg", contact: bool = False,
                  drawn: bool = True) -> _S:
        """Attach a shape (:mod:`mbd.model.shapes`, e.g. ``mbd.Box``, which is ``viz.Box``),
        placed in the CS named ``cs``. Returns the shape.

        With ``contact=True`` the shape is also one that a :class:`mbd.Contact` naming this
        body touches (SPEC §12); otherwise only pictures read it. ``drawn=False`` (with
        ``contact=True``): a shape for contact only, drawn only where pictures are asked for
        contact shapes (a robot's collision geometry beside its visual meshes)."""
        if cs not in self.frames:
            raise ModelError(f"body '{self.name}': add_shape: no CS '{cs}'; it has "
                             f"{sorted(self.frames)}")
        if not contact and not drawn:
            raise ModelError(f"body '{self.name}': add_shape: a shape neither drawn nor for "
                             "contact is of no use (drawn=False is for contact=True)")
        if drawn:
            self.shapes.append((shape, cs))
        if _contact_shape(shape, f"body '{self.name}'", contact):
            self.contact_shapes.append((shape, self.frames[cs]))
        return shape

    def __getitem__(self, name: str) -> CS:
        try:
            return self.frames[name]
        except KeyError:
            raise KeyError(f"body '{self.name}' has no CS '{name}'; it has "
                           f"{sorted(self.frames)}") from None

    def __repr__(self):
        return f"Body({self.name!r}, mass={self.mass})"


class Model:
    """A mechanism under construction: the first of the build -> compile -> run stages.

    Parameters
    ----------
    name : str
        The model's name (results, files and messages are named after it).
    description : str
        Free text about the model, for people (what it is, its source, its units): kept by
        ``build()`` as ``system.description`` and shown by ``mbd check``; "" for none. A
        value that is not a string raises :class:`~mbd.ModelError` naming the model.

    Examples
    --------
    A point-like pendulum on a hinge:

    >>> import numpy as np, mbd
    >>> from joints import Revolute
    >>> model = mbd.Model("pendulum")
    >>> ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    >>> bob = model.add_body("bob", mass=1.0, cg=(1.0, 0, 0), inertia=np.eye(3) * 1e-6,
    ...                      cs={"pivot": (0, 0, 0)})
    >>> hinge = model.add(Revolute("hinge", ground, bob["pivot"], axis=(0, 1, 0)))
    >>> system = model.build()
    >>> system.nq, system.nv, system.dof
    (1, 1, 1)
    >>> mbd.Model("slot", description="Adams' BISTOP example, seed 003").description
    "Adams' BISTOP example, seed 003"
    """

    def __init__(self, name: str = "model", description: str = "") -> None:
        self.name = name
        self.description = description
        self.grounds = []
        self.bodies = []
        self.elements = []  # joints and force elements, in the order added

    @property
    def description(self) -> str:
        """Free text about the model (str, "" for none)."""
        return self._description

    @description.setter
    def description(self, text: str) -> None:
        # checked where it is set, so a later build() or mbd check never meets a non-string
        if not isinstance(text, str):
            raise ModelError(f"model '{self.name}': description must be a string (free text), "
                             f"got {type(text).__name__} {text!r}")
        self._description = text

    def add_ground(self, name: str, at: ArrayLike = (0.0, 0.0, 0.0),
                   environment: Environment | None = None,
                   orientation: Orientation | None = None) -> Ground:
        """Add a ground: a CS fixed in the world at ``at`` (m), optionally carrying the
        machine's environment. Returns the ground, usable wherever a CS is expected."""
        ground = Ground(self, _check_name(name, "ground"), at, environment, orientation)
        self.grounds.append(ground)
        return ground

    def add_body(self, name: str, mass: float, cg: ArrayLike, inertia: ArrayLike,
                 cs: dict[str, ArrayLike | tuple[ArrayLike, Orientation]] | None = None,
                 weightless: bool = False) -> Body:
        """Add a rigid body and return it.

        Parameters
        ----------
        name : str
        mass : float
            kg, >= 0 (a real number: not a bool or a string). A massless body, a point mass
            (zero inertia) or a rod is fine where every joint still moves some inertia;
            build() names a joint that moves none.
        cg : sequence of 3 float
            Centre of gravity, world coordinates of the reference configuration, m.
        inertia : array_like (3, 3) or (3,)
            Inertia tensor about the CG in world axes, kg m^2 (or its diagonal).
        cs : dict, optional
            ``{name: point}`` or ``{name: (point, orientation)}``; an orientation is a scipy
            Rotation, a 3x3 matrix or a quaternion (w, x, y, z); without one the CS has
            world-parallel axes.
        weightless : bool
            Allow a mass of 0 with a rotational inertia (a rotor whose mass another body
            carries): it then has no weight and resists turning only. Without it build()
            refuses such a body, which no rigid body is (its inertia is its mass's spread).
        """
        body = Body(self, _check_name(name, "body"), mass, cg, inertia, cs, weightless)
        self.bodies.append(body)
        return body

    def add(self, element: _E) -> _E:
        """Add a joint, force element, motion driver, gear, sensor, input or controller and
        return it."""
        if not isinstance(element, Element):
            raise ModelError(f"model '{self.name}': add() takes a joint, a force element or a "
                             f"sensor, input or controller, got {type(element).__name__}")
        self.elements.append(element)
        return element

    # build() is a later stage's: bound by the package face (mbd/__init__.py), DESIGN §9

    def simulate(self, t_end: float, **options: Any) -> Any:
        """``model.build().simulate(t_end, **options)``."""
        return self.build().simulate(t_end, **options)

    def __repr__(self):
        return (f"Model({self.name!r}: {len(self.grounds)} grounds, {len(self.bodies)} bodies, "
                f"{len(self.elements)} joints and force elements)")


#: the shapes a contact can touch (SPEC §12)
CONTACT_SHAPES = (Plane, Sphere, Capsule, Box, Cylinder, ConvexMesh)


def _contact_shape(shape, owner, contact):
    """Whether ``shape`` is attached for contact: ``contact`` checked (a bool), and the shape
    one that contacts can touch, or ModelError naming ``owner``."""
    if not isinstance(contact, bool):
        raise ModelError(f"{owner}: add_shape: contact must be True or False, got {contact!r}")
    if contact and not isinstance(shape, CONTACT_SHAPES):
        raise ModelError(f"{owner}: add_shape: a {type(shape).__name__} cannot be a contact "
                         f"shape (contact=True); contact shapes are: "
                         f"{', '.join(k.__name__ for k in CONTACT_SHAPES)}")
    return contact


def _check_name(name, kind):
    if not isinstance(name, str) or not name:
        raise ModelError(f"{kind} name must be a non-empty string, got {name!r}")
    return name


def _vector3(value, what):
    """Three real numbers (not checked for finiteness: build() reports that), or ModelError
    (the error of a model being built)."""
    return values.vector3(value, what, error=ModelError)


def _orientation(value, what):
    """The rotation matrix of an orientation: None (world-parallel axes), a scipy Rotation, a
    3x3 rotation matrix or a unit quaternion (w, x, y, z) (not normalised for the user: one of
    another norm is refused); ModelError otherwise."""
    if value is not None and not isinstance(value, Rotation):
        value = values.real_array(value, what, expected="a Rotation, a 3x3 matrix or a "
                                  "quaternion (w, x, y, z)", error=ModelError)
    try:
        return as_rotation_matrix(value, what)
    except ValueError as err:
        raise ModelError(str(err)) from None


def _cs_spec(spec, what):
    """(position, orientation) from a CS spec: a point or (point, orientation)."""
    if isinstance(spec, dict):
        return spec.get("at"), spec.get("orientation")
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and np.ndim(spec[0]) == 1:
        return spec[0], spec[1]
    _vector3(spec, what)
    return spec, None
