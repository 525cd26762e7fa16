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
from viz.colors import CONTACT_COLOR, FREE_COLOR
from viz.render import RenderError, animate, frame_times, show, snapshot
from viz.scene import Scene
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
    frames = []
    with Image.open(path) as im:
        for k in range(im.n_frames):
            im.seek(k)
            frames.append(np.asarray(im.convert("RGB")).astype(int))
    return frames


def is_red(pixel):
    return pixel[0] > 200 and pixel[1] < 60 and pixel[2] < 60


def test_gifs_are_800_by_600_unless_told(tmp_path):
    """Every GIF written without a size given is at least 800 x 600 (issue 30: 480 x 360 was
    too small to read): viz.animate's and viz.animate_mode's defaults, and the GIF of
    ``mbd run --animate`` / ``mbd demo`` (mbd.cli.run writes it). Read back from the file."""
    import inspect

    from mbd.cli import run as cli_run
    from viz.modes import animate_mode
    for function in (animate, animate_mode):
        width, height = inspect.signature(function).parameters["size"].default
        assert width >= 800 and height >= 600, function.__name__
    result = slider(t_end=0.2)
    path = tmp_path / "default.gif"
    animate(result, path, fps=5, progress=False)
    with Image.open(path) as im:
        assert im.size == render.GIF_SIZE == (800, 600)
    lines = []
    cli_run._write_outputs(result, str(tmp_path), "run", True, lines)
    assert f"  animation: {tmp_path / 'run.gif'}" in lines
    with Image.open(tmp_path / "run.gif") as im:
        assert im.size == (800, 600)


def test_frame_times_follow_duration_fps_and_speed():
    class R:
        t = np.linspace(0.0, 0.3, 4)
    assert len(frame_times(R(), fps=30)) == 10           # 0.3 s * 30 fps, both ends
    assert np.allclose(frame_times(R(), fps=10, speed=0.5), np.arange(7) * 0.05)
    with pytest.raises(ValueError, match="fps"):
        frame_times(R(), fps=0)


def cube_pixels(result, size):
    """The pixels (column, row) of the slider's cube at its first and last row, through the
    same camera as animate's (fitted to the same motion in a window of ``size``)."""
    scene = Scene(result.system, size=size, lighting=False)
    try:
        scene.fit(result)
        cg = result.body("cube").position("cg")
        assert np.allclose(cg[[0, -1], 0], [0.0, 1.0])    # independent: x = v0 t
        return np.rint(scene.project(cg[[0, -1]])).astype(int)
    finally:
        scene.close()


def test_the_body_is_drawn_where_the_kinematics_put_it(tmp_path):
    result = slider()
    path = tmp_path / "slide.gif"
    n = animate(result, path, fps=5, speed=1.0, size=SIZE, lighting=False, progress=False)
    frames = gif_frames(path)
    assert n == len(frames) == 6
    (c0, r0), (c1, r1) = cube_pixels(result, SIZE)
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
    # no legend, no labels: their swatches and frames show both colours in every picture
    scene = Scene(result.system, size=SIZE, lighting=False, annotations=False)
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
    (tmp_path / "x.gif").mkdir()                  # a folder where the file should go
    with pytest.raises(RenderError, match="cannot write"):
        animate(result, tmp_path / "x.gif", size=SIZE, progress=False)
    assert os.listdir(tmp_path) == ["x.gif"]      # no temporary file left
    with pytest.raises(ValueError, match=r"\.gif or \.mp4"):
        animate(result, tmp_path / "x.avi", size=SIZE)


def test_a_folder_that_does_not_exist_is_named_not_a_temporary_file(tmp_path):
    """Issue 45: viz.animate into a missing folder named its temporary file
    ('.tmp-...x.gif'); it names the folder, as viz.html does, and so do viz.snapshot,
    viz.plot and viz.plot_study (one helper, viz.naming.existing_folder)."""
    import viz
    from tests.viz.test_study import PEAK, study
    result = slider(t_end=0.2)
    missing = tmp_path / "nowhere"
    calls = {"viz.animate": lambda p: animate(result, p / "run.gif", size=SIZE, progress=False),
             "viz.snapshot": lambda p: snapshot(result, p / "run.png", size=SIZE),
             "viz.html": lambda p: viz.html(result, p / "run.html"),
             "viz.plot": lambda p: viz.plot(result, p / "run.png"),
             "viz.plot_study": lambda p: viz.plot_study(study(), PEAK, "slot.k",
                                                        path=p / "map.png")}
    for who, call in calls.items():
        with pytest.raises(ValueError) as caught:
            call(missing)
        name = {"viz.animate": "run.gif", "viz.plot_study": "map.png",
                "viz.html": "run.html"}.get(who, "run.png")
        assert str(caught.value) == (f"{who}: the folder {str(missing)!r} of "
                                     f"{str(missing / name)!r} does not exist")
        assert ".tmp-" not in str(caught.value)
    assert os.listdir(tmp_path) == []


