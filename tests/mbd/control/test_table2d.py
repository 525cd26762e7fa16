"""2-D lookup tables (SPEC §9, issue 26): ``Table2D`` against scipy's RegularGridInterpolator
and hand formulas, its compiled law value against Python's, bad tables named; as a force law
of (x, v) (``Table2DForce``) a grid of a linear spring-damper is that spring-damper, exactly
(bilinear interpolation of a bilinear function); as a controller's lookup of two sensors it
is the equivalent Gain."""
import numpy as np
import pytest
from scipy.interpolate import RegularGridInterpolator

import mbd
from forces import Actuator, Damper, JointForce, Spring, Table2DForce, TableForce
from joints import Prismatic
from mbd.compiled import lawkernels as lk

#: an uneven grid and values with no structure (a measured characteristic)
RNG = np.random.default_rng(26)
X = np.array([-0.3, -0.1, 0.0, 0.05, 0.2, 0.5])
Y = np.array([-2.0, -0.5, 0.5, 1.0, 3.0])
Z = RNG.normal(scale=50.0, size=(len(X), len(Y)))


def grid_points(n, pad=0.0):
    """n random (u, w) in the grid's box widened by ``pad`` of its size on every side."""
    du, dw = pad * np.ptp(X), pad * np.ptp(Y)
    return (RNG.uniform(X[0] - du, X[-1] + du, n), RNG.uniform(Y[0] - dw, Y[-1] + dw, n))


def bilinear_continued(u, w):
    """The hand formula: the bilinear form of the cell nearest (u, w) (the end cell along an
    axis past its breakpoints), evaluated at (u, w) itself."""
    i = int(np.clip(np.searchsorted(X, u, side="right") - 1, 0, len(X) - 2))
    j = int(np.clip(np.searchsorted(Y, w, side="right") - 1, 0, len(Y) - 2))
    t = (u - X[i]) / (X[i + 1] - X[i])
    s = (w - Y[j]) / (Y[j + 1] - Y[j])
    return ((1 - t) * (1 - s) * Z[i, j] + (1 - t) * s * Z[i, j + 1]
            + t * (1 - s) * Z[i + 1, j] + t * s * Z[i + 1, j + 1])


def test_values_are_scipys_bilinear_interpolant_and_the_compiled_law_agrees():
    """Inside the grid: RegularGridInterpolator (method "linear") to 1e-12 (of values ~100:
    round-off); at the breakpoints the grid's values; the law's compiled formula, called on
    the parameter row as a run calls it, equals Python's call bit for bit."""
    table = mbd.Table2D(X, Y, Z)
    ref = RegularGridInterpolator((X, Y), Z, method="linear")
    u, w = grid_points(2000)
    np.testing.assert_allclose(table(u, w), ref(np.column_stack([u, w])), rtol=0, atol=1e-12)
    uu, ww = np.meshgrid(X, Y, indexing="ij")
    np.testing.assert_array_equal(table(uu, ww), Z)
    # a float for scalars, the broadcast shape otherwise
    assert isinstance(table(0.1, 0.2), float)
    assert table(X[:, None], Y[None, :]).shape == Z.shape
    assert table([0.1, 0.2], 0.3).shape == (2,)
    row = table.row()
    assert row.shape == (100,)
    compiled = [lk.table2d_value(row, a, b) for a, b in zip(u[:200], w[:200])]
    assert compiled == table(u[:200], w[:200]).tolist()
    law = Table2DForce(table)
    assert [law(a, b) for a, b in zip(u[:50], w[:50])] == [-v for v in compiled[:50]]


def test_hold_and_linear_extrapolation_and_error():
    """Past the breakpoints: "hold" is the value at the point clamped to the grid, "linear"
    the end cells' bilinear form continued (the hand formula, and scipy's with fill_value
    None), "error" a ValueError naming the point and the grid (nan in a law)."""
    u, w = grid_points(500, pad=0.5)
    hold = mbd.Table2D(X, Y, Z)
    want = [bilinear_continued(a, b) for a, b in zip(np.clip(u, X[0], X[-1]),
                                                      np.clip(w, Y[0], Y[-1]))]
    np.testing.assert_allclose(hold(u, w), want, rtol=0, atol=1e-12)
    linear = mbd.Table2D(X, Y, Z, extrapolate="linear")
    np.testing.assert_allclose(linear(u, w), [bilinear_continued(a, b) for a, b in zip(u, w)],
                               rtol=0, atol=1e-11)
    ref = RegularGridInterpolator((X, Y), Z, bounds_error=False, fill_value=None)
    np.testing.assert_allclose(linear(u, w), ref(np.column_stack([u, w])), rtol=0, atol=1e-11)
    # a corner far out: hold gives the corner value
    assert hold(10.0, -10.0) == Z[-1, 0]
    error = mbd.Table2D(X, Y, Z, extrapolate="error", name="map")
    assert error(0.0, 1.0) == hold(0.0, 1.0)
    with pytest.raises(ValueError, match=r"Table2D 'map': \(u, w\) = \(0.6, 1.0\) is outside "
                                         r"its grid u in \[-0.3, 0.5\], w in \[-2.0, 3.0\] "
                                         r"\(extrapolate='error'\)"):
        error([0.0, 0.6], 1.0)
    assert np.isnan(lk.table2d_value(error.row(), 0.0, 3.5))


