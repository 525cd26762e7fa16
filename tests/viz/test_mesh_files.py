"""Shapes read from files, and shapes of the user's own, on the paths the robot tests do not
walk (issue 31):

- COLLADA files written here by hand: a part coloured per vertex, a part without any colour
  (drawn grey beside coloured ones), a material's colour, a node that mirrors its part (its
  faces kept outward: the surface's signed volume stays positive), a file with no
  triangles (refused), and the message when trimesh, the optional reader, is missing;
- a volume mesh (a VTK unstructured grid) drawn by its outer surface;
- the cache of surfaces read, bounded: the oldest is dropped;
- a Shape subclass of the user's own, drawn where its CS is, and one that gives no surface
  (named when drawn).
"""
import os
import sys
import warnings

import numpy as np
import pytest
import pyvista as pv

import viz
from viz import shapes
from viz.shapes import Shape

from .test_mesh_vertices import TET_T, TET_V, arm, assert_tetrahedron_at_tip

pytest.importorskip("trimesh")
pytest.importorskip("collada")

GREY = [180, 180, 180]


def _floats(values):
    return " ".join(repr(float(v)) for v in np.ravel(values))


def collada(parts):
    """The text of a COLLADA 1.4.1 file of ``parts``, each a dict: ``name``, ``vertices``
    (n, 3), ``triangles`` (m, 3), and optionally ``material`` (r, g, b) in [0, 1] (its
    diffuse colour), ``vertex_color`` (r, g, b) (a COLOR input, one per vertex) and
    ``matrix`` (4, 4) (the node's transform)."""
    effects, materials, geometries, nodes = [], [], [], []
    for p in parts:
        n, v, t = p["name"], np.asarray(p["vertices"], float), np.asarray(p["triangles"])
        sources = [(f"{n}-positions", v, "XYZ")]
        inputs = f'<input semantic="VERTEX" source="#{n}-vertices" offset="0"/>'
        index = t
        if p.get("vertex_color") is not None:
            sources.append((f"{n}-colors", np.tile(p["vertex_color"], (len(v), 1)), "RGB"))
            inputs += f'<input semantic="COLOR" source="#{n}-colors" offset="1"/>'
            index = np.repeat(t, 2, axis=1)           # (vertex, colour) index pairs
        source_text = ""
        for sid, a, names in sources:
            params = "".join('<param name="%s" type="float"/>' % c for c in names)
            source_text += (
                f'<source id="{sid}"><float_array id="{sid}-array" count="{a.size}">'
                f'{_floats(a)}</float_array><technique_common><accessor source="#{sid}-array" '
                f'count="{len(a)}" stride="3">{params}</accessor></technique_common></source>')
        material, bind = "", ""
        if p.get("material") is not None:
            effects.append(f'<effect id="{n}-effect"><profile_COMMON><technique sid="common">'
                           f'<phong><diffuse><color>{_floats(p["material"])} 1</color></diffuse>'
                           '</phong></technique></profile_COMMON></effect>')
            materials.append(f'<material id="{n}-material"><instance_effect url="#{n}-effect"/>'
                             '</material>')
            material = f' material="{n}-symbol"'
            bind = (f'<bind_material><technique_common><instance_material symbol="{n}-symbol" '
                    f'target="#{n}-material"/></technique_common></bind_material>')
        geometries.append(
            f'<geometry id="{n}"><mesh>{source_text}<vertices id="{n}-vertices">'
            f'<input semantic="POSITION" source="#{n}-positions"/></vertices>'
            f'<triangles count="{len(t)}"{material}>{inputs}'
            f'<p>{" ".join(str(i) for i in index.ravel())}</p></triangles></mesh></geometry>')
        matrix = np.eye(4) if p.get("matrix") is None else p["matrix"]
        nodes.append(f'<node id="{n}-node"><matrix>{_floats(matrix)}</matrix>'
                     f'<instance_geometry url="#{n}">{bind}</instance_geometry></node>')
    return ('<?xml version="1.0" encoding="utf-8"?>'
            '<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">'
            '<asset><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>'
            f'<library_effects>{"".join(effects)}</library_effects>'
            f'<library_materials>{"".join(materials)}</library_materials>'
            f'<library_geometries>{"".join(geometries)}</library_geometries>'
            f'<library_visual_scenes><visual_scene id="scene">{"".join(nodes)}</visual_scene>'
            '</library_visual_scenes><scene><instance_visual_scene url="#scene"/></scene>'
            '</COLLADA>')


def write(path, parts):
    path.write_text(collada(parts), encoding="utf-8")
    return path


def signed_volume(mesh):
    """The volume a closed triangle surface encloses, positive when its faces are wound
    outward (the divergence theorem: the sum of det(a, b, c) / 6 over its triangles)."""
    f = mesh.faces.reshape(-1, 4)[:, 1:]
    p = mesh.points
    return float(np.einsum("ij,ij->i", p[f[:, 0]], np.cross(p[f[:, 1]], p[f[:, 2]])).sum() / 6)


# ----------------------------------------------------------------------------- COLLADA


def test_a_collada_file_s_parts_keep_their_colours_and_an_uncoloured_part_is_grey(tmp_path):
    """Three tetrahedra: coloured per vertex (red), without any colour, with a blue
    material; each face in its part's colour, the uncoloured part's grey."""
    path = write(tmp_path / "three.dae", [
        dict(name="red", vertices=TET_V, triangles=TET_T, vertex_color=(1.0, 0.0, 0.0)),
        dict(name="plain", vertices=TET_V + (2.0, 0.0, 0.0), triangles=TET_T),
        dict(name="blue", vertices=TET_V + (4.0, 0.0, 0.0), triangles=TET_T,
             material=(0.0, 0.0, 1.0))])
    mesh = viz.Mesh(path).polydata()
    assert mesh.n_cells == 12
    centres_x = mesh.cell_centers().points[:, 0]
    rgb = np.asarray(mesh.cell_data["rgb"])
    for lo, colour in ((0.0, [255, 0, 0]), (2.0, GREY), (4.0, [0, 0, 255])):
        part = (centres_x > lo - 0.5) & (centres_x < lo + 1.5)
        assert part.sum() == 4
        assert (rgb[part] == colour).all(), (lo, rgb[part])
    assert signed_volume(mesh) == pytest.approx(3.0 / 6.0, rel=1e-12)


