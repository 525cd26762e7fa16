"""Shapes drawn: the surfaces of :mod:`mbd.model.shapes` as pyvista meshes.

The shapes themselves are plain geometry in the model (``viz.Box`` is
:class:`mbd.model.shapes.Box`, re-exported here and by :mod:`viz`): each is centred on the
origin of the CS it is attached to and given in that CS's axes (m). This module turns them
into ``pyvista.PolyData`` (:func:`surface`, which importing viz registers as the way
``shape.polydata()`` draws a built-in shape), reads mesh files (pyvista; COLLADA by trimesh)
once per file, and builds the meshes the scene draws itself (coils, polylines, triads) and
the placing of a mesh in a frame.
"""
import inspect
import os
import warnings
import weakref

import numpy as np
import pyvista as pv

from mbd.model.shapes import (
    Box,
    Capsule,
    ConvexMesh,
    Cylinder,
    Mesh,
    Plane,
    Shape,
    Sphere,
    register_surface,
)

__all__ = ["Shape", "Box", "Cylinder", "Sphere", "Capsule", "Plane", "ConvexMesh", "Mesh",
           "surface"]

#: the file types read through trimesh rather than pyvista
TRIMESH_TYPES = (".dae",)


def _box(box):
    """A box's surface, its edges along the CS's axes (m)."""
    lx, ly, lz = box.size
    return pv.Box(bounds=(-lx / 2, lx / 2, -ly / 2, ly / 2, -lz / 2, lz / 2))


def _cylinder(cylinder):
    """A cylinder's surface, capped, 32 sides (m)."""
    return pv.Cylinder(center=(0.0, 0.0, 0.0), direction=cylinder.axis, radius=cylinder.radius,
                       height=cylinder.length, resolution=32, capping=True)


def _sphere(sphere):
    """A sphere's surface, 32 meridians by 16 parallels (m)."""
    return pv.Sphere(radius=sphere.radius, center=(0.0, 0.0, 0.0), theta_resolution=32,
                     phi_resolution=16)


def _capsule(capsule):
    """A capsule's surface, 32 sides (m)."""
    return pv.Capsule(center=(0.0, 0.0, 0.0), direction=capsule.axis, radius=capsule.radius,
                      cylinder_length=capsule.length, resolution=32)


def _convex_mesh(hull):
    """A convex mesh's picture: its hull's triangles (m)."""
    return pv.PolyData(np.asarray(hull.vertices, dtype=float),
                       np.column_stack([np.full(len(hull.faces), 3), hull.faces]).ravel())


def _plane(plane):
    """A plane's picture: a square of side ``plane.size`` (m) in the CS's x-y plane, centred
    on its origin, its normal +z (out of the solid half-space)."""
    return pv.Plane(center=(0.0, 0.0, 0.0), direction=(0.0, 0.0, 1.0), i_size=plane.size,
                    j_size=plane.size, i_resolution=1, j_resolution=1)


#: each mesh's surface once scaled (a mesh drawn in many scenes, frames, pages is scaled once)
_SCALED = weakref.WeakKeyDictionary()


def _mesh(mesh):
    """The surface of a :class:`Mesh` (CS coordinates, m); its cell array ``rgb`` (uint8)
    holds the file's own colours where it has them."""
    if mesh not in _SCALED:
        if mesh.path is None:
            surface = pv.PolyData(np.asarray(mesh.vertices, dtype=float),
                                  np.column_stack([np.full(len(mesh.faces), 3),
                                                   mesh.faces]).ravel())
        else:
            surface = _read_mesh(mesh.path)
        surface = surface.scale(mesh.scale, inplace=False)
        if mesh.mirrored:
            # a mirror turns the faces inside out: reverse their winding so that their
            # normals point out again, and the lighting falls on the outside
            surface = surface.flip_faces(inplace=False)
        _SCALED[mesh] = surface
    return _SCALED[mesh].copy()


#: the surface of each built-in shape kind
_SURFACES = {Box: _box, Cylinder: _cylinder, Sphere: _sphere, Capsule: _capsule, Plane: _plane,
             ConvexMesh: _convex_mesh, Mesh: _mesh}


def surface(shape):
    """The surface of a built-in ``shape`` as a ``pyvista.PolyData`` in the local coordinates
    of its CS (m): what ``shape.polydata()`` gives unless a shape of the user's own says it
    (it overrides :meth:`~mbd.model.shapes.Shape.polydata`).

    Examples
    --------
    >>> [float(b) for b in surface(Box(size=(2.0, 1.0, 0.5))).bounds]
    [-1.0, 1.0, -0.5, 0.5, -0.25, 0.25]
    """
    for kind in type(shape).__mro__:
        if kind in _SURFACES:
            return _SURFACES[kind](shape)
    raise NotImplementedError(f"{type(shape).__name__}: a shape gives its surface by "
                              "polydata(), a pyvista.PolyData in its CS's coordinates (m)")


register_surface(surface)


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
        if path.lower().endswith(TRIMESH_TYPES):
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
