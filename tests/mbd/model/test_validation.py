"""Every rule ``Model.build()`` checks (SPEC §1, §2; DESIGN §2, §7), one test each.

Each test makes a model that breaks one rule and asserts that ``build()`` raises
:class:`mbd.ModelError` whose message names the element and the rule (and, where there is
one, the offending value). Models that break nothing build, so a rule that fires on valid
input is caught too. Nothing here simulates: these are checks of ``build()`` alone.
"""
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import mbd
from forces import Spring
from joints import Custom, Cylindrical, Prismatic, Revolute, SixDof, Spherical, Universal, Weld
from mbd.compiled import dynamics

GRAVITY = (0.0, 0.0, -9.81)


class Link(mbd.ForceElement):
    """A hand-made force element: a name, a line placement between two CSs and a law (the
    contract of mbd.ForceElement), so build() sees exactly what the test sets."""

    placement = "line"

    def __init__(self, name, a, b):
        self.name = name
        self.cs_a, self.cs_b = a, b
        self.law = Spring(c=1.0)


def pendulum(name="m", environment=True):
    """A valid one-body model: ground 'ground' and body 'arm' on Revolute 'hinge'."""
    model = mbd.Model(name)
    env = mbd.Environment(gravity=GRAVITY) if environment else None
    ground = model.add_ground("ground", environment=env)
    arm = model.add_body("arm", mass=2.0, cg=(0.5, 0.0, 0.0), inertia=np.diag([1e-3, 0.17, 0.17]),
                         cs={"pivot": (0.0, 0.0, 0.0), "tip": (1.0, 0.0, 0.0)})
    model.add(Revolute("hinge", ground, arm["pivot"], axis=(0, 1, 0)))
    return model, ground, arm


def rod(model, name, at=(1.0, 0.0, 0.0), mass=1.0, inertia=(1e-3, 0.1, 0.1)):
    """Add a body whose CS 'pivot' is at ``at`` and whose CG is 0.5 m beyond along x."""
    at = np.asarray(at, dtype=float)
    return model.add_body(name, mass=mass, cg=at + (0.5, 0.0, 0.0), inertia=inertia,
                          cs={"pivot": at, "tip": at + (1.0, 0.0, 0.0)})


def build_error(model, *fragments, count=None):
    """Build ``model``, expect a ModelError whose message contains every fragment."""
    with pytest.raises(mbd.ModelError) as info:
        model.build()
    err = info.value
    text = str(err)
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} not in:\n{text}"
    if count is not None:
        assert len(err.problems) == count, text
    return err


def test_the_valid_models_here_build():
    model, _, _ = pendulum()
    system = model.build()
    assert (system.nq, system.nv, system.dof) == (1, 1, 1)
    assert isinstance(mbd.ModelError("x"), ValueError)


# ----------------------------------------------------------------------------- names

def test_duplicate_body_names():
    model, ground, arm = pendulum()
    other = rod(model, "arm")  # a second body named 'arm', hinged to the first one's tip
    model.add(Revolute("elbow", arm["tip"], other["pivot"], axis=(0, 1, 0)))
    build_error(model, "duplicate name 'arm'", "body 'arm', body 'arm'",
                "names must be unique within a model", count=1)


