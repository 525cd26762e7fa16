"""The stale-cache guard of mbd.compiled.jit.jitcache on a tree being edited, and ``@njit`` used
bare.

The guard's scan and hash run here on a small package tree in tmp_path (``GUARD_DIR`` pointed
at it for the test), as an editor leaves it:

* an Emacs lock file (``.#core.py``, a symlink to nowhere) is not a module: skipped;
* a marked module with a syntax error (half-written) is guarded and hashed, its imports not
  followed;
* a module that vanishes between the listing and the read (an editor's save) is left out, and
  is back once it is there again;
* the digest follows the guarded modules and the parts added with ``guard_also``, not the other
  modules.

``@njit`` without parentheses gives the project's settings (a division by zero is inf) and a
guarded disk cache: loaded again while the digest is the same, compiled again once it changes.
"""
import importlib.util
import os

import pytest

from mbd.compiled.jit import jitcache


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A package tree under edit, guarded alone (and no digest parts) for the test."""
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "core.py").write_text("from .jitcache import njit\nfrom . import consts\n")
    (root / "consts.py").write_text("SCALE = 1.0\n")
    (root / "plain.py").write_text("LABEL = 'plain'\n")
    # being edited: marked, but not Python yet; it imports plain
    (root / "editing.py").write_text("from .jitcache import njit\nfrom . import plain\n"
                                     "def half(:\n")
    os.symlink("user@host.4242:1700000000", root / ".#core.py")     # Emacs's lock file
    monkeypatch.setattr(jitcache, "GUARD_DIR", str(root))
    monkeypatch.setattr(jitcache, "_memo", {})
    monkeypatch.setattr(jitcache, "_also", [])
    return root


def test_lock_files_are_skipped_and_a_half_written_module_is_guarded(tree):
    assert jitcache.guarded_files() == ["consts.py", "core.py", "editing.py"]
    before = jitcache.tree_digest()
    (tree / "editing.py").write_text("from .jitcache import njit\nfrom . import plain\n"
                                     "def half(x):\n    return x / 2\n")
    # written out: its import of plain is followed now
    assert jitcache.guarded_files() == ["consts.py", "core.py", "editing.py", "plain.py"]
    assert jitcache.tree_digest() != before


def test_a_module_that_vanishes_while_hashed_is_left_out_until_it_is_back(tree, monkeypatch):
    scan = jitcache._scan
    consts = (tree / "consts.py").read_text()

    def scan_then_save():
        found = scan()
        # the editor's save: removed after the listing (at the first scan)
        (tree / "consts.py").unlink(missing_ok=True)
        return found

    monkeypatch.setattr(jitcache, "_scan", scan_then_save)
    assert jitcache.guarded_files() == ["core.py", "editing.py"]
    without = jitcache.tree_digest()
    monkeypatch.setattr(jitcache, "_scan", scan)
    (tree / "consts.py").write_text(consts)
    assert jitcache.guarded_files() == ["consts.py", "core.py", "editing.py"]
    assert jitcache.tree_digest() != without


def test_the_digest_follows_the_guarded_modules_and_the_added_parts(tree):
    start = jitcache.tree_digest()
    (tree / "plain.py").write_text("LABEL = 'plain, edited'\n")      # not guarded
    assert jitcache.tree_digest() == start
    (tree / "consts.py").write_text("SCALE = 2.0\n")                 # imported by core.py
    edited = jitcache.tree_digest()
    assert edited != start

    part = ["kinds-1"]
    jitcache.guard_also(lambda: part[0])
    with_part = jitcache.tree_digest()
    assert with_part != edited
    part[0] = "kinds-2"
    assert jitcache.tree_digest() not in (edited, with_part)
    part[0] = "kinds-1"
    assert jitcache.tree_digest() == with_part


BARE = '''\
from mbd.compiled.jit.jitcache import njit


@njit
def ratio(x, y):
    return x / y
'''


def test_bare_njit_has_the_projects_settings_and_a_guarded_cache(tmp_path, monkeypatch):
    path = tmp_path / "bare_njit.py"
    path.write_text(BARE)
    part = ["a"]
    monkeypatch.setattr(jitcache, "_also", [lambda: part[0]])

    def fresh(n):
        """The module imported anew (as by a new process), its function called once."""
        spec = importlib.util.spec_from_file_location(f"bare_njit_{n}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert module.ratio(1.0, 0.0) == float("inf")     # numba's default would raise
        stats = module.ratio.stats
        return sum(stats.cache_hits.values()), sum(stats.cache_misses.values())

    assert fresh(1) == (0, 1)           # compiled, and saved
    assert fresh(2) == (1, 0)           # loaded
    part[0] = "b"                       # the digest changes: the saved code is stale
    assert fresh(3) == (0, 1)
    assert fresh(4) == (1, 0)
