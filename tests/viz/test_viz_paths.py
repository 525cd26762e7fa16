"""The pictures' user paths no other test walks (issue 31): the argument errors of
``viz.snapshot``, ``viz.show`` and ``viz.animate`` (each names the function, the argument and
the value, before anything is drawn or written), a body drawn by a mesh read from an STL or
OBJ file (seen in the picture), mesh files that hold no surface, and the scene's trails (their
errors, and the line they draw)."""
import os
import sys

import numpy as np
import pytest
import pyvista as pv
from PIL import Image

import mbd
import viz
from joints import Prismatic
from viz import render
from viz.render import RenderError
from viz.scene import Scene

SIZE = (160, 120)
BLUE = (0.0, 0.0, 1.0)
#: the options every picture passes on to the scene, in its signature's order
OPTIONS = ("show_cs, trails, lighting, background, annotations, title, floor, markers, "
           "labels, contacts, collisions")


def slider_model(shape=None):
    """A 1 kg cube sliding along x at 1 m/s (no gravity), with a CS 'tip' 0.1 m ahead of its
    CG; ``shape`` drawn at its CG."""
    m = mbd.Model("slider")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    cube = m.add_body("cube", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3,
                      cs={"tip": (0.1, 0, 0)})
    m.add(Prismatic("rail", g, cube["cg"], axis=(1, 0, 0), v0=1.0))
    if shape is not None:
        cube.add_shape(shape)
    return m


@pytest.fixture(scope="module")
def result():
    return slider_model().build().simulate(0.5, output_step=0.1)


def blue_pixels(img):
    img = np.asarray(img).astype(int)
    return int(np.count_nonzero((img[..., 2] > 200) & (img[..., 0] < 60) & (img[..., 1] < 60)))


# ----------------------------------------------------------------------------- snapshot


def test_snapshot_refuses_a_file_that_is_not_a_png(result, tmp_path):
    path = tmp_path / "frame.jpg"
    with pytest.raises(ValueError) as info:
        viz.snapshot(result, path)
    assert str(info.value) == f"snapshot: the file must end in .png, got {str(path)!r}"
    assert os.listdir(tmp_path) == []


def test_snapshot_of_a_system_takes_no_time(result, tmp_path):
    with pytest.raises(ValueError) as info:
        viz.snapshot(result.system, tmp_path / "s.png", t=0.2)
    assert str(info.value) == ("snapshot: t needs a Result; a System is drawn at its initial "
                               "state")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("t, error, text", [
    (2.0, ValueError, "snapshot: t must lie within the result's times, 0 to 0.5 s, got 2.0"),
    (-0.1, ValueError, "snapshot: t must lie within the result's times, 0 to 0.5 s, got -0.1"),
    (float("nan"), ValueError,
     "snapshot: t must lie within the result's times, 0 to 0.5 s, got nan"),
    ("soon", TypeError, "snapshot: t must be a number (s), got 'soon'"),
])
def test_snapshot_at_a_time_the_result_does_not_hold_is_refused(result, tmp_path, t, error,
                                                                  text):
    """(It drew the last row, stamped with the run's end, for any later t.)"""
    with pytest.raises(error) as info:
        viz.snapshot(result, tmp_path / "late.png", t=t)
    assert str(info.value) == text
    assert os.listdir(tmp_path) == []


def test_snapshot_at_the_ends_of_the_result_is_accepted(result, tmp_path):
    for t in (0.0, 0.5):
        img = viz.snapshot(result, tmp_path / f"t{t}.png", t=t, size=SIZE)
        assert img.shape == (SIZE[1], SIZE[0], 3)


@pytest.mark.parametrize("what, name", [(42, "int"), ("slider", "str"), (None, "NoneType")])
def test_snapshot_of_something_that_is_no_system_or_result_is_a_type_error(tmp_path, what,
                                                                          name):
    """(It was a RenderError saying the file could not be written, of an AttributeError.)"""
    with pytest.raises(TypeError) as info:
        viz.snapshot(what, tmp_path / "x.png")
    assert str(info.value) == f"snapshot: draws an mbd.System or an mbd.Result, got {name}"
    assert os.listdir(tmp_path) == []


def test_an_unknown_scene_option_is_named_with_the_options_there_are(result, tmp_path):
    """(snapshot said it could not write the file, of Scene.__init__'s TypeError.)"""
    with pytest.raises(TypeError) as info:
        viz.snapshot(result, tmp_path / "x.png", show_css=True)
    assert str(info.value) == (f"snapshot: unknown option 'show_css'; the scene options are "
                               f"{OPTIONS}")
    with pytest.raises(TypeError) as info:
        viz.animate(result, tmp_path / "x.gif", progress=False, colour="red")
    assert str(info.value) == f"animate: unknown option 'colour'; the scene options are {OPTIONS}"
    assert os.listdir(tmp_path) == []


