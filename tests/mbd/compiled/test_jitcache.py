"""The stale-cache guard of mbd.compiled.jit.jitcache.

numba keys a cached kernel on its own file only, so a kernel ``f`` in ``a.py`` calling ``g`` in
``b.py`` keeps ``g``'s old machine code after ``b.py`` is edited. The scenarios run in fresh
subprocesses on temporary packages (a copy of jitcache.py beside small ``a.py``/``b.py``), so
the real package and its cache are untouched; the user-wide cache dir is redirected into the
temporary directory as well.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MBD = Path(__file__).resolve().parents[3] / "mbd"

A_SRC = '''\
{import_line}
from . import b


@njit({args})
def f(x):
    return b.g(x)
'''

B_SRC = '''\
{import_line}


@njit({args})
def g(x):
    return x + {inc}
'''

C_SRC = '''\
"""Plain Python, no compiled code: outside the guarded set."""
SCALE = {scale}
'''

GUARDED = dict(import_line="from .jitcache import njit", args="")
PLAIN = dict(import_line="from numba import njit", args="cache=True")

RUNNER = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import importlib
out = {}
for name in sys.argv[2:]:
    a = importlib.import_module(name + ".a")
    value = a.f(1)
    st = a.f.stats
    out[name] = dict(value=int(value), hits=sum(st.cache_hits.values()),
                     misses=sum(st.cache_misses.values()), path=st.cache_path)
    try:
        out[name]["guarded"] = importlib.import_module(name + ".jitcache").guarded_files()
    except ImportError:
        pass
print(json.dumps(out))
'''


class Tree:
    """A temporary directory of packages, and a runner of fresh interpreters over it."""

    def __init__(self, root, cache_dir=None):
        self.root = root
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("MBD_CACHE_DIR", "NUMBA_CACHE_DIR",
                                 "NUMBA_CACHE_LOCATOR_CLASSES", "NUMBA_DISABLE_JIT")}
        self.env.update(PYTHONDONTWRITEBYTECODE="1",            # no stale .pyc of an edited b.py
                        XDG_CACHE_HOME=str(root / "user-cache"))  # numba's user-wide cache dir
        if cache_dir is not None:
            self.env["NUMBA_CACHE_DIR"] = str(cache_dir)

    def package(self, name, style, pycache_blocked=False):
        pkg = self.root / name
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        if style is GUARDED:
            shutil.copy(MBD / "compiled" / "jit" / "jitcache.py", pkg / "jitcache.py")
        (pkg / "a.py").write_text(A_SRC.format(**style))
        self.edit_b(name, 1)
        (pkg / "c.py").write_text(C_SRC.format(scale=1.0))
        if pycache_blocked:   # a file where __pycache__ should be: the package is not writable
            (pkg / "__pycache__").write_text("")
        return pkg

    def edit_b(self, name, inc):
        style = GUARDED if (self.root / name / "jitcache.py").exists() else PLAIN
        (self.root / name / "b.py").write_text(B_SRC.format(inc=inc, **style))

    def run(self, *names):
        proc = subprocess.run([sys.executable, "-c", RUNNER, str(self.root), *names],
                              env=self.env, cwd=self.root, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])


def test_guarded_set_of_the_real_package():
    """The core modules are guarded, and they import no package module outside the set (a
    global constant from an unguarded module would be frozen into cached code unseen)."""
    from mbd.compiled.jit import jitcache
    guarded = set(jitcache.guarded_files())
    compiled = {"jit/jitcache", "spatial", "kinematics", "jointspace", "articulated",
                "lawkernels", "forcekernels", "loopkernels", "statekernels", "events", "layout"}
    assert {f"compiled/{m}.py" for m in compiled} | {"run/steppers/dop853.py",
                                                      "run/steppers/radau.py"} <= guarded
    assert not {"run/simulate.py", "system/system.py", "model/builder.py", "run/result.py",
                "run/steppers/scipy.py", "run/steppers/compiled.py"} & guarded
    known = {p.relative_to(MBD).as_posix() for p in MBD.rglob("*.py")}
    for rel in guarded:
        imported = jitcache._package_imports(rel, (MBD / rel).read_text(), known)
        assert set(imported) <= guarded, (rel, set(imported) - guarded)
    # the resolver sees a two-level import of a package's module and of a package's name
    assert jitcache._package_imports("compiled/x.py", "from ..model import values\n"
                                     "from ..model.errors import E\n", known) == [
        "model/__init__.py", "model/values.py", "model/errors.py"]


def test_edit_of_a_callee_recompiles_the_caller_where_plain_numba_goes_stale(tmp_path):
    tree = Tree(tmp_path)
    tree.package("guarded", GUARDED)
    tree.package("plain", PLAIN)
    (tmp_path / "outside.py").write_text("# njit, but not in the package\n")

    first = tree.run("guarded", "plain")
    assert first["guarded"]["guarded"] == ["a.py", "b.py", "jitcache.py"]   # not c.py
    for name in ("guarded", "plain"):
        assert first[name]["value"] == 2 and first[name]["misses"] == 1
        assert list(Path(first[name]["path"]).glob("a.f-*.nbi"))
    # plain numba's cache is beside the source; the guarded one in the user cache dir, in
    # the folder of this content of the package (jitcache.kernel_folder)
    assert Path(first["plain"]["path"]) == tmp_path / "plain" / "__pycache__"
    guarded = Path(first["guarded"]["path"])
    assert guarded.name == "guarded" and guarded.parent.parent == (
        tmp_path / "user-cache" / "mbd" / "kernels")

    second = tree.run("guarded", "plain")
    assert second["guarded"]["hits"] == second["plain"]["hits"] == 1

    # edits outside the guarded set keep the cache
    (tmp_path / "guarded" / "c.py").write_text(C_SRC.format(scale=2.0) + "# edited\n")
    (tmp_path / "outside.py").write_text("# njit, edited\n")
    unrelated = tree.run("guarded")
    assert unrelated["guarded"]["value"] == 2 and unrelated["guarded"]["hits"] == 1

    tree.edit_b("guarded", 2)
    tree.edit_b("plain", 2)
    edited = tree.run("guarded", "plain")
    assert edited["guarded"]["value"] == 3 and edited["guarded"]["misses"] == 1
    # the hazard the guard removes: numba alone loads f with the old g linked in
    assert edited["plain"]["value"] == 2 and edited["plain"]["hits"] == 1, (
        "plain numba no longer serves the stale caller: check whether numba now tracks "
        "dependencies of cached functions")

    again = tree.run("guarded")
    assert again["guarded"]["value"] == 3 and again["guarded"]["hits"] == 1


@pytest.mark.parametrize("where", ["MBD_CACHE_DIR", "NUMBA_CACHE_DIR", "user-wide"])
def test_guard_keeps_the_chosen_cache_dir(tmp_path, where):
    """MBD_CACHE_DIR, else NUMBA_CACHE_DIR (under its ``mbd``), else the user cache dir holds
    the kernels, in a folder per content of the package; an unwritable package folder does
    not matter; the guard works in each."""
    tree = Tree(tmp_path, cache_dir=(tmp_path / "numba-cache" if where == "NUMBA_CACHE_DIR"
                                     else None))
    if where == "MBD_CACHE_DIR":
        tree.env["MBD_CACHE_DIR"] = str(tmp_path / "own")
    tree.package("guarded", GUARDED, pycache_blocked=True)
    expected = {"MBD_CACHE_DIR": tmp_path / "own",
                "NUMBA_CACHE_DIR": tmp_path / "numba-cache" / "mbd",
                "user-wide": tmp_path / "user-cache" / "mbd"}[where] / "kernels"

    first = tree.run("guarded")["guarded"]
    assert first["value"] == 2 and first["misses"] == 1
    assert Path(first["path"]).parent.parent == expected
    assert list(Path(first["path"]).glob("a.f-*.nbi"))

    tree.edit_b("guarded", 2)
    edited = tree.run("guarded")["guarded"]
    assert edited["value"] == 3 and edited["misses"] == 1
    assert Path(edited["path"]).parent != Path(first["path"]).parent   # a new content's folder

    again = tree.run("guarded")["guarded"]
    assert again["value"] == 3 and again["hits"] == 1
