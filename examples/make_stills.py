"""Render the gallery's pictures: one still PNG per example into ``examples/images/``.

Each example's ``build_model()`` is simulated for a short while and drawn at the end of that
run with ``viz.snapshot`` (320x240, isometric camera fitted to the motion so far). An example
about a rest state (:data:`MODE_STILLS`) is drawn instead as its first mode's animation
(``viz.animate_mode``) shows it, at the frame of largest deflection about its equilibrium;
for those in :data:`MODE_GIFS` the animation itself is written too, ``images/NAME_mode1.gif``.
An example in :data:`ANIMATIONS` (a robot's motion says more than a frame of it) is also
animated whole, its run at its own ``T_END`` and ``OUTPUT_STEP``, into ``images/NAME.gif``.

Run: ``python examples/make_stills.py`` (all) or ``python examples/make_stills.py NAME ...``.

``python examples/make_stills.py --web [PATH]`` writes the README's picture of the web viewer
(the demo's page in a headless Chromium). ``python examples/make_stills.py --demo DIR`` writes
pictures of the built-in demo
(``mbd demo``) into DIR instead: frames as its GIF shows them, at the start, at the first
contact of each gap, stop and backlash element, and late in the run, and its plot.
"""
import importlib.util
import math
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
IMAGES = HERE / "images"
SIZE = (320, 240)
DEMO_SIZE = (800, 600)     # the size of the GIF that ``mbd demo`` writes

#: example name -> (seconds simulated before the picture, camera)
STILLS = {
    "pendulum": (0.5, "xz"),
    "tumbling_handle": (1.0, None),
    "elastogap": (0.5, None),
    "backlash": (0.2, None),
    "bistop_slot": (1.0, None),
    "body_spring_damper": (0.6, None),
    "variable_spring": (0.3, None),
    "fourbar_backlash": (0.3, None),
    "slider_crank_stop": (0.3, None),
    "double_pendulum": (0.8, None),
    "two_machines": (4.0, None),
    "slot_at_rest": (None, "xz"),          # None: not simulated, see MODE_STILLS
    "suspension_modes": (None, "yz"),
    "engine_mount": (0.1, None),
    "stick_slip": (0.3, None),
    "gearbox": (0.3, None),
    "cart_pole_lqr": (0.5, "xz"),
    "gearbox_pid": (0.3, None),
    "pd_pendulum": (0.25, "xz"),
    "rubber_stop": (0.12, "xz"),
    "external_controller": (0.5, "xz"),
    "gearbox_fmu": (0.3, None),
    "panda_urdf": (0.6, "panda"),
    "ur5_backlash_pid": (0.1, None),
    "cam_follower": (0.03, "xz"),
    "bouncing_balls": (1.0, None),
    "sliding_block": (0.3, None),
    "quadruped": (0.5, None),
}
#: cameras of their own (pyvista camera positions: position, focal point, view-up; m),
#: named in STILLS: a robot arm seen from its front right, close enough to fill the picture
CAMERAS = {"panda": [(2.1, -1.45, 1.35), (0.15, 0.25, 0.4), (0.0, 0.0, 1.0)]}
#: examples drawn as their first mode about their equilibrium: name -> the mode's amplitude
#: (None: viz.animate_mode's default)
MODE_STILLS = {"slot_at_rest": None, "suspension_modes": 0.25}
#: examples whose first mode is also written as a small GIF (GIF_SIZE, one cycle)
MODE_GIFS = ("suspension_modes",)
GIF_SIZE, GIF_FPS = (320, 240), 12
#: examples whose whole run is also written as a GIF (GIF_SIZE, GIF_FPS, real time):
#: images/NAME.gif
ANIMATIONS = ("panda_urdf",)
#: paths drawn up to the picture's time, where a body alone would say little
TRAILS = {"pendulum": [("bob", "cg")], "bistop_slot": [("block", "cg")],
          "double_pendulum": [("lower", "tip")], "cart_pole_lqr": [("pole", "tip")],
          "pd_pendulum": [("arm", "cg")], "external_controller": [("arm", "tip")],
          "bouncing_balls": [(f"ball{k}", "cg") for k in range(1, 6)]}


def load(name):
    """The example module ``examples/NAME.py``."""
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def still(name, path=None, size=SIZE):
    """Simulate example ``name`` briefly and write its picture; returns the path."""
    import viz
    t_end, camera = STILLS[name]
    camera = CAMERAS.get(camera, camera)
    path = IMAGES / f"{name}.png" if path is None else pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    module = load(name)
    if name in MODE_STILLS:
        return mode_still(module, name, path, size, camera)
    # the example's own tolerances where it names them (a stiff stop in a loop needs them)
    rtol, atol = getattr(module, "RTOL", 1e-8), getattr(module, "ATOL", 1e-8)
    result = module.build_model().build().simulate(t_end=t_end, output_step=t_end / 50,
                                                   rtol=rtol, atol=atol)
    viz.snapshot(result, str(path), t=result.t[-1], size=size, camera=camera,
                 trails=TRAILS.get(name, ()))
    return path


def _first_mode(module):
    import mbd
    return mbd.equilibrium(module.build_model().build()).linear


