"""The element registry's (mbd.compiled.registry) refusals and recoveries.

* A kind looked up by name: its code, a default for an unknown name, or a KeyError listing the
  registered kinds; a kind's repr names it.
* A kind with more parameters or switches than an element record holds is refused, naming
  the limits and what it has.
* Sealing that fails leaves the registry open, to be sealed again once the cause is gone: an
  element package that uses the registry while it is being sealed, a kind's function that is
  not a module-level name of its module (a function made by a factory), a generated module
  in the cache folder that is damaged. A retry reuses the generated modules that did load.
* The folder of the generated modules: the first of $MBD_CACHE_DIR, $NUMBA_CACHE_DIR/mbd, the
  user cache dir and the temporary dir that can be made, else an OSError saying what to set.
"""
import hashlib
import sys
import tempfile
import textwrap

import pytest

import forces  # noqa: F401  (registers the built-in kinds)
from mbd.compiled import registry
from mbd.compiled.layout import LAW_SWITCHES, MAX_PARAMS


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The generated modules' folder, in tmp_path (a damaged file there is not left behind).

    Nothing is compiled while it is set: numba reads $NUMBA_CACHE_DIR again at every
    compilation, and would keep looking for every kernel's cached code in tmp_path."""
    monkeypatch.delenv("MBD_CACHE_DIR", raising=False)     # (it would come first)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.delenv(registry.MODULES, raising=False)
    return tmp_path / "numba" / "mbd"


def _module(tmp_path, monkeypatch, name, text):
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    return __import__(name)


TOY = '''\
from mbd.compiled.jit.jitcache import njit


@njit(inline="always")
def force(p, x, v, s):
    return p[0] * x


def make_force(scale):
    """A law function made by a factory: not a module-level name."""
    @njit(inline="always")
    def force(p, x, v, s):
        return scale * p[0] * x
    return force
'''


class _Package:
    """An element package's entry point whose import runs ``on_import``."""

    def __init__(self, name, on_import):
        self.name, self.on_import = name, on_import

    def load(self):
        self.on_import()


def _generated_path(folder, kind):
    """Where the registry writes ``kind``'s generated module: named by the hash of its text."""
    text = registry.source(kind)
    return folder / f"mbd_kind_{hashlib.sha256(text.encode()).hexdigest()[:16]}.py"


def test_a_kind_is_found_by_name_or_a_default_or_a_key_error_listing_the_kinds():
    code = registry.code("bistop")
    kind = registry.kind(code)
    assert kind.name == "bistop" and kind.module == "forces.bistop"
    assert repr(kind) == f"Kind('bistop', module='forces.bistop', code={code})"
    assert registry.code("bistop", -1) == code
    assert registry.code("no_such_kind", -1) == -1
    with pytest.raises(KeyError) as err:
        registry.code("no_such_kind")
    message = err.value.args[0]
    assert message.startswith("no law kind 'no_such_kind' is registered (registered: ")
    listed = message.split("registered: ")[1].rstrip(")").split(", ")
    assert listed == sorted(k.name for k in registry.kinds())


@pytest.mark.parametrize("parameters, labels", [
    (tuple(f"p{i}" for i in range(MAX_PARAMS + 1)), ()),
    (("a",), (("below", "above"),) * (LAW_SWITCHES + 1)),
])
def test_a_kind_larger_than_an_element_record_is_refused(parameters, labels):
    reg = registry.Registry(entry_points=lambda: [])
    with pytest.raises(ValueError) as err:
        reg.register("wide", parameters, labels, module=__name__)
    assert str(err.value) == (f"law kind 'wide': at most {MAX_PARAMS} parameters and "
                              f"{LAW_SWITCHES} switches, got {len(parameters)} and "
                              f"{len(labels)}")
    assert reg.register("narrow", parameters[:MAX_PARAMS], labels[:LAW_SWITCHES],
                        module=__name__).name == "narrow"


