"""The web viewer (:func:`viz.html`, SPEC §11) in a real headless browser: Debian's chromium
driven by playwright (the test extra installs playwright; ``.ci/run`` installs chromium when
it is missing).

What is checked against the Result, not against the page's own code: each body's world
position read back from the page's scene graph (its group's matrix) at row times of the
demo, the four-bar, the gearbox and a 10-body chain equals ``result.body(name).position()``
to 1e-5 m; the event marks are the result's events; the plotted value is the result's. And
what a person sees: no console errors, a canvas that is not blank, two pictures that differ
where a body moved and agree on the background, a play button that advances time."""
import html as html_text
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from playwright.sync_api import sync_playwright

import mbd
import viz
from joints import Revolute
from mbd.cli import demo
from mbd.study.scripts import load_script, model_of

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
TOL = 1e-5       # m: float32 poses in the page


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("the web viewer's tests drive a headless Chromium and none is installed:"
                       " apt-get install chromium (.ci/run does this)")


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
        yield browser
        browser.close()


class Page:
    """A page of the viewer open in the browser, with its console's errors."""

    def __init__(self, browser, path):
        self.page = browser.new_page(viewport={"width": 960, "height": 720})
        self.errors = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto("file://" + os.path.abspath(path))
        self.page.wait_for_function("window.mbdViewer && window.mbdViewer.ready",
                                    timeout=60000)

    def set_time(self, t):
        self.page.evaluate(f"window.mbdViewer.setTime({float(t)!r})")
        self.page.evaluate("window.mbdViewer.render()")

    def time(self):
        return self.page.evaluate("window.mbdViewer.time()")

    def body_matrix(self, name):
        """The 4x4 world matrix of body ``name``'s group in the page's scene graph."""
        elements = self.page.evaluate(
            f"Array.from(window.mbdViewer.scene.getObjectByName('body:{name}')"
            ".matrixWorld.elements)")
        return np.array(elements).reshape(4, 4).T          # three.js stores columns

    def picture(self):
        """The canvas as an (h, w, 3) uint8 array."""
        import io

        from PIL import Image
        png = self.page.locator("#scene").screenshot()
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))

    def close(self):
        self.page.close()


def cg_errors(page, result, rows):
    """The largest distance (m) between each body's CG as the page places it (its group's
    matrix times the CG in the link frame) and ``result.body(name).position()``, at each of
    ``rows``."""
    worst = 0.0
    for row in rows:
        page.set_time(result.t[row])
        for name, bm in result.system.bodies.items():
            M = page.body_matrix(name)
            cg_local = bm.rotation.T @ (bm.body.cg - bm.origin)
            drawn = M[:3, :3] @ cg_local + M[:3, 3]
            worst = max(worst, float(np.abs(drawn - result.body(name).position()[row]).max()))
    return worst


def _example(name, t_end=None):
    module = load_script(os.path.join(EXAMPLES, name))
    system = model_of(module, name).build()
    return system.simulate(t_end if t_end is not None else module.T_END,
                           output_step=getattr(module, "OUTPUT_STEP", 0.01),
                           rtol=getattr(module, "RTOL", None) or 1e-8,
                           atol=getattr(module, "ATOL", None) or 1e-10)


def chain(n=10, far_ground=False):
    """A chain of ``n`` rods on hinges about y, hanging from the ground, started bent
    (``far_ground``: and a second ground 30 m away, drawn)."""
    model = mbd.Model("chain10" if not far_ground else "far")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    if far_ground:
        model.add_ground("far", at=(30.0, 0.0, 0.0))
    parent = ground
    for k in range(n):
        x = 0.2 * k
        rod = model.add_body(f"rod{k}", mass=1.0, cg=(x + 0.1, 0, 0),
                             inertia=[1e-4, 3.4e-3, 3.4e-3],
                             cs={"a": (x, 0, 0), "b": (x + 0.2, 0, 0)})
        model.add(Revolute(f"hinge{k}", parent, rod["a"], axis=(0, 1, 0), q0=0.1 * k))
        parent = rod["b"]
    return model.build()


