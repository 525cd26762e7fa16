"""A pytest plugin: every accuracy test run a second time on a problem perturbed as another
machine's round-off would perturb it.

A test marked ``@pytest.mark.accuracy`` asserts a bound on a computed figure (an error, a
drift, a count). Such a bound must come from the method and the reference, not from what
one CPU happened to compute: a bound set just above one machine's figure fails on the next
(issue 44: AVX-512 and another BLAS moved an error from 2.9e-7 to 7.2e-7 m and a step count
from 1000 to 711). With ``--perturb`` (on by itself when the environment variable ``CI`` is
set), each file's accuracy tests are collected twice: as they are, and in a copy named
``FILE.py[perturbed]`` in which every run the test makes is perturbed at the engine's
boundary (:mod:`mbd.run.simulate`, which ``simulate``, ``model.simulate``, ``system.start``
and ``mbd.Simulation`` all go through):

- the start state ``y = [q, v]`` (after assembly) moved by a relative
  :data:`STATE_LEVEL` = 1e-13 on each entry (a factor ``1 + s u 1e-13``, u uniform in
  [0.5, 1], s a random sign: about 500 eps, what a differently ordered sum of a few hundred
  terms or another assembly iteration leaves; exact zeros stay zero, as round-off keeps
  them);
- ``rtol`` and ``atol`` each scaled by ``1 +- TOLERANCE_LEVEL`` = 1 +- 10 % (the sign drawn),
  which moves every step size and so every round-off by far more than another CPU does.

Both copies must pass. The draws are deterministic, one set per test (every run of the test
gets the same): seeded from the test's node id (the plain one) and ``--perturb-salt``
(default 0; vary it to try other draws). A module-scoped fixture of a perturbed copy is a
fixture of that copy's own module, set up again under the perturbation (the plain module's
is torn down first), so a run made once per module is perturbed too, with draws of its own
(seeded by the module, the fixture's name and parameter), whichever test sets it up. Not
reached: runs in other processes (the sweep's pool workers, ``mbd run`` in a subprocess).
"""
import contextlib
import hashlib
import os

import numpy as np
import pytest

#: the relative displacement of each start-state entry (at most; at least half of it)
STATE_LEVEL = 1e-13
#: the relative change of rtol and of atol
TOLERANCE_LEVEL = 0.10
#: the suffix of a perturbed copy's module name
SUFFIX = "[perturbed]"


def enabled(config):
    """--perturb given, or CI set in the environment (``.ci/run``)."""
    return bool(config.getoption("perturb", False) or os.environ.get("CI"))


class Perturbation:
    """The perturbation of one test's problem, drawn from a seed made of (salt, name): the
    signs of the tolerance changes and a factor per start-state entry, the same for every run
    the test makes (a test comparing two runs at the same settings compares two runs of the
    same perturbed problem, as it would on another machine). ``applied`` lists what each run
    got: dicts with ``rtol``, ``atol`` (before, after) and ``y`` (before, after)."""

    def __init__(self, name, salt=0):
        digest = hashlib.sha256(f"{salt}\0{name}".encode()).digest()
        self.seed = int.from_bytes(digest[:8], "little")
        signs = np.random.default_rng([self.seed, 0]).choice((-1.0, 1.0), size=2)
        self.rtol_factor, self.atol_factor = 1.0 + signs * TOLERANCE_LEVEL
        self.applied = []

    def tolerances(self, rtol, atol):
        """(rtol, atol) each times 1 +- TOLERANCE_LEVEL."""
        new = (rtol * self.rtol_factor, atol * self.atol_factor)
        self.applied.append({"rtol": (rtol, new[0]), "atol": (atol, new[1])})
        return new

    def factors(self, n):
        """The start-state factors 1 + s u STATE_LEVEL of entries 0..n-1 (u in [0.5, 1], s a
        sign): entry i's the same whatever n."""
        w = np.random.default_rng([self.seed, 1]).uniform(-1.0, 1.0, size=n)
        return 1.0 + STATE_LEVEL * np.sign(w) * (0.5 + 0.5 * np.abs(w))

    def state(self, y, n):
        """A copy of y with its first n entries (q, v) times :meth:`factors`."""
        out = np.array(y, dtype=float, copy=True)
        out[:n] *= self.factors(n)
        entry = self.applied[-1] if self.applied and "y" not in self.applied[-1] else {}
        if not entry:
            self.applied.append(entry)
        entry["y"] = (np.array(y, dtype=float, copy=True), out.copy())
        return out

    @contextlib.contextmanager
    def active(self):
        """This perturbation applied to mbd's runs while inside (nested: the innermost
        applies, as a module fixture's set up during a test's setup)."""
        _ACTIVE.append(self)
        if len(_ACTIVE) == 1:
            _patch()
        try:
            yield self
        finally:
            _ACTIVE.pop()
            if not _ACTIVE:
                _unpatch()