def test_mp4_is_written_and_reads_back_with_its_frames(tmp_path):
    """A real MP4 through viz.animate, read back with imageio-ffmpeg (ffmpeg decodes it, not
    us): one frame per frame time (1 s at 10 fps: 11), each the size asked for, and the cube
    where the kinematics put it in the first and the last frame (as the GIF test above)."""
    import imageio_ffmpeg
    result = slider()
    size = (200, 120)                  # not multiples of 16: the frames keep their size
    path = tmp_path / "slide.mp4"
    n = animate(result, path, fps=10, speed=1.0, size=size, lighting=False, progress=False)
    assert n == 11
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    frames = [np.frombuffer(f, dtype=np.uint8).reshape(size[1], size[0], 3).astype(int)
              for f in reader]
    assert tuple(meta["size"]) == size and meta["fps"] == pytest.approx(10.0)
    assert len(frames) == n
    assert not any(name.startswith(".tmp-") for name in os.listdir(tmp_path))
    (c0, r0), (c1, r1) = cube_pixels(result, size)
    assert abs(c1 - c0) > 20
    first, last = frames[0], frames[-1]
    assert is_red(first[r0, c0]) and not is_red(first[r1, c1])
    assert is_red(last[r1, c1]) and not is_red(last[r0, c0])


def test_mp4_without_its_encoder_says_so(tmp_path, monkeypatch):
    """Without imageio-ffmpeg (its import made to fail here) the error names the package and
    leaves nothing behind."""
    import sys
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)     # import raises ImportError
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


# ----------------------------------------------------------------------------- a picture that
# explains itself: title, time stamp, floor, labels, legend; the demo's BISTOP colours

def reddish(img):
    """Pixels a viewer calls red (the contact colour, lit or flat), as a mask."""
    return (img[..., 0] > 120) & (img[..., 1] < 70) & (img[..., 2] < 70)


def picture_box(scene, actor):
    """(row0, row1, col0, col1) of the picture that an actor's world bounds project into."""
    b = np.asarray(actor.bounds).reshape(3, 2)
    corners = np.array([[b[0, i], b[1, j], b[2, k]] for i in range(2) for j in range(2)
                        for k in range(2)])
    px = scene.project(corners)
    (c0, r0), (c1, r1) = np.floor(px.min(axis=0)).astype(int), np.ceil(px.max(axis=0)).astype(int)
    return max(r0, 0), r1 + 1, max(c0, 0), c1 + 1


@pytest.fixture(scope="module")
def demo_run():
    """The built-in demo, run past the BISTOP's first contact."""
    from mbd.cli import demo
    result = demo.build_model().build().simulate(0.6, output_step=demo.OUTPUT_STEP,
                                                 rtol=demo.RTOL, atol=demo.ATOL)
    return result