@pytest.fixture(scope="module")
def demo_page(browser, tmp_path_factory):
    result = demo.build_model().build().simulate(2.0, output_step=0.01)
    path = viz.html(result, tmp_path_factory.mktemp("web") / "demo.html")
    page = Page(browser, path)
    yield result, page, path
    page.close()


def test_the_demo_page_shows_the_run_where_the_result_says(demo_page):
    result, page, _ = demo_page
    assert page.errors == []
    rows = [0, len(result.t) // 3, len(result.t) - 1]
    assert cg_errors(page, result, rows) < TOL
    # the canvas is drawn: far from one colour
    picture = page.picture()
    assert picture.reshape(-1, 3).std(axis=0).max() > 20.0
    # the slider's time between two rows: interpolated, between the two rows' positions
    name = "swing"
    i = len(result.t) // 2
    page.set_time(0.5 * (result.t[i] + result.t[i + 1]))
    p = page.body_matrix(name)[:3, 3]
    link = result.system.bodies[name].link
    ends = result.evaluation.link_poses()[1][[i, i + 1], link]
    assert np.abs(p - 0.5 * (ends[0] + ends[1])).max() < 1e-3 * np.abs(ends).max() + TOL


def test_two_pictures_differ_where_bodies_moved_and_agree_on_the_background(demo_page):
    result, page, _ = demo_page
    page.set_time(result.t[0])
    a = page.picture().astype(int)
    page.set_time(result.t[-1] * 0.6)
    b = page.picture().astype(int)
    changed = np.abs(a - b).max(axis=2) > 30
    assert 0.001 < changed.mean() < 0.2
    # the background: a band along the canvas's top edge, above everything drawn
    assert np.array_equal(a[:20], b[:20])
    # the change is where the swinging pendulum's CG is drawn at one time or the other
    rows, cols = np.nonzero(changed)
    for t in (result.t[0], result.t[-1] * 0.6):
        page.set_time(t)
        x, y = page.page.evaluate(
            "(() => { const v = window.mbdViewer.scene.getObjectByName('body:swing')"
            ".localToWorld(new window.mbdViewer.camera.position.constructor("
            + ", ".join(repr(float(c)) for c in
                        result.system.bodies["swing"].rotation.T
                        @ (result.system.bodies["swing"].body.cg
                           - result.system.bodies["swing"].origin))
            + ")).project(window.mbdViewer.camera); const c = window.mbdViewer.renderer"
            ".domElement; return [(v.x + 1) / 2 * c.clientWidth, (1 - v.y) / 2 * c.clientHeight];"
            " })()")
        near = (np.abs(cols - x) < 25) & (np.abs(rows - y) < 25)
        assert near.any(), (x, y)


def test_play_advances_time_and_pause_holds_it(demo_page):
    result, page, _ = demo_page
    page.set_time(result.t[0])
    page.page.click("#play")
    page.page.wait_for_function(f"window.mbdViewer.time() > {result.t[0] + 0.05}",
                                timeout=20000)
    assert page.page.evaluate("window.mbdViewer.playing()")
    page.page.click("#play")
    held = page.time()
    page.page.wait_for_timeout(300)
    assert page.time() == held and not page.page.evaluate("window.mbdViewer.playing()")


def test_drag_turns_the_view_and_the_wheel_zooms(demo_page):
    result, page, _ = demo_page
    camera = "window.mbdViewer.camera.position.toArray()"
    target = np.array(page.page.evaluate("window.mbdViewer.controls.target.toArray()"))
    before = np.array(page.page.evaluate(camera))
    box = page.page.locator("#scene").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.page.mouse.move(x, y)
    page.page.mouse.down()
    page.page.mouse.move(x + 120, y + 40, steps=6)
    page.page.mouse.up()
    turned = np.array(page.page.evaluate(camera))
    # turned about the target: the same distance, another direction
    assert np.linalg.norm(turned - target) == pytest.approx(np.linalg.norm(before - target),
                                                           rel=1e-6)
    assert np.linalg.norm(turned - before) > 0.05 * np.linalg.norm(before - target)
    page.page.mouse.wheel(0, -400)
    page.page.wait_for_timeout(200)
    zoomed = np.array(page.page.evaluate(camera))
    assert np.linalg.norm(zoomed - target) < 0.95 * np.linalg.norm(turned - target)


def test_the_event_log_is_on_the_time_bar_and_named_on_hover(demo_page):
    result, page, _ = demo_page
    # one mark per instant (events closer than 0.2 % of the run share one), at the time of
    # the first of them, named by all of them; every event named once
    marks = page.page.locator("#marks .mark")
    labels = [marks.nth(k).get_attribute("aria-label") for k in range(marks.count())]
    times = [float(marks.nth(k).get_attribute("data-t")) for k in range(marks.count())]
    assert 0 < len(labels) <= len(result.events)
    k = -1
    for e in result.events:
        if k + 1 < len(times) and e.t == times[k + 1]:
            k += 1                                      # the first event of the next mark
        assert f"{e.element}: {e.what}" in labels[k]
        assert 0.0 <= e.t - times[k] <= 0.002 * result.t[-1] * len(result.events)
    assert k == len(times) - 1
    marks.nth(0).hover(force=True)
    tip = page.page.locator("#tip")
    assert tip.is_visible() and tip.inner_text() == labels[0]


def test_the_plot_shows_the_chosen_signal_at_the_slider_time(demo_page):
    result, page, _ = demo_page
    options = page.page.locator("#signal option").all_inner_texts()
    forces = [fe.name for fe in result.system.force_elements]
    assert len(options) > len(forces)
    kinds = {"backlash": "ElastoBacklash", "pad": "ElastoGap", "stops": "Bistop"}
    for name, option in zip(forces, options):     # the curves of viz.plot, with their units
        assert option.startswith((f"{name}.value (", f"{name} |F| ("))   # |F|: a 3-D force
        if name in kinds:
            assert option.startswith(f"{name}.value ({kinds[name]}) [")
    # choose the first joint's angle; the value shown is the result's at the slider's row
    joint = next(iter(result.system.joints))
    index = next(k for k, o in enumerate(options) if o.startswith(f"{joint}.q"))
    page.page.select_option("#signal", str(index))
    row = len(result.t) // 4
    page.set_time(result.t[row])
    shown = page.page.inner_text("#value").split()[0]
    assert float(shown) == pytest.approx(result.joint(joint).q[row, 0]
                                         if result.joint(joint).q.ndim == 2
                                         else result.joint(joint).q[row], rel=1e-5, abs=1e-9)


@pytest.mark.parametrize("example", ["fourbar_backlash.py", "gearbox.py"])
def test_the_four_bar_and_the_gearbox_pages(browser, tmp_path, example):
    result = _example(example, t_end=0.5)
    path = viz.html(result, tmp_path / "run.html")
    page = Page(browser, path)
    try:
        assert page.errors == []
        rows = [0, len(result.t) // 2, len(result.t) - 1]
        assert cg_errors(page, result, rows) < TOL
    finally:
        page.close()


def test_a_ten_body_chain_for_ten_seconds_is_a_small_page(browser, tmp_path):
    """10 s at 100 rows/s, 10 bodies: under 5 MB, and every body where the result says."""
    result = chain().simulate(10.0, output_step=0.01)
    assert len(result.t) == 1001
    path = viz.html(result, tmp_path / "chain.html")
    assert os.path.getsize(path) < 5e6
    page = Page(browser, path)
    try:
        assert page.errors == []
        assert cg_errors(page, result, [0, 500, 1000]) < TOL
    finally:
        page.close()


def test_a_system_is_its_initial_state_with_nothing_to_play(browser, tmp_path):
    """A System's page: its initial state, nothing to play or plot; with show_cs a triad (three
    coloured segments) at each of a body's CSs."""
    system = chain(3)
    path = viz.html(system, tmp_path / "still.html", show_cs=True)
    page = Page(browser, path)
    try:
        assert page.errors == []
        assert page.page.is_disabled("#play") and not page.page.is_visible("#plot")
        segments = page.page.evaluate(
            "window.mbdViewer.scene.getObjectByName('body:rod0').children"
            ".filter((o) => o.isLineSegments && o.material.vertexColors)"
            ".map((o) => o.geometry.attributes.position.count / 2)")
        # rod0's CSs: a, b and its cg: three triads of three segments
        assert sorted(segments) == [3] * len(system.bodies["rod0"].body.frames)
        state = system.initial_state()
        from mbd.compiled import dynamics
        R, p = dynamics.link_poses(system, state.q)
        for name, bm in system.bodies.items():
            np.testing.assert_allclose(page.body_matrix(name)[:3, 3], p[bm.link], atol=TOL)
    finally:
        page.close()


# ------------------------------------------------------------------------------ bad input

def test_a_result_with_no_rows_and_a_missing_folder_are_named(tmp_path):
    result = chain(2).simulate(0.1, output_step=0.01)
    s = result.system
    empty = result.__class__(s, result.t[:0], np.zeros((0, s.nq + s.nv)))
    with pytest.raises(ValueError, match="the result has no rows"):
        viz.html(empty, tmp_path / "empty.html")
    missing = tmp_path / "nowhere" / "run.html"
    with pytest.raises(ValueError, match=f"the folder '{tmp_path / 'nowhere'}' of .* does not "
                                         "exist"):
        viz.html(result, missing)
    with pytest.raises(ValueError, match=r"no signal 'hinge9.q'; give a force element \(\[\]\), a "
                                         r"joint coordinate \(\['hinge0.q', 'hinge1.q'\] ...\)"):
        viz.html(result, tmp_path / "run.html", signals=["hinge9.q"])
    with pytest.raises(ValueError, match="give a Result or a System, got str"):
        viz.html("run", tmp_path / "run.html")
    assert sorted(os.listdir(tmp_path)) == []


def test_the_page_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    result = chain(2).simulate(0.1, output_step=0.01)
    path = tmp_path / "run.html"
    path.write_text("the old page")
    import viz.webpage

    def broken(contents):
        raise OSError("disk full")
    monkeypatch.setattr(viz.webpage, "_page", broken)
    with pytest.raises(OSError, match="disk full"):
        viz.html(result, path)
    assert path.read_text() == "the old page" and os.listdir(tmp_path) == ["run.html"]
    # a failure while writing the file: the old page stays, no temporary file is left
    monkeypatch.undo()
    real_open = open

    def failing_open(file, mode="r", *args, **kw):
        handle = real_open(file, mode, *args, **kw)
        if "w" in mode and str(file).endswith("run.html"):
            handle.close()
            raise OSError("no space left on device")
        return handle
    monkeypatch.setattr("builtins.open", failing_open)
    with pytest.raises(OSError, match="no space left"):
        viz.html(result, path)
    monkeypatch.undo()
    assert path.read_text() == "the old page" and os.listdir(tmp_path) == ["run.html"]


def test_the_notebook_view_is_the_same_page_inline(tmp_path):
    result = chain(2).simulate(0.1, output_step=0.01)
    page = viz.html(result, tmp_path / "run.html")
    inline = viz.notebook(result, height=500)._repr_html_()
    assert inline.startswith('<iframe srcdoc="') and "height: 500px" in inline
    srcdoc = inline[len('<iframe srcdoc="'):inline.index('" style=')]
    with open(page, encoding="utf-8") as fh:
        assert html_text.unescape(srcdoc) == fh.read()


def test_mbd_run_html_writes_the_page_beside_the_results(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "mbd", "run",
                           os.path.join(EXAMPLES, "pendulum.py"), "--t-end", "0.5", "--html",
                           "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    page = out / "pendulum.html"
    assert f"web page: {page}" in done.stdout
    text = page.read_text(encoding="utf-8")
    assert '<script type="importmap">' in text and "http://" not in text.split("<body>")[1]
