"""Shapes to draw bodies with: attach one to a body's CS with ``body.add_shape(shape, cs="cg")``.

Each shape is centred on the origin of the CS it is attached to and given in that CS's axes
(metres). The dynamics never read shapes; they only change the picture.

The meshes the scene builds itself (coils, polylines, triads) and the placing of a mesh in a
frame are here too.
"""
import inspect
import math
import os
import warnings

import numpy as np
import pyvista as pv


def _positive(kind, name, value):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{kind}: {name} must be a number, got {value!r}") from None
    if not (math.isfinite(x) and x > 0.0):
        raise ValueError(f"{kind}: {name} must be > 0 and finite, got {value!r}")
    return x


def _axis(kind, axis):
    try:
        a = np.asarray(axis, dtype=float).reshape(3)
    except (TypeError, ValueError):
        raise ValueError(f"{kind}: axis must be 3 numbers, got {axis!r}") from None
    n = float(np.linalg.norm(a))
    if not (math.isfinite(n) and n > 0.0):
        raise ValueError(f"{kind}: axis must be a nonzero finite vector, got {axis!r}")
    return a / n


class Shape:
    """Common part of the shapes: ``color`` (any matplotlib/pyvista colour; None lets the scene
    choose one) and ``opacity`` in [0, 1]."""

    def __init__(self, color=None, opacity=1.0):
        kind = type(self).__name__
        try:
            opacity = float(opacity)
        except (TypeError, ValueError):
            raise ValueError(f"{kind}: opacity must be a number in [0, 1], got {opacity!r}") from None
        if not 0.0 <= opacity <= 1.0:
            raise ValueError(f"{kind}: opacity must be in [0, 1], got {opacity!r}")
        self.color = color
        self.opacity = opacity

    def polydata(self):
        """The surface as a ``pyvista.PolyData`` in the local coordinates of its CS (m)."""
        raise NotImplementedError(f"{type(self).__name__}: a shape gives its surface by "
                                  "polydata(), a pyvista.PolyData in its CS's coordinates (m)")


class Box(Shape):
    """A box with edge lengths ``size = (lx, ly, lz)`` (m) along the CS's x, y, z axes.

    Examples
    --------
    >>> [float(b) for b in Box(size=(2.0, 1.0, 0.5)).polydata().bounds]
    [-1.0, 1.0, -0.5, 0.5, -0.25, 0.25]
    """

    def __init__(self, size, color=None, opacity=1.0):
        super().__init__(color, opacity)
        try:
            if isinstance(size, (str, bytes)):    # not three lengths of one letter each
                raise TypeError
            size = tuple(size)
        except TypeError:
            raise ValueError(f"Box: size must be 3 lengths (lx, ly, lz), got {size!r}") from None
        if len(size) != 3:
            raise ValueError(f"Box: size must be 3 lengths (lx, ly, lz), got {size!r}")
        self.size = tuple(_positive("Box", f"size[{i}]", s) for i, s in enumerate(size))

    def polydata(self):
        lx, ly, lz = self.size
        return pv.Box(bounds=(-lx / 2, lx / 2, -ly / 2, ly / 2, -lz / 2, lz / 2))


class Cylinder(Shape):
    """A solid cylinder of ``radius`` and ``length`` (m) centred on the CS origin, its axis
    along ``axis`` (CS coordinates, default z)."""

    def __init__(self, radius, length, axis=(0.0, 0.0, 1.0), color=None, opacity=1.0):
        super().__init__(color, opacity)
        self.radius = _positive("Cylinder", "radius", radius)
        self.length = _positive("Cylinder", "length", length)
        self.axis = _axis("Cylinder", axis)

    def polydata(self):
        return pv.Cylinder(center=(0.0, 0.0, 0.0), direction=self.axis, radius=self.radius,
                           height=self.length, resolution=32, capping=True)


class Sphere(Shape):
    """A sphere of ``radius`` (m) centred on the CS origin."""

    def __init__(self, radius, color=None, opacity=1.0):
        super().__init__(color, opacity)
        self.radius = _positive("Sphere", "radius", radius)

    def polydata(self):
        return pv.Sphere(radius=self.radius, center=(0.0, 0.0, 0.0), theta_resolution=32,
                         phi_resolution=16)


class Capsule(Shape):
    """A cylinder of ``radius`` capped by two hemispheres; ``length`` (m) is the distance
    between the hemispheres' centres (the overall length is ``length + 2 radius``), along
    ``axis`` (default z), centred on the CS origin."""

    def __init__(self, radius, length, axis=(0.0, 0.0, 1.0), color=None, opacity=1.0):
        super().__init__(color, opacity)
        self.radius = _positive("Capsule", "radius", radius)
        self.length = _positive("Capsule", "length", length)
        self.axis = _axis("Capsule", axis)

    def polydata(self):
        return pv.Capsule(center=(0.0, 0.0, 0.0), direction=self.axis, radius=self.radius,
                          cylinder_length=self.length, resolution=32)