@pytest.mark.parametrize("args, kwargs, message", [
    (([0.0, 1.0, 1.0], [0.0, 1.0], np.zeros((3, 2))), {},
     r"Table2D 'map': the breakpoints x must increase strictly, got x\[1\] = 1.0 then "
     r"x\[2\] = 1.0"),
    (([0.0, 1.0], [0.0, 2.0, 1.0], np.zeros((2, 3))), {},
     r"Table2D 'map': the breakpoints y must increase strictly, got y\[1\] = 2.0 then "
     r"y\[2\] = 1.0"),
    (([0.0, 1.0], [0.0, 1.0, 2.0], np.zeros((3, 2))), {},
     r"Table2D 'map': z must have the shape \(len\(x\), len\(y\)\) = \(2, 3\), got \(3, 2\)"),
    (([0.0], [0.0, 1.0], np.zeros((1, 2))), {},
     r"Table2D 'map': x must have 2 or more breakpoints, got 1"),
    (([0.0, 1.0], [0.0, 1.0], [[0.0, 1.0], [np.nan, 2.0]]), {},
     r"Table2D 'map': z must be finite, got z\[1, 0\] = nan"),
    (([0.0, np.inf], [0.0, 1.0], np.zeros((2, 2))), {},
     r"Table2D 'map': x must be finite, got x\[1\] = inf"),
    ((np.arange(9.0), np.arange(9.0), np.zeros((9, 9))), {},
     r"Table2D 'map': a 9 x 9 grid takes nx ny \+ nx \+ ny \+ 3 = 102 floats of a law's "
     r"parameter row, more than its MAX_PARAMS = 100"),
    (([0.0, 1.0], [0.0, 1.0], np.zeros((2, 2))), {"extrapolate": "periodic"},
     r"Table2D 'map': extrapolate must be one of \('hold', 'linear', 'error'\), got "
     r"'periodic'"),
], ids=["x not increasing", "y not increasing", "z shape", "too few", "z nan", "x inf",
        "too large", "extrapolation"])
def test_bad_tables_are_named(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        mbd.Table2D(*args, name="map", **kwargs)


def test_the_largest_grids_fit_a_row_and_the_law_checks_its_table():
    """A grid's row is nx ny + nx + ny + 3 floats of 100: 8 x 8 (83) and 4 x 18 (97) fit, 4 x
    19 (102) is refused; the law refuses a table it cannot extrapolate."""
    mbd.Table2D(np.arange(8.0), np.arange(8.0), np.zeros((8, 8)))
    mbd.Table2D(np.arange(4.0), np.arange(18.0), np.zeros((4, 18)))      # 72 + 22 + 3 = 97
    with pytest.raises(ValueError, match="4 x 19 grid takes .* = 102 floats"):
        mbd.Table2D(np.arange(4.0), np.arange(19.0), np.zeros((4, 19)))
    with pytest.raises(ValueError, match="Table2DForce: the table's extrapolation must be "
                                         "'hold' or 'linear' for a force law, got 'error'"):
        Table2DForce(mbd.Table2D(X, Y, Z, extrapolate="error"))
    with pytest.raises(ValueError, match="Table2DForce: table must be an mbd.control.Table2D"):
        Table2DForce(mbd.Table([0, 1], [0, 1]))
    assert repr(mbd.Table2D(X, Y, Z, name="map")) == (
        "Table2D('map': 6 x 5 grid, bilinear, extrapolate='hold')")


# ----------------------------------------------------------------------------- in a run

C, D, M = 400.0, 3.0, 1.5          # N/m, N s/m, kg
#: a spring-damper's characteristic c x + d v on an uneven grid (bilinear: exact)
XS = np.array([-0.15, -0.05, 0.0, 0.08, 0.15])
VS = np.array([-2.5, -0.4, 0.3, 2.5])


def slider(*laws, controls=(), drive=None):
    """A block (M) on a frictionless x slider from x = 0.1 m, no gravity, sensors ``pos`` and
    ``vel``; the laws on the slider, the control elements added, an Actuator of ``drive``."""
    model = mbd.Model("slider")
    g = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = model.add_body("block", mass=M, cg=(0, 0, 0), inertia=np.eye(3) * 0.1)
    slide = model.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0), q0=0.1, v0=0.5))
    model.add(mbd.Sensor("pos", "slide.q"))
    model.add(mbd.Sensor("vel", "slide.v"))
    for k, law in enumerate(laws):
        model.add(JointForce(f"law{k}", slide, law))
    named = {c.name: model.add(c) for c in controls}
    if drive is not None:
        model.add(JointForce("push", slide, Actuator(named[drive])))
    return model.build()