def test_animate_takes_a_result_not_a_system(result, tmp_path):
    with pytest.raises(TypeError) as info:
        viz.animate(result.system, tmp_path / "x.gif", progress=False)
    assert str(info.value) == ("animate: animates an mbd.Result (viz.snapshot draws a System), "
                               "got System")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("size", [(0, 10), (160, -1), (160.5, 120), "big", (160,), None])
def test_a_picture_size_that_is_not_two_pixel_counts_is_refused(result, tmp_path, size):
    """(A width of 0 rendered an empty picture with a division by zero; "big" raised int()'s
    own error about the letter 'b'.)"""
    with pytest.raises(ValueError) as info:
        viz.snapshot(result, tmp_path / "x.png", size=size)
    assert str(info.value) == ("Scene: size must be (width, height), two whole numbers of "
                               f"pixels >= 1, got {size!r}")
    assert os.listdir(tmp_path) == []


def test_a_whole_float_or_numpy_size_is_accepted(result, tmp_path):
    img = viz.snapshot(result, tmp_path / "x.png", size=(np.int64(80), 60.0))
    assert img.shape == (60, 80, 3)


# ----------------------------------------------------------------------------- show


def test_show_without_a_display_is_a_render_error_naming_what_to_use(result, monkeypatch):
    monkeypatch.setattr(render, "_has_display", lambda: False)
    with pytest.raises(RenderError) as info:
        viz.show(result)
    assert str(info.value) == ("no display: an interactive window needs one (DISPLAY is not "
                               "set); use viz.animate or viz.snapshot to render to a file")


def test_show_argument_errors_name_show(result, monkeypatch):
    monkeypatch.setattr(render, "_has_display", lambda: True)
    with pytest.raises(TypeError) as info:
        viz.show([result])
    assert str(info.value) == "show: draws an mbd.System or an mbd.Result, got list"
    with pytest.raises(TypeError) as info:
        viz.show(result, show_css=True)
    assert str(info.value) == f"show: unknown option 'show_css'; the scene options are {OPTIONS}"


class _Window:
    """viz.show's window, off-screen: the scene's plotter made off-screen, its slider and its
    show() recorded (``fail``: show() raises that)."""

    def __init__(self, monkeypatch, fail=None):
        self.sliders, self.shown, self.scenes = [], 0, []
        window = self

        def scene(*args, off_screen=True, **kw):
            window.off_screen = off_screen
            made = Scene(*args, off_screen=True, **kw)
            window.scenes.append(made)
            return made

        def slider(plotter, callback, rng, value=None, title=None, **kw):
            window.sliders.append((callback, list(rng), value, title))

        def show(plotter, *args, **kw):
            window.shown += 1
            if fail is not None:
                raise fail
        monkeypatch.setattr(render, "_has_display", lambda: True)
        monkeypatch.setattr(render, "Scene", scene)
        monkeypatch.setattr(pv.Plotter, "add_slider_widget", slider)
        monkeypatch.setattr(pv.Plotter, "show", show)


def test_show_opens_a_window_with_a_time_slider_over_the_run(result, monkeypatch):
    window = _Window(monkeypatch)
    viz.show(result, size=SIZE)
    assert window.off_screen is False and window.shown == 1
    [(callback, rng, value, title)] = window.sliders
    assert rng == [0.0, 0.5] and value == 0.0 and title == "t (s)"
    scene = window.scenes[0]
    callback(0.3)                  # the slider moves the cube where the run has it at 0.3 s
    for actor in scene.body_actors["cube"]:
        np.testing.assert_allclose(np.asarray(actor.user_matrix)[:3, 3], [0.3, 0.0, 0.0],
                                   atol=1e-9)


def test_show_of_a_system_has_no_slider(result, monkeypatch):
    window = _Window(monkeypatch)
    viz.show(result.system, size=SIZE)
    assert window.shown == 1 and window.sliders == []


def test_a_window_that_fails_is_a_render_error_with_the_cause(result, monkeypatch):
    _Window(monkeypatch, fail=RuntimeError("no GLX"))
    with pytest.raises(RenderError) as info:
        viz.show(result, size=SIZE)
    assert str(info.value) == "the window failed (RuntimeError: no GLX)"
    assert isinstance(info.value.__cause__, RuntimeError)


