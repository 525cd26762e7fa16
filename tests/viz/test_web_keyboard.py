"""The web viewer as a person uses it (issue 45), in Debian's chromium through playwright:

- the time bar takes the keyboard: reached with Tab, the arrows step one row of the run (with
  shift ten), Home and End go to the first and the last row; what is checked is the clock's
  text against the result's row times;
- space plays and pauses whichever control has focus: the signal selector, the speed
  selector, the loop box, the play button (once, not twice), the time bar; each control keeps
  its state;
- the plot's readout at a time between rows (a click on the time bar) is the signal
  interpolated there, as the 3-D view is, at the clock's time: checked against numpy's interp
  of the result's own column;
- the first view frames the bodies, not the floor: each body's box (the bounding box of its
  drawing in its group, read from the page's scene graph) at every row of the run, projected
  with the page's camera, lies inside the canvas and reaches viz.webpage.FIT_FILL of its
  width or height (to 1 %); also for a model with a ground far from its bodies, where the
  floor runs off the picture.
"""
import numpy as np
import pytest

import viz
from mbd.cli import demo
from tests.viz.test_web import Page, browser, chain  # noqa: F401  (browser: a fixture)
from viz.webpage import FIT_FILL


@pytest.fixture(scope="module")
def demo_run(browser, tmp_path_factory):  # noqa: F811
    result = demo.build_model().build().simulate(2.0, output_step=0.01)
    path = viz.html(result, tmp_path_factory.mktemp("web") / "demo.html")
    page = Page(browser, path)
    yield result, page
    page.close()


def clock(page):
    return page.page.inner_text("#clock")


def shown(t):
    """The clock's text at time t: a run of 1 s or more to the ms."""
    return f"t = {t:.3f} s"


def focus_by_tab(page, element_id):
    """Press Tab from the top of the page until ``element_id`` has focus (as a person would
    reach it without a mouse)."""
    page.page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(12):
        page.page.keyboard.press("Tab")
        if page.page.evaluate("document.activeElement.id") == element_id:
            return
    raise AssertionError(f"Tab never reached #{element_id}")


def test_the_time_bar_steps_rows_with_the_arrows_and_jumps_with_home_and_end(demo_run):
    result, page = demo_run
    t = result.t
    focus_by_tab(page, "track")
    keys = page.page.keyboard
    keys.press("End")
    assert page.time() == t[-1] and clock(page) == shown(t[-1])
    keys.press("Home")
    assert page.time() == t[0] and clock(page) == shown(t[0])
    keys.press("ArrowRight")
    assert page.time() == t[1] and clock(page) == shown(t[1])
    keys.press("Shift+ArrowRight")
    assert page.time() == t[11] and clock(page) == shown(t[11])
    keys.press("ArrowLeft")
    assert page.time() == t[10]
    keys.press("Shift+ArrowLeft")
    keys.press("Shift+ArrowLeft")               # stops at the first row
    assert page.time() == t[0]
    keys.press("End")
    keys.press("ArrowRight")                    # and at the last
    assert page.time() == t[-1]
    # from between two rows: right goes to the next row, left to the one before
    for key, row in (("ArrowRight", 41), ("ArrowLeft", 40)):
        page.set_time(0.5 * (t[40] + t[41]))
        focus_by_tab(page, "track")
        keys.press(key)
        assert page.time() == t[row], key
    # a step while playing pauses there
    page.page.click("#play")
    page.page.wait_for_function(f"window.mbdViewer.time() > {t[0] + 0.05}", timeout=20000)
    focus_by_tab(page, "track")
    keys.press("Home")
    held = page.time()
    page.page.wait_for_timeout(200)
    assert held == t[0] == page.time() and not page.page.evaluate("window.mbdViewer.playing()")


@pytest.mark.parametrize("control", ["signal", "speed", "loop", "play", "track"])
def test_space_plays_and_pauses_whatever_control_has_focus(demo_run, control):
    result, page = demo_run
    page.set_time(result.t[0])
    focus_by_tab(page, control)
    before = page.page.evaluate("[document.getElementById('signal').value, "
                                "document.getElementById('speed').value, "
                                "document.getElementById('loop').checked]")
    page.page.keyboard.press("Space")
    page.page.wait_for_function(f"window.mbdViewer.time() > {result.t[0] + 0.05}",
                                timeout=20000)
    assert page.page.evaluate("window.mbdViewer.playing()")
    page.page.keyboard.press("Space")
    held = page.time()
    page.page.wait_for_timeout(300)
    assert not page.page.evaluate("window.mbdViewer.playing()") and page.time() == held
    # the control did not take the key for itself (a checkbox ticked, a list opened and moved)
    assert page.page.evaluate("document.activeElement.id") == control
    assert page.page.evaluate("[document.getElementById('signal').value, "
                              "document.getElementById('speed').value, "
                              "document.getElementById('loop').checked]") == before