def test_body_and_joint_with_one_name():
    model, ground, arm = pendulum()
    b = rod(model, "hinge")
    model.add(Revolute("link", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    build_error(model, "duplicate name 'hinge'", "body 'hinge'", "Revolute 'hinge'",
                "names must be unique", count=1)


def test_ground_and_body_with_one_name():
    model, ground, arm = pendulum()
    b = rod(model, "ground")
    model.add(Revolute("link", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    build_error(model, "duplicate name 'ground'", "ground 'ground'", "body 'ground'",
                "names must be unique", count=1)


def test_force_element_needs_a_name():
    model, ground, arm = pendulum()
    model.add(Link(None, ground, arm["tip"]))
    build_error(model, "Link 'None'", "name must be a non-empty string", count=1)



def test_a_duplicate_body_is_not_also_reported_as_unconnected():
    # a body added twice under one name: the second copy is jointed to nothing, but that is a
    # consequence of the duplicate, the one problem reported
    model, ground, arm = pendulum()
    model.add_body("arm", mass=2.0, cg=(0.5, 0.0, 0.0), inertia=[1e-3, 0.17, 0.17])
    err = build_error(model, "duplicate name 'arm'", "body 'arm', body 'arm'", count=1)
    assert "not connected" not in str(err)


def test_a_body_beside_a_duplicate_is_still_reported_as_unconnected():
    # only the duplicate's own connectivity is a consequence: a body hanging from it is not
    model, ground, arm = pendulum()
    copy = model.add_body("arm", mass=2.0, cg=(0.5, 0.0, 5.0), inertia=[1e-3, 0.17, 0.17],
                          cs={"tip": (1.0, 0.0, 5.0)})
    hand = rod(model, "hand", at=(1.0, 0.0, 5.0))
    model.add(Revolute("wrist", copy["tip"], hand["pivot"], axis=(0, 1, 0)))
    err = build_error(model, "duplicate name 'arm'", "bodies ['hand'] are not connected",
                      count=2)
    assert "['arm'" not in str(err) and "'arm']" not in str(err)

# ----------------------------------------------------------------------------- bodies

@pytest.mark.parametrize("mass", [-1.0, math.nan, math.inf])
def test_mass_must_be_finite_and_not_negative(mass):
    model = mbd.Model("m")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=GRAVITY))
    b = rod(model, "heavy", at=(0, 0, 0), mass=mass)
    model.add(Revolute("hinge", ground, b["pivot"], axis=(0, 1, 0)))
    build_error(model, "body 'heavy'", "mass must be finite and >= 0", f"got {mass}", count=1)


def test_a_joint_that_moves_no_inertia_is_named():
    # a massless body without inertia at the end of a hinge: nothing gives the hinge an
    # acceleration (its row of the mass matrix is zero)
    model, ground, arm = pendulum()
    b = rod(model, "ghost", mass=0.0, inertia=(0.0, 0.0, 0.0))
    model.add(Revolute("wrist", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    build_error(model, "joint 'wrist' moves no inertia in any position",
                "(['ghost'])", "weld the joint", count=1)


def test_a_rod_spun_about_its_own_axis_is_named():
    # a thin rod (no moment about x) on a hinge along x through its CG: the hinge moves no
    # inertia anywhere
    model, ground, arm = pendulum()
    b = model.add_body("needle", mass=1.0, cg=(1.5, 0.0, 0.0), inertia=(0.0, 0.1, 0.1),
                       cs={"pivot": (1.0, 0.0, 0.0)})
    model.add(Revolute("spin", arm["tip"], b["pivot"], axis=(1, 0, 0)))
    build_error(model, "joint 'spin' moves no inertia in any position", "(['needle'])",
                count=1)


def test_two_coaxial_hinges_through_a_massless_link_are_named_together():
    # hinge 'a' carries a massless link, hinge 'b' (the same axis) the arm: a + b moves the
    # arm, a - b nothing: the mass matrix is singular though no row of it is zero
    model = mbd.Model("m")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=GRAVITY))
    link = model.add_body("link", mass=0.0, cg=(0, 0, 0), inertia=(0.0, 0.0, 0.0),
                          cs={"o": (0, 0, 0)})
    arm = rod(model, "arm", at=(0, 0, 0))
    model.add(Revolute("a", ground, link["o"], axis=(0, 1, 0)))
    model.add(Revolute("b", link["o"], arm["pivot"], axis=(0, 1, 0)))
    build_error(model, "joints ['a', 'b'] together move no inertia in any position",
                "(['link'])", count=1)


def test_a_point_mass_singular_only_where_it_starts_is_warned():
    # a point mass 1 m along x on a universal joint (axes z, then y) started turned 90 degrees
    # about y: it then lies on the first axis, which moves nothing there; elsewhere it does
    model = mbd.Model("m")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=GRAVITY))
    bob = model.add_body("bob", mass=1.0, cg=(1, 0, 0), inertia=(0.0, 0.0, 0.0),
                         cs={"o": (0, 0, 0)})
    model.add(Universal("u", ground, bob["o"], axes=((0, 0, 1), (0, 1, 0)),
                        q0=(0.0, math.pi / 2)))
    with pytest.warns(UserWarning, match=r"joint 'u' moves no inertia at the initial position"):
        model.build()


