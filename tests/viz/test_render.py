"""Off-screen pictures: the body is drawn where the kinematics put it, animations have the frames
their duration, fps and speed call for, coils span their CSs, contact colours follow the
contact, and failures are clean RenderErrors that leave no file behind."""
import os

import numpy as np
import pytest
from PIL import Image

import mbd
from forces import AxialForce, BodySpringDamper, ElastoGap, JointForce
from joints import Prismatic, Revolute
from viz import render
from viz.render import RenderError, animate, frame_times, show, snapshot
from viz.scene import CONTACT_COLOR, FREE_COLOR, Scene
from viz.shapes import Box

SIZE = (160, 120)
RED = np.array([255, 0, 0])


def slider(v0=1.0, t_end=1.0):
    """A red cube sliding along x at constant speed v0 (no gravity, no forces)."""
    m = mbd.Model("slider")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    m.add_ground("floor", at=(0.5, 0, -0.8))   # the cube is off the picture's centre lines
    b = m.add_body("cube", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3)
    m.add(Prismatic("rail", g, b["cg"], axis=(1, 0, 0), v0=v0))
    b.add_shape(Box((0.2, 0.2, 0.2), color=(1.0, 0.0, 0.0)))
    return m.build().simulate(t_end, output_step=0.1)


def gif_frames(path):
    im = Image.open(path)
    frames = []
    for k in range(im.n_frames):
        im.seek(k)
        frames.append(np.asarray(im.convert("RGB")).astype(int))
    return frames


def is_red(pixel):
    return pixel[0] > 200 and pixel[1] < 60 and pixel[2] < 60


def test_frame_times_follow_duration_fps_and_speed():
    class R:
        t = np.linspace(0.0, 0.3, 4)
    assert len(frame_times(R(), fps=30)) == 10           # 0.3 s * 30 fps, both ends
    assert np.allclose(frame_times(R(), fps=10, speed=0.5), np.arange(7) * 0.05)
    with pytest.raises(ValueError, match="fps"):
        frame_times(R(), fps=0)


def test_the_body_is_drawn_where_the_kinematics_put_it(tmp_path):
    result = slider()
    path = tmp_path / "slide.gif"
    n = animate(result, path, fps=5, speed=1.0, size=SIZE, lighting=False, progress=False)
    frames = gif_frames(path)
    assert n == len(frames) == 6
    # the same camera as animate's: fitted to the same motion in the same window
    scene = Scene(result.system, size=SIZE, lighting=False)
    try:
        scene.fit(result)
        cg = result.body("cube").position("cg")
        assert np.allclose(cg[[0, -1], 0], [0.0, 1.0])    # independent: x = v0 t
        (c0, r0), (c1, r1) = np.rint(scene.project(cg[[0, -1]])).astype(int)
    finally:
        scene.close()
    assert abs(c1 - c0) > 20                               # the two places are apart
    # (and off the centre rows, so that a flipped y axis would be caught)
    first, last = frames[0], frames[-1]
    assert min(r0, r1) < SIZE[1] / 2 - 15 and not is_red(first[SIZE[1] - 1 - r0, c0])
    assert is_red(first[r0, c0]) and not is_red(first[r1, c1])
    assert is_red(last[r1, c1]) and not is_red(last[r0, c0])


def test_animation_has_the_expected_frames_and_they_move(tmp_path):
    result = slider(v0=1.0, t_end=1.0)
    path = tmp_path / "fast.gif"
    # 1 s shown at speed 2 and 10 fps: frames at t = 0, 0.2, ..., 1.0
    assert animate(result, path, fps=10, speed=2.0, size=SIZE, progress=False) == 6
    frames = gif_frames(path)
    assert len(frames) == 6
    for a, b in zip(frames, frames[1:]):
        assert np.abs(a - b).sum(axis=2).max() > 100       # the cube moved between frames
    assert not any(name.startswith(".tmp-") for name in os.listdir(tmp_path))


