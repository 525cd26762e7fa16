"""The element registry (mbd.compiled.registry): the generated dispatch covers every registered
kind, sealing is final, every process gets the same dispatch, and the kinds' sources key the cache.
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
from mbd.compiled import jitcache, lawkernels, registry
from mbd.compiled.layout import LAW_SWITCHES, MAX_PARAMS

ROOT = Path(__file__).resolve().parents[2]

BUILT_IN = {"linear", "constant", "elastogap", "elastobacklash", "elastobacklash2", "bistop",
            "variable_spring", "bushing", "stiction", "table"}


def test_the_dispatch_covers_every_registered_kind():
    """Every kind has its code, and each of its functions a branch of the generated dispatch
    that gives what the kind's own function gives."""
    kinds = registry.kinds()
    assert BUILT_IN <= {k.name for k in kinds}
    assert [k.code for k in kinds] == list(range(len(kinds)))
    text = registry.source(kinds)
    rng = np.random.default_rng(25)
    for kind in kinds:
        own = {role: getattr(f, "py_func", f) for role, f in kind.functions.items()}
        for role, function in kind.functions.items():
            assert f"    if code == {kind.code}:  # {kind.name}\n" in text.split(
                f"def {role}(code")[1].split("\n\n\n")[0], (kind.name, role)
        for _ in range(20):
            p = rng.uniform(0.5, 2.0, MAX_PARAMS)
            x, v = rng.normal(size=2)
            s = rng.choice([-1.0, 1.0], LAW_SWITCHES)
            if "force" in own:
                assert lawkernels.force(kind.code, p, x, v, s) == pytest.approx(
                    own["force"](p, x, v, s), rel=1e-14, nan_ok=True), kind.name
            else:
                assert np.isnan(lawkernels.force(kind.code, p, x, v, s))
            g, g_kind = np.full(LAW_SWITCHES, 7.0), np.zeros(LAW_SWITCHES)
            lawkernels.switching(kind.code, p, x, v, s, g)
            if "switching" in own:
                own["switching"](p, x, v, s, g_kind)
            np.testing.assert_allclose(g, g_kind, rtol=1e-14, err_msg=kind.name)
            for k in range(LAW_SWITCHES):
                want = own["armed"](p, s, k) if "armed" in own else False
                assert lawkernels.armed(kind.code, p, s, k) == want, (kind.name, k)
                # the next mode: the kind's own, else switch k's other side
                after, want = s.copy(), s.copy()
                lawkernels.next_mode(kind.code, p, x, v, after, k)
                if "next_mode" in own:
                    own["next_mode"](p, x, v, want, k)
                else:
                    want[k] = -want[k]
                np.testing.assert_array_equal(after, want, err_msg=f"{kind.name} {k}")
            want = own["energy"](p, x, s) if "energy" in own else 0.0
            assert lawkernels.energy(kind.code, p, x, s) == pytest.approx(want, rel=1e-14,
                                                                          nan_ok=True)
            rows, out = np.array([x, x + 0.25]), np.empty(2)
            lawkernels.energies(kind.code, np.array([p, p]), rows, np.array([s, s]), out)
            assert out[0] == pytest.approx(lawkernels.energy(kind.code, p, x, s), rel=0,
                                           nan_ok=True), kind.name


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
        from mbd.compiled.jitcache import njit


        @njit(inline="always")
        def force(p, x, v, s):
            return p[0] * x
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    return __import__(name)


def test_a_fresh_registry_generates_seals_and_refuses(tmp_path, monkeypatch):
    """Without entry points (a checkout run) the kinds registered by import make the dispatch;
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
    dispatch = reg.seal()
    assert (second.code, first.code) == (0, 1)
    assert dispatch.force(0, np.array([3.0]), 2.0, 0.0, np.ones(LAW_SWITCHES)) == 6.0
    assert np.isnan(dispatch.force(1, np.array([3.0]), 2.0, 0.0, np.ones(LAW_SWITCHES)))
    assert Path(dispatch.__file__).parent == Path(registry.cache_folder())
    assert Path(dispatch.__file__).read_text() == registry.source(reg.kinds())
    with pytest.raises(RuntimeError, match="'third'"):
        reg.register("third", ("a",), module=toy.__name__)


def test_the_kinds_sources_are_in_every_cache_key(tmp_path, monkeypatch):
    """Editing a kind's module changes the registry's digest, and the registry's digest is part
    of jitcache's (so the kernels that inline the kind recompile)."""
    toy = _toy_module(tmp_path, monkeypatch, "mbd_test_toy_digest")
    reg = registry.Registry(entry_points=lambda: [])
    kind = reg.register("toy", ("a",), module=toy.__name__, force=toy.force)
    reg.seal()
    before = registry._digest([kind], reg.seal().__file__)
    assert reg.digest() == before
    Path(toy.__file__).write_text(Path(toy.__file__).read_text() + "# edited\n")
    assert registry._digest([kind], reg.seal().__file__) != before
    assert registry.digest in jitcache._also


SEAL = r'''
import importlib.metadata, json, os, sys
from mbd.compiled import registry
assert "forces" not in sys.modules
forces_entry = [importlib.metadata.EntryPoint("forces", "forces", registry.GROUP)]
registry.REGISTRY.entry_points = lambda: forces_entry if sys.argv[1] != "handed" else []
if sys.argv[1] == "first":
    import forces
dispatch = registry.seal()
print(json.dumps([os.path.basename(dispatch.__file__),
                  [[k.name, k.code] for k in registry.kinds()]]))
'''


def test_the_dispatch_is_the_same_whether_or_not_forces_was_imported(tmp_path):
    """A script that never imports forces (a pendulum) and one that does (the demo) seal the
    same dispatch: the registry loads the element packages of the entry points first (here the
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
    assert BUILT_IN <= {name for name, _ in out[0][1]}


def test_the_entry_point_is_declared():
    text = (ROOT / "pyproject.toml").read_text()
    assert '[project.entry-points."mbd.elements"]\nforces = "forces"' in text
    assert importlib.metadata.EntryPoint("forces", "forces", registry.GROUP).load() is forces
