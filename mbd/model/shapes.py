"""Shapes: plain geometry a body or a ground carries in its CSs (DESIGN §10).

Each shape is centred on the origin of the CS it is attached to and given in that CS's axes
(sizes in m): ``body.add_shape(Box((0.1, 0.1, 1.0), color="steelblue"), cs="cg")``. The
dynamics never read shapes. A shape holds numbers only -- no picture library stands behind it:
:mod:`viz` turns it into a pyvista surface (and the web page into three.js data), and
exchange makes them from a URDF's visuals without drawing anything.

Every shape is checked when it is made; a bad value raises a ``ValueError`` naming the shape,
the rule and the value::

    >>> Sphere(-0.1)
    Traceback (most recent call last):
        ...
    ValueError: Sphere: radius must be > 0 and finite, got -0.1
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import pyvista
    from numpy.typing import ArrayLike

    #: a colour: a matplotlib/pyvista colour name or hex string, or an RGB(A) sequence
    Color = str | Sequence[float]


def positive(kind: str, name: str, value: object) -> float:
    """``value`` as a float that is > 0 and finite.

    Parameters
    ----------
    kind : str
        Who asks (a shape's class name, ``"animate"``): the error's first word.
    name : str
        The parameter's name.
    value : object
        What the user gave.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``"{kind}: {name} must be a number, got ..."`` or ``"... must be > 0 and finite,
        got ..."``.
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{kind}: {name} must be a number, got {value!r}") from None
    if not (math.isfinite(x) and x > 0.0):
        raise ValueError(f"{kind}: {name} must be > 0 and finite, got {value!r}")
    return x


def _axis(kind, axis):
    """``axis`` (3 numbers, any length but 0) as a unit vector, a tuple of 3 floats."""
    try:
        a = np.asarray(axis, dtype=float).reshape(3)
    except (TypeError, ValueError):
        raise ValueError(f"{kind}: axis must be 3 numbers, got {axis!r}") from None
    n = float(np.linalg.norm(a))
    if not (math.isfinite(n) and n > 0.0):
        raise ValueError(f"{kind}: axis must be a nonzero finite vector, got {axis!r}")
    return tuple(float(x) for x in a / n)


def _opacity(kind, opacity):
    """``opacity`` as a float in [0, 1]."""
    try:
        opacity = float(opacity)
    except (TypeError, ValueError):
        raise ValueError(f"{kind}: opacity must be a number in [0, 1], got {opacity!r}") from None
    if not 0.0 <= opacity <= 1.0:
        raise ValueError(f"{kind}: opacity must be in [0, 1], got {opacity!r}")
    return opacity


#: the drawing package's converter, shape -> its surface (viz registers it when imported)
_SURFACE = None


def register_surface(convert: Callable[[Shape], Any]) -> None:
    """Say how a shape becomes a surface: ``convert(shape)`` gives the surface of a built-in
    shape (a ``pyvista.PolyData`` in the CS's coordinates, m) for :meth:`Shape.polydata`.

    The drawing package (:mod:`viz`) calls this when imported: the model names no picture
    library, the pictures know the model.
    """
    global _SURFACE
    _SURFACE = convert


class Shape:
    """Common part of the shapes: ``color`` (any matplotlib/pyvista colour; None lets the scene
    choose one) and ``opacity`` in [0, 1].

    A shape of the user's own subclasses this and gives its surface by :meth:`polydata`.
    """

    def __init__(self, color: Color | None = None, opacity: float = 1.0) -> None:
        self.color = color
        self.opacity = _opacity(type(self).__name__, opacity)

    def polydata(self) -> pyvista.PolyData:
        """The surface as a ``pyvista.PolyData`` in the local coordinates of its CS (m): a
        built-in shape's as :mod:`viz` draws it (importing viz registers how); a shape of the
        user's own overrides this method."""
        if _SURFACE is None:
            raise RuntimeError(f"{type(self).__name__}: its surface is drawn by viz: "
                               "import viz first")
        return _SURFACE(self)


def _set(shape, **values):
    """Set checked ``values`` on a frozen ``shape``: its ``__post_init__`` checks and
    normalizes the fields (opacity first, as the shapes have always checked it) once."""
    for name, value in values.items():
        object.__setattr__(shape, name, value)


@dataclass(frozen=True, eq=False)
class Box(Shape):
    """A box with edge lengths ``size = (lx, ly, lz)`` (m) along the CS's x, y, z axes.

    Examples
    --------
    >>> Box(size=(2, 1, 0.5)).size
    (2.0, 1.0, 0.5)
    """

    size: Sequence[float]
    color: Color | None = None
    opacity: float = 1.0

    def __post_init__(self):
        _set(self, opacity=_opacity("Box", self.opacity))
        size = self.size
        try:
            if isinstance(size, (str, bytes)):    # not three lengths of one letter each
                raise TypeError
            size = tuple(size)
        except TypeError:
            raise ValueError(f"Box: size must be 3 lengths (lx, ly, lz), got {size!r}") from None
        if len(size) != 3:
            raise ValueError(f"Box: size must be 3 lengths (lx, ly, lz), got {size!r}")
        _set(self, size=tuple(positive("Box", f"size[{i}]", s) for i, s in enumerate(size)))


@dataclass(frozen=True, eq=False)
class _Axial(Shape):
    """A round shape of ``radius`` and ``length`` (m) along ``axis`` (CS coordinates, default
    z; kept as a unit vector), centred on the CS origin: what a cylinder and a capsule share,
    checked once for both."""

    radius: float
    length: float
    axis: Sequence[float] = (0.0, 0.0, 1.0)
    color: Color | None = None
    opacity: float = 1.0

    def __post_init__(self):
        kind = type(self).__name__
        _set(self, opacity=_opacity(kind, self.opacity))
        _set(self, radius=positive(kind, "radius", self.radius),
             length=positive(kind, "length", self.length), axis=_axis(kind, self.axis))


@dataclass(frozen=True, eq=False)
class Cylinder(_Axial):
    """A solid cylinder of ``radius`` and ``length`` (m) centred on the CS origin, its axis
    along ``axis`` (CS coordinates, default z; kept as a unit vector)."""


@dataclass(frozen=True, eq=False)
class Sphere(Shape):
    """A sphere of ``radius`` (m) centred on the CS origin."""

    radius: float
    color: Color | None = None
    opacity: float = 1.0

    def __post_init__(self):
        _set(self, opacity=_opacity("Sphere", self.opacity))
        _set(self, radius=positive("Sphere", "radius", self.radius))


@dataclass(frozen=True, eq=False)
class Capsule(_Axial):
    """A cylinder of ``radius`` (m) capped by two hemispheres; ``length`` (m) is the distance
    between the hemispheres' centres (the overall length is ``length + 2 radius``), along
    ``axis`` (default z; kept as a unit vector), centred on the CS origin."""


@dataclass(frozen=True, eq=False)
class Plane(Shape):
    """The half-space below its CS's x-y plane (the solid side is -z), for contact: a floor, a
    wall, a cam's flat follower. It has no end; a picture draws a square of side ``size``
    (m) about the CS origin.

    Examples
    --------
    >>> Plane(size=3).size
    3.0
    """

    size: float = 2.0
    color: Color | None = None
    opacity: float = 1.0

    def __post_init__(self):
        _set(self, opacity=_opacity("Plane", self.opacity))
        _set(self, size=positive("Plane", "size", self.size))


#: the most vertices a convex mesh's hull may have (each is a contact point against a plane)
MAX_HULL_VERTICES = 64


@dataclass(frozen=True, eq=False)
class ConvexMesh(Shape):
    """The convex hull of points, or of a mesh file's vertices (STL, OBJ, PLY, ... read by
    pyvista), in its CS's coordinates times ``scale`` (m): a shape that contact can touch
    (SPEC §12). A file's mesh must be convex: its volume is checked against its hull's.

    Parameters
    ----------
    points : array_like (n, 3), optional
        The points (m before scaling), at least 4 not in one plane; or None with ``path``.
    path : str or os.PathLike, optional
        A closed triangle mesh file.
    scale : float
        A factor (> 0).
    color, opacity : as :class:`Shape`.

    Attributes
    ----------
    vertices : ndarray (m, 3)
        The hull's vertices, CS coordinates, m (at most :data:`MAX_HULL_VERTICES`: each is
        a point of contact against a plane).
    faces : ndarray (k, 3) of int
        The hull's triangles, counter-clockwise seen from outside (for pictures).

    Examples
    --------
    >>> cube = ConvexMesh([(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)], scale=0.1)
    >>> cube.vertices.shape, round(float(cube.volume), 6)
    ((8, 3), 0.001)
    """

    points: ArrayLike | None = field(default=None, repr=False)
    path: str | os.PathLike | None = None
    scale: float = 1.0
    color: Color | None = None
    opacity: float = 1.0

    def __post_init__(self):
        from scipy.spatial import ConvexHull, QhullError  # (imported on use)

        _set(self, opacity=_opacity("ConvexMesh", self.opacity))
        scale = positive("ConvexMesh", "scale", self.scale)
        if (self.points is None) == (self.path is None):
            raise ValueError("ConvexMesh: give points or a file (path), one of them")
        if self.path is not None:
            path = os.fspath(self.path)
            points, volume = _closed_mesh(path)
            what = f"'{path}'"
        else:
            path, volume, what = None, None, "the points"
            try:
                points = np.array(self.points, dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"ConvexMesh: points must be (n, 3) numbers, got "
                                 f"{self.points!r}") from None
            if points.ndim != 2 or points.shape[1] != 3 or not np.all(np.isfinite(points)):
                raise ValueError(f"ConvexMesh: points must be (n, 3) finite numbers, got shape "
                                 f"{points.shape}")
        points = points * scale
        try:
            hull = ConvexHull(points)
        except (QhullError, ValueError):
            raise ValueError(f"ConvexMesh: {what} span no volume (at least 4 points, not all "
                             "in one plane)") from None
        if volume is not None:
            volume *= scale ** 3
            if abs(volume - hull.volume) > 1e-6 * hull.volume:
                raise ValueError(f"ConvexMesh: {what} is not convex: its volume "
                                 f"{volume:.6g} m^3 is not its hull's {hull.volume:.6g} m^3; "
                                 "make it of its convex pieces, one ConvexMesh each")
        if len(hull.vertices) > MAX_HULL_VERTICES:
            raise ValueError(f"ConvexMesh: the hull of {what} has {len(hull.vertices)} "
                             f"vertices, more than {MAX_HULL_VERTICES} (each touches a plane "
                             "as a point of its own): simplify it")
        index = {int(v): k for k, v in enumerate(hull.vertices)}
        vertices = points[hull.vertices]
        faces = np.array([[index[int(i)] for i in simplex] for simplex in hull.simplices],
                         dtype=np.int64)
        # counter-clockwise seen from outside: each face's normal along its hull equation's
        a, b, c = vertices[faces[:, 0]], vertices[faces[:, 1]], vertices[faces[:, 2]]
        inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), hull.equations[:, :3]) < 0.0
        faces[inward] = faces[inward][:, ::-1]
        vertices.flags.writeable = False
        faces.flags.writeable = False
        _set(self, path=path, scale=scale, points=None if path else self.points)
        object.__setattr__(self, "vertices", vertices)
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "volume", float(hull.volume))


