"""Contact shapes drawn on request (``collisions=True``): a shape attached with
``add_shape(..., contact=True, drawn=False)`` (a robot's collision geometry) is no part of the
picture unless asked, then one see-through orange actor moving with its body, in the scene,
the snapshot, the animation, the web page and ``mbd run --collisions``."""
import numpy as np
import pytest

from mbd import cli
from viz.colors import COLLISION_COLOR, COLLISION_OPACITY
from viz.render import animate, snapshot
from viz.scene import Scene
from viz.webpage import _contents

SIZE = (200, 150)

#: a model script as :func:`model` builds it, for ``mbd run``
SCRIPT = '''
import numpy as np
import mbd
from forces import ElastoGap
from joints import SixDof

T_END, OUTPUT_STEP = 0.05, 0.01


def build_model():
    m = mbd.Model("hull")
    floor = m.add_ground("floor", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    floor.add_shape(mbd.Plane(size=1.0), contact=True)
    b = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 4e-3,
                   cs={"side": (0.05, 0, 0)})
    b.add_shape(mbd.Sphere(0.1, color=(0.1, 0.3, 0.9)))
    b.add_shape(mbd.Box((0.3, 0.3, 0.3)), cs="side", contact=True, drawn=False)
    m.add(SixDof("free", floor, b["cg"], q0=(0, 0, 0.4, 1, 0, 0, 0)))
    m.add(mbd.Contact("touch", floor, b, ElastoGap(c=1e5, d=50.0, n=1.5)))
    return m
'''


def model():
    """A ball drawn as a Sphere whose contact shape is a Box (0.3 m, on its CS "side" 5 cm off
    its CG) drawn only on request, above a floor Plane it touches through a Contact."""
    space = {}
    exec(SCRIPT, space)
    return space["build_model"]()


@pytest.fixture(scope="module")
def result():
    return model().build().simulate(0.05, output_step=0.01)


def orange(img):
    """Where an RGB picture is orange-ish (red well above green, green above blue): the
    see-through box, over the white background or the blue ball."""
    r, g, b = (img[..., k].astype(int) for k in range(3))
    return (r > 150) & (r - g > 40) & (g - b > 40)


def test_a_contact_only_shape_is_in_contact_shapes_not_in_shapes():
    body = next(b for b in model().bodies if b.name == "b")
    assert [type(shape).__name__ for shape, _ in body.shapes] == ["Sphere"]
    assert [(type(shape).__name__, cs.name) for shape, cs in body.contact_shapes] == [
        ("Box", "side")]


def test_collisions_add_one_see_through_orange_actor_moving_with_its_body(result):
    counts, parts = {}, {}
    for collisions in (False, True):
        # no annotations: the legend's "collision shapes" entry is actors of its own
        scene = Scene(result.system, size=SIZE, collisions=collisions, annotations=False)
        try:
            counts[collisions] = len(scene.plotter.actors)
            parts[collisions] = list(scene.parts)
            if collisions:
                assert len(scene.collision_actors) == 1
                actor = scene.collision_actors[0]
                assert actor in scene.body_actors["b"]      # moved by the ball's pose
                assert np.allclose(actor.prop.color.float_rgb, COLLISION_COLOR, atol=1 / 255)
                assert actor.prop.opacity == pytest.approx(COLLISION_OPACITY)
                # the box on CS "side": 0.3 m wide, centred 5 cm off the CG, in the link frame
                mesh = [m for a, m, *_ in scene.parts if a is actor][0]
                b = np.array(mesh.bounds).reshape(3, 2)
                assert np.allclose(b.mean(axis=1), [0.05, 0.0, 0.0], atol=1e-9)
                assert np.allclose(np.ptp(b, axis=1), 0.3)
                scene.update(result, t=0.05)
                T = np.asarray(actor.user_matrix)
                q = result.q[-1]
                assert np.allclose(T[:3, 3], q[:3], atol=1e-6)      # the ball's place
            else:
                assert scene.collision_actors == []
        finally:
            scene.close()
    assert counts[True] == counts[False] + 1
    scene = Scene(result.system, size=SIZE, collisions=True)
    try:
        assert "collision shapes" in [text for _, text in scene._legend(None, [])]
    finally:
        scene.close()
    assert len(parts[True]) == len(parts[False]) + 1
    # the Plane, drawn and a contact shape, is drawn once either way
    assert (sum(owner is None for _, _, owner, *_ in parts[True])
            == sum(owner is None for _, _, owner, *_ in parts[False]))


def test_snapshot_and_animation_with_collisions(result, tmp_path):
    plain = snapshot(result, tmp_path / "plain.png", t=0.02, size=SIZE, annotations=False)
    drawn = snapshot(result, tmp_path / "hull.png", t=0.02, size=SIZE, annotations=False,
                     collisions=True)
    assert (tmp_path / "hull.png").stat().st_size > 0
    assert not orange(plain).any()
    assert orange(drawn).mean() > 0.01, orange(drawn).mean()
    system_shot = snapshot(result.system, tmp_path / "system.png", size=SIZE, collisions=True)
    assert orange(system_shot).any()
    n = animate(result, tmp_path / "hull.gif", fps=40, size=SIZE, collisions=True,
                progress=False)
    assert n >= 2 and (tmp_path / "hull.gif").stat().st_size > 0


def test_the_web_page_holds_the_collision_shape(result):
    def opacities(collisions):
        page = _contents(result.system, result, None, False, None, None,
                         collisions=collisions)
        body = next(b for b in page["bodies"] if b["name"] == "b")
        return [part["opacity"] for part in body["parts"]], body["parts"]
    plain, _ = opacities(False)
    hull, parts = opacities(True)
    assert len(hull) == len(plain) + 1
    see_through = [part for part in parts if part["opacity"] < 1.0]
    assert len(see_through) == 1
    assert see_through[0]["opacity"] == pytest.approx(COLLISION_OPACITY)
    assert np.allclose(see_through[0]["color"], COLLISION_COLOR, atol=1 / 255)


def test_mbd_run_collisions_passes_the_option(tmp_path, monkeypatch):
    import viz.render
    import viz.webpage
    drawn, pages = [], []
    monkeypatch.setattr(viz.render, "animate",
                        lambda result, path, **options: drawn.append(options) or
                        open(path, "wb").close())
    monkeypatch.setattr(viz.webpage, "html",
                        lambda result, path, **options: pages.append(options) or
                        open(path, "w").close())
    script = tmp_path / "hull.py"
    script.write_text(SCRIPT)
    out = tmp_path / "out"
    args = ["run", str(script), "--out", str(out), "--animate", "--html"]
    assert cli.main(args + ["--collisions"]) == 0
    assert drawn[0]["collisions"] is True and pages[0]["collisions"] is True
    assert "contacts" not in drawn[0]
    assert cli.main(args) == 0
    assert "collisions" not in drawn[1] and "collisions" not in pages[1]