def test_a_table2d_force_of_a_spring_damper_grid_is_that_spring_damper():
    """Over 2 s the run with Table2DForce of the grid of c x + d v equals the run with the
    built-in Spring and Damper to 1e-8 m (8e-13 m measured at rtol 1e-11: the two formulas
    differ by round-off; the motion stays inside the grid); all the table's
    work is booked as dissipated (it stores none): the spring's stored energy and the
    damper's dissipation of the other run together."""
    table = mbd.Table2D(XS, VS, C * XS[:, None] + D * VS[None, :], extrapolate="linear",
                        name="spring-damper")
    law = Table2DForce(table)
    assert law(0.07, -1.3) == pytest.approx(-(C * 0.07 - D * 1.3), abs=1e-12)
    opts = dict(output_step=0.01, rtol=1e-11, atol=1e-13)
    a = slider(law).simulate(2.0, **opts)
    b = slider(Spring(c=C), Damper(d=D)).simulate(2.0, **opts)
    np.testing.assert_allclose(a.joint("slide").q, b.joint("slide").q, rtol=0, atol=1e-8)
    np.testing.assert_allclose(a.joint("slide").v, b.joint("slide").v, rtol=0, atol=1e-7)
    assert np.abs(a.joint("slide").q).max() > 0.05            # it moved across the grid
    np.testing.assert_allclose(a.force("law0").value,
                               b.force("law0").value + b.force("law1").value, atol=1e-5)
    ea, eb = a.energy_balance(), b.energy_balance()
    assert np.all(ea.stored["law0"] == 0.0)
    np.testing.assert_allclose(ea.dissipated["law0"],
                               eb.dissipated["law0"] + eb.stored["law0"] + eb.dissipated["law1"],
                               atol=1e-8)
    assert ea.relative_residual < 1e-8


def test_a_lookup_of_two_sensors_is_the_equivalent_gain():
    """A Lookup of a Table2D of (pos, vel) holding -c x - d v, driving an Actuator, runs as a
    Gain [-c, -d] of the same sensors (to 1e-8 m over 2 s; 1e-14 m measured)."""
    table = mbd.Table2D(XS, VS, -(C * XS[:, None] + D * VS[None, :]), extrapolate="linear")
    opts = dict(output_step=0.01, rtol=1e-11, atol=1e-13)
    a = slider(controls=[mbd.Lookup("u", table, ("pos", "vel"))], drive="u").simulate(2.0,
                                                                                       **opts)
    b = slider(controls=[mbd.Gain("u", [-C, -D], ["pos", "vel"])], drive="u").simulate(2.0,
                                                                                       **opts)
    np.testing.assert_allclose(a.joint("slide").q, b.joint("slide").q, rtol=0, atol=1e-8)
    np.testing.assert_allclose(a.controller("u").y[:, 0], b.controller("u").y[:, 0],
                               atol=1e-5)


def test_lookup_inputs_are_checked():
    table2 = mbd.Table2D(XS, VS, np.zeros((len(XS), len(VS))))
    with pytest.raises(ValueError, match=r"Lookup 'u': a Table2D looks up two inputs, give "
                                         r"them as a pair \(u0, u1\), got 'pos'"):
        mbd.Lookup("u", table2, "pos")
    with pytest.raises(ValueError, match="Lookup 'u': a Table looks up one input, got 2"):
        mbd.Lookup("u", mbd.Table([0, 1], [0, 1]), ("pos", "vel"))
    with pytest.raises(ValueError, match="Lookup 'u': table must be an mbd.control.Table or "
                                         "Table2D, got 3"):
        mbd.Lookup("u", 3, "pos")
    # the output before the first evaluation: at zero inputs (or the first grid point)
    assert mbd.Lookup("u", mbd.Table2D([0, 1], [0, 1], [[1, 2], [3, 4]]),
                      ("pos", "vel")).initial == 1.0
    assert mbd.Lookup("u", mbd.Table2D([1, 2], [1, 2], [[5, 2], [3, 4]], extrapolate="error"),
                      ("pos", "vel")).initial == 5.0
    # the one-input form is unchanged
    assert mbd.Lookup("k", mbd.Table([-1, 1], [2, -2]), "pos").initial == 0.0
    assert TableForce(mbd.Table([0, 1], [0, 1]))(0.5) == -0.5