def test_the_bistop_shows_no_contact_before_its_first_and_red_during_it(demo_run):
    result = demo_run
    contact = result.force("stops").state["contact"]
    begins = [ev.t for ev in result.events
              if ev.element == "stops" and "contact begins" in ev.what]
    t_in, t_out, _ = result.force("stops").contacts()[0]
    assert contact[0] == 0 and begins and begins[0] == t_in > result.t[0]
    scene = Scene(result.system, size=(320, 240))
    try:
        scene.fit(result)
        stops = scene.contact_actors["stops"]
        # the state shown at a time is the one in force then: free up to the event, red from it
        for t, want in ((result.t[0], FREE_COLOR), (t_in - 1e-9, FREE_COLOR),
                        (t_in, CONTACT_COLOR), (0.5 * (t_in + t_out), CONTACT_COLOR),
                        (t_out + 1e-9, FREE_COLOR)):
            scene.update(result, t=t)
            assert np.allclose(stops.prop.color.float_rgb, want, atol=1 / 255), t
            frame = scene.overlay.labels["stops"].GetTextProperty().GetFrameColor()
            assert np.allclose(frame, want), t
        # and the picture agrees: nothing red at the block and its collar before the contact
        # (the block's own colour must not read as "in contact"), red there during it
        pictures = {}
        for t in (result.t[0], 0.5 * (t_in + t_out)):
            scene.update(result, t=t)
            img = scene.screenshot().astype(int)
            r0, r1, c0, c1 = picture_box(scene, stops)
            pictures[t] = reddish(img[r0:r1, c0:c1]).sum()
        assert pictures[result.t[0]] == 0
        # the collar's own red (19 pixels here): its label, framed red too, no longer lies on
        # it (labels keep clear of the bodies, issue 30), and a ground's cube hides a part
        assert pictures[0.5 * (t_in + t_out)] > 10
    finally:
        scene.close()


def test_title_time_stamp_floor_labels_and_legend(demo_run):
    result = demo_run
    system = result.system
    scene = Scene(system, size=(480, 360))
    try:
        scene.fit(result)
        scene.update(result, t=0.4321)
        scene.screenshot()                 # a real render: it places the labels
        overlay = scene.overlay
        assert overlay.title.GetInput() == "mbd_demo"
        assert overlay.subtitle.GetInput() == ("4 machines, 4 bodies, 4 joints, "
                                               "5 force elements")
        assert overlay.clock.GetInput() == "t = 0.432 s" and overlay.clock.GetVisibility()
        # a label per force element, saying what it is
        assert set(overlay.labels) == {fe.name for fe in system.force_elements}
        text = {name: actor.GetInput() for name, actor in overlay.labels.items()}
        assert text["stops"] == "Bistop 'stops'"
        assert text["pad"] == "ElastoGap 'pad'"
        assert text["backlash"] == "ElastoBacklash 'backlash'"
        assert text["coupling"] == "BodySpringDamper\n'coupling'"          # long: two lines
        assert text["variable_spring"] == "VariableRotationalSpring\n'variable_spring'"
        # each label is shown beside its element, inside the picture, clear of the others
        boxes = {}
        for name, actor in overlay.labels.items():
            assert actor.GetVisibility()
            boxes[name] = overlay._box_of(actor)
            x0, y0, x1, y1 = boxes[name]
            assert 0 <= x0 and x1 <= 480 and 0 <= y0 and y1 <= 360, name
        names = sorted(boxes)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                assert _overlap(boxes[a], boxes[b]) == 0, (a, b)
        # the legend explains the colours: the grey frames of the labels of the elements
        # without a contact state (the coupling, the variable spring) too, and the marks of
        # the Bistop's limits
        legend = [a.GetInput() for a in overlay.legend[:-1]]
        assert legend == ["ground", "not in contact", "in contact", "no contact state",
                          "stop limits"]
        swatch = dict((text, color) for color, text in overlay.legend_entries)
        for name in ("coupling", "variable_spring"):
            frame = overlay.labels[name].GetTextProperty().GetFrameColor()
            assert np.allclose(frame, swatch["no contact state"]), name
        # a floor under everything that moves
        assert len(scene.floor_actors) == 2
        zmin = scene.motion_bounds(result)[4]
        assert scene.floor_actors[0].bounds[5] < zmin
    finally:
        scene.close()


def limits_model():
    """A pendulum (CG 0.5 m below its hinge) between BISTOP stops at -0.5 and 0.8 rad on its
    hinge, with a spring beside them, and a ball between BISTOP stops at -0.2 and +0.3 m
    along x from its rail's CS (an AxialForce, Adams' slot)."""
    from forces import Bistop, Spring
    earth = mbd.Environment(gravity=(0, 0, -9.81))
    m = mbd.Model("limits")
    g = m.add_ground("g", environment=earth)
    arm = m.add_body("arm", mass=1.0, cg=(0, 0, -0.5), inertia=[0.02, 0.02, 1e-3],
                     cs={"o": (0, 0, 0)})
    hinge = m.add(Revolute("hinge", g, arm["o"], axis=(0, 1, 0), v0=2.0))
    m.add(JointForce("swing", hinge, Bistop(x1=-0.5, x2=0.8, k=1e3, e=1.5, cmax=1.0,
                                            d=1e-3)))
    m.add(JointForce("spring", hinge, Spring(c=1.0)))
    rail = m.add_ground("rail", at=(1.0, 0, 0), environment=earth)
    ball = m.add_body("ball", mass=1.0, cg=(1.0, 0, 0), inertia=[1e-2] * 3,
                      cs={"I": (1.0, 0, 0)})
    m.add(Prismatic("slide", rail, ball["I"], axis=(1, 0, 0), v0=1.0))
    m.add(AxialForce("slot", rail, ball["I"], Bistop(x1=-0.2, x2=0.3, k=1e4, e=1.5,
                                                     cmax=1.0, d=1e-3)))
    return m.build()


