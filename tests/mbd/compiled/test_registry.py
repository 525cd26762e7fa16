"""The element registry (mbd.compiled.registry): every registered kind's generated functions and
kernel entry give what its own functions give, sealing is final, every process gets the same
kinds, and the kinds' sources key the cache.
"""
import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import forces  # noqa: F401  (registers the built-in kinds)
from mbd.compiled import lawkernels, layout, registry
from mbd.compiled.jit import jitcache
from mbd.compiled.layout import LAW_SWITCHES, MAX_PARAMS

ROOT = Path(__file__).resolve().parents[3]

BUILT_IN = {"linear", "constant", "elastogap", "elastobacklash", "elastobacklash2", "bistop",
            "variable_spring", "bushing", "stiction", "table"}


def test_every_kinds_functions_and_kernel_entry_give_its_own():
    """Every kind has its code; each role's generated function (Python's) and each task of its
    kernel entry (the kernels', on an element's record) give what the kind's own function
    gives, or the role's default."""
    kinds = registry.kinds()
    assert BUILT_IN <= {k.name for k in kinds}
    assert [k.code for k in kinds] == list(range(len(kinds)))
    rng = np.random.default_rng(25)
    elements, mode = layout.records(layout.ELEMENT, 2), layout.initial_mode(2)
    for kind in kinds:
        own = {role: getattr(f, "py_func", f) for role, f in kind.functions.items()}
        entry = kind.compiled.element_law
        for _ in range(20):
            p = rng.uniform(0.5, 2.0, MAX_PARAMS)
            x, v = rng.normal(size=2)
            s = rng.choice([-1.0, 1.0], LAW_SWITCHES)
            elements[1]["params"], mode[1]["sides"][:LAW_SWITCHES] = p, s
            row = np.zeros(layout.SWITCHES)
            want = own["force"](p, x, v, s) if "force" in own else np.nan
            assert lawkernels.force(kind.code, p, x, v, s) == pytest.approx(
                want, rel=1e-14, nan_ok=True), kind.name
            assert entry(layout.LAW_FORCE, elements, mode, 1, x, v, row, 0) == pytest.approx(
                want, rel=1e-14, nan_ok=True), kind.name
            g, g_kind = np.full(LAW_SWITCHES, 7.0), np.zeros(LAW_SWITCHES)
            lawkernels.switching(kind.code, p, x, v, s, g)
            if "switching" in own:
                own["switching"](p, x, v, s, g_kind)
            np.testing.assert_allclose(g, g_kind, rtol=1e-14, err_msg=kind.name)
            row[:] = 7.0
            entry(layout.LAW_SWITCHING, elements, mode, 1, x, v, row, 0)
            np.testing.assert_allclose(row[:LAW_SWITCHES], g_kind, rtol=1e-14,
                                       err_msg=kind.name)
            # the sides the state selects: the same from Python and from the entry
            sides, scratch = s.copy(), np.zeros(LAW_SWITCHES)
            lawkernels.natural_sides(kind.code, p, x, v, sides, scratch)
            entry(layout.LAW_NATURAL_SIDES, elements, mode, 1, x, v, row, 0)
            np.testing.assert_array_equal(mode[1]["sides"][:LAW_SWITCHES], sides,
                                          err_msg=kind.name)
            mode[1]["sides"][:LAW_SWITCHES] = s
            if "natural_sides" not in own:     # the default: each side the sign of its g
                for k in range(LAW_SWITCHES):
                    assert sides[k] == (1.0 if scratch[k] >= 0.0 else -1.0), kind.name
            for k in range(LAW_SWITCHES):
                want = own["armed"](p, s, k) if "armed" in own else False
                assert lawkernels.armed(kind.code, p, s, k) == want, (kind.name, k)
                assert entry(layout.LAW_ARMED, elements, mode, 1, x, v, row, k) == float(want)
                # the next mode: the kind's own, else switch k's other side
                after, want = s.copy(), s.copy()
                lawkernels.next_mode(kind.code, p, x, v, after, k)
                if "next_mode" in own:
                    own["next_mode"](p, x, v, want, k)
                else:
                    want[k] = -want[k]
                np.testing.assert_array_equal(after, want, err_msg=f"{kind.name} {k}")
            want = own["odd_at_zero"](p) if "odd_at_zero" in own else False
            assert lawkernels.odd_at_zero(kind.code, p) == want, kind.name
            assert entry(layout.LAW_ODD_AT_ZERO, elements, mode, 1, x, v, row, 0) == float(want)
            want = own["energy"](p, x, s) if "energy" in own else 0.0
            assert lawkernels.energy(kind.code, p, x, s) == pytest.approx(want, rel=1e-14,
                                                                          nan_ok=True)
            rows, out = np.array([x, x + 0.25]), np.empty(2)
            lawkernels.energies(kind.code, np.array([p, p]), rows, np.array([s, s]), out)
            assert out[0] == pytest.approx(lawkernels.energy(kind.code, p, x, s), rel=0,
                                           nan_ok=True), kind.name