def _closed_mesh(path):
    """(vertices (n, 3), volume m^3) of the closed triangle mesh in the file ``path``."""
    if not os.path.isfile(path):
        raise ValueError(f"ConvexMesh: no file {path!r}")
    import pyvista  # (a dependency: read here only, on use)
    try:
        mesh = pyvista.read(path).triangulate()
    except Exception as err:
        raise ValueError(f"ConvexMesh: cannot read {path!r}: {err}") from None
    points = np.asarray(mesh.points, dtype=float)
    faces = np.asarray(mesh.faces).reshape(-1, 4)[:, 1:]
    a, b, c = points[faces[:, 0]], points[faces[:, 1]], points[faces[:, 2]]
    volume = abs(float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum()) / 6.0)
    return points, volume


@dataclass(frozen=True, eq=False)
class Mesh(Shape):
    """A triangle surface: read from a file, or given by its vertices and faces. Its
    coordinates, multiplied by ``scale``, are CS coordinates (m after scaling).

    A file is read when the mesh is first drawn (by :mod:`viz`: STL, OBJ, PLY, VTK, ... by
    pyvista; COLLADA ``.dae``, as robot descriptions ship them, by trimesh, an optional
    extra); a file of several parts (a COLLADA scene) is read whole, each part placed by the
    scene's transforms. Where the file gives its parts colours (COLLADA materials, coloured
    PLY or OBJ) and ``color`` is None, the parts are drawn in them; ``color`` paints the whole
    mesh in one colour (as a URDF ``<material>`` does).

    Parameters
    ----------
    path : str or os.PathLike, optional
        The file (it must exist); or None with ``vertices`` and ``faces``.
    scale : float or sequence of 3 float
        One factor, or one per axis (a negative one mirrors the mesh, as URDFs do for a
        robot's left and right links); nonzero and finite.
    color, opacity : as :class:`Shape`.
    vertices : array_like (n, 3), optional
        The points (m before scaling), finite; keyword only, without ``path``.
    faces : array_like (m, 3) of int, optional
        The triangles, each three indices into ``vertices``, counter-clockwise seen from
        outside; keyword only, with ``vertices``.

    Examples
    --------
    >>> tetrahedron = Mesh(vertices=[(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)],
    ...                    faces=[(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)], scale=0.1)
    >>> tetrahedron.vertices.shape, tetrahedron.faces.shape, tetrahedron.path
    ((4, 3), (4, 3), None)
    """

    path: str | os.PathLike | None = None
    scale: float | Sequence[float] = 1.0
    color: Color | None = None
    opacity: float = 1.0
    vertices: ArrayLike | None = field(default=None, repr=False, kw_only=True)
    faces: ArrayLike | None = field(default=None, repr=False, kw_only=True)

    def __post_init__(self):
        _set(self, opacity=_opacity("Mesh", self.opacity))
        path, vertices, faces = self.path, None, None
        if path is not None:
            if self.vertices is not None or self.faces is not None:
                raise ValueError("Mesh: give a file or vertices and faces, not both "
                                 f"(got the file {os.fspath(path)!r})")
            path = os.fspath(path)
            if not os.path.isfile(path):
                raise ValueError(f"Mesh: no file {path!r}")
        else:
            vertices, faces = _triangles(self.vertices, self.faces)
        if np.ndim(self.scale) == 0:
            scale = positive("Mesh", "scale", self.scale)
        else:
            try:
                factors = np.asarray(self.scale, dtype=float).reshape(3)
            except (TypeError, ValueError):
                raise ValueError(f"Mesh: scale must be a number or 3 numbers, got "
                                 f"{self.scale!r}") from None
            if not (np.all(np.isfinite(factors)) and np.all(factors != 0.0)):
                raise ValueError(f"Mesh: scale factors must be nonzero and finite, got "
                                 f"{self.scale!r}")
            scale = tuple(float(f) for f in factors)
        _set(self, path=path, scale=scale, vertices=vertices, faces=faces)

    @property
    def mirrored(self) -> bool:
        """Whether the scale mirrors the mesh (an odd number of negative factors)."""
        return float(np.prod(np.broadcast_to(self.scale, 3))) < 0.0


