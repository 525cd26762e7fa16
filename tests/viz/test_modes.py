"""viz.animate_mode: a mode of a linear model moving about its operating state. The frames
follow the mode's motion exactly (its independent coordinates, the loops closed in every
frame), the default amplitude is ~0.1 rad or ~5 % of the length scale, the drawn body moves,
modes without a period are shown too, and the file is written whole or not at all."""
import os

import numpy as np
import pytest
from PIL import Image

import mbd
import viz
from forces import JointForce, SpringDamper
from joints import Prismatic, Revolute
from mbd.compiled import assembly
from mbd.run.evaluator import Evaluator
from viz import modes as vmodes
from viz.render import RenderError
from viz.scene import Scene
from viz.shapes import Box

SIZE = (160, 120)
G = 9.81


def pendulum(inverted=False):
    """A 1 m pendulum about y with a red cube for a bob: hanging (or drawn upright)."""
    m = mbd.Model("pendulum")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -G)))
    z = 1.0 if inverted else -1.0
    bob = m.add_body("bob", mass=1.0, cg=(0, 0, z), inertia=[1e-3] * 3, cs={"pivot": (0, 0, 0)})
    bob.add_shape(Box((0.2, 0.2, 0.2), color=(1.0, 0.0, 0.0)), cs="cg")
    m.add(Revolute("hinge", g, bob["pivot"], axis=(0, 1, 0)))
    return m.build()


def fourbar():
    """A four-bar (revolutes about y) held by a torsional spring-damper on the crank."""
    m = mbd.Model("fourbar")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -G)))
    m.add_ground("g2", at=(1.0, 0, 0))
    a, b, c, d = (np.array(p, float) for p in ((0, 0, 0), (0, 0, 0.5), (1, 0, 0.7), (1, 0, 0)))
    crank = m.add_body("crank", 1.0, (a + b) / 2, [0.02, 0.02, 1e-3], cs={"a": a, "b": b})
    coupler = m.add_body("coupler", 1.0, (b + c) / 2, [1e-3, 0.09, 0.09], cs={"b": b, "c": c})
    rocker = m.add_body("rocker", 1.0, (c + d) / 2, [0.04, 0.04, 1e-3], cs={"c": c, "d": d})
    y = (0, 1, 0)
    hinge = m.add(Revolute("hinge", g, crank["a"], axis=y))
    m.add(Revolute("pin1", crank["b"], coupler["b"], axis=y))
    m.add(Revolute("pin2", coupler["c"], rocker["c"], axis=y))
    m.add(Revolute("pin3", rocker["d"], m.grounds[1], axis=y))
    m.add(JointForce("spring", hinge, SpringDamper(c=40.0, d=0.2)))
    return m.build()


def gif_frames(path):
    with Image.open(path) as im:
        frames = []
        for k in range(im.n_frames):
            im.seek(k)
            frames.append(np.asarray(im.convert("RGB")).astype(int))
    return frames


def red_centroid(img):
    red = (img[..., 0] > 200) & (img[..., 1] < 60) & (img[..., 2] < 60)
    rows, cols = np.nonzero(red)
    assert rows.size > 0
    return np.array([cols.mean(), rows.mean()])


def test_the_frames_are_the_mode_and_the_bob_moves(tmp_path):
    system = pendulum()
    eq = mbd.equilibrium(system)
    mode, = eq.linear.modes()
    omega = 2 * np.pi * mode.damped_frequency
    assert omega == pytest.approx(np.sqrt(G / 1.0), rel=1e-3)       # a near point mass
    result, _, amplitude = vmodes.mode_frames(eq.linear, 0, cycles=1, fps=8)
    # the default: the (only) coordinate, a rotation, swings 0.1 rad
    assert amplitude == pytest.approx(0.1)
    period = 2 * np.pi / omega
    np.testing.assert_allclose(result.t, np.arange(8) * period / 8, rtol=1e-12)
    np.testing.assert_allclose(result.joint("hinge").q, 0.1 * np.cos(omega * result.t),
                               atol=1e-14)
    path = tmp_path / "mode.gif"
    n = viz.animate_mode(eq.linear, 0, path, cycles=1, fps=8, size=SIZE, lighting=False,
                         progress=False)
    frames = gif_frames(path)
    assert n == len(frames) == 8
    # half a period apart the bob is on the other side: +-0.1 m of a ~1.2 m picture
    moved = red_centroid(frames[4]) - red_centroid(frames[0])
    assert abs(moved[0]) > 8
    assert not list(tmp_path.glob(".tmp-*"))


def test_a_loop_stays_closed_in_every_frame():
    system = fourbar()
    eq = mbd.equilibrium(system)
    linear = eq.linear
    mode, = linear.modes()
    result, _, amplitude = vmodes.mode_frames(linear, 0, cycles=1, fps=12)
    assert amplitude == pytest.approx(0.1 / max(abs(s) for s in mode.shape.values()))
    dq = np.array([assembly.difference(system.tree, system.nv, q, eq.state.q)
                   for q in result.q])
    for q, v in zip(result.q, result.v):
        assert Evaluator(system).residuals(0.0, q, v)[0] < 1e-12
    # the independent coordinate follows the mode exactly, the others to first order
    i = linear.independent[0]
    omega = 2 * np.pi * mode.damped_frequency
    z = amplitude * (mode.shape[linear.coordinates[i]] * np.exp(1j * omega * result.t)).real
    np.testing.assert_allclose(dq[:, i], z, atol=1e-13)
    np.testing.assert_allclose(dq, np.outer(z, linear.T[:, 0]), atol=0.05 * amplitude)
    assert np.abs(dq).max() == pytest.approx(0.1, rel=0.05)    # the largest ~0.1 rad