class Mesh(Shape):
    """A surface read from a file (STL, OBJ, PLY, VTK, ... by pyvista; COLLADA ``.dae``, as
    robot descriptions ship them, by trimesh, an optional extra), its coordinates multiplied
    by ``scale`` and taken as CS coordinates (m after scaling).

    A file of several parts (a COLLADA scene) is read whole, each part placed by the scene's
    transforms. Where the file gives its parts colours (COLLADA materials, coloured PLY or OBJ)
    and ``color`` is None, the parts are drawn in them; ``color`` paints the whole mesh in one
    colour (as a URDF ``<material>`` does).

    Parameters
    ----------
    path : str or os.PathLike
    scale : float or sequence of 3 float
        One factor, or one per axis (a negative one mirrors the mesh, as URDFs do for a
        robot's left and right links); nonzero and finite.
    color, opacity : as :class:`Shape`.
    """

    #: the file types read through trimesh rather than pyvista
    TRIMESH_TYPES = (".dae",)

    def __init__(self, path, scale=1.0, color=None, opacity=1.0):
        super().__init__(color, opacity)
        self.path = os.fspath(path)
        if not os.path.isfile(self.path):
            raise ValueError(f"Mesh: no file {self.path!r}")
        if np.ndim(scale) == 0:
            self.scale = _positive("Mesh", "scale", scale)
        else:
            try:
                factors = np.asarray(scale, dtype=float).reshape(3)
            except (TypeError, ValueError):
                raise ValueError(f"Mesh: scale must be a number or 3 numbers, got "
                                 f"{scale!r}") from None
            if not (np.all(np.isfinite(factors)) and np.all(factors != 0.0)):
                raise ValueError(f"Mesh: scale factors must be nonzero and finite, got "
                                 f"{scale!r}")
            self.scale = tuple(float(f) for f in factors)
        self._mesh = None

    @property
    def mirrored(self):
        """Whether the scale mirrors the mesh (an odd number of negative factors)."""
        return float(np.prod(np.broadcast_to(self.scale, 3))) < 0.0

    def polydata(self):
        """The surface (CS coordinates, m); its cell array ``rgb`` (uint8) holds the file's
        own colours where it has them."""
        if self._mesh is None:
            mesh = _read_mesh(self.path).scale(self.scale, inplace=False)
            if self.mirrored:
                # a mirror turns the faces inside out: reverse their winding so that their
                # normals point out again, and the lighting falls on the outside
                mesh = mesh.flip_faces(inplace=False)
            self._mesh = mesh
        return self._mesh.copy()


#: surfaces read from files, by (path, modification time, size): a robot's meshes are read
#: once however many scenes draw them
_READ = {}
_READ_LIMIT = 64


def _read_mesh(path):
    """The surface in the file ``path`` (a PolyData, the file's units, not to be modified)."""
    path = os.path.abspath(path)
    stat = os.stat(path)
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in _READ:
        if path.lower().endswith(Mesh.TRIMESH_TYPES):
            mesh = _trimesh_polydata(path)
        else:
            try:
                with warnings.catch_warnings():    # VTK's reader warns, then returns nothing
                    warnings.simplefilter("ignore")
                    mesh = pv.read(path)
            except Exception as err:      # pyvista's reader for an unknown or broken file
                raise ValueError(f"Mesh: cannot read {path!r} ({type(err).__name__}: "
                                 f"{str(err).strip()})") from None
            mesh = surface_of(mesh)
            if mesh.n_points == 0 or mesh.faces.size == 0:
                raise ValueError(f"Mesh: {path!r} holds no surface (no triangles): not a mesh "
                                 "file pyvista reads, or one of points or lines only")
        if len(_READ) >= _READ_LIMIT:
            _READ.pop(next(iter(_READ)))
        _READ[key] = mesh
    return _READ[key]


def surface_of(mesh):
    """The outer surface of a pyvista dataset, as a PolyData (a PolyData as it is).

    pyvista 0.47 and later warn that ``extract_surface``'s default algorithm will change
    (a FutureWarning): asked by name, the choice they recommend (``algorithm=None``: VTK's
    geometry filter where it fits), as the older releases, which have no such keyword, do
    by default.
    """
    if isinstance(mesh, pv.PolyData):
        return mesh
    if "algorithm" in inspect.signature(mesh.extract_surface).parameters:
        return mesh.extract_surface(algorithm=None)
    return mesh.extract_surface()