def _triangles(vertices, faces):
    """``vertices`` (n, 3) float and ``faces`` (m, 3) int64 as read-only arrays, checked: at
    least one triangle, finite points, indices in [0, n)."""
    if vertices is None or faces is None:
        raise ValueError("Mesh: give a file, or vertices and faces (both), got "
                         f"vertices={'None' if vertices is None else '...'}, "
                         f"faces={'None' if faces is None else '...'}")
    try:
        v = np.array(vertices, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"Mesh: vertices must be (n, 3) numbers, got {vertices!r}") from None
    if v.ndim != 2 or v.shape[1] != 3 or len(v) < 3:
        raise ValueError(f"Mesh: vertices must be (n, 3) numbers with n >= 3, got shape "
                         f"{v.shape}")
    if not np.all(np.isfinite(v)):
        bad = int(np.flatnonzero(~np.all(np.isfinite(v), axis=1))[0])
        raise ValueError(f"Mesh: vertices must be finite, got vertex {bad} = {v[bad].tolist()}")
    try:
        f = np.array(faces)
        if f.size == 0 or not np.issubdtype(f.dtype, np.integer):
            raise TypeError
    except (TypeError, ValueError):
        raise ValueError(f"Mesh: faces must be (m, 3) vertex indices (integers), m >= 1, got "
                         f"{faces!r}") from None
    if f.ndim != 2 or f.shape[1] != 3:
        raise ValueError(f"Mesh: faces must be (m, 3) vertex indices (triangles), got shape "
                         f"{f.shape}")
    outside = (f < 0) | (f >= len(v))
    if outside.any():
        bad = int(np.flatnonzero(outside.any(axis=1))[0])
        raise ValueError(f"Mesh: faces must index the {len(v)} vertices (0 to {len(v) - 1}), "
                         f"got face {bad} = {f[bad].tolist()}")
    f = f.astype(np.int64)
    v.flags.writeable = False
    f.flags.writeable = False
    return v, f


__all__ = ["Shape", "Box", "Cylinder", "Sphere", "Capsule", "Plane", "ConvexMesh", "Mesh", "positive",
           "register_surface"]