def test_the_legend_explains_every_grey_and_bistops_show_their_limits():
    """Drawn without a Result the stops' state is unknown: their labels framed light grey,
    the legend "state unknown" (no green or red shown, none explained); the spring's label
    framed dark grey, "no contact state"; each swatch the colour of the frames it explains.
    With a Result: "not in contact" and "in contact" instead of "state unknown". The
    Bistops' limits are marks at the stops: on the slot's rail thin rings square to x at
    1.0 - 0.2 and 1.0 + 0.3 m; on the hinge two bars out to the arm's CG (0.5 m) at -0.5
    and 0.8 rad about +y (right hand: x = -0.5 sin q, z = -0.5 cos q), in the plane of the
    washer; the legend names them."""
    from viz.colors import LIMIT_COLOR, UNKNOWN_COLOR
    from viz.overlay import FRAME_COLOR
    system = limits_model()
    scene = Scene(system, size=(800, 600))
    try:
        q = system.initial_state().q
        scene.set_state(q)
        scene.fit(None, q=q)
        overlay = scene.overlay
        swatch = {text: color for color, text in overlay.legend_entries}
        assert list(swatch) == ["ground", "state unknown", "no contact state", "stop limits"]
        assert [a.GetInput() for a in overlay.legend[:-1]] == list(swatch)
        assert swatch["state unknown"] == UNKNOWN_COLOR
        assert swatch["no contact state"] == FRAME_COLOR
        assert swatch["stop limits"] == LIMIT_COLOR
        frame = {name: overlay.labels[name].GetTextProperty().GetFrameColor()
                 for name in ("swing", "slot", "spring")}
        assert np.allclose(frame["swing"], UNKNOWN_COLOR)
        assert np.allclose(frame["slot"], UNKNOWN_COLOR)
        assert np.allclose(frame["spring"], FRAME_COLOR)
        # the limit marks, fixed to the grounds the coordinates are measured from
        assert set(scene.limit_actors) == {"swing", "slot"}
        rings = np.asarray(scene.limit_actors["slot"].GetMapper().GetInput().points)
        L = scene.length
        faces = np.unique(np.round(rings[:, 0].astype(float), 5))     # float32 points
        np.testing.assert_allclose(faces, [0.8 - 0.002 * L, 0.8 + 0.002 * L,
                                           1.3 - 0.002 * L, 1.3 + 0.002 * L], atol=1e-5)
        bars = np.asarray(scene.limit_actors["swing"].GetMapper().GetInput().points)
        for x in (-0.5, 0.8):
            tip = np.array([-0.5 * np.sin(x), 0.07 * L, -0.5 * np.cos(x)])
            assert np.linalg.norm(bars - tip, axis=1).min() < 1e-9, x
        result = system.simulate(1.0, output_step=0.01)
        scene.update(result, t=0.5)
        assert [text for _, text in overlay.legend_entries] == [
            "ground", "not in contact", "in contact", "no contact state", "stop limits"]
    finally:
        scene.close()


def test_a_legend_too_wide_for_the_picture_wraps_into_rows():
    """At 160 x 120 pixels the five entries do not fit in one row: every text stays inside
    the picture, the rows one above the other, none overlapping."""
    scene = Scene(limits_model(), size=(160, 120))
    try:
        result = scene.system.simulate(0.2, output_step=0.01)
        scene.update(result, t=0.1)
        overlay = scene.overlay
        boxes = [overlay._box_of(a) for a in overlay.legend[:-1]]
        assert len(boxes) == 5
        assert all(0 <= b[0] and b[2] <= 160 and 0 <= b[1] and b[3] <= 120 for b in boxes)
        assert len({round(b[1]) for b in boxes}) >= 2           # two rows at least
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert _overlap(a, b) == 0
        x0, y0, x1, y1 = overlay.legend_box
        assert all(x0 <= b[0] and b[2] <= x1 + 1e-9 and y0 <= b[1] + 1e-9 and b[3] <= y1
                   for b in boxes)
    finally:
        scene.close()


