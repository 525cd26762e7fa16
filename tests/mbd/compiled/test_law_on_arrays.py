"""A law called on arrays is evaluated element by element (issue 30: ``Law.__call__`` called
float(x) and broke on arrays); scalars still give a float."""
import numpy as np
import pytest

from forces import Actuator, Bistop, ElastoGap, Spring, TableForce
from mbd.control import Table

#: the spec's BISTOP cases (SPEC §5): (x, xdot) -> force on the I marker
BISTOP_CASES = [((0.5, 3.0), 0.0), ((-0.05, -2.0), 21.180339887498953),
                ((-0.05, 2.0), 1.1803398874989508), ((-0.05, 50.0), 0.0),
                ((-0.2, -1.0), 99.4427190999916), ((1.05, 2.0), -21.180339887498967),
                ((1.05, -2.0), -1.180339887498965), ((1.2, 1.0), -99.44271909999156),
                ((1.05, -100.0), 0.0)]


def elementwise(law, x, v, t=0.0, **kw):
    """The law's scalar values over the broadcast shape of x, v and t, one call each."""
    x, v, t = np.broadcast_arrays(np.asarray(x, float), np.asarray(v, float),
                                  np.asarray(t, float))
    out = np.empty(x.shape)
    for i in np.ndindex(x.shape):
        out[i] = law(float(x[i]), float(v[i]), float(t[i]), **kw)
    return out


def test_a_spring_on_a_2d_array_is_the_closed_form_with_the_shape_kept():
    law = Spring(c=40.0, x0=0.1)
    x = np.linspace(-0.3, 0.4, 6).reshape(2, 3)
    f = law(x)
    assert isinstance(f, np.ndarray) and f.shape == (2, 3)
    np.testing.assert_array_equal(f, elementwise(law, x, 0.0))
    np.testing.assert_allclose(f, -40.0 * (x - 0.1), rtol=1e-15, atol=1e-15)
    scalar = law(0.3)
    assert type(scalar) is float and scalar == pytest.approx(-8.0, rel=1e-15)
    assert type(law(np.float64(0.3))) is float and type(law(np.array(0.3))) is float


def test_a_gap_across_its_contact_boundary_matches_its_scalar_values_and_the_spec():
    """ElastoGap (SPEC §3.2) on x and v arrays broadcast against each other: in contact
    (s_rel < s_rel0) -(f_c + clamp(d v, f_c, -f_c)), else 0."""
    c, d, s0 = 1e3, 50.0, 0.2
    law = ElastoGap(c=c, d=d, s_rel0=s0)
    x = np.array([0.1, 0.19, 0.2, 0.25])[:, None]       # (4, 1): in, in, boundary, out
    v = np.array([-3.0, -0.1, 0.0, 0.1, 3.0])[None, :]    # (1, 5)
    f = law(x, v)
    assert f.shape == (4, 5)
    np.testing.assert_array_equal(f, elementwise(law, x, v))
    xx, vv = np.broadcast_arrays(x, v)
    f_c = np.where(xx < s0, -c * np.abs(xx - s0), 0.0)
    f_d = np.where(xx < s0, np.clip(d * vv, f_c, -f_c), 0.0)
    np.testing.assert_allclose(f, -(f_c + f_d), rtol=1e-14, atol=1e-12)


def test_bistop_on_arrays_gives_the_spec_reference_values():
    law = Bistop(x1=0.0, x2=1.0, k=1000.0, e=1.5, cmax=10.0, d=0.1)
    x = np.array([xv[0] for xv, _ in BISTOP_CASES])
    v = np.array([xv[1] for xv, _ in BISTOP_CASES])
    expected = np.array([f for _, f in BISTOP_CASES])
    f = law(x, v)
    np.testing.assert_array_equal(f, elementwise(law, x, v))
    np.testing.assert_allclose(f, expected, rtol=1e-12, atol=1e-12)


def test_frozen_sides_hold_for_every_element():
    """``sides`` given once (the branch of one state) holds for the whole array, as in the
    scalar calls: Bistop's contact branch frozen at x = -0.05 is continued to x = 0.02, past
    x1, where the state alone selects no contact (0 N)."""
    law = Bistop(x1=0.0, x2=1.0, k=1000.0, e=1.5, cmax=10.0, d=0.1)
    sides = law.sides(-0.05, -2.0)
    x = np.array([-0.2, -0.05, 0.02])
    f = law(x, -2.0, sides=sides)
    np.testing.assert_array_equal(f, elementwise(law, x, -2.0, sides=sides))
    assert f[2] != 0.0 and law(0.02, -2.0) == 0.0
    per_row = np.broadcast_to(sides, (3, len(sides)))
    np.testing.assert_array_equal(law(x, -2.0, sides=per_row), f)


def test_a_table_law_is_its_tables_values():
    table = Table([0.0, 0.01, 0.02, 0.04], [0.0, 50.0, 400.0, 900.0], kind="pchip")
    law = TableForce(table, d=2.0)
    x = np.linspace(-0.01, 0.05, 13)
    v = np.linspace(-1.0, 1.0, 13)
    f = law(x, v)
    np.testing.assert_array_equal(f, elementwise(law, x, v))
    np.testing.assert_allclose(f, -(np.array([table(u) for u in x]) + 2.0 * v),
                               rtol=1e-14, atol=1e-12)


def test_times_as_an_array_give_a_function_of_time_its_value_at_each():
    law = Actuator(lambda t: 3.0 * np.sin(t))
    t = np.linspace(0.0, 2.0, 7)
    f = law(0.0, 0.0, t)
    assert f.shape == (7,)
    np.testing.assert_allclose(f, 3.0 * np.sin(t), rtol=1e-15, atol=1e-15)
    assert law(np.zeros(0)).shape == (0,)