# ----------------------------------------------------------------------------- meshes


def _cube_file(tmp_path, suffix):
    """A 0.3 m cube's surface written to tmp_path/cube.SUFFIX (pyvista for STL, trimesh for
    OBJ)."""
    path = tmp_path / f"cube{suffix}"
    if suffix == ".obj":
        import trimesh
        trimesh.creation.box(extents=(0.3, 0.3, 0.3)).export(path)
    else:
        pv.Cube(x_length=0.3, y_length=0.3, z_length=0.3).triangulate().save(path)
    return path


@pytest.mark.parametrize("suffix", [".stl", ".obj"])
def test_a_mesh_read_from_a_file_is_drawn_on_its_body(tmp_path, suffix):
    """A blue cube read from a file, on the slider's body: the picture shows it (blue pixels
    where, drawn without it, there are none), and it has the file's size."""
    path = _cube_file(tmp_path, suffix)
    mesh = viz.Mesh(path, color=BLUE)
    assert np.allclose(mesh.polydata().bounds, [-0.15, 0.15] * 3, atol=1e-6)
    shown = viz.snapshot(slider_model(mesh).build(), tmp_path / "with.png", size=SIZE,
                         lighting=False)
    plain = viz.snapshot(slider_model().build(), tmp_path / "without.png", size=SIZE,
                         lighting=False)
    assert blue_pixels(plain) == 0
    assert blue_pixels(shown) > 0.02 * SIZE[0] * SIZE[1]
    back = np.asarray(Image.open(tmp_path / "with.png").convert("RGB"))
    assert np.array_equal(back, shown)


def test_a_mesh_file_that_does_not_exist_is_named(tmp_path):
    path = tmp_path / "gone.stl"
    with pytest.raises(ValueError) as info:
        viz.Mesh(path)
    assert str(info.value) == f"Mesh: no file {str(path)!r}"


@pytest.mark.parametrize("name, text", [
    ("junk.stl", "this is not a mesh\n"),
    ("points.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"),
])
def test_a_mesh_file_without_a_surface_is_refused_when_drawn(tmp_path, name, text):
    """(A broken STL or an OBJ of points only drew nothing, silently, the body invisible.)"""
    path = tmp_path / name
    path.write_text(text)
    mesh = viz.Mesh(path, color=BLUE)
    expected = (f"Mesh: {os.path.abspath(path)!r} holds no surface (no triangles): not a mesh "
                "file pyvista reads, or one of points or lines only")
    with pytest.raises(ValueError) as info:
        mesh.polydata()
    assert str(info.value) == expected
    with pytest.raises(ValueError) as info:
        viz.snapshot(slider_model(mesh).build(), tmp_path / "x.png", size=SIZE)
    assert str(info.value) == expected
    assert not (tmp_path / "x.png").exists()


def test_a_mesh_file_of_a_type_pyvista_does_not_read_is_named(tmp_path):
    path = tmp_path / "cloud.xyz"
    path.write_text("1 2 3\n")
    with pytest.raises(ValueError) as info:
        viz.Mesh(path).polydata()
    assert str(info.value).startswith(f"Mesh: cannot read {os.path.abspath(path)!r} (")


# ----------------------------------------------------------------------------- trails


@pytest.mark.parametrize("trails, text", [
    ([("nope", "tip")], "Scene: trail ('nope', 'tip'): no body 'nope'; the bodies are "
                        "['cube']"),
    ([("cube", "nope")], "Scene: trail ('cube', 'nope'): body 'cube' has no CS 'nope'; it has "
                         "['cg', 'tip']"),
    (["cube"], "Scene: a trail is a (body, CS) pair of names, e.g. ('arm', 'tip'), got 'cube'"),
    ([("cube", "tip", "x")], "Scene: a trail is a (body, CS) pair of names, e.g. ('arm', "
                             "'tip'), got ('cube', 'tip', 'x')"),
    ([3], "Scene: a trail is a (body, CS) pair of names, e.g. ('arm', 'tip'), got 3"),
])
def test_a_trail_of_no_body_or_cs_is_refused_naming_it(result, tmp_path, trails, text):
    with pytest.raises(ValueError) as info:
        viz.snapshot(result, tmp_path / "x.png", size=SIZE, trails=trails)
    assert str(info.value) == text
    assert os.listdir(tmp_path) == []