def test_spring_coil_spans_its_two_cs():
    m = mbd.Model("pendulum")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    anchor = m.add_ground("anchor", at=(1.0, 0.0, 0.5))
    arm = m.add_body("arm", mass=2.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .17, .17]),
                     cs={"pivot": (0, 0, 0), "tip": (1, 0, 0)})
    m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
    m.add(BodySpringDamper("strap", anchor, arm["tip"], k=80.0, b=1.5, r0=0.4))
    result = m.build().simulate(0.6, output_step=0.1)
    tip = result.body("arm").position("tip")
    scene = Scene(result.system, size=SIZE)
    try:
        for row in (0, 3, 6):
            scene.update(result, row=row)
            pts = np.asarray(scene.coils["strap"][1].points)
            assert np.allclose(pts[0], [1.0, 0.0, 0.5], atol=1e-9)
            assert np.allclose(pts[-1], tip[row], atol=1e-9)
        # the tip has moved: the coil followed, it was not drawn once
        assert np.linalg.norm(tip[6] - tip[0]) > 0.05
        # halfway between rows: the tip of the interpolated hinge angle (q linear in t)
        scene.update(result, t=0.25)
        q = 0.5 * (result.joint("hinge").q[2] + result.joint("hinge").q[3])
        expected = np.array([np.cos(q), 0.0, -np.sin(q)])  # rotation about +y of (1, 0, 0)
        assert np.allclose(scene.coils["strap"][1].points[-1], expected, atol=1e-9)
    finally:
        scene.close()


def test_gap_colour_follows_the_contact():
    # the cube moves at -1 m/s towards a wall; both gaps touch while q < -0.2
    m = mbd.Model("gap")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    wall = m.add_ground("wall", at=(-1.0, 0, 0))
    b = m.add_body("cube", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3)
    rail = m.add(Prismatic("rail", g, b["cg"], axis=(1, 0, 0), v0=-1.0))
    m.add(JointForce("stop", rail, ElastoGap(c=100.0, d=0.5, s_rel0=-0.2)))
    m.add(AxialForce("bumper", wall, b["cg"], ElastoGap(c=100.0, d=0.5, s_rel0=0.8),
                     axis=(1, 0, 0)))
    result = m.build().simulate(1.0, output_step=0.05)
    q = result.joint("rail").q
    touching = q < -0.2 - 1e-3
    free = q > -0.2 + 1e-3
    assert touching.any() and free.any()
    scene = Scene(result.system, size=SIZE, lighting=False)
    try:
        for row in np.flatnonzero(touching | free):
            scene.update(result, row=row)
            want = CONTACT_COLOR if touching[row] else FREE_COLOR
            for name in ("stop", "bumper"):
                assert np.allclose(scene.contact_actors[name].prop.color.float_rgb, want,
                                   atol=1 / 255), (name, row)   # 8-bit colours
        # and the picture shows it: the ring at the joint is drawn in the contact colour
        row_in, row_out = np.flatnonzero(touching)[0], np.flatnonzero(free)[0]
        scene.fit(result, "xy")
        pictures = []
        for row in (row_in, row_out):
            scene.update(result, row=row)
            pictures.append(scene.screenshot().astype(int))
        def shows(img, color):
            return (np.abs(img - np.rint(255 * np.array(color))).sum(axis=2) < 30).any()
        assert shows(pictures[0], CONTACT_COLOR) and not shows(pictures[0], FREE_COLOR)
        assert shows(pictures[1], FREE_COLOR) and not shows(pictures[1], CONTACT_COLOR)
    finally:
        scene.close()


def test_no_backend_is_a_render_error_and_leaves_nothing(tmp_path, monkeypatch):
    result = slider(t_end=0.2)
    import pyvista

    def broken(*args, **kwargs):
        raise RuntimeError("no OpenGL context")
    monkeypatch.setattr(pyvista, "Plotter", broken)
    with pytest.raises(RenderError, match="OpenGL backend"):
        animate(result, tmp_path / "x.gif", size=SIZE, progress=False)
    with pytest.raises(RenderError, match="OpenGL backend"):
        snapshot(result, tmp_path / "x.png", size=SIZE)
    assert os.listdir(tmp_path) == []


def test_unwritable_path_is_a_render_error(tmp_path):
    result = slider(t_end=0.2)
    with pytest.raises(RenderError, match="cannot write"):
        animate(result, tmp_path / "missing" / "x.gif", size=SIZE, progress=False)
    with pytest.raises(ValueError, match=r"\.gif or \.mp4"):
        animate(result, tmp_path / "x.avi", size=SIZE)


def test_mp4_without_its_encoder_says_so(tmp_path):
    try:
        import imageio  # noqa: F401
        import imageio_ffmpeg  # noqa: F401
        pytest.skip("imageio-ffmpeg is installed")
    except ImportError:
        pass
    with pytest.raises(RenderError, match="imageio-ffmpeg"):
        animate(slider(t_end=0.2), tmp_path / "x.mp4", size=SIZE, progress=False)
    assert os.listdir(tmp_path) == []


