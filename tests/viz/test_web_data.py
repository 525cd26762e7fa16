"""What :func:`viz.html` writes into its page for the paths the browser tests do not walk
(issue 31), read back from the page's JSON block (no browser needed) and checked against the
Result:

- signals chosen by column of the run (a CG coordinate, an energy, a work, a joint's rates
  and its quaternion's components): each the run's values, with its unit (m, J, m/s or
  rad/s by the primitive, 1 for a quaternion's component);
- a coil with an end on a ground: that end at the ground CS on every row, the other at its
  body's CS where the result puts it;
- a body drawn in a mesh file's own colours: the page's triangles carry them, vertex by
  vertex.
"""
import base64
import json

import numpy as np
import pytest

import mbd
import viz
from forces import BodySpringDamper
from joints import SixDof
from tests.viz.test_mesh_files import TET_T, TET_V, write

ANCHOR = np.array([0.0, 0.0, 1.0])
RED, BLUE = (255, 0, 0), (0, 0, 255)


def page_data(path):
    """The JSON block of a page written by viz.html."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    start = text.index('<script type="application/json" id="mbd-data">')
    start = text.index(">", start) + 1
    return json.loads(text[start:text.index("</script>", start)])


def decode(b64, dtype, columns=None):
    values = np.frombuffer(base64.b64decode(b64), dtype=dtype)
    return values if columns is None else values.reshape(-1, columns)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A 1 kg bob free on a SixDof, hung from a ground CS 'anchor' 1 m above by a
    BodySpringDamper, turning about z; drawn in a COLLADA file's colours (a red tetrahedron
    coloured per vertex, a blue one by its material)."""
    folder = tmp_path_factory.mktemp("web")
    dae = write(folder / "bob.dae", [
        dict(name="red", vertices=TET_V * 0.1, triangles=TET_T, vertex_color=(1.0, 0.0, 0.0)),
        dict(name="blue", vertices=TET_V * 0.1 + (0.2, 0.0, 0.0), triangles=TET_T,
             material=(0.0, 0.0, 1.0))])
    m = mbd.Model("web")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    anchor = m.add_ground("anchor", at=ANCHOR)
    bob = m.add_body("bob", mass=1.0, cg=(0, 0, 0), inertia=[0.01] * 3, cs={"o": (0, 0, 0)})
    bob.add_shape(viz.Mesh(dae))
    m.add(SixDof("free", g, bob["o"], v0=[0.3, 0.0, 0.0, (0.0, 0.0, 2.0)]))
    m.add(BodySpringDamper("spring", anchor, bob["o"], k=40.0, b=0.5, r0=0.8))
    result = m.build().simulate(0.3, output_step=0.01)
    return result, folder


SIGNALS = {"bob.cg.z": "m", "kinetic_energy": "J", "spring.work": "J", "free.v0": "m/s",
           "free.v5": "rad/s", "free.q3": "1", "free.q6": "1"}


def test_signals_named_by_column_are_the_run_s_values_with_their_units(run):
    result, folder = run
    data = page_data(viz.html(result, folder / "signals.html", signals=list(SIGNALS)))
    shown = {s["name"]: (s["unit"], decode(s["values"], "<f8")) for s in data["signals"]}
    assert list(shown) == list(SIGNALS)
    assert {name: unit for name, (unit, _) in shown.items()} == SIGNALS
    s = result.system
    i_q, i_v = s.joints["free"].q_index, s.joints["free"].v_index
    expected = {"bob.cg.z": result.body("bob").position()[:, 2],
                "kinetic_energy": result.kinetic_energy(),
                "spring.work": result.work[:, s.force_index["spring"]],
                "free.v0": result.v[:, i_v[0]], "free.v5": result.v[:, i_v[5]],
                "free.q3": result.q[:, i_q[3]], "free.q6": result.q[:, i_q[6]]}
    for name, values in expected.items():
        np.testing.assert_allclose(shown[name][1], values, rtol=1e-12, atol=1e-15)
    # no torque about the CG: the bob turns at 2 rad/s about z, its quaternion
    # (cos t, 0, 0, sin t)
    np.testing.assert_allclose(shown["free.q3"][1], np.cos(result.t), atol=1e-7)
    np.testing.assert_allclose(shown["free.q6"][1], np.sin(result.t), atol=1e-7)
    np.testing.assert_allclose(shown["free.v5"][1], 2.0, atol=1e-9)


def test_a_coil_to_a_ground_is_fixed_there_and_follows_its_body(run):
    result, folder = run
    data = page_data(viz.html(result, folder / "coil.html"))
    [coil] = data["coils"]
    assert coil["name"] == "spring"
    a, b = decode(coil["a"], "<f4", 3), decode(coil["b"], "<f4", 3)
    assert a.shape == b.shape == (len(result.t), 3)
    np.testing.assert_array_equal(a, np.broadcast_to(ANCHOR.astype(np.float32), a.shape))
    np.testing.assert_allclose(b, result.body("bob").position("o"), atol=1e-6)
    assert np.ptp(b[:, 0]) > 0.05                 # it moved, and the page's end with it


def test_a_mesh_in_its_file_s_colours_carries_them_to_the_page(run):
    result, folder = run
    data = page_data(viz.html(result, folder / "colours.html"))
    [body] = data["bodies"]
    coloured = [p for p in body["parts"] if p["kind"] == "mesh" and "colors" in p]
    [part] = coloured
    assert "color" not in part
    colours = decode(part["colors"], "u1", 3)
    positions = decode(part["positions"], "<f4", 3)
    assert len(colours) == len(positions)
    assert {tuple(c) for c in colours} == {RED, BLUE}
    # the red tetrahedron spans x in [0, 0.1] of its CS, the blue one [0.2, 0.3]
    x = positions[:, 0] - positions[:, 0].min()
    red = np.all(colours == RED, axis=1)
    assert x[red].max() == pytest.approx(0.1, abs=1e-6)
    assert x[~red].min() == pytest.approx(0.2, abs=1e-6)