def test_an_element_package_using_the_registry_on_import_fails_the_seal_which_can_be_retried(
        cache):
    reg = registry.Registry()
    reg.entry_points = lambda: [_Package("eager", lambda: reg.code("anything"))]
    with pytest.raises(RuntimeError, match=r"^the element registry was used while it was "
                                           r"being sealed \(an element package compiled or "
                                           r"built a model on import\)$"):
        reg.seal()
    # still open: a kind can be registered, and the seal succeeds without that package
    kind = reg.register("after_the_failure", ("a",), module=__name__)
    reg.entry_points = lambda: []
    assert reg.code("after_the_failure") == kind.code == 0
    with pytest.raises(RuntimeError, match="'later'.*after the element registry was sealed"):
        reg.register("later", ("a",), module=__name__)


def test_a_function_made_by_a_factory_is_refused_when_sealing(tmp_path, monkeypatch, cache):
    toy = _module(tmp_path, monkeypatch, "mbd_test_paths_factory", TOY)
    reg = registry.Registry(entry_points=lambda: [])
    reg.register("scaled", ("a",), module=toy.__name__, force=toy.make_force(2.0))
    with pytest.raises(ValueError) as err:
        reg.seal()
    assert str(err.value) == ("law kind 'scaled': its function force is not a module-level "
                              "name of mbd_test_paths_factory")
    # not sealed: another kind can still be registered
    assert reg.register("plain", ("a",), module=toy.__name__, force=toy.force).name == "plain"


def test_a_function_without_a_name_is_refused_when_sealing(tmp_path, monkeypatch, cache):
    """A functools.partial has no __name__: refused as not a module-level name, naming it
    (was: TypeError "attribute name must be string")."""
    import functools
    toy = _module(tmp_path, monkeypatch, "mbd_test_paths_partial", TOY)
    reg = registry.Registry(entry_points=lambda: [])
    partial = functools.partial(toy.force)
    reg.register("partial", ("a",), module=toy.__name__, force=partial)
    with pytest.raises(ValueError) as err:
        reg.seal()
    assert str(err.value) == (f"law kind 'partial': its function {partial!r} is not a "
                              "module-level name of mbd_test_paths_partial")


def test_a_damaged_generated_module_fails_the_seal_naming_its_file_and_a_retry_reloads(
        tmp_path, monkeypatch, cache):
    toy = _module(tmp_path, monkeypatch, "mbd_test_paths_damaged", TOY)
    reg = registry.Registry(entry_points=lambda: [])
    first = reg.register("loads", ("a",), module=toy.__name__)
    second = reg.register("damaged", ("a",), module=toy.__name__, force=toy.force)
    cache.mkdir(parents=True, exist_ok=True)     # (made already where a kernel was declared)
    damaged = _generated_path(cache, second)
    damaged.write_text(registry.source(second)[:40])   # cut in its docstring: not Python
    with pytest.raises(SyntaxError) as err:
        reg.seal()
    assert err.value.filename == str(damaged)
    assert damaged.stem not in sys.modules                 # no half-made module is kept
    loaded = sys.modules[_generated_path(cache, first).stem]   # the first kind's did load
    assert loaded.__file__ == str(_generated_path(cache, first))

    damaged.unlink()                                        # the user clears the bad file
    reg.seal()
    assert first.compiled is loaded                         # imported once, reused
    assert second.compiled.__file__ == str(damaged)
    assert damaged.read_text() == registry.source(second)
    assert (first.code, second.code) == (0, 1)


def test_the_generated_modules_go_to_the_first_folder_that_can_be_made(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")                  # a folder cannot be made inside a file
    monkeypatch.setenv("MBD_CACHE_DIR", str(tmp_path / "own"))     # the user's choice first
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert registry.cache_folder() == str(tmp_path / "own")
    monkeypatch.setenv("MBD_CACHE_DIR", str(blocker / "own"))      # then numba's
    assert registry.cache_folder() == str(tmp_path / "numba" / "mbd")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker / "numba"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    assert registry.cache_folder() == str(tmp_path / "user-cache" / "mbd")
    assert (tmp_path / "user-cache" / "mbd").is_dir()

    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "user-cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    assert registry.cache_folder() == str(tmp_path / "tmp" / "mbd-cache")

    monkeypatch.setattr(tempfile, "tempdir", str(blocker / "tmp"))
    with pytest.raises(OSError, match=r"^no writable folder for mbd's compiled code and "
                                      r"generated modules \(set MBD_CACHE_DIR\)$"):
        registry.cache_folder()
