"""URDF import (:func:`mbd.from_urdf`, SPEC §10) on the paths test_urdf.py does not
walk, without Pinocchio: the references are poses composed here from the file's ``xyz``/``rpy``
with scipy's rotations, the principal moments of the inertia the file gives, and the same
robot with its elements renamed (names do not change the dynamics).

- a joint or a link named ``cg`` (the name of every body's CG CS): the joint's CS on the body
  is ``cg_joint`` at the joint frame, a link ``cg``'s frame is the body's CS ``cg``, and the
  mass matrix is the renamed robot's (such a joint was put at the child's CG, and build()
  refused it);
- a link named as a joint when ``LINK_link`` is taken, a mesh given as ``file://``, a
  prismatic joint locked off its zero, an inertia a hair below zero (an exported zero);
- bad input named: no yourdfpy, a bad ``limits``, no file, not XML, not a ``<robot>``, no
  ``<link>``, what yourdfpy cannot read, a joint to no link, two roots, links no joint
  reaches, an axis of no direction, a negative mass, a NaN inertia, links fixed together
  whose sum no rigid body has.
"""
import re
import sys

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mbd
import viz
from mbd.compiled import dynamics

from .urdf_text import _inertial, _joint, _link, _urdf


def pose(xyz, rpy):
    """The 4x4 pose of a URDF ``<origin>``: R = Rz(yaw) Ry(pitch) Rx(roll), fixed axes."""
    T = np.eye(4)
    T[:3, :3] = Rotation.from_euler("xyz", rpy).as_matrix()
    T[:3, 3] = xyz
    return T


XYZ, RPY = (0.1, 0.2, 0.3), (0.3, -0.2, 0.5)      # _joint's origin
TWO = _link("a") + _link("b")


# ------------------------------------------------------------------------ names

@pytest.mark.parametrize("renamed", ["joint", "link"])
def test_a_joint_or_a_link_named_cg(tmp_path, renamed):
    """Named as every body's CG CS: a joint's CS on the body is ``cg_joint`` at the joint
    frame (the CG CS stays at the CG); a link's frame is the body's CS ``cg``. The dynamics
    are those of the robot named otherwise."""
    if renamed == "joint":
        odd = _urdf(tmp_path, TWO + _joint("cg", "continuous", "a", "b"), "odd.urdf")
        body_name, joint_name = "b", "cg"
    else:
        odd = _urdf(tmp_path, _link("a") + _link("cg") + _joint("j", "continuous", "a", "cg"),
                    "odd.urdf")
        body_name, joint_name = "cg", "j"
    plain = _urdf(tmp_path, TWO + _joint("j", "continuous", "a", "b"), "plain.urdf")
    model = mbd.from_urdf(odd)
    system, reference = model.build(), mbd.from_urdf(plain).build()
    body = model.bodies[0]
    frame = pose(XYZ, RPY)
    cs = body["cg_joint" if renamed == "joint" else "j"]
    np.testing.assert_allclose(cs.position, frame[:3, 3], atol=1e-15)
    np.testing.assert_allclose(cs.rotation, frame[:3, :3], atol=1e-15)
    if renamed == "joint":              # the CG CS where the CG is
        np.testing.assert_allclose(body["cg"].position, body.cg, atol=1e-15)
    else:                               # the link's frame
        np.testing.assert_allclose(body["cg"].position, frame[:3, 3], atol=1e-15)
    assert list(system.joints) == [joint_name] and list(system.bodies) == [body_name]
    for q in (0.0, 0.4, -2.0):
        np.testing.assert_allclose(dynamics.mass_matrix(system, np.array([q])),
                                   dynamics.mass_matrix(reference, np.array([q])),
                                   rtol=1e-14)


def test_a_link_named_as_a_joint_when_its_link_name_is_taken(tmp_path):
    """Link 'j' (as joint 'j') would be body 'j_link', which link 'j_link' is: 'j_link_'."""
    path = _urdf(tmp_path, _link("a") + _link("j") + _link("j_link")
                 + _joint("j", "continuous", "a", "j") + _joint("k", "continuous", "j", "j_link"))
    model = mbd.from_urdf(path)
    assert [b.name for b in model.bodies] == ["j_link_", "j_link"]
    assert {"j", "k"} <= set(model.bodies[0].frames)        # its frame and joint k's CS
    assert list(model.build().joints) == ["j", "k"]