def test_a_neutral_and_a_growing_mode_swing_their_real_shape(tmp_path):
    # a slider across gravity: nothing holds it and nothing pushes it, lambda = 0
    m = mbd.Model("free_slider")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -G)))
    # a CS 2 m out on the body: the drawing is 2 m across (a lone ground would not count)
    body = m.add_body("body", 1.0, (0, 0, 0), [0.01] * 3, cs={"tip": (2.0, 0, 0)})
    m.add(Prismatic("rail", g, body["cg"], axis=(1, 0, 0)))
    linear = mbd.equilibrium(m.build()).linear
    assert [mo.kind for mo in linear.modes()] == ["neutral"]      # one free direction
    result, _, amplitude = vmodes.mode_frames(linear, 0, cycles=1, fps=8)
    assert amplitude == pytest.approx(0.05 * 2.0)     # 5 % of the length scale, m
    t = np.arange(8) / 8
    np.testing.assert_allclose(result.t, t)
    np.testing.assert_allclose(result.joint("rail").q, 0.1 * np.sin(2 * np.pi * t), atol=1e-14)
    assert viz.animate_mode(linear, 0, tmp_path / "neutral.gif", cycles=1, fps=4, size=SIZE,
                            progress=False) == 4
    # the inverted pendulum, linearized upright: lambda = +-sqrt(g / l)
    system = pendulum(inverted=True)
    up = mbd.linearize(system, mbd.State(0.0, np.zeros(system.nq), np.zeros(system.nv)))
    assert [mo.kind for mo in up.modes()] == ["growing", "decaying"]
    k = [mo.kind for mo in up.modes()].index("growing")
    growing = up.modes()[k]
    assert growing.growth_rate == pytest.approx(np.sqrt(G), rel=1e-3)
    path = tmp_path / "growing.gif"
    assert viz.animate_mode(up, k, path, cycles=1, fps=8, size=SIZE, lighting=False,
                            progress=False) == 8
    frames = gif_frames(path)
    assert abs(red_centroid(frames[2]) - red_centroid(frames[6]))[0] > 8
    title, subtitle = vmodes.mode_title(up, k, growing)
    assert title == f"pendulum: mode {k + 1} of 2"
    assert "growing" in subtitle and f"growth rate {growing.growth_rate:.3g} 1/s" in subtitle


def test_the_title_names_frequency_damping_and_kind(monkeypatch):
    eq = mbd.equilibrium(fourbar())
    mode, = eq.linear.modes()
    seen = {}

    def fake(result, path, fps, speed, size, camera, progress, loop, options):
        seen.update(options, rows=len(result.t), fps=fps, speed=speed, loop=loop)
        return len(result.t)
    monkeypatch.setattr(vmodes, "_animate", fake)     # viz.animate, the frames as a loop
    assert viz.animate_mode(eq.linear, 0, "x.gif", cycles=2, fps=5) == 10
    title, subtitle = seen["title"]
    assert title == "fourbar: mode 1 of 1"
    assert f"{mode.frequency:.4g} Hz" in subtitle and "oscillating" in subtitle
    assert f"damping ratio {mode.damping_ratio:.3g}" in subtitle
    # each cycle plays in a second: speed = one period per second
    assert seen["fps"] == 5 and seen["speed"] == pytest.approx(1 / mode.damped_frequency)
    assert seen["loop"] is True       # each frame held 1 / fps: the GIF loops seamlessly


def test_bad_arguments_are_named():
    linear = mbd.equilibrium(pendulum()).linear
    with pytest.raises(ValueError, match=r"k = 1 is not a mode of 'pendulum': it has 1 mode"):
        vmodes.mode_frames(linear, 1)
    with pytest.raises(TypeError, match="integer"):
        vmodes.mode_frames(linear, 0.0)
    with pytest.raises(ValueError, match="amplitude must be a finite number > 0"):
        vmodes.mode_frames(linear, 0, amplitude=-1.0)
    with pytest.raises(ValueError, match="cycles"):
        vmodes.mode_frames(linear, 0, cycles=0)
    with pytest.raises(ValueError, match=r"\.gif or \.mp4"):
        viz.animate_mode(linear, 0, "mode.png")


def test_a_failure_mid_animation_leaves_the_old_file(tmp_path, monkeypatch):
    linear = mbd.equilibrium(pendulum()).linear
    path = tmp_path / "mode.gif"
    path.write_bytes(b"old")
    calls = []
    original = Scene.screenshot

    def failing(self):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("disk on fire")
        return original(self)
    monkeypatch.setattr(Scene, "screenshot", failing)
    with pytest.raises(RenderError, match="disk on fire"):
        viz.animate_mode(linear, 0, path, cycles=1, fps=8, size=SIZE, progress=False)
    assert os.listdir(tmp_path) == ["mode.gif"] and path.read_bytes() == b"old"