def _trimesh_polydata(path):
    """The surfaces of a file trimesh reads, one PolyData: every part of a scene placed by
    the scene's transforms, its colour (the material's, or the part's face colours) in the
    cell array ``rgb`` (uint8) when the file gives any."""
    try:
        import trimesh
    except ImportError as err:
        raise ImportError(f"Mesh {path!r}: reading this type needs trimesh (and pycollada for "
                          ".dae): pip install 'mbd[urdf]'") from err
    loaded = trimesh.load(path, force="scene")       # a scene, even of one part
    parts = []
    for node in loaded.graph.nodes_geometry:
        transform, name = loaded.graph[node]
        geometry = loaded.geometry[name]
        if isinstance(geometry, trimesh.Trimesh) and len(geometry.faces):
            parts.append((geometry, np.asarray(transform, dtype=float)))
    if not parts:
        raise ValueError(f"Mesh: {path!r} holds no surface (no triangles)")
    points, faces, colors, offset = [], [], [], 0
    for geometry, transform in parts:
        vertices = np.asarray(geometry.vertices, dtype=float)
        points.append(vertices @ transform[:3, :3].T + transform[:3, 3])
        tris = np.asarray(geometry.faces, dtype=np.int64) + offset
        if np.linalg.det(transform[:3, :3]) < 0.0:    # a mirroring node: keep faces outward
            tris = tris[:, ::-1]
        faces.append(tris)
        colors.append(_part_colors(geometry))
        offset += len(vertices)
    tris = np.vstack(faces)
    mesh = pv.PolyData(np.vstack(points),
                       np.column_stack([np.full(len(tris), 3), tris]).ravel())
    if any(c is not None for c in colors):
        grey = np.array([180, 180, 180], dtype=np.uint8)   # a part without a colour
        mesh.cell_data["rgb"] = np.vstack([
            np.broadcast_to(grey if c is None else c, (len(f), 3))
            for c, f in zip(colors, faces)]).astype(np.uint8)
    return mesh


def _part_colors(geometry):
    """The colour of a trimesh part (a Trimesh: it always has a visual): (3,) or (faces, 3)
    uint8, or None when it has none."""
    visual = geometry.visual
    material = getattr(visual, "material", None)
    if material is not None:
        color = getattr(material, "main_color", None)
        return None if color is None else np.asarray(color, dtype=np.uint8)[:3]
    if getattr(visual, "kind", None) in ("face", "vertex"):
        return np.asarray(visual.face_colors, dtype=np.uint8)[:, :3]
    return None


# ----------------------------------------------------------------------------- scene meshes

def pose_matrix(R, p):
    """The 4x4 homogeneous matrix of rotation ``R`` (3, 3) and translation ``p`` (3,) (m)."""
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def transformed(mesh, R, p):
    """A copy of ``mesh`` rotated by ``R`` then moved by ``p`` (m)."""
    return mesh.transform(pose_matrix(R, p), inplace=False)


def frame_of(axis):
    """Two unit vectors completing ``axis`` (unit) to a right-handed frame."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = np.cross(axis, helper)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(axis, e1)


def coil_points(pa, pb, radius, turns=8, per_turn=16):
    """Points of a coil from ``pa`` to ``pb`` (world, m): straight leads over the first and
    last 10 % and a helix of ``radius`` and ``turns`` between; the first point is ``pa`` and
    the last ``pb`` exactly.

    Examples
    --------
    >>> pts = coil_points((0, 0, 0), (0, 0, 2.0), radius=0.1)
    >>> pts[0].tolist(), pts[-1].tolist()
    ([0.0, 0.0, 0.0], [0.0, 0.0, 2.0])
    """
    pa = np.asarray(pa, dtype=float)
    pb = np.asarray(pb, dtype=float)
    d = pb - pa
    length = float(np.linalg.norm(d))
    axis = d / length if length > 0.0 else np.array([0.0, 0.0, 1.0])
    e1, e2 = frame_of(axis)
    s = np.linspace(0.1, 0.9, turns * per_turn + 1)
    phase = 2.0 * np.pi * turns * (s - 0.1) / 0.8
    helix = pa + np.outer(s, d) + radius * (np.outer(np.cos(phase), e1)
                                            + np.outer(np.sin(phase), e2))
    return np.vstack([pa, helix, pb])


def polyline(points):
    """One line through ``points`` (n, 3) (m), in order."""
    n = len(points)
    return pv.PolyData(np.asarray(points, float), lines=np.hstack([[n], np.arange(n)]).astype(np.int64))


def triad(length):
    """Three coloured segments of ``length`` (m) (x red, y green, z blue) from the origin,
    their colours in the cell array ``rgb``."""
    pts = np.array([[0, 0, 0], [length, 0, 0], [0, 0, 0], [0, length, 0], [0, 0, 0],
                    [0, 0, length]], dtype=float)
    mesh = pv.PolyData(pts, lines=np.array([2, 0, 1, 2, 2, 3, 2, 4, 5], dtype=np.int64))
    mesh.cell_data["rgb"] = np.array([[230, 0, 0], [0, 170, 0], [0, 0, 230]], dtype=np.uint8)
    return mesh