def test_a_kernel_called_with_other_types_than_the_entries_is_a_typing_error():
    """The kernels call a kind's entry by its address: arguments of other types than those
    it is compiled for are refused when the caller compiles, not passed on."""
    from numba import njit
    from numba.core.errors import TypingError

    @njit(cache=False)
    def wrong(address, elements, mode, g):
        return lawkernels.call_law(address, 0, elements, mode, 0, 0.0, 0.0, g, 0)

    elements, mode = layout.records(layout.ELEMENT, 1), layout.initial_mode(1)
    with pytest.raises(TypingError, match="call_law"):
        wrong(0, elements, mode, np.zeros((1, layout.SWITCHES)))      # a 2-D g


def test_every_switch_of_a_kind_has_its_labels():
    """A kind that switches names what each side of each of its switching functions means."""
    for kind in registry.kinds():
        if "armed" in kind.functions:
            assert kind.labels and all(len(pair) == 2 for pair in kind.labels), kind.name


def test_a_kind_registered_after_sealing_is_an_error_naming_it():
    registry.seal()
    with pytest.raises(RuntimeError, match="'late_kind'.*after the element registry was sealed"):
        registry.register("late_kind", ("a",))
    assert "late_kind" not in {k.name for k in registry.kinds()}


def _toy_module(tmp_path, monkeypatch, name):
    """A module ``name`` with a compiled toy force law (p[0] x), importable from tmp_path."""
    (tmp_path / f"{name}.py").write_text(textwrap.dedent('''\
        from mbd.compiled.jit.jitcache import njit


        @njit(inline="always")
        def force(p, x, v, s):
            return p[0] * x
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    return __import__(name)


def test_a_fresh_registry_generates_seals_and_refuses(tmp_path, monkeypatch):
    """Without entry points (a checkout run) the kinds registered by import get their modules;
    codes follow (module, registration order); a second registration of a name, an unknown
    role, and any registration after sealing are errors."""
    toy = _toy_module(tmp_path, monkeypatch, "mbd_test_toy_kind")
    reg = registry.Registry(entry_points=lambda: [])
    second = reg.register("second", ("a",), module=toy.__name__, force=toy.force)
    first = reg.register("first", ("a",), module=toy.__name__)        # no functions
    with pytest.raises(ValueError, match="'second' is registered twice"):
        reg.register("second", ("a",), module=toy.__name__)
    with pytest.raises(ValueError, match="unknown roles"):
        reg.register("third", ("a",), module=toy.__name__, stiffness=toy.force)
    reg.seal()
    assert (second.code, first.code) == (0, 1)
    assert second.compiled.force(np.array([3.0]), 2.0, 0.0, np.ones(LAW_SWITCHES)) == 6.0
    assert np.isnan(first.compiled.force(np.array([3.0]), 2.0, 0.0, np.ones(LAW_SWITCHES)))
    for kind in (first, second):
        assert Path(kind.compiled.__file__).parent == Path(registry.cache_folder())
        assert Path(kind.compiled.__file__).read_text() == registry.source(kind)
    with pytest.raises(RuntimeError, match="'third'"):
        reg.register("third", ("a",), module=toy.__name__)


def test_the_kinds_sources_are_in_every_cache_key(tmp_path, monkeypatch):
    """Editing a kind's module changes the registry's digest, and the registry's digest is part
    of jitcache's (so the kernels that inline the kind recompile)."""
    toy = _toy_module(tmp_path, monkeypatch, "mbd_test_toy_digest")
    reg = registry.Registry(entry_points=lambda: [])
    kind = reg.register("toy", ("a",), module=toy.__name__, force=toy.force)
    reg.seal()
    before = registry._digest([kind])
    assert reg.digest() == before
    Path(toy.__file__).write_text(Path(toy.__file__).read_text() + "# edited\n")
    assert registry._digest([kind]) != before
    assert registry.digest in jitcache._also


ONLY_ITS_KINDS = r'''
import json
import numpy as np
import mbd
from forces import ElastoGap, JointForce, Spring
from joints import Prismatic
from mbd.compiled import registry
m = mbd.Model("block")
g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, -9.81)))
b = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
j = m.add(Prismatic("slide", g, b["cg"], axis=(0, 0, 1), q0=0.1))
m.add(JointForce("spring", j, Spring(c=10.0)))
m.add(JointForce("pad", j, ElastoGap(c=1e4, d=10.0)))
result = m.build().simulate(1.0)
result.energy_balance()
print(json.dumps(sorted(k.name for k in registry.kinds()
                        if k.compiled.element_law.signatures)))