def test_a_trail_follows_its_cs_through_the_rows_to_the_time_drawn(result):
    """The trail's line: the CS's positions at every row up to t, then where it is at t."""
    scene = Scene(result.system, trails=[("cube", "tip")], size=SIZE)
    try:
        scene.update(result, t=0.25)
        [(actor, line)] = scene.trail_lines.values()
        tip = result.body("cube").position("tip")
        rows = tip[result.t <= 0.25]
        expected = np.vstack([rows, [0.25 + 0.1, 0.0, 0.0]])
        np.testing.assert_allclose(np.asarray(line.points), expected, atol=1e-9)
        scene.update(result, row=len(result.t) - 1)
        assert len(line.points) == len(result.t) + 1
        np.testing.assert_allclose(line.points[-1], tip[-1], atol=1e-9)
    finally:
        scene.close()


# ----------------------------------------------------------------------------- shapes, progress


@pytest.mark.parametrize("make, text", [
    (lambda: viz.Sphere("big"), "Sphere: radius must be a number, got 'big'"),
    (lambda: viz.Sphere(-0.1), "Sphere: radius must be > 0 and finite, got -0.1"),
    (lambda: viz.Cylinder(0.1, 1.0, axis="z"), "Cylinder: axis must be 3 numbers, got 'z'"),
    (lambda: viz.Capsule(0.1, 1.0, axis=(0, 0, 0)),
     "Capsule: axis must be a nonzero finite vector, got (0, 0, 0)"),
    (lambda: viz.Box((1, 1, 1), opacity="half"),
     "Box: opacity must be a number in [0, 1], got 'half'"),
    (lambda: viz.Box((1, 1, 1), opacity=2.0), "Box: opacity must be in [0, 1], got 2.0"),
    (lambda: viz.Box((1, 1)), "Box: size must be 3 lengths (lx, ly, lz), got (1, 1)"),
    (lambda: viz.Box("big"), "Box: size must be 3 lengths (lx, ly, lz), got 'big'"),
])
def test_a_shape_of_bad_size_axis_or_opacity_is_refused_naming_it(make, text):
    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value) == text


def test_a_mesh_scale_must_be_nonzero_and_finite(tmp_path):
    path = _cube_file(tmp_path, ".stl")
    for scale, text in [((1, 0, 1), "Mesh: scale factors must be nonzero and finite, got "
                                    "(1, 0, 1)"),
                        ((1, 2), "Mesh: scale must be a number or 3 numbers, got (1, 2)"),
                        (0.0, "Mesh: scale must be > 0 and finite, got 0.0")]:
        with pytest.raises(ValueError) as info:
            viz.Mesh(path, scale=scale)
        assert str(info.value) == text


def test_animate_shows_its_progress_on_stderr_when_asked(result, tmp_path, capsys):
    frames = viz.animate(result, tmp_path / "run.gif", fps=4, size=SIZE, progress=True)
    assert frames == 3                       # 0, 0.25, 0.5 s
    err = capsys.readouterr().err
    assert err.endswith(f"\r[{'#' * 30}] 3/3 frames\n")
    assert "\r[##########....................] 1/3 frames" in err


@pytest.mark.parametrize("env, off_screen, expected", [
    ({"DISPLAY": ":0"}, False, True), ({"WAYLAND_DISPLAY": "wayland-0"}, False, True),
    ({}, False, False), ({"DISPLAY": ":0"}, True, False)])
def test_a_display_is_found_from_the_environment(monkeypatch, env, off_screen, expected):
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(pv, "OFF_SCREEN", off_screen)
    monkeypatch.setattr(sys, "platform", "linux")
    assert render._has_display() is expected


@pytest.mark.parametrize("env, platform, egl, expected", [
    ({}, "linux", "libEGL.so.1", "vtkEGLRenderWindow"),          # headless: EGL straight away
    ({"DISPLAY": ":0"}, "linux", "libEGL.so.1", None),             # a display: VTK's default
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", "libEGL.so.1", None),
    ({}, "linux", None, None),                                     # no EGL: VTK's own fallback
    ({}, "darwin", "libEGL.so.1", None),
    ({"VTK_DEFAULT_OPENGL_WINDOW": "vtkOSOpenGLRenderWindow"}, "linux", "libEGL.so.1",
     "vtkOSOpenGLRenderWindow")])                                   # the user's choice kept
def test_a_headless_machine_gets_vtks_egl_window(monkeypatch, env, platform, egl, expected):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "VTK_DEFAULT_OPENGL_WINDOW"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(viz.ctypes.util, "find_library", lambda name: egl)
    viz._headless_window()
    assert os.environ.get("VTK_DEFAULT_OPENGL_WINDOW") == expected
