"""A robot from its URDF drawn in its meshes: the Panda's COLLADA links (scenes of several
coloured parts) placed where Pinocchio's kinematics of the same URDF put them, its base drawn
fixed in the world, in the files' own colours; a mirrored mesh keeps its faces outward; a URDF
material paints a mesh in one colour; a robot's picture is not cluttered with joint markers
and labels."""
import importlib.metadata
import os

import numpy as np
import pytest
from PIL import Image

import mbd
import viz
from mbd.compiled import dynamics
from viz.scene import Scene

trimesh = pytest.importorskip("trimesh")
yourdfpy = pytest.importorskip("yourdfpy")
try:
    SHARE = str(importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share"))
except importlib.metadata.PackageNotFoundError:
    pytest.skip("the robots of example-robot-data are not installed", allow_module_level=True)
PANDA_DIR = os.path.join(SHARE, "example-robot-data", "robots", "panda_description")
PANDA = os.path.join(PANDA_DIR, "urdf", "panda.urdf")
#: the Panda's "ready" pose (its SRDF's default state), rad, and the fingers half open, m
READY = {"panda_joint1": 0.0, "panda_joint2": -0.785398, "panda_joint3": 0.0,
         "panda_joint4": -2.35619, "panda_joint5": 0.0, "panda_joint6": 1.5707,
         "panda_joint7": 0.785398, "panda_finger_joint1": 0.02, "panda_finger_joint2": 0.02}
SIZE = (400, 300)
BACKGROUND = np.array([255, 255, 255])


def panda_system():
    return mbd.from_urdf(PANDA, package_dirs=[SHARE], q0=READY).build()   # its ready pose


def independent_bounds():
    """(lo, hi) (m, world) of the Panda's visual meshes at READY: each link's world pose from
    Pinocchio's kinematics of the URDF, each mesh file read whole by trimesh."""
    pin = pytest.importorskip("pinocchio")
    pmodel = pin.buildModelFromUrdf(PANDA)
    data = pmodel.createData()
    q = np.array([READY[pmodel.names[i]] for i in range(1, pmodel.njoints)])
    pin.framesForwardKinematics(pmodel, data, q)
    robot = yourdfpy.URDF.load(PANDA, build_scene_graph=False, load_meshes=False).robot
    points = []
    for link in robot.links:
        pose = data.oMf[pmodel.getFrameId(link.name)].homogeneous
        for visual in link.visuals:
            rel = visual.geometry.mesh.filename.split("panda_description/")[1]
            vertices = trimesh.load(os.path.join(PANDA_DIR, rel), force="mesh").vertices
            T = pose @ (np.eye(4) if visual.origin is None else visual.origin)
            points.append(vertices @ T[:3, :3].T + T[:3, 3])
    points = np.vstack(points)
    return points.min(axis=0), points.max(axis=0)


def _world_points(actor):
    """The points an actor draws, in the world (its mesh moved by its user matrix), m. (Its
    GetBounds would be the box of its moved bounding box: larger for a turned mesh.)"""
    points = np.asarray(actor.mapper.dataset.points)
    T = np.eye(4) if actor.user_matrix is None else np.asarray(actor.user_matrix)
    return points @ T[:3, :3].T + T[:3, 3]


@pytest.fixture(scope="module")
def panda_pictures():
    """The Panda at READY, with and without the robot (the same camera), and the scene."""
    system = panda_system()
    # no skip without OpenGL: CI renders (EGL), and a renderer that broke must fail here
    scene = Scene(system, size=SIZE, annotations=False, floor=False)
    q = system.initial_state().q
    scene.set_state(q)
    scene.fit(q=q)
    with_robot = scene.screenshot().astype(int)
    robot_actors = [a for actors in scene.body_actors.values() for a in actors]
    robot_actors += [a for actors in scene.ground_actors.values() for a in actors]
    for actor in robot_actors:
        actor.visibility = False
    without = scene.screenshot().astype(int)
    for actor in robot_actors:
        actor.visibility = True
    yield system, scene, with_robot, without
    scene.close()


def test_the_panda_is_drawn_in_its_meshes_where_pinocchio_puts_its_links(panda_pictures):
    system, scene, with_robot, without = panda_pictures
    # every link is drawn by its mesh (7 arm links, the hand and two fingers), the base
    # (panda_link0, part of the ground) by its own, fixed in the world
    assert set(scene.ground_actors) == {"panda_link0_visual0"}
    for name, actors in scene.body_actors.items():
        assert len(actors) == len(system.bodies[name].body.shapes) >= 1, name
    # the meshes' world box is the one Pinocchio's kinematics and trimesh give (to 1e-6 m)
    actors = [a for group in (*scene.body_actors.values(), *scene.ground_actors.values())
              for a in group]
    points = np.vstack([_world_points(a) for a in actors])
    lo, hi = points.min(axis=0), points.max(axis=0)
    expect_lo, expect_hi = independent_bounds()
    np.testing.assert_allclose(lo, expect_lo, atol=1e-6)
    np.testing.assert_allclose(hi, expect_hi, atol=1e-6)
    assert 0.6 < hi[2] - lo[2] < 1.0           # the arm stands ~0.8 m tall in its ready pose

    # not blank, and the robot's pixels (where the two pictures differ) fill the projection
    # of that box, inside it
    robot = np.abs(with_robot - without).max(axis=2) > 30
    assert robot.sum() > 0.05 * robot.size
    corners = np.array([[x, y, z] for x in (expect_lo[0], expect_hi[0])
                        for y in (expect_lo[1], expect_hi[1])
                        for z in (expect_lo[2], expect_hi[2])])
    px = scene.project(corners)
    rows, cols = np.nonzero(robot)
    assert cols.min() >= px[:, 0].min() - 2 and cols.max() <= px[:, 0].max() + 2
    assert rows.min() >= px[:, 1].min() - 2 and rows.max() <= px[:, 1].max() + 2
    assert cols.max() - cols.min() > 0.6 * np.ptp(px[:, 0])
    assert rows.max() - rows.min() > 0.6 * np.ptp(px[:, 1])
    # the hand's centre is drawn where its frame is
    hand = system.bodies["panda_link7"].body.frames["panda_hand"]
    Rl, pl = dynamics.link_poses(system, system.initial_state().q)
    bm = system.bodies["panda_link7"]
    p_local, _ = bm.cs_local(hand)
    col, row = scene.project(pl[bm.link] + Rl[bm.link] @ p_local)[0]
    assert robot[int(round(row)) - 3:int(round(row)) + 4,
                 int(round(col)) - 3:int(round(col)) + 4].any()


def test_the_panda_is_in_its_files_colours_and_without_clutter(panda_pictures):
    system, scene, with_robot, without = panda_pictures
    robot = np.abs(with_robot - without).max(axis=2) > 30
    pixels = with_robot[robot]
    # the COLLADA materials: white and dark grey (a few small coloured parts), not the
    # palette's blue, orange and purple that shapes without a colour get
    grey = np.ptp(pixels, axis=1) < 30
    assert grey.mean() > 0.97
    assert (pixels.max(axis=1) < 110).mean() > 0.03          # the dark parts
    assert (pixels.min(axis=1) > 170).mean() > 0.2           # the white shells
    # a robot drawn in its meshes: no joint markers, washers or gears, no labels by default
    assert not scene.markers and not scene.contact_actors and not scene.gear_discs


def test_a_robots_labels_and_markers_can_be_asked_for(panda_pictures):
    system = panda_pictures[0]
    scene = Scene(system, size=(160, 120), markers=True, labels=True)
    try:
        # the joints' limits: 7 arm joints and the leading finger (the mimic finger has none)
        assert scene.markers and len(scene.contact_actors) == 8
        assert len(scene.overlay.labels) == len(system.force_elements) == 17
    finally:
        scene.close()
    scene = Scene(system, size=(160, 120))
    try:
        assert scene.overlay is not None and scene.overlay.labels == {}
    finally:
        scene.close()


def test_a_collada_scene_is_read_whole_with_its_parts_placed_and_coloured():
    """link6.dae: 17 parts, placed by node transforms (z - 0.015 m), each a material colour."""
    path = os.path.join(PANDA_DIR, "meshes", "visual", "link6.dae")
    mesh = viz.Mesh(path).polydata()
    whole = trimesh.load(path, force="mesh")          # trimesh's own concatenation
    np.testing.assert_allclose(np.reshape(mesh.bounds, (3, 2)).T, whole.bounds, atol=1e-12)
    assert mesh.n_points == len(whole.vertices) and mesh.n_cells == len(whole.faces)
    colors = {tuple(c) for c in np.asarray(mesh.cell_data["rgb"])}
    assert {(255, 255, 255), (64, 64, 64), (255, 0, 0), (0, 255, 0)} <= colors
    # scaled per axis
    scaled = viz.Mesh(path, scale=(2.0, 1.0, 0.5)).polydata()
    np.testing.assert_allclose(scaled.points, mesh.points * [2.0, 1.0, 0.5])


def _outward(mesh):
    """The share of faces whose normal (from their winding) points away from the centre."""
    normals = mesh.compute_normals(cell_normals=True, point_normals=False,
                                   auto_orient_normals=False, consistent_normals=False)
    centres = normals.cell_centers().points - np.asarray(mesh.center)
    return float(np.mean(np.einsum("ij,ij->i", normals.cell_data["Normals"], centres) > 0))


def test_a_mirrored_mesh_keeps_its_faces_outward(tmp_path):
    import pyvista as pv
    path = tmp_path / "cone.stl"
    pv.Cone(direction=(1.0, 0.3, 0.2), resolution=24).triangulate().save(path)
    plain = viz.Mesh(path).polydata()
    assert _outward(plain) > 0.9
    for scale in ((1, -1, 1), (-1, -1, -1), (0.001, -0.001, 0.001)):
        mirrored = viz.Mesh(path, scale=scale).polydata()
        np.testing.assert_allclose(mirrored.points, plain.points * scale)
        assert viz.Mesh(path, scale=scale).mirrored
        assert _outward(mirrored) > 0.9, scale
    assert not viz.Mesh(path, scale=(1, -1, -1)).mirrored


def test_a_urdf_material_paints_the_mesh_in_its_colour(tmp_path):
    """A one-link robot whose visual is the Panda's (grey and white) finger mesh under a red
    URDF material, and a blue box: drawn red and blue, not in the mesh's own colours."""
    finger = os.path.join(PANDA_DIR, "meshes", "visual", "finger.dae")
    (tmp_path / "red.urdf").write_text(f"""<robot name="red">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base"/>
  <link name="finger">
    <inertial><mass value="1"/>
      <inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="{finger}" scale="4 4 4"/></geometry>
      <material name="red"/></visual>
    <visual><origin xyz="0 0 -0.05"/><geometry><box size="0.2 0.2 0.02"/></geometry>
      <material name="blue"><color rgba="0 0 1 1"/></material></visual>
  </link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="finger"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>""")
    system = mbd.from_urdf(tmp_path / "red.urdf").build()
    shapes = [shape for shape, _ in system.bodies["finger"].body.shapes]
    assert [type(s).__name__ for s in shapes] == ["Mesh", "Box"]
    assert shapes[0].color == (1.0, 0.0, 0.0) and shapes[1].color == (0.0, 0.0, 1.0)
    img = viz.snapshot(system, str(tmp_path / "red.png"), size=(200, 150),
                       annotations=False, floor=False, lighting=False)
    red = (img[..., 0] > 200) & (img[..., 1] < 60) & (img[..., 2] < 60)
    blue = (img[..., 2] > 200) & (img[..., 0] < 60) & (img[..., 1] < 60)
    assert red.sum() > 200 and blue.sum() > 200
    # nothing of the mesh's own dark grey: the URDF's colour replaced the file's
    dark = (np.ptp(img, axis=2) < 20) & (img.max(axis=2) < 110)
    assert dark.sum() < 20
    with Image.open(tmp_path / "red.png") as picture:
        assert picture.size == (200, 150)