'''


def test_a_run_compiles_only_the_law_kinds_of_its_elements():
    """A run (and its energy balance) compiles the kernel entries of its elements' kinds and
    no other: the kernels call the laws through addresses, so no kernel holds every kind."""
    proc = subprocess.run([sys.executable, "-c", ONLY_ITS_KINDS], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    used = set(json.loads(proc.stdout.strip().splitlines()[-1]))
    # the linear spring and the gap; "constant" is the core's own kind (diagnosis freezes an
    # element with it) and is compiled only where it is used
    assert used == {"linear", "elastogap"}


SEAL = r'''
import importlib.metadata, json, os, sys
from mbd.compiled import registry
assert "forces" not in sys.modules
forces_entry = [importlib.metadata.EntryPoint("forces", "forces", registry.GROUP)]
registry.REGISTRY.entry_points = lambda: forces_entry if sys.argv[1] != "handed" else []
if sys.argv[1] == "first":
    import forces
print(json.dumps([[k.name, k.code, os.path.basename(k.compiled.__file__)]
                  for k in registry.kinds()]))
'''


def test_the_kinds_are_the_same_whether_or_not_forces_was_imported(tmp_path):
    """A script that never imports forces (a pendulum) and one that does (the demo) seal the
    same kinds, codes and generated modules: the registry loads the element packages of the entry points first (here the
    lookup is replaced by forces' entry point, as an install declares it). So does a process
    without entry points that is handed the kinds' modules in $MBD_ELEMENTS (a compiling child
    of mbd.run.warmup)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path))
    env[registry.MODULES] = ""
    out = []
    for order in ("first", "never", "handed"):
        if order == "handed":
            env[registry.MODULES] = ",".join(registry.modules())
        proc = subprocess.run([sys.executable, "-c", SEAL, order], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert out[0] == out[1] == out[2]
    assert BUILT_IN <= {name for name, _, _ in out[0]}


def test_the_entry_point_is_declared():
    text = (ROOT / "pyproject.toml").read_text()
    assert '[project.entry-points."mbd.elements"]\nforces = "forces"' in text
    assert importlib.metadata.EntryPoint("forces", "forces", registry.GROUP).load() is forces