def test_a_mirroring_node_keeps_its_part_s_faces_outward(tmp_path):
    """A node of matrix diag(-1, 1, 1) (a robot's left link made from its right one): the
    part's points mirrored, its faces turned so that they still face out: the signed volume
    is the tetrahedron's +1/6, as is the unmirrored part's."""
    mirror = np.diag([-1.0, 1.0, 1.0, 1.0])
    mirror[:3, 3] = (0.0, 3.0, 0.0)
    path = write(tmp_path / "mirrored.dae", [
        dict(name="left", vertices=TET_V, triangles=TET_T, matrix=mirror)])
    mesh = viz.Mesh(path).polydata()
    expected = TET_V * (-1.0, 1.0, 1.0) + (0.0, 3.0, 0.0)
    assert sorted(map(tuple, np.round(mesh.points, 12))) == sorted(map(tuple, expected))
    assert signed_volume(mesh) == pytest.approx(1.0 / 6.0, rel=1e-12)
    plain = viz.Mesh(write(tmp_path / "plain.dae", [
        dict(name="right", vertices=TET_V, triangles=TET_T)])).polydata()
    assert signed_volume(plain) == pytest.approx(1.0 / 6.0, rel=1e-12)
    assert "rgb" not in plain.cell_data            # no colour in the file: the scene's


def test_a_collada_file_with_no_triangles_is_refused_naming_it(tmp_path):
    path = write(tmp_path / "empty.dae", [])
    with pytest.raises(ValueError) as info:
        viz.Mesh(path).polydata()
    assert str(info.value) == f"Mesh: {str(path)!r} holds no surface (no triangles)"


def test_reading_collada_without_trimesh_says_what_to_install(tmp_path, monkeypatch):
    path = write(tmp_path / "part.dae", [dict(name="part", vertices=TET_V, triangles=TET_T)])
    monkeypatch.setitem(sys.modules, "trimesh", None)      # as if it were not installed
    with pytest.raises(ImportError) as info:
        viz.Mesh(path).polydata()
    assert str(info.value) == (f"Mesh {str(path)!r}: reading this type needs trimesh (and "
                               "pycollada for .dae): pip install 'mbd[urdf]'")


# ----------------------------------------------------------------------------- pyvista files


def test_a_volume_mesh_is_drawn_by_its_outer_surface(tmp_path):
    """A 2 x 2 x 2 block of hexahedra (a .vtu unstructured grid): its surface, 6 sides of 4
    quadrilaterals on the 26 outer points (the centre point is inside)."""
    grid = pv.ImageData(dimensions=(3, 3, 3), spacing=(0.5, 0.5, 0.5)).cast_to_unstructured_grid()
    grid.save(tmp_path / "block.vtu")
    with warnings.catch_warnings():      # pyvista's FutureWarning on extract_surface's default
        warnings.simplefilter("error")
        surface = viz.Mesh(tmp_path / "block.vtu", scale=2.0).polydata()
    assert isinstance(surface, pv.PolyData)
    assert surface.n_cells == 24 and surface.n_points == 26
    np.testing.assert_allclose(surface.bounds, [0.0, 2.0, 0.0, 2.0, 0.0, 2.0])
    assert not np.any(np.all(np.isclose(surface.points, 1.0), axis=1))   # not the centre


def test_the_surfaces_read_are_cached_up_to_a_bound_the_oldest_dropped(tmp_path):
    """Reading one more file than the cache holds drops the first read: the cache holds the
    last ``_READ_LIMIT`` files, each a surface of its own file."""
    n = shapes._READ_LIMIT + 1
    paths = []
    for k in range(n):
        paths.append(tmp_path / f"cube{k}.stl")
        pv.Cube(x_length=1.0 + k).triangulate().save(paths[-1])
    for k, path in enumerate(paths):
        mesh = viz.Mesh(path).polydata()
        assert mesh.bounds[1] - mesh.bounds[0] == pytest.approx(1.0 + k)
    held = {key[0] for key in shapes._READ}
    assert len(shapes._READ) == shapes._READ_LIMIT
    assert held == {os.path.abspath(p) for p in paths[1:]}


# ----------------------------------------------------------------------------- own shapes


class Tetrahedron(Shape):
    """A user's shape: the unit tetrahedron, scaled by ``size`` (m)."""

    def __init__(self, size, color=None, opacity=1.0):
        super().__init__(color, opacity)
        self.size = size

    def polydata(self):
        faces = np.column_stack([np.full(4, 3), TET_T]).ravel()
        return pv.PolyData(TET_V * self.size, faces)


class Sketch(Shape):
    """A user's shape that forgot to say its surface."""


def test_a_shape_of_the_user_s_own_is_drawn_at_its_cs():
    assert_tetrahedron_at_tip(Tetrahedron(0.2, color=(0.0, 0.0, 1.0)))


def test_a_shape_that_gives_no_surface_is_named_when_drawn():
    with pytest.raises(NotImplementedError) as info:
        viz.Scene(arm(Sketch()), size=(80, 60))
    assert str(info.value) == ("Sketch: a shape gives its surface by polydata(), a "
                               "pyvista.PolyData in its CS's coordinates (m)")
