"""A mesh given by its vertices and faces (``mbd.Mesh(vertices=, faces=)``, plain model data)
as viz draws it: its points scaled, its faces outward (a mirroring scale reverses their
winding: the signed volume stays positive), placed at its CS in a scene."""
import numpy as np

import mbd
import viz
from joints import Revolute

#: the unit tetrahedron, its faces wound outward: volume 1/6
TET_V = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
TET_T = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def signed_volume(mesh):
    """The volume a closed triangle surface encloses, positive when its faces wind outward
    (the divergence theorem: the sum of det(a, b, c) / 6 over its triangles)."""
    tri = mesh.points[mesh.faces.reshape(-1, 4)[:, 1:]]
    return float(np.sum(np.linalg.det(tri)) / 6.0)


def test_a_mesh_of_vertices_is_drawn_scaled_with_its_faces_outward():
    plain = viz.Mesh(vertices=TET_V, faces=TET_T).polydata()
    np.testing.assert_array_equal(plain.points, TET_V)
    np.testing.assert_array_equal(plain.faces.reshape(-1, 4)[:, 1:], TET_T)
    assert np.isclose(signed_volume(plain), 1.0 / 6.0, rtol=1e-12)
    scale = (2.0, 0.5, 3.0)
    scaled = viz.Mesh(vertices=TET_V, faces=TET_T, scale=scale).polydata()
    np.testing.assert_allclose(scaled.points, TET_V * scale, rtol=1e-15)
    assert np.isclose(signed_volume(scaled), np.prod(scale) / 6.0, rtol=1e-12)
    mirrored = viz.Mesh(vertices=TET_V, faces=TET_T, scale=(1.0, -1.0, 1.0)).polydata()
    np.testing.assert_allclose(mirrored.points, TET_V * (1.0, -1.0, 1.0))
    assert np.isclose(signed_volume(mirrored), 1.0 / 6.0, rtol=1e-12)


def arm(shape):
    """A body 'arm' on a hinge, ``shape`` attached at its CS 'tip' (1, 0, 0)."""
    m = mbd.Model("arm")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    body = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=[0.1] * 3,
                      cs={"o": (0, 0, 0), "tip": (1, 0, 0)})
    m.add(Revolute("hinge", g, body["o"], axis=(0, 0, 1)))
    body.add_shape(shape, cs="tip")
    return m.build()


def assert_tetrahedron_at_tip(shape):
    """``shape`` (the unit tetrahedron scaled by 0.2) drawn on the arm at its tip, 1 m from
    the hinge, in the arm's link frame."""
    scene = viz.Scene(arm(shape), size=(80, 60), annotations=False, floor=False)
    try:
        [(_, mesh, owner, _, opacity)] = [p for p in scene.parts if p[3] is shape.color]
        assert owner == "arm" and opacity == 1.0
        bm = scene.system.bodies["arm"]
        tip = bm.rotation.T @ (np.array([1.0, 0.0, 0.0]) - bm.origin)
        np.testing.assert_allclose(mesh.points, TET_V * 0.2 + tip, atol=1e-12)
    finally:
        scene.close()


def test_a_mesh_of_vertices_is_drawn_at_its_cs():
    assert_tetrahedron_at_tip(mbd.Mesh(vertices=TET_V, faces=TET_T, scale=0.2,
                                       color=(0.0, 0.0, 1.0)))
