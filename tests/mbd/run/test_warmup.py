"""The warm-up's tables agree: every target has a signature, and `mbd warmup`'s two groups
compile every target (each once)."""
import gc
import subprocess
import sys
import warnings

from mbd.run import warmup


def test_every_target_has_a_signature_and_a_group():
    table = warmup.signatures()
    assert set(warmup.TARGETS) == set(table)
    grouped = [name for group in warmup.GROUPS for name in group]
    assert sorted(grouped) == sorted(warmup.TARGETS)


def test_every_law_kind_is_a_target_of_its_own():
    """`mbd warmup` compiles every registered kind's kernel entry and energies, each kind in
    targets of its own, the entry (which a run's data needs) apart from the energies (which
    only its results read): a run compiles only its elements' kinds."""
    from mbd.compiled import registry
    targets = warmup.all_targets()
    for prefix, role in ((warmup.LAW, "element_law"), (warmup.ENERGIES, "energies")):
        names = [n for n in targets if n.startswith(prefix)]
        assert sorted(names) == sorted(prefix + k.name for k in registry.kinds())
        for name in names:
            kind = registry.kind(registry.code(name[len(prefix):]))
            assert [f for f, _ in warmup.functions(name)] == [getattr(kind.compiled, role)]


def test_a_runs_targets_are_known():
    """Whatever a run asks the warm-up to prefetch is a target, for each loop and kind."""
    import numpy as np

    import mbd
    from forces import JointForce, JointStiction, Spring
    from joints import Prismatic
    from mbd.run.evaluator import Evaluator

    m = mbd.Model("block")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
    j = m.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0)))
    m.add(JointForce("spring", j, Spring(c=1.0)))
    m.add(JointStiction("friction", j, f_static=1.0, f_kinetic=0.5))
    sd = Evaluator(m.build())
    for compiled in (False, True):
        for method in ("DOP853", "Radau"):
            names = warmup.run_targets(sd, compiled, method)
            assert set(names) <= set(warmup.TARGETS), (compiled, method)
            assert "elements_and_locks" in names
            assert compiled == any(n.endswith("advance") for n in names)


def test_a_first_runs_work_is_split_with_no_target_twice():
    """The first run's split (warmup._plan): this process and the helper compile disjoint
    targets; with force elements the helper starts with elements_at (the kernels the
    right-hand side shares) and this process the tree dynamics and the loop; the helper then
    goes on with the results' kernels: the motion and the energies of the run's law kinds."""
    import numpy as np

    import mbd
    from forces import JointForce, Spring
    from joints import Prismatic
    from mbd.run.evaluator import Evaluator

    m = mbd.Model("block")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
    j = m.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0)))
    bare = Evaluator(m.build())
    m.add(JointForce("spring", j, Spring(c=1.0)))
    forced = Evaluator(m.build())
    for sd, elements in ((bare, False), (forced, True)):
        for compiled in (False, True):
            targets = warmup.run_targets(sd, compiled)
            here, shared, rest = warmup._plan(sd, targets)
            everything = here + shared + rest
            assert len(everything) == len(set(everything))
            assert set(targets) <= set(everything) <= set(warmup.TARGETS)
            assert shared == (["elements_at"] if elements else [])
            assert "aba" in here
            assert compiled == ("advance" in here if elements else "advance" in rest)
            # the law kinds even the shares out: with the loop here (the longer share) the
            # helper starts with them; on scipy's path this process compiles them after the
            # tree dynamics, while the helper compiles elements_at
            laws = warmup.law_targets(sd.system)
            here, shared, rest = warmup._plan(sd, targets, laws)
            assert laws == (["law:linear"] if elements else [])
            if elements and compiled:
                assert shared == laws + ["elements_at"] and not set(laws) & set(here + rest)
            elif elements:
                assert here == ["aba", *laws] and shared == ["elements_at"]
                assert not set(laws) & set(shared + rest)
        assert warmup.later_targets(sd) == ["kinematics_rows", "rotate_rows"] + (
            ["record_rows", "law:linear", "energies:linear"] if elements else [])


def test_a_runs_law_kinds_are_the_second_processs_first_work(monkeypatch):
    """A run's data waits for its law kinds' addresses (state_data(laws=False)): its first
    compilation hands the kinds' entries to the second process first (with the kernels the
    right-hand side shares), the energies after; it installs them once that process has
    them, and a compiled call before that installs them itself."""
    import numpy as np

    import mbd
    from forces import ElastoGap, JointForce, Spring
    from joints import Prismatic
    from mbd.run.evaluator import Evaluator

    m = mbd.Model("block")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
    j = m.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0)))
    m.add(JointForce("spring", j, Spring(c=1.0)))
    m.add(JointForce("gap", j, ElastoGap(c=1e3, d=1.0, s_rel0=-0.1)))
    system = m.build()
    sd = Evaluator(system, laws=False)
    assert not sd.laws_installed and not sd.data.elements["law_entry"].any()
    asked = []

    def prefetch(first, then=(), later=()):
        asked.append((list(first), list(then), list(later)))
        return warmup.Prefetch(None)        # nothing started: compiled here

    monkeypatch.setattr(warmup, "prefetch", prefetch)
    monkeypatch.setattr(warmup, "_STARTED", set())
    warmup.first_right_hand_side(sd, compiled=True)
    (first, then, later), = asked
    entries = warmup.law_targets(system)
    assert sorted(entries) == ["law:elastogap", "law:linear"]
    assert first == entries + ["elements_at"]
    assert not set(entries) & set(then + later)
    assert set(warmup.law_targets(system, warmup.ENERGIES)) <= set(later)
    assert sd.laws_installed and sd.data.elements["law_entry"].all()
    # installed before any compiled call, whatever calls first
    early = Evaluator(system, laws=False)
    y = np.zeros(system.nq + system.nv)
    early.natural_mode(0.0, y)
    assert early.laws_installed and early.data.elements["law_entry"].all()