def mode_still(module, name, path, size=SIZE, camera=None):
    """The example's first mode about its equilibrium, at its largest deflection, drawn with
    the title viz.animate_mode gives it; returns the path."""
    import numpy as np

    import viz
    from viz.modes import mode_frames, mode_title
    linear = _first_mode(module)
    result, mode, _ = mode_frames(linear, 0, MODE_STILLS[name], cycles=1, fps=16)
    deflection = np.abs(result.q - linear.state.q).max(axis=1)
    viz.snapshot(result, str(path), t=result.t[int(np.argmax(deflection))], size=size,
                 camera=camera, title=mode_title(linear, 0, mode))
    return path


def mode_gif(name, path=None, size=GIF_SIZE, fps=GIF_FPS):
    """One cycle of the example's first mode as a GIF; returns the path."""
    import viz
    path = IMAGES / f"{name}_mode1.gif" if path is None else pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    viz.animate_mode(_first_mode(load(name)), 0, str(path), amplitude=MODE_STILLS[name],
                     cycles=1, fps=fps, size=size, camera=STILLS[name][1], progress=False)
    return path


def animation(name, path=None, size=GIF_SIZE, fps=GIF_FPS):
    """The example's run (its T_END, OUTPUT_STEP, RTOL, ATOL) as a GIF at ``fps`` frames per
    simulated second, the camera of its still; returns the path."""
    import viz
    path = IMAGES / f"{name}.gif" if path is None else pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    module = load(name)
    options = {k.lower(): getattr(module, k) for k in ("RTOL", "ATOL") if hasattr(module, k)}
    result = module.build_model().build().simulate(module.T_END,
                                                   output_step=module.OUTPUT_STEP, **options)
    camera = STILLS[name][1]
    viz.animate(result, str(path), fps=fps, size=size, camera=CAMERAS.get(camera, camera),
                trails=TRAILS.get(name, ()), progress=False)
    return path


def demo_stills(folder, size=DEMO_SIZE):
    """Run the built-in demo as ``mbd demo`` does and write into ``folder``: a frame at the
    start, one in the middle of the first contact of each element with a contact state (in
    the order they first touch), one half a second before the end, and the plot. Returns
    the paths."""
    import viz
    from mbd.cli import demo
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    result = demo.build_model().build().simulate(demo.T_END, output_step=demo.OUTPUT_STEP,
                                                 rtol=demo.RTOL, atol=demo.ATOL)
    moments = [("start", float(result.t[0]))]
    firsts = []
    for fe in result.system.force_elements:
        view = result.force(fe.name)
        if "contact" in view.state and view.contacts():
            t0, t1, _ = view.contacts()[0]
            t1 = t1 if math.isfinite(t1) else float(result.t[-1])   # nan: still touching
            firsts.append((t0, fe.name, 0.5 * (t0 + t1)))
    moments += [(f"first_contact_{name}", t) for _, name, t in sorted(firsts)]
    moments.append(("late", float(result.t[-1]) - 0.5))
    paths = []
    for k, (what, t) in enumerate(moments):
        path = folder / f"demo_{k}_{what}_t{t:.3f}.png"
        viz.snapshot(result, str(path), t=t, size=size)
        paths.append(path)
    paths.append(folder / f"demo_{len(moments)}_plot.png")
    viz.plot(result, paths[-1])
    return paths


def web_viewer(path=None, t=2.2, size=(1000, 720)):
    """The README's picture of the web viewer: the demo's page (``viz.html``) open in a
    headless Chromium (playwright; the test extra) at time ``t`` (s), with the mouse on the
    first event mark after t, as ``path`` (default ``images/web_viewer.png``)."""
    import shutil
    import tempfile

    from playwright.sync_api import sync_playwright

    import viz
    from mbd.cli import demo
    path = pathlib.Path(path or IMAGES / "web_viewer.png")
    result = demo.build_model().build().simulate(demo.T_END, output_step=demo.OUTPUT_STEP,
                                                 rtol=demo.RTOL, atol=demo.ATOL)
    with tempfile.TemporaryDirectory() as folder:
        page_path = viz.html(result, pathlib.Path(folder) / "demo.html",
                             signals=["stops", "pad", "backlash", "swing_hinge.q"])
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                        args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            page.goto(f"file://{page_path}")
            page.wait_for_function("window.mbdViewer && window.mbdViewer.ready")
            page.evaluate(f"window.mbdViewer.setTime({t})")
            marks = page.locator("#marks .mark")
            later = [k for k in range(marks.count())
                     if float(marks.nth(k).get_attribute("data-t")) >= t]
            if later:
                marks.nth(later[0]).hover(force=True)
            page.screenshot(path=str(path))
            browser.close()
    return path


def main(args=None):
    args = list(args or [])
    if args[:1] == ["--web"]:
        print(web_viewer(*args[1:2]))
        return
    if args[:1] == ["--demo"]:
        if len(args) != 2:
            sys.exit("usage: python examples/make_stills.py --demo DIR")
        for path in demo_stills(args[1]):
            print(path)
        return
    for name in args or STILLS:
        print(still(name).relative_to(HERE))
        if name in MODE_GIFS:
            print(mode_gif(name).relative_to(HERE))
        if name in ANIMATIONS:
            print(animation(name).relative_to(HERE))


if __name__ == "__main__":
    main(sys.argv[1:])