def test_failure_mid_animation_leaves_no_file(tmp_path, monkeypatch):
    result = slider(t_end=1.0)
    path = tmp_path / "out.gif"
    path.write_bytes(b"old")                   # an existing file stays as it was
    calls = []
    original = Scene.screenshot

    def failing(self):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("disk on fire")
        return original(self)
    monkeypatch.setattr(Scene, "screenshot", failing)
    with pytest.raises(RenderError, match="disk on fire"):
        animate(result, path, fps=10, size=SIZE, progress=False)
    assert len(calls) == 3
    assert os.listdir(tmp_path) == ["out.gif"] and path.read_bytes() == b"old"


def test_show_without_a_display_fails_at_once(monkeypatch):
    result = slider(t_end=0.2)
    monkeypatch.setattr(render, "_has_display", lambda: False)
    with pytest.raises(RenderError, match="no display.*viz.animate or viz.snapshot"):
        show(result)


def test_snapshot_writes_a_png_of_the_system(tmp_path):
    result = slider(t_end=0.2)
    img = snapshot(result.system, tmp_path / "s.png", size=SIZE, lighting=False)
    back = np.asarray(Image.open(tmp_path / "s.png").convert("RGB"))
    assert back.shape == (SIZE[1], SIZE[0], 3) and np.array_equal(back, img)
    assert (np.abs(back.astype(int) - RED).sum(axis=2) == 0).any()


def test_shapes_sit_in_their_cs_and_the_default_is_the_inertia_ellipsoid(tmp_path):
    from scipy.spatial.transform import Rotation
    from viz.shapes import Capsule, Cylinder, Mesh, Sphere
    assert np.allclose(Capsule(0.1, 0.8).polydata().bounds, [-.1, .1, -.1, .1, -.5, .5])
    assert np.allclose(Cylinder(0.1, 0.8, axis=(1, 0, 0)).polydata().bounds,
                       [-.4, .4, -.1, .1, -.1, .1], atol=1e-6)
    ball = Sphere(0.3).polydata()
    ball.save(tmp_path / "ball.stl")
    assert np.allclose(Mesh(tmp_path / "ball.stl", scale=2.0).polydata().bounds,
                       2.0 * np.array(ball.bounds), atol=1e-6)
    with pytest.raises(ValueError, match="Box: size"):
        Box((1.0, -1.0, 1.0))

    m = mbd.Model("placed")
    env = mbd.Environment(gravity=(0, 0, 0))
    g = m.add_ground("g", environment=env)
    turn = Rotation.from_euler("z", 90, degrees=True)
    # a box 1 m long along the x axis of a CS turned 90 deg about z: along world y
    a = m.add_body("a", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3,
                   cs={"o": (0, 0, 0), "side": ((2.0, 0, 0), turn)})
    a.add_shape(Box((1.0, 0.1, 0.2)), cs="side")
    # m = 5, semi-axes 1, 2, 3: I = m/5 (b^2 + c^2, a^2 + c^2, a^2 + b^2) = (13, 10, 5)
    e = m.add_body("e", mass=5.0, cg=(0, 5, 0), inertia=[13.0, 10.0, 5.0], cs={"o": (0, 5, 0)})
    hinge = m.add(Revolute("h", g, a["o"], axis=(0, 0, 1), q0=np.pi / 2))
    m.add(Prismatic("p", m.add_ground("g2", at=(0, 5, 0), environment=env), e["o"], axis=(0, 0, 1), q0=1.0))
    system = m.build()
    scene = Scene(system, size=SIZE)
    try:
        scene.set_state(system.initial_state().q)
        # the hinge turned 'a' by 90 deg about z: the box centre (2, 0, 0) went to (0, 2, 0)
        # and its long side (world y in the drawing) to world -x
        assert hinge.q0 == np.pi / 2
        assert np.allclose(scene.body_actors["a"][0].bounds, [-.5, .5, 1.95, 2.05, -.1, .1],
                           atol=1e-6)
        # the ellipsoid, lifted 1 m by the prismatic joint
        assert np.allclose(scene.body_actors["e"][0].bounds, [-1, 1, 3, 7, -2, 4], atol=2e-2)
    finally:
        scene.close()