def test_ctrl_c_while_numba_compiles_is_held_until_the_compilation_ends():
    """SIGINT during a numba compilation (its compile event, as every compilation of the
    main thread triggers it; nested ones inside) is held: the compilation finishes, and
    KeyboardInterrupt is raised when the outermost one ends; the handler before is back."""
    import os
    import signal
    import time

    import pytest
    from numba.core import event

    from mbd.compiled.jit import interrupts

    before = signal.getsignal(signal.SIGINT)
    finished = []
    with pytest.raises(KeyboardInterrupt):
        with event.trigger_event("numba:compile", data={}):
            with event.trigger_event("numba:compile", data={}):     # a callee's
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)
                finished.append("inner")
            finished.append("outer")
    assert finished == ["inner", "outer"]
    assert signal.getsignal(signal.SIGINT) is before
    assert interrupts.LISTENER.depth == 0


def test_ctrl_c_while_numba_loads_from_its_cache_or_emits_code_is_held():
    """The two places a kernel's first use reaches llvmlite's object-cache callbacks outside
    a compile event, where a KeyboardInterrupt raised in a ctypes callback killed the
    process (SIGSEGV) or broke numba's typing: a load from the cache, inside numba's
    compiler lock (its events), and the code emitted when mbd.compiled.jit.native.address asks
    for the address. SIGINT in either is held to its end, then raised; the handler before is
    back."""
    import os
    import signal
    import time
    from types import SimpleNamespace

    import pytest
    from numba.core.compiler_lock import global_compiler_lock

    from mbd.compiled.jit import interrupts, native

    before = signal.getsignal(signal.SIGINT)
    finished = []
    with pytest.raises(KeyboardInterrupt):
        with global_compiler_lock:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            finished.append("loaded")
    assert finished == ["loaded"]
    assert signal.getsignal(signal.SIGINT) is before and interrupts.LISTENER.depth == 0

    def emit(name):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        finished.append(name)
        return 1234
    result = SimpleNamespace(library=SimpleNamespace(get_pointer_to_function=emit),
                             fndesc=SimpleNamespace(llvm_func_name="f"))
    dispatcher = SimpleNamespace(overloads={(): result},
                                 get_compile_result=lambda signature: result)
    with pytest.raises(KeyboardInterrupt):
        native.address(dispatcher, SimpleNamespace(args=()))
    assert finished == ["loaded", "f"]
    assert signal.getsignal(signal.SIGINT) is before


def test_a_prefetching_child_says_shared_then_ready_and_is_waited_for(monkeypatch):
    """The first run's second process, for real (python -m mbd.run.warmup): it compiles (or
    loads) its first targets and says SHARED, then the next and says READY, then the later
    ones and ends. The parent reads only as far as it waits: after wait(SHARED) it has not
    seen READY; wait(READY) then sees it and stops listening."""
    monkeypatch.setattr(warmup, "cached", lambda name: False)    # as on an empty cache
    monkeypatch.delenv("MBD_PREFETCH", raising=False)
    child = warmup.prefetch(["no_projection"], ["no_switching"], ["armed", "not-a-target"])
    assert child.process is not None
    try:
        child.wait(warmup.SHARED, timeout=300.0)
        assert warmup.SHARED in child.seen and warmup.READY not in child.seen
        child.wait(warmup.READY, timeout=300.0)
        assert warmup.READY in child.seen and child.process.stdout.closed
        assert child.process.wait(timeout=300) == 0      # the later ones done, it ends
    finally:
        if child.process.poll() is None:
            child.process.kill()


def test_no_child_without_prefetching_and_a_dead_childs_wait_ends(monkeypatch):
    """MBD_PREFETCH=0 (as in the child itself): no second process, and waiting for it returns
    at once. A child that ends without a word (here: one that cannot start its module) ends
    the parent's wait, which then compiles what it needs itself."""
    import subprocess
    import sys
    monkeypatch.setenv("MBD_PREFETCH", "0")
    idle = warmup.prefetch(["no_projection"])
    assert idle.process is None
    idle.wait(warmup.READY)              # returns: nothing to wait for
    dead = warmup.Prefetch(subprocess.Popen([sys.executable, "-c", "pass"],
                                            stdout=subprocess.PIPE, text=True))
    dead.wait(warmup.SHARED, timeout=60.0)
    assert {warmup.SHARED, warmup.READY} <= dead.seen and dead.process.stdout.closed
    dead.process.wait(timeout=60)


def test_a_child_left_compiling_is_held_until_it_ends():
    """After READY the parent stops listening and the child goes on alone: dropping its
    Prefetch must not drop the running process (Python warns "subprocess ... is still
    running" and cannot collect its exit status); a later Prefetch lets go of the ended."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prefetch = warmup.Prefetch(child)
        del prefetch
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
    assert child in warmup._RUNNING
    child.wait()
    warmup.Prefetch(None)
    assert child not in warmup._RUNNING