# ----------------------------------------------------------------- geometry and locks

def test_a_mesh_given_as_a_file_url(tmp_path):
    part = tmp_path / "part.stl"
    part.write_text("solid p\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                    "vertex 0 1 0\nendloop\nendfacet\nendsolid p\n")
    visual = (f'<visual><origin xyz="0 0 0.5"/><geometry><mesh filename="file://{part}" '
              'scale="2 2 2"/></geometry></visual>')
    path = _urdf(tmp_path, _link("a") + _link("b", extra=visual)
                 + _joint("j", "continuous", "a", "b"))
    [(shape, cs)] = mbd.from_urdf(path).bodies[0].shapes
    assert isinstance(shape, viz.Mesh) and shape.path == str(part) and shape.scale == 2.0
    assert cs == "b_visual0"
    gone = path.read_text().replace(str(part), str(tmp_path / "gone.stl"))
    path.write_text(gone)
    with pytest.raises(mbd.ModelError, match=r"URDF link 'b': mesh file 'file://.*/gone.stl' "
                                             r"not found \(looked in \['.*/gone.stl'\]\)$"):
        mbd.from_urdf(path)


def test_a_prismatic_joint_locked_off_its_zero_moves_what_it_carries(tmp_path):
    """Slide p (along the skew axis (1, 2, 2)/3 of its frame) locked at 0.25 m: link b joins
    the fixed base 0.25 m along the axis, so hinge h starts at the ground h_base at b's frame
    times h's origin."""
    limit = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'
    path = _urdf(tmp_path, TWO + _link("c")
                 + _joint("p", "prismatic", "a", "b", axis="1 2 2", extra=limit)
                 + _joint("h", "continuous", "b", "c", xyz="0.4 0 0", rpy="0 0.3 0"))
    model = mbd.from_urdf(path, lock={"p": 0.25})
    slid = np.eye(4)
    slid[:3, 3] = 0.25 * np.array([1.0, 2.0, 2.0]) / 3.0
    want = pose(XYZ, RPY) @ slid @ pose((0.4, 0, 0), (0, 0.3, 0))
    base = {g.name: g for g in model.grounds}["h_base"]
    np.testing.assert_allclose(base.position, want[:3, 3], atol=1e-15)
    np.testing.assert_allclose(base.rotation, want[:3, :3], atol=1e-15)
    assert list(model.build().joints) == ["h"]


def test_an_exported_zero_a_hair_below_zero_is_zero(tmp_path):
    """A principal moment of -1e-16 kg m^2 (within round-off of zero, let by): the body's
    inertia is the file's with it at zero (its other moments kept), which build() takes."""
    inertial = _inertial(1.0, inertia=(0.01, 0.01, -1e-16, 0, 0, 0))
    path = _urdf(tmp_path, _link("a") + _link("b", inertial)
                 + _joint("j", "continuous", "a", "b"))
    body = mbd.from_urdf(path).bodies[0]
    moments = np.linalg.eigvalsh(body.inertia)
    assert abs(moments[0]) < 1e-17                  # unclipped: -1e-16
    np.testing.assert_allclose(moments[1:], [0.01, 0.01], rtol=1e-14)
    assert mbd.from_urdf(path).build().nv == 1


# --------------------------------------------------------------------- bad input, named

def test_without_yourdfpy_the_extra_is_named(tmp_path, monkeypatch):
    """Where yourdfpy is not installed (its import fails, as a None in sys.modules makes it)."""
    monkeypatch.setitem(sys.modules, "yourdfpy", None)
    with pytest.raises(ImportError, match=r"mbd.from_urdf reads URDF with yourdfpy, an "
                                          r"optional extra: pip install 'mbd\[urdf\]'"):
        mbd.from_urdf(_urdf(tmp_path, TWO + _joint("j", "continuous", "a", "b")))


def test_bad_arguments_are_named(tmp_path):
    path = _urdf(tmp_path, TWO + _joint("j", "continuous", "a", "b"))
    with pytest.raises(ValueError, match=r"from_urdf: limits must be 'stops' or 'ignore', got "
                                         "'soft'"):
        mbd.from_urdf(path, limits="soft")
    with pytest.raises(mbd.ModelError, match=r"from_urdf: no URDF file '.*none.urdf'"):
        mbd.from_urdf(tmp_path / "none.urdf")


@pytest.mark.parametrize("text, message", [
    ("<robot name='r'><link name='a'></robot>", r" is not XML: mismatched tag: line 1"),
    ("<sdf version='1.6'><model name='r'/></sdf>",
     r": the root element is <sdf>; a URDF's is <robot>"),
    ("<robot name='r'></robot>", r": robot 'r' has no <link>"),
    ("<robot name='r'>" + TWO + _joint("j", "continuous", "a", "b", xyz="a b c") + "</robot>",
     r" is not a URDF yourdfpy can read: ValueError: could not convert string to float: 'a'"),
], ids=["not XML", "not a robot", "no link", "unreadable origin"])
def test_a_file_that_is_no_urdf_is_named(tmp_path, text, message):
    path = tmp_path / "robot.urdf"
    path.write_text(text)
    with pytest.raises(mbd.ModelError, match=r"from_urdf: .*robot.urdf" + message):
        mbd.from_urdf(path)


@pytest.mark.parametrize("body, message", [
    (TWO + _joint("j", "continuous", "a", "c"), r"URDF joint 'j': no link 'c'$"),
    (TWO + _link("c") + _joint("j", "continuous", "a", "b"),
     r"URDF .*robot.urdf: 2 root links \['a', 'c'\] \(links no joint moves\); a URDF is one "
     "tree"),
    (TWO + _link("c") + _joint("j1", "continuous", "b", "c")
     + _joint("j2", "continuous", "c", "b"),
     r"URDF links \['b', 'c'\] are not reached from the root 'a': a kinematic loop, which "
     "URDF cannot express"),
    (TWO + _joint("j", "continuous", "a", "b", axis="0 0 0"),
     r"URDF joint 'j': axis \[0.0, 0.0, 0.0\] has no direction"),
    (_link("a") + _link("b", _inertial(-1.0)) + _joint("j", "continuous", "a", "b"),
     r"URDF link 'b': mass -1.0 kg must be >= 0 and finite$"),
    (_link("a") + _link("b", _inertial(1.0, inertia=("nan", 0.03, 0.04, 0, 0, 0)))
     + _joint("j", "continuous", "a", "b"),
     r"URDF link 'b': inertia \[\[nan, 0.0, 0.0\], \[0.0, 0.03, 0.0\], \[0.0, 0.0, 0.04\]\] "
     r"kg m\^2 must be a finite symmetric matrix$"),
], ids=["joint to no link", "two roots", "unreached links", "no axis", "negative mass",
        "NaN inertia"])
def test_a_robot_mbd_cannot_make_is_named(tmp_path, body, message):
    with pytest.raises(mbd.ModelError, match=message):
        mbd.from_urdf(_urdf(tmp_path, body))


def test_links_fixed_together_whose_sum_no_rigid_body_has(tmp_path):
    """Link b's inertia (principal moments 0.001, 0.001, 0.01: past the triangle inequality)
    with a massless, inertia-less link c fixed to it: the sum, named with both links, has
    b's principal moments."""
    path = _urdf(tmp_path, _link("a") + _link("b", _inertial(2.0, inertia=(0.001, 0.001, 0.01,
                                                                           0, 0, 0)))
                 + _link("c", _inertial(0.0, inertia=(0, 0, 0, 0, 0, 0)))
                 + _joint("j", "continuous", "a", "b") + _joint("f", "fixed", "b", "c"))
    with pytest.raises(mbd.ModelError) as err:
        mbd.from_urdf(path)
    message = str(err.value)
    assert message.startswith("URDF link 'b' (with the links fixed to it: ['c']): mass 2.0 kg, "
                              "inertia [[")
    assert " kg m^2 about the common CG, world axes: its inertia violates the triangle " \
           "inequality (principal moments [" in message
    moments = re.search(r"principal moments \[(.*?)\]", message).group(1)
    np.testing.assert_allclose([float(m) for m in moments.split(",")], [0.001, 0.001, 0.01],
                               rtol=1e-12)
