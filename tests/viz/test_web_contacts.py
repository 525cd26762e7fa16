"""The web page's contact points (``viz.html(contacts=True)``, SPEC §12): a ball dropped on a
Plane (:func:`tests.viz.test_contact_drawing.drop`, touching from t = 0.143 s to 0.177 s).

- the page's data: the point and its force at every row, NaN before the contact begins, the
  contact view's point and the force on the ball from the row of the event on, the arrows'
  scale the GIF's (the run's largest force a quarter of the drawing's size); without
  ``contacts`` no contact data at all;
- in headless Chromium (as ``test_web.py``): no red near the projected contact point before
  the ball lands, red there and up along the force on the ball while it presses on the
  Plane, none again once the "contacts" box is unticked; a page without ``contacts`` has no
  contact marks and no box;
- ``mbd run --html --contacts`` passes ``contacts=True`` to the page.
"""
import numpy as np
import pytest
from playwright.sync_api import sync_playwright

import viz
from mbd import cli
from tests.viz.test_contact_drawing import contact_span, drop, red
from tests.viz.test_web import Page, _chromium
from tests.viz.test_web_data import decode, page_data
from viz.actors import CONTACT_ARROW
from viz.elements import contact_rows


@pytest.fixture(scope="module")
def result():
    return drop()


@pytest.fixture(scope="module")
def pages(result, tmp_path_factory):
    folder = tmp_path_factory.mktemp("web-contacts")
    return (viz.html(result, folder / "drop.html", contacts=True),
            viz.html(result, folder / "plain.html"))


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
        yield browser
        browser.close()


def test_the_page_holds_the_point_and_its_force_from_the_frame_of_contact_on(result, pages):
    t0, t1 = contact_span(result)
    data = page_data(pages[0])["contacts"]
    [fe] = [fe for fe in result.system.force_elements if fe.placement == "contact"]
    assert data["names"] == [fe.name]
    n = len(result.t)
    points = decode(data["points"], "<f4", 3).reshape(n, 1, 3)[:, 0]
    forces = decode(data["forces"], "<f4", 3).reshape(n, 1, 3)[:, 0]
    before = result.t < t0
    first = int(np.argmax(~before))                 # the row of the event
    assert result.t[first] == pytest.approx(t0)
    assert np.isnan(points[before]).all() and np.isnan(forces[before]).all()
    inside = (result.t >= t0) & (result.t < t1)
    assert np.isfinite(points[inside]).all() and np.isfinite(forces[first]).all()
    assert np.isnan(points[result.t > t1 + 1e-9]).all()
    # where the contact view puts it (under the ball, on the Plane), the force on the ball up
    view = result.contact("bounce")
    np.testing.assert_allclose(points[inside], view.point[inside, 0], atol=1e-3)
    assert np.abs(points[inside, :2]).max() < 1e-6 and np.abs(points[inside, 2]).max() < 0.01
    p, f, touching = contact_rows(result, fe)
    np.testing.assert_allclose(forces[touching], f[touching], rtol=1e-6, atol=1e-6)
    assert (forces[inside, 2] >= 0.0).all() and forces[inside, 2].max() > 100.0
    # the largest force's arrow: a quarter of the drawing's size
    largest = np.nanmax(np.linalg.norm(forces, axis=1))
    length = page_data(pages[0])["length"]
    assert largest * data["scale"] == pytest.approx(CONTACT_ARROW * length, rel=1e-6)


def test_without_contacts_the_page_has_no_contact_data(pages):
    assert "contacts" not in page_data(pages[1])


def screen(page, xyz):
    """(column, row) of the canvas where the page's camera draws world point ``xyz``."""
    x, y = page.page.evaluate(
        "(() => { const v = new window.mbdViewer.camera.position.constructor("
        + ", ".join(repr(float(c)) for c in xyz)
        + ").project(window.mbdViewer.camera); const c = window.mbdViewer.renderer"
        ".domElement; return [(v.x + 1) / 2 * c.clientWidth, (1 - v.y) / 2 * c.clientHeight];"
        " })()")
    return int(round(x)), int(round(y))


def red_near(picture, at, r=4):
    c, w = at
    return red(picture[w - r:w + r + 1, c - r:c + r + 1]).any()


def test_a_frame_in_contact_shows_the_point_and_the_force_in_red(result, pages, browser):
    t0, t1 = contact_span(result)
    t_in = 0.5 * (t0 + t1)
    page = Page(browser, pages[0])
    try:
        assert page.errors == []
        point, above = screen(page, (0, 0, 0)), screen(page, (0, 0, 0.15))
        page.set_time(0.5 * t0)
        flying = page.picture()
        page.set_time(t_in)
        pressing = page.picture()
        names = page.page.evaluate(
            "window.mbdViewer.scene.getObjectByName('contacts').children"
            ".filter((o) => o.visible).map((o) => o.name)")
        assert sorted(names) == ["contact force:bounce: point", "contact point:bounce: point"]
        assert "contact points, forces" in page.page.inner_text("#legend")
        # the box on the time bar hides them
        page.page.uncheck("#contacts")
        page.page.evaluate("window.mbdViewer.render()")
        hidden = page.picture()
        assert page.errors == []
    finally:
        page.close()
    assert not red_near(flying, point) and not red_near(flying, above)
    assert red_near(pressing, point)            # the ball, under the blue ball: drawn over it
    assert red_near(pressing, above)            # the arrow, up through the ball along +z
    assert not red_near(hidden, point) and not red_near(hidden, above)


def test_a_page_without_contacts_draws_none(result, pages, browser):
    t0, t1 = contact_span(result)
    page = Page(browser, pages[1])
    try:
        assert page.errors == []
        page.set_time(0.5 * (t0 + t1))
        assert page.page.evaluate("window.mbdViewer.scene.getObjectByName('contacts')") is None
        assert page.page.locator("#contacts").count() == 0
        assert not red(page.picture()).any()
    finally:
        page.close()


def test_mbd_run_html_contacts_passes_contacts_to_the_page(tmp_path, monkeypatch, drop_script):
    import viz.webpage
    written = []
    monkeypatch.setattr(viz.webpage, "html",
                        lambda result, path, **options: written.append(options) or
                        open(path, "w").close())
    script = drop_script
    out = tmp_path / "out"
    args = ["run", str(script), "--out", str(out), "--t-end", "0.2", "--html"]
    assert cli.main(args + ["--contacts"]) == 0
    assert cli.main(args) == 0
    assert written == [{"contacts": True}, {}]