#: the perturbations in force, innermost last
_ACTIVE = []
#: mbd's own (Settings, _initial_state) while they are patched
_SAVED = []


def _patch():
    """Patch mbd's run stage at its boundary: the Settings record prepare() makes (rtol, atol)
    and the start state it assembles, both perturbed by the innermost active perturbation."""
    from mbd.run import simulate as run_simulate
    settings_class, initial_state = run_simulate.Settings, run_simulate._initial_state
    _SAVED.append((settings_class, initial_state))

    def settings(rtol, atol, *args, **kwargs):
        return settings_class(*_ACTIVE[-1].tolerances(rtol, atol), *args, **kwargs)

    def start(system, *args, **kwargs):
        y = initial_state(system, *args, **kwargs)
        return _ACTIVE[-1].state(y, system.nq + system.nv)

    run_simulate.Settings, run_simulate._initial_state = settings, start


def _unpatch():
    from mbd.run import simulate as run_simulate
    run_simulate.Settings, run_simulate._initial_state = _SAVED.pop()


class PerturbedModule(pytest.Module):
    """The perturbed copy of a test module: only its accuracy tests."""

    def collect(self):
        for node in super().collect():
            kept = _accuracy_only(node)
            if kept is not None:
                yield kept


def _accuracy_only(node):
    """node if it is (or holds) an accuracy test, else None (a class keeps its accuracy
    items only, through its own collect)."""
    if isinstance(node, pytest.Item):
        return node if node.get_closest_marker("accuracy") else None
    if isinstance(node, pytest.Class):
        original = node.collect

        def collect():
            items = []
            for child in original():
                kept = _accuracy_only(child)
                if kept is not None:
                    items.append(kept)
            return items
        node.collect = collect
        return node
    return node


def _plain_nodeid(item):
    return item.nodeid.replace(SUFFIX, "", 1)


def _is_perturbed(item):
    return any(isinstance(node, PerturbedModule) for node in item.iter_parents())


# ---------------------------------------------------------------------- hooks


def pytest_addoption(parser):
    group = parser.getgroup("perturb", "the accuracy tests on a perturbed problem")
    group.addoption("--perturb", action="store_true", default=False,
                    help="run each test marked 'accuracy' a second time with its start state "
                         "moved by 1e-13 relative and rtol, atol by +-10 %% (on when CI is "
                         "set)")
    group.addoption("--perturb-salt", default="0",
                    help="the salt of the perturbation's seed (default 0): other draws")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "accuracy: asserts an accuracy bound or a count that round-off could "
                   "move; with --perturb (or CI set) it runs a second time on a perturbed "
                   "problem (tests/perturb.py)")


def pytest_collect_file(file_path, parent):
    """A second module, FILE.py[perturbed], for each test file (its accuracy tests only)."""
    if not enabled(parent.config) or file_path.suffix != ".py":
        return None
    if not parent.session.isinitpath(file_path) and not any(
            file_path.match(pattern) for pattern in parent.config.getini("python_files")):
        return None
    try:
        nodeid = file_path.relative_to(parent.config.rootpath).as_posix() + SUFFIX
    except ValueError:
        nodeid = None
    return PerturbedModule.from_parent(parent, path=file_path, name=file_path.name + SUFFIX,
                                       nodeid=nodeid)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    """Each file's perturbed copies right after its plain tests (pytest's reordering by
    module-scoped parameters may have interleaved the two modules of one file, which would
    set their module fixtures up again at every switch)."""
    if not enabled(config):
        return
    perturbed, plain = {}, []
    for item in items:
        (perturbed.setdefault(item.path, []) if _is_perturbed(item) else plain).append(item)
    last = {item.path: i for i, item in enumerate(plain)}
    ordered = []
    for i, item in enumerate(plain):
        ordered.append(item)
        if last[item.path] == i:
            ordered.extend(perturbed.pop(item.path, []))
    for rest in perturbed.values():      # a file whose every test is an accuracy test
        ordered.extend(rest)
    items[:] = ordered


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _is_perturbed(item):
        return (yield)
    perturbation = Perturbation(_plain_nodeid(item), item.config.getoption("perturb_salt"))
    item.stash[PERTURBATION] = perturbation
    with perturbation.active():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """A fixture wider than a test (module, class) of a perturbed copy: its runs get a
    perturbation of its own, seeded by its scope's node id, its name and its parameter, so
    that they do not depend on which test happened to set it up first."""
    if not _ACTIVE or fixturedef.scope == "function":
        return (yield)
    name = f"{request.node.nodeid.replace(SUFFIX, '', 1)}::{fixturedef.argname}"
    if hasattr(request, "param"):
        name += f"[{request.param_index}]"
    with Perturbation(name, request.config.getoption("perturb_salt")).active():
        return (yield)


PERTURBATION = pytest.StashKey()


@pytest.fixture
def perturbation(request):
    """The test's :class:`Perturbation` in its perturbed copy, None in the plain one."""
    return request.node.stash.get(PERTURBATION, None)
