"""The compiled kernels' cache is keyed by what the sources say, not where they lie or when
they were written (issue 45, "the first run"): a reinstall of the same version (new files,
new mtimes) and a second copy of the package (a clone and the copy pip installed from it)
load the kernels the first copy compiled; ``mbd warmup``'s children compile the copy their
parent imported, whatever folder they start in; a cold command says at once that it compiles,
and a Ctrl-C during that compile leaves no empty output folder.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from mbd.compiled.jit import jitcache
from mbd.run import warmup

from .test_jitcache import GUARDED, Tree

ROOT = Path(__file__).resolve().parents[3]

#: a fresh interpreter running a short pendulum from the packages in argv[1], printing how
#: many of mbd's kernels numba compiled (not loaded from the cache) and where mbd came from
PENDULUM = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
from numba.core import event
compiled = []


class Count(event.Listener):
    def on_start(self, e):
        module = e.data["dispatcher"].py_func.__module__
        if module.split(".")[0] in ("mbd", "forces", "joints") or module.startswith("mbd_kind_"):
            compiled.append(e.data["dispatcher"].py_func.__qualname__)

    def on_end(self, e):
        pass


event.register("numba:compile", Count())
import numpy as np
import mbd
from joints import Revolute
m = mbd.Model("pendulum")
g = m.add_ground("g", environment=mbd.Environment(gravity=(0.0, 0.0, -9.81)))
bob = m.add_body("bob", mass=1.0, cg=(1.0, 0.0, 0.0), inertia=np.eye(3) * 1e-3,
                 cs={"pivot": (0.0, 0.0, 0.0)})
m.add(Revolute("hinge", g, bob["pivot"], axis=(0.0, 1.0, 0.0)))
r = m.build().simulate(0.2, output_step=0.1)
print(json.dumps(dict(compiled=compiled, mbd=mbd.__file__, q=float(r.joint("hinge").q[-1]))))
'''


def _copy_packages(into):
    """The four top-level packages of this checkout copied into ``into`` as an install
    would write them: the same bytes, new files (new mtimes), no __pycache__."""
    for name in ("mbd", "forces", "joints", "viz"):
        shutil.copytree(ROOT / name, into / name, ignore=shutil.ignore_patterns("__pycache__"))
    return into


def _pendulum(packages):
    """The pendulum run from the packages in ``packages`` (the suite's cache)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-c", PENDULUM, str(packages)], env=env,
                          cwd=packages, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_reinstalled_copy_of_the_package_loads_the_kernels_another_copy_compiled(tmp_path):
    """The issue's case: a second install of the same mbd (here: copies of this checkout's
    packages in two other folders, written anew) compiles nothing: the first loaded or
    compiled what it needed into the cache, which the second finds, and they agree."""
    first = _pendulum(_copy_packages(tmp_path / "clone"))
    assert first["mbd"] == str(tmp_path / "clone" / "mbd" / "__init__.py")
    installed = _pendulum(_copy_packages(tmp_path / "site-packages"))
    assert installed["mbd"] == str(tmp_path / "site-packages" / "mbd" / "__init__.py")
    assert installed["compiled"] == []
    assert installed["q"] == first["q"]


def test_new_mtimes_and_a_second_location_keep_a_kernel_and_an_edit_does_not(tmp_path):
    """The same on the small guarded package of test_jitcache: a copy elsewhere loads the
    kernel, files rewritten with the same bytes (a reinstall) load it, an edit recompiles."""
    tree = Tree(tmp_path / "clone")
    (tmp_path / "clone").mkdir()
    tree.package("guarded", GUARDED)
    first = tree.run("guarded")["guarded"]
    assert first["value"] == 2 and first["misses"] == 1

    other = Tree(tmp_path / "site")
    (tmp_path / "site").mkdir()
    other.env = tree.env                                    # the same user cache dir
    shutil.copytree(tmp_path / "clone" / "guarded", tmp_path / "site" / "guarded")
    assert other.run("guarded")["guarded"]["hits"] == 1

    time.sleep(0.01)
    for path in (tmp_path / "clone" / "guarded").glob("*.py"):
        path.write_bytes(path.read_bytes())                 # new mtimes, same bytes
    again = tree.run("guarded")["guarded"]
    assert again["value"] == 2 and again["hits"] == 1

    tree.edit_b("guarded", 5)
    edited = tree.run("guarded")["guarded"]
    assert edited["value"] == 6 and edited["misses"] == 1


def test_a_new_kernel_folder_keeps_only_the_most_recently_used(tmp_path, monkeypatch):
    monkeypatch.setenv("MBD_CACHE_DIR", str(tmp_path))
    kernels = tmp_path / "kernels"
    old = [kernels / f"{k:016x}" for k in range(jitcache.KEEP + 3)]
    for k, folder in enumerate(old):
        folder.mkdir(parents=True)
        (folder / "a.nbi").write_text("")
        os.utime(folder, (1e9 + k, 1e9 + k))                # the last ones the most recent
    folder = Path(jitcache.kernel_folder())
    assert folder.parent == kernels and folder.name == jitcache._guard()[1][:16]
    kept = sorted(p.name for p in kernels.iterdir())
    assert kept == sorted([folder.name] + [p.name for p in old[-(jitcache.KEEP - 1):]])


def test_no_writable_cache_root_falls_back_to_numbas_own_places(tmp_path, monkeypatch):
    import numba
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")         # numba's next: beside the file

    def nowhere():
        raise OSError("no writable folder")
    monkeypatch.setattr(jitcache, "cache_root", nowhere)
    monkeypatch.setattr(jitcache, "_kernel_folder", {})
    source = tmp_path / "lone.py"
    source.write_text("def f(x):\n    return x\n")
    namespace = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    assert jitcache.PackageLocator.from_function(namespace["f"], str(source)) is None
    cache = jitcache.GuardedFunctionCache(namespace["f"])
    assert Path(cache.cache_path) == tmp_path / "__pycache__"      # numba's in-tree place


DECOY = "raise ImportError('the decoy mbd of the working folder was imported')\n"


def test_warmups_children_compile_the_copy_their_parent_imported(tmp_path):
    """The issue's case: ``mbd warmup`` started in a clone's root (a folder holding another
    ``mbd``) must compile the mbd it imported, and runpy must not warn that
    mbd.run.warmup was imported before it ran (``python -m`` did both)."""
    (tmp_path / "mbd").mkdir()
    (tmp_path / "mbd" / "__init__.py").write_text(DECOY)
    env = dict(os.environ, **{warmup.registry.MODULES: ",".join(warmup.registry.modules())})
    proc = subprocess.run(warmup.child_command("--report", "retract"), cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("compiled retract ")
    assert "RuntimeWarning" not in proc.stderr and "decoy" not in proc.stderr
    assert warmup.cached("retract")          # in the cache this process reads


def test_a_cold_demo_says_it_compiles_and_ctrl_c_in_the_compile_leaves_no_folder(tmp_path):
    """The issue's case: ``mbd demo`` on an empty cache says at once that the first run
    compiles (where it draws its progress bar: at a terminal, or with ``--progress``, as
    here); Ctrl-C at the terminal (SIGINT to the process group) while it compiles ends it
    with status 130 and leaves no output folder (it had made one, empty)."""
    out = tmp_path / "results" / "demo"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(MBD_CACHE_DIR=str(tmp_path / "empty-cache"))
    proc = subprocess.Popen([sys.executable, "-m", "mbd", "demo", "--out", str(out),
                             "--progress"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    said = []
    reader = threading.Thread(target=lambda: said.extend(proc.stderr), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 300        # the notice, and the folder: it compiles
        while (not (out.exists() and said) and proc.poll() is None
               and time.monotonic() < deadline):
            time.sleep(0.02)
        assert out.exists() and said and proc.poll() is None, said
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=120)
        reader.join(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    stderr = "".join(said)
    assert proc.returncode == 130, stderr
    lines = stderr.splitlines()
    assert lines[0].startswith("mbd demo: compiling the numba kernels"), stderr
    assert "mbd warmup" in lines[0]
    assert lines[-1].endswith("mbd demo: interrupted")    # (after the bar's carriage return)
    assert not (tmp_path / "results").exists()


def test_a_warm_command_says_nothing_of_compiling(tmp_path):
    """The notice is for a compile only: a second run of the same script (the first one
    loaded or compiled its kernels) prints no such line; without a terminal or --progress
    nothing is said at all."""
    command = [sys.executable, "-m", "mbd", "run", str(ROOT / "examples" / "pendulum.py"),
               "--t-end", "0.1", "--out", str(tmp_path / "out"), "--progress"]
    runs = [subprocess.run(command, cwd=tmp_path, capture_output=True, text=True,
                           timeout=600) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    assert "compiling" not in runs[1].stderr and "[" in runs[1].stderr, runs[1].stderr
