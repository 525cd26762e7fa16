"""Shapes are model data (DESIGN §10): plain geometry in :mod:`mbd.model.shapes`, made and
checked without a picture library; viz draws them.

- a URDF read in a fresh process makes mbd shapes and loads neither viz nor pyvista; asked
  for its surface before viz is imported, a shape says so; after ``import viz`` it is drawn,
  and ``viz.Box`` is ``mbd.Box`` (one class, two names);
- a mesh given by its vertices and faces: kept as read-only arrays, and each bad input named.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mbd
from mbd.model import shapes

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir))

URDF = """<robot name="r">
  <link name="base"/>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/>
    </inertial>
    <visual><geometry><box size="0.1 0.2 0.4"/></geometry></visual>
    <visual><geometry><cylinder radius="0.05" length="0.3"/></geometry></visual>
    <visual><geometry><sphere radius="0.07"/></geometry></visual>
  </link>
  <joint name="j" type="continuous"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/></joint>
</robot>
"""


def test_a_urdf_s_shapes_are_made_without_viz_and_drawn_by_it(tmp_path):
    pytest.importorskip("yourdfpy")
    path = tmp_path / "r.urdf"
    path.write_text(URDF)
    script = textwrap.dedent(f"""
        import json, sys
        import mbd
        model = mbd.from_urdf({str(path)!r})
        shapes = [shape for body in model.bodies for shape, _ in body.shapes]
        out = dict(kinds=[type(s).__module__ + "." + type(s).__name__ for s in shapes],
                   sizes=[shapes[0].size, shapes[1].radius, shapes[1].length, shapes[2].radius],
                   loaded=[m for m in ("viz", "pyvista", "vtk") if m in sys.modules])
        try:
            shapes[0].polydata()
        except RuntimeError as err:
            out["before"] = str(err)
        import viz
        out["same"] = [viz.Box is mbd.Box, viz.Cylinder is mbd.Cylinder,
                       viz.Sphere is mbd.Sphere, viz.Mesh is mbd.Mesh, viz.Capsule is mbd.Capsule]
        out["bounds"] = [float(b) for b in shapes[0].polydata().bounds]
        print(json.dumps(out))
        """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["kinds"] == ["mbd.model.shapes.Box", "mbd.model.shapes.Cylinder",
                            "mbd.model.shapes.Sphere"]
    assert out["sizes"] == [[0.1, 0.2, 0.4], 0.05, 0.3, 0.07]
    assert out["loaded"] == []          # making shapes loads no picture library
    assert out["before"] == "Box: its surface is drawn by viz: import viz first"
    assert out["same"] == [True] * 5
    assert np.allclose(out["bounds"], [-0.05, 0.05, -0.1, 0.1, -0.2, 0.2])


def test_a_shape_is_a_frozen_value_with_its_checked_sizes():
    box = mbd.Box((1, 2, 3), color="red")
    assert box.size == (1.0, 2.0, 3.0) and box.color == "red" and box.opacity == 1.0
    with pytest.raises(AttributeError):
        box.size = (1.0, 1.0, 1.0)
    cylinder = mbd.Cylinder(0.1, 0.5, axis=(0, 0, 2))
    assert cylinder.axis == (0.0, 0.0, 1.0)          # kept as a unit vector
    # two shapes of equal sizes are two shapes (a picture may draw each)
    assert mbd.Sphere(0.1) != mbd.Sphere(0.1)


TET_V = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
TET_T = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def test_a_mesh_given_by_vertices_and_faces_keeps_them_read_only():
    mesh = mbd.Mesh(vertices=TET_V, faces=TET_T, scale=(2.0, 1.0, -1.0))
    assert mesh.path is None and mesh.mirrored and mesh.scale == (2.0, 1.0, -1.0)
    np.testing.assert_array_equal(mesh.vertices, TET_V)
    np.testing.assert_array_equal(mesh.faces, TET_T)
    assert mesh.faces.dtype == np.int64
    with pytest.raises(ValueError):
        mesh.vertices[0, 0] = 5.0


@pytest.mark.parametrize("given, text", [
    (dict(), "Mesh: give a file, or vertices and faces (both), got vertices=None, faces=None"),
    (dict(vertices=TET_V), "Mesh: give a file, or vertices and faces (both), got "
                           "vertices=..., faces=None"),
    (dict(vertices=TET_V[:2], faces=[(0, 1, 1)]),
     "Mesh: vertices must be (n, 3) numbers with n >= 3, got shape (2, 3)"),
    (dict(vertices=[(0, 0), (1, 0), (0, 1)], faces=[(0, 1, 2)]),
     "Mesh: vertices must be (n, 3) numbers with n >= 3, got shape (3, 2)"),
    (dict(vertices=TET_V[:3] + [(0.0, float("nan"), 1.0)], faces=TET_T),
     "Mesh: vertices must be finite, got vertex 3 = [0.0, nan, 1.0]"),
    (dict(vertices=TET_V, faces=[(0, 1, 2, 3)]),
     "Mesh: faces must be (m, 3) vertex indices (triangles), got shape (1, 4)"),
    (dict(vertices=TET_V, faces=[(0.0, 1.0, 2.0)]),
     "Mesh: faces must be (m, 3) vertex indices (integers), m >= 1, got [(0.0, 1.0, 2.0)]"),
    (dict(vertices=TET_V, faces=[(0, 1, 2), (1, 2, 4)]),
     "Mesh: faces must index the 4 vertices (0 to 3), got face 1 = [1, 2, 4]"),
    (dict(vertices=TET_V, faces=TET_T, scale=0.0), "Mesh: scale must be > 0 and finite, got 0.0"),
])
def test_a_mesh_of_bad_vertices_or_faces_is_refused_naming_it(given, text):
    with pytest.raises(ValueError) as info:
        mbd.Mesh(**given)
    assert str(info.value) == text


def test_a_mesh_is_a_file_or_vertices_not_both(tmp_path):
    path = tmp_path / "part.stl"
    path.write_text("solid p\nendsolid p\n")
    with pytest.raises(ValueError) as info:
        mbd.Mesh(path, vertices=TET_V, faces=TET_T)
    assert str(info.value) == ("Mesh: give a file or vertices and faces, not both (got the "
                               f"file {str(path)!r})")


def test_the_face_names_the_model_s_shapes():
    for name in ("Box", "Cylinder", "Sphere", "Capsule", "Mesh"):
        assert getattr(mbd, name) is getattr(shapes, name) and name in mbd.__all__