def test_the_readout_is_the_interpolated_value_at_the_clocks_time(demo_run):
    """A click on the time bar midway between two rows (away from the event marks, where a
    click goes to the event's instant): the readout gives the signal there, interpolated as
    the 3-D view interpolates the bodies, at the time the clock shows."""
    result, page = demo_run
    t = result.t
    joint = next(iter(result.system.joints))
    q = result.joint(joint).q
    q = q[:, 0] if q.ndim == 2 else q
    options = page.page.locator("#signal option").all_inner_texts()
    page.page.select_option("#signal", str(next(k for k, o in enumerate(options)
                                                if o.startswith(f"{joint}.q"))))
    events = np.array([e.t for e in result.events])
    moving = [i for i in range(len(t) - 1) if np.abs(events - t[i]).min() > 0.02
              and np.abs(events - t[i + 1]).min() > 0.02 and abs(q[i + 1] - q[i]) > 1e-3]
    box = page.page.locator("#track").bounding_box()
    checked = 0
    for i in [moving[k] for k in np.linspace(0, len(moving) - 1, 6).astype(int)]:
        middle = 0.5 * (t[i] + t[i + 1])
        page.page.mouse.click(box["x"] + (middle - t[0]) / (t[-1] - t[0]) * box["width"],
                              box["y"] + box["height"] / 2)
        now = page.time()
        w = (now - t[i]) / (t[i + 1] - t[i])
        assert 0.1 < w < 0.9, (now, t[i], t[i + 1])     # between the rows (a pixel is 3 ms)
        value, rest = page.page.inner_text("#value").split(" ", 1)
        assert rest.endswith(f" at {clock(page)}"), rest       # the clock's time
        expected = np.interp(now, t, q)
        # as shown, to 6 significant digits
        assert float(value) == pytest.approx(expected, rel=1e-5, abs=1e-9)
        # and not the row at or before the time (the joint moved > 1e-3 rad or m between)
        assert float(value) != pytest.approx(q[i], rel=1e-5, abs=1e-9)
        checked += 1
    assert checked == 6


def framing(page, result):
    """(smallest, largest) NDC x and y (each in [-1, 1] on the canvas) of the corners of each
    body's box (the bounding box of its drawing in its group's frame) at every row of the
    run, as the page's camera projects them."""
    rows = [float(t) for t in result.t]
    return np.array(page.page.evaluate("""(rows) => {
        const v = window.mbdViewer, out = [Infinity, Infinity, -Infinity, -Infinity];
        const groups = v.scene.children.filter((o) => o.name.startsWith('body:'));
        const boxes = groups.map((g) => {
            const box = new g.position.constructor(Infinity, Infinity, Infinity);
            const lo = box.clone(), hi = box.clone().negate();
            for (const o of g.children) {
                o.geometry.computeBoundingBox();
                lo.min(o.geometry.boundingBox.min); hi.max(o.geometry.boundingBox.max);
            }
            return [lo, hi];
        });
        for (const t of rows) {
            v.setTime(t);
            groups.forEach((g, k) => {
                const [lo, hi] = boxes[k];
                for (let c = 0; c < 8; c++) {
                    const p = new g.position.constructor(c & 1 ? hi.x : lo.x,
                        c & 2 ? hi.y : lo.y, c & 4 ? hi.z : lo.z);
                    p.applyMatrix4(g.matrixWorld).project(v.camera);
                    out[0] = Math.min(out[0], p.x); out[1] = Math.min(out[1], p.y);
                    out[2] = Math.max(out[2], p.x); out[3] = Math.max(out[3], p.y);
                }
            });
        }
        return out;
    }""", rows)).reshape(2, 2)


def assert_framed(page, result):
    (x0, y0), (x1, y1) = framing(page, result)
    # inside the canvas, the limiting side at FIT_FILL (float32 corners: 1 %)
    reach = max(abs(x0), abs(x1), abs(y0), abs(y1))
    assert reach == pytest.approx(FIT_FILL, rel=0.01)
    # and the extent spans most of the width or the height (perspective may pull the far
    # side in a little from FIT_FILL: at least 80 % of it)
    assert max(x1 - x0, y1 - y0) / 2 >= 0.8 * FIT_FILL


def test_the_first_view_frames_the_bodies_over_the_run(demo_run):
    result, page = demo_run
    assert_framed(page, result)


def test_a_far_ground_does_not_shrink_the_bodies(browser, tmp_path):  # noqa: F811
    """A chain of three rods by the origin and a ground (a cube drawn) 30 m away: the floor
    spans both, the first view the rods."""
    result = chain(3, far_ground=True).simulate(1.0, output_step=0.01)
    page = Page(browser, viz.html(result, tmp_path / "far.html"))
    try:
        assert page.errors == []
        assert_framed(page, result)
    finally:
        page.close()


def test_a_system_page_frames_its_bodies(browser, tmp_path):  # noqa: F811
    system = chain(4)
    page = Page(browser, viz.html(system, tmp_path / "still.html"))
    try:
        class Still:
            t = np.zeros(1)
        assert_framed(page, Still())
    finally:
        page.close()