@pytest.fixture(scope="module")
def demo_long():
    """The built-in demo over 3 s: both pendulums swing through their range, the slider
    bounces, the block crosses its slot."""
    from mbd.cli import demo
    return demo.build_model().build().simulate(3.0, output_step=demo.OUTPUT_STEP,
                                               rtol=demo.RTOL, atol=demo.ATOL)


@pytest.mark.parametrize("size", [(800, 600), (480, 360)])
def test_demo_labels_cover_no_body(demo_long, size):
    """At eight times of the demo, in the GIF's picture (800 x 600) and a small one, every
    label is shown inside the picture and its box overlaps no body's box as seen: the
    corners of the boxes of every part drawn on the body (shape, pin, washer, collar),
    placed by the link poses at that time (mbd.compiled.dynamics) and projected through
    the camera (Scene.project), nor another label. Reference: the kinematics and VTK's
    projection."""
    from mbd.compiled import dynamics
    result = demo_long
    system = result.system
    scene = Scene(system, size=size)
    w, h = size
    try:
        scene.fit(result)
        for t in np.linspace(0.0, 3.0, 8):
            scene.update(result, t=t)
            scene.screenshot()                        # a real render: it places the labels
            q, _ = scene.state_at(result, t)
            Rl, pl = dynamics.link_poses(system, q)
            bodies = {}
            for name, bm in system.bodies.items():
                corners = np.vstack(scene._local_bounds[name])
                pixels = scene.project(pl[bm.link] + corners @ Rl[bm.link].T)
                cols, rows = pixels[:, 0], pixels[:, 1]
                # image rows count down from the top; the overlay's y counts up
                bodies[name] = (cols.min(), h - 1 - rows.max(), cols.max(), h - 1 - rows.min())
            labels = {}
            for key, actor in scene.overlay.labels.items():
                assert actor.GetVisibility(), (t, key)
                labels[key] = box = scene.overlay._box_of(actor)
                assert 0 <= box[0] and box[2] <= w and 0 <= box[1] and box[3] <= h, (t, key)
                for name, body in bodies.items():
                    assert _overlap(box, body) == 0, (t, key, name, box, body)
            keys = sorted(labels)
            for i, a in enumerate(keys):
                for b in keys[i + 1:]:
                    assert _overlap(labels[a], labels[b]) == 0, (t, a, b)
    finally:
        scene.close()


def _overlap(a, b):
    return max(min(a[2], b[2]) - max(a[0], b[0]), 0) * max(min(a[3], b[3]) - max(a[1], b[1]), 0)


def test_every_frame_of_an_animation_shows_its_time(tmp_path, monkeypatch):
    result = slider(t_end=1.0)
    shown = []
    original = Scene.screenshot

    def recording(self):
        shown.append(self.overlay.clock.GetInput())
        return original(self)
    monkeypatch.setattr(Scene, "screenshot", recording)
    times = frame_times(result, fps=5)
    animate(result, tmp_path / "clock.gif", fps=5, size=SIZE, progress=False)
    # the palette's sample frames come first, then every frame in order
    assert shown[-len(times):] == [f"t = {t:.3f} s" for t in times]
    assert shown[-1] == "t = 1.000 s"


def test_without_contact_elements_the_legend_has_no_contact_colours():
    result = slider(t_end=0.2)
    scene = Scene(result.system, size=SIZE)
    try:
        assert [a.GetInput() for a in scene.overlay.legend[:-1]] == ["ground"]
        assert scene.overlay.labels == {}
        assert Scene(result.system, size=SIZE, annotations=False).overlay is None
    finally:
        scene.close()


def test_a_system_snapshot_has_a_title_but_no_time(tmp_path):
    result = slider(t_end=0.2)
    scene = Scene(result.system, size=SIZE, title="my slider")
    try:
        q = result.system.initial_state().q
        scene.set_state(q)
        scene.fit(None, q=q)
        assert scene.overlay.title.GetInput() == "my slider" and scene.overlay.subtitle is None
        assert not scene.overlay.clock.GetVisibility()
    finally:
        scene.close()