@pytest.mark.parametrize("moments", [(0.0, 0.0, 0.0), (0.0, 0.1, 0.1)])
def test_a_point_mass_and_a_rod_swing_as_the_closed_form_says(moments):
    # a body with no moment about its own x (a rod along x) or none at all (a point mass)
    # hung 0.5 m from a hinge about y: H = m l^2 + I_yy, so from rest at 90 degrees the
    # angular acceleration is m g l / (m l^2 + I_yy)
    model = mbd.Model("m")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=GRAVITY))
    b = rod(model, "plate", at=(0.0, 0.0, 0.0), mass=2.0, inertia=moments)
    model.add(Revolute("hinge", ground, b["pivot"], axis=(0, 1, 0)))
    system = model.build()
    qdd = dynamics.accelerations(system, [0.0], [0.0])
    g = -GRAVITY[2]
    assert qdd[0] == pytest.approx(2.0 * g * 0.5 / (2.0 * 0.25 + moments[1]), rel=1e-12)


def test_inertia_must_be_positive_semidefinite():
    model, ground, arm = pendulum()
    b = rod(model, "plate", inertia=(-0.1, 0.2, 0.2))
    model.add(Revolute("link", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    build_error(model, "body 'plate'", "inertia must be positive semidefinite", count=1)


def test_a_rotated_rod_inertia_is_a_rod():
    # a thin rod's (0, I, I) in turned axes: round-off makes the smallest eigenvalue +-7e-18
    # (numpy/LAPACK on x86-64), which is a zero moment all the same; the rod builds, and its
    # hinge moves m l^2 + I about its axis
    R = Rotation.from_rotvec([-2.9, 1.9, 2.5]).as_matrix()
    inertia = R @ np.diag([0.0, 0.2, 0.2]) @ R.T
    model, ground, arm = pendulum()
    b = rod(model, "needle", inertia=inertia)
    model.add(Revolute("link", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    system = model.build()
    H = dynamics.mass_matrix(system, [0.0, 0.0])
    e = np.array([0.0, 1.0, 0.0])
    assert H[1, 1] == pytest.approx(1.0 * 0.25 + e @ inertia @ e, rel=1e-12)


def test_inertia_must_satisfy_the_triangle_inequality():
    # principal moments 1, 1, 3 in rotated axes: no mass distribution has them, since
    # I3 = sum m (x^2 + y^2) <= I1 + I2 = sum m (x^2 + y^2 + 2 z^2)
    c, s = math.cos(0.7), math.sin(0.7)
    R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    model, ground, arm = pendulum()
    b = rod(model, "plate", inertia=R @ np.diag([1.0, 3.0, 1.0]) @ R.T)
    model.add(Revolute("link", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    build_error(model, "body 'plate'", "inertia violates the triangle inequality",
                "largest principal moment 3", "sum of the other two 2", count=1)


def test_a_thin_disc_meets_the_triangle_inequality_with_equality():
    # a thin disc (m r^2/4, m r^2/4, m r^2/2) sits exactly on the boundary and is a real body
    model, ground, arm = pendulum()
    b = rod(model, "disc", inertia=(0.25, 0.25, 0.5))
    model.add(Revolute("link", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    model.build()


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_inertia_must_be_finite(bad):
    model, ground, arm = pendulum()
    I = np.diag([0.1, 0.1, 0.1])
    I[1, 2] = I[2, 1] = bad
    b = rod(model, "plate", inertia=I)
    model.add(Revolute("link", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    build_error(model, "body 'plate'", "inertia must be finite", count=1)


def test_cg_must_be_finite():
    model, ground, arm = pendulum()
    b = model.add_body("blob", mass=1.0, cg=(math.nan, 0, 0), inertia=[0.1] * 3,
                       cs={"pivot": (1.0, 0.0, 0.0)})
    model.add(Revolute("link", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    build_error(model, "body 'blob'", "cg must be finite", count=1)



def test_a_non_finite_cs_position_is_not_also_reported_as_a_gap_at_its_joint():
    model, ground, arm = pendulum()
    b = model.add_body("link", mass=1.0, cg=(1.5, 0.0, 0.0), inertia=[0.1] * 3,
                       cs={"pivot": (math.nan, 0.0, 0.0)})
    model.add(Revolute("elbow", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    err = build_error(model, "CS 'link.pivot': position must be finite", "nan", count=1)
    assert "apart" not in str(err) and "elbow" not in str(err)


def test_a_non_finite_ground_position_is_not_also_reported_as_a_gap_at_its_joint():
    model, ground, arm = pendulum()
    wall = model.add_ground("wall", at=(1.0, math.inf, 0.0))
    model.add(Spherical("prop", wall, arm["tip"]))
    err = build_error(model, "ground 'wall': position must be finite", "inf", count=1)
    assert "apart" not in str(err)

# ----------------------------------------------------------------------------- construction

@pytest.mark.parametrize("kwargs, fragments", [
    (dict(mass="heavy"), ["body 'arm': mass must be a real number, got 'heavy'"]),
    (dict(mass=None), ["body 'arm': mass must be a real number, got None"]),
    (dict(inertia=np.eye(2)), ["body 'arm'", "inertia must be a 3x3 matrix", "(2, 2)"]),
    (dict(inertia="big"), ["body 'arm'", "inertia must be a 3x3 matrix"]),
    (dict(cg=(1.0, 2.0)), ["body 'arm': cg must be 3 real numbers, got (1.0, 2.0)"]),
    (dict(cs={"tip": (1.0, 0.0)}), ["body 'arm'", "CS 'tip'", "must be 3 real numbers"]),
    (dict(cs=[(1.0, 0.0, 0.0)]), ["body 'arm'", "cs must be a dict"]),
    (dict(cs={"tip": ((1.0, 0.0, 0.0), np.ones((3, 3)))}), ["CS 'arm.tip'", "orientation"]),
])
def test_bad_body_arguments_raise_model_error_when_added(kwargs, fragments):
    model = mbd.Model("m")
    args = dict(mass=1.0, cg=(0.0, 0.0, 0.0), inertia=[0.1, 0.1, 0.1])
    args.update(kwargs)
    with pytest.raises(mbd.ModelError) as info:
        model.add_body("arm", **args)
    assert isinstance(info.value, ValueError)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


@pytest.mark.parametrize("make, fragments", [
    (lambda m: m.add_ground("g", at=(1.0, 2.0)), ["ground 'g'", "position", "must be 3 real numbers"]),
    (lambda m: m.add_ground("g", environment="earth"), ["ground 'g'", "environment must be"]),
    (lambda m: m.add_ground("", at=(0, 0, 0)), ["ground name must be a non-empty string"]),
    (lambda m: m.add_body(7, mass=1, cg=(0, 0, 0), inertia=[1, 1, 1]),
     ["body name must be a non-empty string", "7"]),
    (lambda m: mbd.Environment(gravity=(0.0, -9.81)), ["Environment: gravity", "3 real numbers"]),
    (lambda m: mbd.Environment(gravity=(0.0, 0.0, math.nan)), ["Environment: gravity", "finite"]),
    (lambda m: mbd.Environment(gravity=GRAVITY, rtol="tight"), ["Environment: rtol", "'tight'"]),
    (lambda m: mbd.Environment(gravity=GRAVITY, assembly_tolerance=0.0),
     ["Environment: assembly_tolerance", "> 0"]),
    (lambda m: m.add("hinge"), ["add() takes a joint, a force element", "str"]),
    (lambda m: Revolute("r", None, None, axis=(1.0, 0.0)),
     ["Revolute 'r'", "axis must be 3 real numbers"]),
    (lambda m: Universal("u", None, None, axes=(1, 0, 0)),
     ["Universal 'u'", "axes must be 2 vectors"]),
    (lambda m: Custom("c", None, None, primitives=[("Q", (1, 0, 0))]), ["Custom 'c'", "kind"]),
    (lambda m: Custom("c", None, None, primitives=[("R",)]), ["Custom 'c'", "(kind, axis)"]),
    (lambda m: Custom("c", None, None, primitives=None), ["Custom 'c'", "primitives must be"]),
    (lambda m: Revolute(3, None, None, axis=(1, 0, 0)), ["Revolute", "name must be a non-empty"]),
])
def test_bad_construction_arguments_raise_model_error(make, fragments):
    with pytest.raises(mbd.ModelError) as info:
        make(mbd.Model("m"))
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


# ----------------------------------------------------------------------------- joint axes

@pytest.mark.parametrize("make, label, prim", [
    (lambda g, cs: Revolute("j", g, cs, axis=(0, 0, 0)), "Revolute 'j'", "primitive 0 (R)"),
    (lambda g, cs: Prismatic("j", g, cs, axis=(0, 0, 0)), "Prismatic 'j'", "primitive 0 (P)"),
    (lambda g, cs: Revolute("j", g, cs, axis=(math.nan, 1, 0)), "Revolute 'j'", "primitive 0 (R)"),
    (lambda g, cs: Custom("j", g, cs, primitives=[("P", (1, 0, 0)), ("R", (0, 0, 0))]),
     "Custom 'j'", "primitive 1 (R)"),
])
def test_axis_must_have_nonzero_finite_length(make, label, prim):
    model = mbd.Model("m")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=GRAVITY))
    b = rod(model, "arm", at=(0, 0, 0))
    model.add(make(ground, b["pivot"]))
    build_error(model, label, prim, "zero-length or non-finite axis", count=1)


@pytest.mark.parametrize("make, label", [
    (lambda g, cs: Universal("j", g, cs, axes=((1, 0, 0), (-2, 0, 0))), "Universal 'j'"),
    (lambda g, cs: Custom("j", g, cs, primitives=[("R", (0, 1, 0)), ("S", None)]), "Custom 'j'"),
    (lambda g, cs: Custom("j", g, cs, primitives=[("P", (1, 0, 0)), ("P", (1, 1, 0)),
                                                  ("P", (0, 1, 0))]), "Custom 'j'"),
])
def test_primitives_must_be_independent(make, label):
    model = mbd.Model("m")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=GRAVITY))
    b = rod(model, "arm", at=(0, 0, 0))
    model.add(make(ground, b["pivot"]))
    build_error(model, label, "axes are not independent", count=1)


def test_a_rotation_and_a_translation_on_one_axis_are_independent():
    model = mbd.Model("m")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=GRAVITY))
    b = rod(model, "arm", at=(0, 0, 0))
    model.add(Cylindrical("j", ground, b["pivot"], axis=(0, 0, 1)))
    assert model.build().nv == 2


def test_a_bad_axis_does_not_disconnect_its_bodies():
    # the joint is still a joint of the topology: only the axis is reported
    model, ground, arm = pendulum()
    b = rod(model, "link")
    model.add(Revolute("elbow", arm["tip"], b["pivot"], axis=(0, 0, 0)))
    err = build_error(model, "Revolute 'elbow'", count=1)
    assert "not connected" not in str(err)


# ----------------------------------------------------------------------------- joint ends

def test_joint_from_a_body_to_itself():
    model, ground, arm = pendulum()
    model.add(Revolute("twist", arm["pivot"], arm["cg"], axis=(1, 0, 0)))
    build_error(model, "Revolute 'twist'", "connects body 'arm' to itself", count=1)


def test_joint_between_two_grounds():
    model, ground, arm = pendulum()
    g2 = model.add_ground("floor")
    model.add(Weld("bolt", ground, g2))
    build_error(model, "Weld 'bolt'", "connects two grounds ('ground', 'floor')", count=1)


def test_joint_on_a_body_cs_of_another_model():
    model, ground, arm = pendulum("mine")
    _, _, their_arm = pendulum("theirs")
    model.add(Spherical("ball", arm["tip"], their_arm["pivot"]))
    build_error(model, "Spherical 'ball'", "follower must be a CS of model 'mine'",
                "CS 'arm.pivot' of model 'theirs'")


def test_joint_on_a_ground_of_another_model():
    model = mbd.Model("mine")
    model.add_ground("ground", environment=mbd.Environment(gravity=GRAVITY))
    other, their_ground, _ = pendulum("theirs")
    b = rod(model, "arm", at=(0, 0, 0))
    model.add(Revolute("hinge", their_ground, b["pivot"], axis=(0, 1, 0)))
    err = build_error(model, "Revolute 'hinge'", "base must be a CS of model 'mine'",
                      "CS 'ground' of model 'theirs'")
    # ... and so body 'arm' really is connected to no ground of this model
    assert any("['arm']" in p and "not connected" in p for p in err.problems)


def test_joint_with_a_body_instead_of_a_cs():
    model, ground, arm = pendulum()
    b = rod(model, "link")
    model.add(Revolute("elbow", arm["tip"], b, axis=(0, 1, 0)))
    build_error(model, "Revolute 'elbow'", "follower must be a CS of model 'm'", "Body")


def test_joint_on_a_cs_fixed_to_nothing():
    model, ground, arm = pendulum()
    b = rod(model, "link")
    model.add(Revolute("elbow", mbd.CS(None, "loose", (1.0, 0.0, 0.0)), b["pivot"],
                       axis=(0, 1, 0)))
    build_error(model, "Revolute 'elbow'", "base must be a CS of model 'm'",
                "CS 'loose' of no body or ground")


def test_force_element_on_a_cs_of_another_model():
    model, ground, arm = pendulum("mine")
    _, _, their_arm = pendulum("theirs")
    model.add(Link("strap", arm["tip"], their_arm["tip"]))
    build_error(model, "Link 'strap'", "CS 'arm.tip' of model 'theirs'",
                "not a CS of model 'mine'", count=1)


def test_joint_cs_origins_must_coincide():
    model, ground, arm = pendulum()
    b = rod(model, "link", at=(1.0, 0.0, 0.003))  # arm's tip is at (1, 0, 0)
    model.add(Revolute("elbow", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    build_error(model, "Revolute 'elbow'", "base CS 'arm.tip'", "follower CS 'link.pivot'",
                "are 0.003 m apart", "must coincide", "tolerance 1e-09 m", count=1)


def test_coincidence_uses_the_environments_assembly_tolerance():
    def model_with_gap(gap, tolerance):
        model = mbd.Model("m")
        env = mbd.Environment(gravity=GRAVITY, assembly_tolerance=tolerance)
        ground = model.add_ground("ground", environment=env)
        b = rod(model, "arm", at=(0.0, 0.0, gap))
        model.add(Revolute("hinge", ground, b["pivot"], axis=(0, 1, 0)))
        return model

    model_with_gap(1e-6, 1e-5).build()
    build_error(model_with_gap(1e-4, 1e-5), "Revolute 'hinge'", "are 0.0001 m apart",
                "tolerance 1e-05 m", count=1)


def test_each_machine_uses_its_own_environments_tolerance():
    # two separate machines: the loose one accepts a 1e-6 m gap, the strict one does not
    model = mbd.Model("m")
    loose = model.add_ground("loose", environment=mbd.Environment(GRAVITY, assembly_tolerance=1e-4))
    strict = model.add_ground("strict", at=(5.0, 0.0, 0.0),
                              environment=mbd.Environment(GRAVITY, assembly_tolerance=1e-9))
    a = rod(model, "a", at=(0.0, 0.0, 1e-6))
    b = rod(model, "b", at=(5.0, 0.0, 1e-6))
    model.add(Revolute("ja", loose, a["pivot"], axis=(0, 1, 0)))
    model.add(Revolute("jb", strict, b["pivot"], axis=(0, 1, 0)))
    err = build_error(model, "Revolute 'jb'", "tolerance 1e-09 m", count=1)
    assert "'ja'" not in str(err)


# ----------------------------------------------------------------------------- topology

def test_floating_body_with_no_joint():
    model, ground, arm = pendulum()
    model.add_body("balloon", mass=0.01, cg=(0, 0, 3), inertia=[1e-4] * 3)
    build_error(model, "bodies ['balloon'] are not connected to any ground",
                "SixDof", count=1)


def test_chain_of_two_bodies_not_jointed_to_a_ground():
    model, ground, arm = pendulum()
    a = rod(model, "upper", at=(0, 0, 5))
    b = rod(model, "lower", at=(1, 0, 5))
    model.add(Revolute("knee", a["tip"], b["pivot"], axis=(0, 1, 0)))
    build_error(model, "bodies ['lower', 'upper'] are not connected to any ground", count=1)


def test_a_force_element_does_not_connect_a_body_to_ground():
    # SPEC §1: force elements do not join machines kinematically
    model, ground, arm = pendulum()
    b = rod(model, "dangling", at=(0, 0, 5))
    model.add(Link("rope", arm["tip"], b["pivot"]))
    build_error(model, "bodies ['dangling'] are not connected to any ground", count=1)


def test_a_joint_that_closes_a_loop_becomes_a_cut_joint():
    # a body hinged to a ground and held at its tip by a ball joint to a wall: the loop
    # through the world leaves no mobility (1 + 3 coordinates, 4 independent closure rows)
    model, ground, arm = pendulum()
    wall = model.add_ground("wall", at=(1.0, 0.0, 0.0))
    model.add(Spherical("prop", wall, arm["tip"]))
    system = model.build()
    assert system.cut_joints == ["prop"]
    assert (system.nv, system.dof) == (4, 0)


def test_reversed_spherical_joint_is_reported():
    model, ground, arm = pendulum()
    b = rod(model, "link")
    model.add(Spherical("ball", b["pivot"], arm["tip"]))  # base on the far body
    build_error(model, "Spherical 'ball'", "swap base and follower", count=1)


def test_a_reversed_joint_without_spherical_primitive_builds():
    model, ground, arm = pendulum()
    b = rod(model, "link")
    model.add(Universal("u", b["pivot"], arm["tip"], axes=((0, 1, 0), (0, 0, 1))))
    assert model.build().nv == 3


# ----------------------------------------------------------------------------- machines

def test_machine_without_environment():
    model, _, _ = pendulum(environment=False)
    build_error(model, "machine of bodies ['arm'] has no environment",
                "environment=mbd.Environment", count=1)


def test_machine_with_two_environments():
    model, ground, arm = pendulum()
    b = rod(model, "link")
    wall = model.add_ground("wall", at=(2.0, 0.0, 0.0), environment=mbd.Environment(GRAVITY))
    model.add(Revolute("elbow", arm["tip"], b["pivot"], axis=(0, 1, 0)))
    model.add(Revolute("stay", b["tip"], wall, axis=(0, 1, 0)))  # also closes a loop
    err = build_error(model, "machine of bodies ['arm', 'link'] has 2 environments",
                      "on grounds ['ground', 'wall']", "a machine has exactly one")
    assert len([p for p in err.problems if "environments" in p]) == 1


def test_one_environment_on_two_grounds_is_one_environment():
    model = mbd.Model("m")
    env = mbd.Environment(GRAVITY)
    g1 = model.add_ground("g1", environment=env)
    g2 = model.add_ground("g2", at=(1.0, 0.0, 0.0), environment=env)
    a = rod(model, "a", at=(0, 0, 0))
    b = rod(model, "b", at=(1, 0, 0))
    model.add(Revolute("ja", g1, a["pivot"], axis=(0, 1, 0)))
    model.add(Revolute("jb", g2, b["pivot"], axis=(0, 1, 0)))
    model.add(Link("spring", a["tip"], b["tip"]))
    system = model.build()
    assert [m.environment for m in system.machines] == [env, env]


def two_machines(env_a=True, env_b=True):
    """Machines a (ground 'ga', body 'a') and b (ground 'gb', body 'b'), not jointed."""
    model = mbd.Model("m")
    ga = model.add_ground("ga", environment=mbd.Environment(GRAVITY) if env_a else None)
    gb = model.add_ground("gb", at=(3.0, 0.0, 0.0),
                          environment=mbd.Environment(GRAVITY) if env_b else None)
    a = rod(model, "a", at=(0, 0, 0))
    b = rod(model, "b", at=(3, 0, 0))
    model.add(Revolute("ja", ga, a["pivot"], axis=(0, 1, 0)))
    model.add(Revolute("jb", gb, b["pivot"], axis=(0, 1, 0)))
    return model, a, b


def test_two_machines_each_with_its_environment_build():
    model, a, b = two_machines()
    system = model.build()
    assert len(system.machines) == 2
    assert system.machines[0].composite != system.machines[1].composite


def test_composite_machine_with_two_environments():
    model, a, b = two_machines()
    model.add(Link("spring", a["tip"], b["tip"]))
    build_error(model, "composite machine of bodies ['a', 'b'] has 2 environments",
                "on grounds ['ga', 'gb']", count=1)


def test_composite_machine_shares_the_one_environment():
    model, a, b = two_machines(env_a=False)
    # alone, machine a has no environment ...
    build_error(model, "machine of bodies ['a'] has no environment", count=1)
    # ... coupled by a force element to machine b it uses b's
    model.add(Link("spring", a["tip"], b["tip"]))
    system = model.build()
    env_b = model.grounds[1].environment
    assert len(system.machines) == 2
    assert system.machines[0].composite == system.machines[1].composite
    assert all(m.environment is env_b for m in system.machines)


def test_composite_machine_without_any_environment():
    model, a, b = two_machines(env_a=False, env_b=False)
    model.add(Link("spring", a["tip"], b["tip"]))
    build_error(model, "composite machine of bodies ['a', 'b'] has no environment", count=1)


def test_composite_with_an_ungrounded_part_still_checks_the_environment():
    # machine 'free' has no ground (one problem); that must not hide that the composite it
    # forms with the grounded machine 'a' has no environment (a second one)
    model = mbd.Model("m")
    free = rod(model, "free", at=(0, 0, 5))
    ga = model.add_ground("ga")
    a = rod(model, "a", at=(0, 0, 0))
    model.add(Revolute("ja", ga, a["pivot"], axis=(0, 1, 0)))
    model.add(Link("rope", free["pivot"], a["tip"]))
    err = build_error(model, "bodies ['free'] are not connected to any ground",
                      "has no environment", count=2)
    assert "'a'" in str(err)


# ----------------------------------------------------------------------------- initial values

@pytest.mark.parametrize("make, fragments", [
    (lambda g, cs: Revolute("j", g, cs, axis=(0, 1, 0), q0=math.nan),
     ["Revolute 'j': q0 must be finite"]),
    (lambda g, cs: Revolute("j", g, cs, axis=(0, 1, 0), v0=[1.0, 2.0]),
     ["Revolute 'j': v0", "a revolute primitive takes 1 value, got [1.0, 2.0]"]),
    (lambda g, cs: Universal("j", g, cs, axes=((1, 0, 0), (0, 1, 0)), q0=[0.1, 0.2, 0.3]),
     ["Universal 'j': q0", "one entry per primitive (2) or 2 numbers"]),
    (lambda g, cs: Universal("j", g, cs, axes=((1, 0, 0), (0, 1, 0)), v0=[0.1, math.inf]),
     ["Universal 'j': v0 must be finite"]),
    (lambda g, cs: Spherical("j", g, cs, q0=(0, 0, 0, 0)),
     ["Spherical 'j': q0 must be a unit quaternion", "of norm 0", "pass a unit quaternion"]),
    (lambda g, cs: Spherical("j", g, cs, q0={"w": 1}),
     ["Spherical 'j': q0 must be a scipy Rotation or a unit quaternion"]),
    (lambda g, cs: Spherical("j", g, cs, v0=(1.0, 2.0)), ["Spherical 'j': v0", "takes 3"]),
    (lambda g, cs: SixDof("j", g, cs, q0=np.zeros(7)),
     ["SixDof 'j': q0 must be a unit quaternion", "of norm 0"]),
    (lambda g, cs: SixDof("j", g, cs, v0=np.zeros(7)), ["SixDof 'j': v0", "or 6 numbers"]),
    (lambda g, cs: Revolute("j", g, cs, axis=(0, 1, 0), q0="up"),
     ["Revolute 'j': q0 must be a real number, got 'up'"]),
])
def test_malformed_initial_values(make, fragments):
    model = mbd.Model("m")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=GRAVITY))
    b = rod(model, "arm", at=(0, 0, 0))
    model.add(make(ground, b["pivot"]))
    build_error(model, *fragments, count=1)


def test_well_formed_initial_values_build():
    model = mbd.Model("m")
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=GRAVITY))
    b = rod(model, "arm", at=(0, 0, 0))
    half = math.sqrt(0.5)
    model.add(SixDof("j", ground, b["pivot"], q0=[1.0, 2.0, 3.0, (half, 0.0, half, 0.0)],
                     v0=[0.0, 0.0, 1.0, (0.1, 0.2, 0.3)]))
    system = model.build()
    q = system.initial_state().q
    np.testing.assert_allclose(q, [1, 2, 3, half, 0, half, 0], rtol=0, atol=1e-16)


# ----------------------------------------------------------------------------- all at once

def test_every_problem_is_listed_at_once():
    model = mbd.Model("m")
    ground = model.add_ground("ground")  # no environment
    a = rod(model, "a", at=(0, 0, 0), mass=-1.0)
    b = rod(model, "b", inertia=(1.0, 1.0, 5.0))
    model.add_body("lost", mass=1.0, cg=(0, 0, 9), inertia=[1, 1, 1])
    model.add(Revolute("ja", ground, a["pivot"], axis=(0, 0, 0)))
    model.add(Revolute("jb", a["tip"], b["pivot"], axis=(0, 1, 0), q0=math.nan))
    model.add(Revolute("a", b["tip"], b["cg"], axis=(0, 1, 0)))
    err = build_error(model)
    expected = [("duplicate name 'a'",), ("body 'a'", "mass"), ("body 'b'", "triangle"),
                ("Revolute 'ja'", "zero-length"), ("Revolute 'jb'", "q0 must be finite"),
                ("Revolute 'a'", "to itself"), ("['lost']", "not connected"),
                ("machine of bodies ['a', 'b']", "no environment")]
    for fragments in expected:
        assert sum(all(f in p for f in fragments) for p in err.problems) == 1, \
            (fragments, err.problems)
    assert len(err.problems) == len(expected)
    assert str(err).startswith(f"{len(expected)} problems:")
