"""The command line: ``mbd demo`` (also ``python -m mbd demo``).

This is the composition root (DESIGN §1): the only part of ``mbd`` that may import ``joints``,
``forces`` and ``viz``.
"""
import argparse
import os
import sys
import time

import numpy as np

from ..errors import ModelError, SimulationError


def _demo(args):
    from . import demo
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    started = time.perf_counter()
    system = demo.build_model().build()
    result = system.simulate(t_end=demo.T_END, output_step=0.01, rtol=1e-10, atol=1e-10)
    wall = time.perf_counter() - started
    csv = result.to_csv(os.path.join(out, f"{system.name}.csv"))
    from viz.plots import plot
    png = os.path.join(out, f"{system.name}.png")
    plot(result, png)
    gif, skipped = os.path.join(out, f"{system.name}.gif"), None
    try:
        from viz.render import animate
    except ImportError as err:  # viz.render arrives separately (issue 5); until then, no GIF
        skipped = f"viz.render is not available ({err})"
    else:
        animate(result, gif, fps=15, size=(480, 360))
    energy = result.energy()
    drift = np.abs(energy - energy[0]).max() / max(abs(energy[0]), result.kinetic_energy().max())
    print(f"mbd demo: {system.name}")
    print(f"  machines: {len(system.machines)}, bodies: {len(system.bodies)}, "
          f"joints: {len(system.joints)}, DOF: {system.dof}")
    print(f"  simulated {result.t[-1]:g} s in {wall:.2f} s wall time (including compilation) "
          f"with {result.stats['method']}: {result.stats['nsteps']} steps, "
          f"{result.stats['nfev']} right-hand-side evaluations")
    print(f"  energy: {energy[0]:.6f} J at start, relative drift {drift:.1e}")
    print(f"  results: {csv} ({len(result.t)} rows)")
    print(f"  plot: {png}")
    if skipped:
        print(f"  animation: skipped, {skipped}")
    else:
        print(f"  animation: {gif}")
    return 0


def main(argv=None):
    """Entry point of the ``mbd`` command; returns the exit status."""
    parser = argparse.ArgumentParser(prog="mbd", description="3-D multibody dynamics with "
                                     "force elements.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="simulate the built-in demo mechanism and write its results")
    demo.add_argument("--out", default="mbd-out", help="output folder (default: mbd-out)")
    demo.set_defaults(run=_demo)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (ModelError, SimulationError, OSError) as err:
        print(f"mbd {args.command}: {err}", file=sys.stderr)
        return 2