def test_gif_keeps_the_contact_colours_exact(tmp_path):
    # the gap model of test_gap_colour_follows_the_contact, animated: its GIF's frames show
    # the contact red while touching and not before, although one palette serves every frame
    m = mbd.Model("gap")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = m.add_body("cube", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3)
    b.add_shape(Box((0.1, 0.1, 0.1), color="steelblue"))
    rail = m.add(Prismatic("rail", g, b["cg"], axis=(1, 0, 0), v0=-1.0))
    m.add(JointForce("stop", rail, ElastoGap(c=100.0, d=0.5, s_rel0=-0.2)))
    result = m.build().simulate(1.0, output_step=0.05)
    path = tmp_path / "gap.gif"
    animate(result, path, fps=10, size=SIZE, lighting=False, annotations=False,
            progress=False)
    frames = gif_frames(path)
    times = frame_times(result, fps=10)
    assert len(frames) == len(times)
    state = result.force("stop").state["contact"]
    rows = np.searchsorted(result.t, times, side="right") - 1   # the row in force at t
    red = np.rint(255 * np.array(CONTACT_COLOR))
    shows_red = [(np.abs(f - red).sum(axis=2) <= 3).sum() > 5 for f in frames]
    assert shows_red == [bool(state[r]) for r in rows]
    assert any(shows_red) and not all(shows_red)


# ----------------------------------------------------------------------------- shapes on grounds,
# crowded pictures

def test_a_grounds_shape_is_drawn_fixed_in_the_world_instead_of_its_cube():
    """A red plate on a ground turned 90 deg about x sits there (its thin side along world y),
    and the ground has no cube; a ground without shapes keeps its cube."""
    from scipy.spatial.transform import Rotation
    m = mbd.Model("plated")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    plate = m.add_ground("plate", at=(1.0, 2.0, 3.0),
                         orientation=Rotation.from_euler("x", 90, degrees=True))
    assert plate.add_shape(Box((0.4, 0.3, 0.02), color=(1.0, 0.0, 0.0))) is plate.shapes[0]
    b = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3)
    m.add(Revolute("h", g, b["cg"], axis=(0, 0, 1)))
    system = m.build()
    scene = Scene(system, size=SIZE)
    try:
        actor, = scene.ground_actors["plate"]
        assert np.allclose(actor.bounds, [0.8, 1.2, 1.99, 2.01, 2.85, 3.15], atol=1e-6)
        assert "g" not in scene.ground_actors and scene.markers      # g: a cube, pins drawn
        assert [a.GetInput() for a in scene.overlay.legend[:-1]] == ["ground"]
        bounds = scene.motion_bounds()
        assert bounds[1] >= 1.2 and bounds[5] >= 3.15          # the plate is in the picture
    finally:
        scene.close()


def test_many_force_elements_are_unlabelled_unless_asked():
    """Up to MAX_LABELS force elements are labelled; more (a robot's limits and dampers)
    would bury the picture: none by default, all with labels=True, none with labels=False."""
    from forces import Damper
    from viz.actors import MAX_LABELS

    def chain(n):
        m = mbd.Model(f"chain{n}")
        parent = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
        for k in range(n):     # a chain of n links, 1 m each, a damper on every hinge
            b = m.add_body(f"b{k}", mass=1.0, cg=(k + 0.5, 0, 0), inertia=[1e-2] * 3,
                           cs={"o": (k, 0, 0), "tip": (k + 1, 0, 0)})
            j = m.add(Revolute(f"h{k}", parent, b["o"], axis=(0, 1, 0)))
            m.add(JointForce(f"d{k}", j, Damper(d=0.1)))
            parent = b["tip"]
        return m.build()
    few, many = chain(MAX_LABELS), chain(MAX_LABELS + 1)
    for system, options, expect in ((few, {}, MAX_LABELS), (many, {}, 0),
                                    (many, {"labels": True}, MAX_LABELS + 1),
                                    (few, {"labels": False}, 0)):
        scene = Scene(system, size=SIZE, **options)
        try:
            assert len(scene.overlay.labels) == expect, options
            scene.set_state(system.initial_state().q, t=0.0)     # unlabelled: no anchors
            scene.render()
        finally:
            scene.close()
