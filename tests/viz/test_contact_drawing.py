"""Spatial contact in pictures (SPEC §12): a Plane is drawn (scene, snapshot, web page), a
contact point draws nothing of its own unless asked, ``contacts=True`` draws each touching
point and its force in red over everything, and the plot's event strip shades the contact
intervals."""
import base64

import numpy as np
import pytest
from PIL import Image

import mbd
from forces import ElastoGap
from joints import SixDof
from viz import eventstrip, plots
from viz.colors import CONTACT_COLOR, PLANE_COLOR
from viz.render import animate, frame_times, snapshot
from viz.scene import Scene
from viz.shapes import Plane, Sphere, surface
from viz.webpage import _contents

SIZE = (200, 150)


def drop(shape=None, height=0.2, t_end=0.25):
    """A ball (radius 0.1 m; or ``shape``) dropped from ``height`` (m, its CG) onto a Plane
    at z = 0: it touches at t = sqrt(2 (height - 0.1) / g) = 0.143 s for the ball."""
    m = mbd.Model("drop")
    g = m.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    g.add_shape(Plane(size=1.0), contact=True)
    b = m.add_body("ball", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 4e-3)
    b.add_shape(shape if shape is not None else Sphere(0.1, color=(0.1, 0.3, 0.9)),
                contact=True)
    m.add(SixDof("free", g, b["cg"], q0=(0, 0, height, 1, 0, 0, 0)))
    m.add(mbd.Contact("bounce", g, b, ElastoGap(c=1e5, d=50.0, n=1.5)))
    return m.build().simulate(t_end, output_step=0.01)


@pytest.fixture(scope="module")
def result():
    return drop()


def red(img):
    """Where an RGB picture is the contact colour (pure red: nothing else in these scenes)."""
    return (img[..., 0] > 200) & (img[..., 1] < 60) & (img[..., 2] < 60)


def contact_span(result):
    begins = [e.t for e in result.events if e.what == "contact begins"]
    ends = [e.t for e in result.events if e.what == "contact ends"]
    return begins[0], (ends[0] if ends else float(result.t[-1]))


def test_a_plane_is_a_square_in_its_cs_x_y_plane():
    b = np.array(surface(Plane(size=3.0)).bounds)
    assert np.allclose(b, [-1.5, 1.5, -1.5, 1.5, 0.0, 0.0])
    assert np.allclose(Plane(size=0.5).polydata().bounds, [-0.25, 0.25, -0.25, 0.25, 0, 0])


def test_a_plane_is_drawn_where_it_lies(tmp_path):
    """A red Plane on a ground moved off the origin: the picture is red at its projected
    centre and around it, and not at the picture's corners (the background)."""
    m = mbd.Model("floor")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    wall = m.add_ground("wall", at=(0.3, 0.2, 0.1))
    wall.add_shape(Plane(size=1.0, color=(1.0, 0.0, 0.0)))
    b = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=[1e-2] * 3)
    m.add(SixDof("free", g, b["cg"]))
    system = m.build()
    img = snapshot(system, tmp_path / "plane.png", size=SIZE, annotations=False, floor=False)
    mask = red(img)
    assert mask.mean() > 0.05, mask.mean()
    assert not mask[0, 0] and not mask[-1, -1]
    scene = Scene(system, size=SIZE, annotations=False, floor=False)
    try:
        q = system.initial_state().q
        scene.set_state(q)
        scene.fit(None, q=q)
        col, row = np.round(scene.project([(0.3, 0.2, 0.1)])[0]).astype(int)
        assert red(scene.screenshot())[row - 2:row + 3, col - 2:col + 3].all()
    finally:
        scene.close()


def test_a_plane_without_a_colour_is_light_and_goes_into_the_web_page(result):
    scene = Scene(result.system, size=SIZE)
    try:
        planes = [color for _, mesh, owner, color, _ in scene.parts
                  if owner is None and np.ptp(np.array(mesh.bounds).reshape(3, 2)[2]) == 0.0]
        assert planes == [PLANE_COLOR]
        assert not scene.contact_marks        # nothing drawn for the points unless asked
        assert [fe.placement for fe in scene.contact_points] == ["contact"]
        assert scene.overlay.labels == {} or not scene.overlay.labels   # and no label
    finally:
        scene.close()
    page = _contents(result.system, result, None, False, None, None)
    flat = []
    for part in page["static"]:
        xyz = np.frombuffer(base64.b64decode(part["positions"]), "<f4").reshape(-1, 3)
        if np.ptp(xyz[:, 2]) == 0.0:
            flat.append((xyz.min(axis=0), xyz.max(axis=0), part["color"]))
    assert len(flat) == 1
    lo, hi, color = flat[0]
    assert np.allclose(lo, [-0.5, -0.5, 0.0]) and np.allclose(hi, [0.5, 0.5, 0.0])
    assert np.allclose(color, PLANE_COLOR)


