"""The warm-up's tables agree: every target has a signature, and `mbd warmup`'s two groups
compile every target (each once)."""
from mbd.run import warmup


def test_every_target_has_a_signature_and_a_group():
    table = warmup.signatures()
    assert set(warmup.TARGETS) == set(table)
    grouped = [name for group in warmup.GROUPS for name in group]
    assert sorted(grouped) == sorted(warmup.TARGETS)


def test_a_runs_targets_are_known():
    """Whatever a run asks the warm-up to prefetch is a target, for each loop and kind."""
    import numpy as np

    import mbd
    from forces import JointForce, JointStiction, Spring
    from joints import Prismatic
    from mbd.compiled import statefunction as sf

    m = mbd.Model("block")
    g = m.add_ground("g", environment=mbd.Environment(gravity=(0, 0, 0)))
    b = m.add_body("b", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3))
    j = m.add(Prismatic("slide", g, b["cg"], axis=(1, 0, 0)))
    m.add(JointForce("spring", j, Spring(c=1.0)))
    m.add(JointStiction("friction", j, f_static=1.0, f_kinetic=0.5))
    sd = sf.state_data(m.build())
    for compiled in (False, True):
        for method in ("DOP853", "Radau"):
            names = warmup.run_targets(sd, compiled, method)
            assert set(names) <= set(warmup.TARGETS), (compiled, method)
            assert "elements_and_locks" in names
            assert compiled == any(n.endswith("advance") for n in names)