def test_contacts_true_draws_the_touching_point_and_its_force(result):
    """Before the ball lands no red; while it presses on the plane red at the contact point
    (under the ball: drawn over it) and above it along the force on the ball (+z); without
    ``contacts`` no red at all."""
    t0, t1 = contact_span(result)
    t_in = 0.5 * (t0 + t1)
    shots = {}
    for contacts in (True, False):
        scene = Scene(result.system, size=(320, 240), contacts=contacts, annotations=False,
                      floor=False)
        try:
            scene.fit(result)
            for t in (0.0, t_in):
                scene.update(result, t=t)
                shots[contacts, t] = scene.screenshot()
            point = scene.project([(0.0, 0.0, 0.0), (0.0, 0.0, 0.15)]) if contacts else None
            if contacts:
                marks = scene.contact_marks["arrows"][1]
                top = np.array(marks.bounds)[5]
        finally:
            scene.close()
        if contacts:
            (c0, r0), (c1, r1) = np.round(point).astype(int)
    assert not red(shots[True, 0.0]).any()
    assert not red(shots[False, t_in]).any()
    mask = red(shots[True, t_in])
    assert mask[r0 - 2:r0 + 3, c0 - 2:c0 + 3].any()        # the point, under the ball
    assert mask[r1 - 2:r1 + 3, c1 - 2:c1 + 3].any()        # the arrow, up through it
    # the arrow of the run's largest force is a quarter of the drawing's size long: this
    # one, near the largest, reaches above the ball's top
    assert top > 0.15


def test_contacts_arrows_follow_each_point_of_a_box(tmp_path):
    """A box dropped flat touches on its 4 lowest corners: 4 balls, 4 arrows, each at a
    corner; the animation with ``contacts=True`` is written and shows red only once it
    touches."""
    result = drop(mbd.Box((0.2, 0.2, 0.2), color=(0.1, 0.3, 0.9)), height=0.15, t_end=0.15)
    t0, t1 = contact_span(result)
    scene = Scene(result.system, size=SIZE, contacts=True)
    try:
        scene.fit(result)
        scene.update(result, t=min(t0 + 0.02, t1))
        dots = scene.contact_marks["dots"][1]
        assert scene.contact_marks["dots"][0].visibility
        xy = np.asarray(dots.points)[:, :2]
        assert len(np.unique(np.sign(xy), axis=0)) == 4     # one ball at each corner
        assert np.abs(xy).max() == pytest.approx(0.1, abs=0.02)   # at +-0.1 m
        assert (CONTACT_COLOR, "contact points, forces") in scene._legend({}, [])
    finally:
        scene.close()
    path = tmp_path / "box.gif"
    # no annotations: the legend's red swatch would be in every frame
    n = animate(result, path, fps=40, size=SIZE, contacts=True, progress=False,
                annotations=False)
    times = frame_times(result, fps=40)     # 0.125 s among them: in contact
    assert n == len(times)
    with Image.open(path) as im:
        frames = []
        for k in range(im.n_frames):
            im.seek(k)
            frames.append(red(np.asarray(im.convert("RGB"))).sum())
    assert frames[0] == 0 and max(frames) > 0


def test_the_event_strip_shades_each_contact(result, tmp_path):
    t0, t1 = contact_span(result)
    rows = eventstrip.event_rows(result)
    [(element, _, spans, _)] = rows
    assert element == "bounce"              # a contact's points in one row, its own
    assert spans == [pytest.approx((t0, t1))]
    fig, axes = plots.plot(result, tmp_path / "drop.png")
    strip = axes[-1]
    assert strip.get_ylabel() == "events"
    shaded = [np.asarray(c.get_paths()[0].vertices) for c in strip.collections
              if len(c.get_paths()) and c.get_alpha() == pytest.approx(0.22)]
    assert len(shaded) == 1
    assert shaded[0][:, 0].min() == pytest.approx(t0) and shaded[0][:, 0].max() == pytest.approx(t1)


def test_a_plot_draws_a_contact_once_and_the_contacts_that_never_touched_not_at_all(
        tmp_path):
    # a box on a floor (8 points, one contact) and a ball far away from everything: one
    # curve and one event row for the box's contact, nothing for the ball's
    import mbd
    from forces import ElastoGap
    from joints import SixDof
    model = mbd.Model("two")
    floor = model.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    floor.add_shape(mbd.Plane(), contact=True)
    box = model.add_body("box", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 0.01)
    box.add_shape(mbd.Box((0.2, 0.2, 0.2)), contact=True)
    ball = model.add_body("ball", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 0.01)
    ball.add_shape(mbd.Sphere(0.1), contact=True)
    model.add(SixDof("free box", floor, box["cg"], q0=(0, 0, 0.15, 1, 0, 0, 0)))
    model.add(SixDof("free ball", floor, ball["cg"], q0=(5, 0, 3.0, 1, 0, 0, 0)))
    law = ElastoGap(c=1e6, d=100.0, n=1.5)
    model.add(mbd.Contact("landing", floor, box, law))
    model.add(mbd.Contact("never", floor, ball, law))     # it falls 3 m: 0.78 s
    result = model.simulate(0.3, output_step=0.01)
    assert [row[0] for row in eventstrip.event_rows(result)] == ["landing"]
    fig, axes = plots.plot(result, tmp_path / "two.png")
    labels = [line.get_label() for ax in axes for line in ax.get_lines()]
    assert "landing.fn (Contact)" in labels
    assert not [label for label in labels if "never" in label or "corner" in label]
