"""Ctrl-C in a long run (not a test: run it by hand): the wall time from SIGINT to the exit of
``mbd run`` stopped far into a long run, which then keeps its rows (written to disk as the run
made them, ``<name>.rows/``; a tree before that wrote a .npz: the table is too large for a
quick CSV) and draws their plot.

The model: a pendulum turning freely against an ElastoGap stop (``tests/mbd/cli/test_cli.py``'s
PENDULUM), T_END = 3000 s at OUTPUT_STEP = 1e-4 s (a grid of 30 M rows: the run is far from
its end when it is stopped). ``mbd run --progress`` is started with its stderr piped; SIGINT
is sent ``--after`` seconds (default 1) after its progress bar first shows, and the wall time
from SIGINT to the process's exit is taken, with the rows it wrote. Each tree (a folder
holding an ``mbd`` package: a checkout, or ``git archive REV | tar -x -C DIR``) runs in turn,
round after round, with its own numba cache (warmed first). Prints, and writes
benchmarks/INTERRUPT.md: the median of the rounds (3 by default), with every round's figures.

Usage::

    python benchmarks/interrupt.py [TREE ...] [--rounds 3] [--after 1] [--no-write]
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))

MODEL = '''
import numpy as np, mbd
from joints import Revolute
from forces import JointForce, ElastoGap
T_END = 3000.0
OUTPUT_STEP = 1e-4
def build_model():
    m = mbd.Model("stop_pendulum")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, 0)))
    bob = m.add_body("bob", mass=1.0, cg=(1, 0, 0), inertia=np.eye(3) * 1e-3,
                     cs={"pivot": (0, 0, 0)})
    h = m.add(Revolute("hinge", g, bob["pivot"], axis=(0, 1, 0), q0=0.0, v0=-1.0))
    m.add(JointForce("gap", h, ElastoGap(c=20.0, d=0.0, s_rel0=-0.5)))
    return m
'''

#: the progress bar's simulated time: "t = 123.4/3000 s"
PROGRESS = re.compile(rb"t = ([0-9.e+-]+)/")


def interrupted_run(tree, script, out, after, env):
    """One ``mbd run`` of ``script`` from ``tree``, SIGINT ``after`` s after its progress bar
    first shows: (SIGINT -> exit s, exit status, rows written, the last line of stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "mbd", "run", script, "--out", out,
                             "--progress"], cwd=tree, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    sent, text = {}, bytearray()

    def interrupt():
        sent["t"] = time.perf_counter()
        proc.send_signal(signal.SIGINT)

    def watch():         # reads stderr as it comes: the bar, then the final message
        while True:
            chunk = proc.stderr.read1(4096)
            if not chunk:
                return
            text.extend(chunk)
            if "timer" not in sent and PROGRESS.search(bytes(text)):
                sent["timer"] = threading.Timer(after, interrupt)
                sent["timer"].start()
    reader = threading.Thread(target=watch)
    reader.start()
    proc.stdout.read()
    proc.wait()
    ended = time.perf_counter()
    reader.join()
    message = bytes(text).decode(errors="replace").replace("\r", "\n").strip().splitlines()
    rows = re.search(r"The (\d+) rows computed", message[-1] if message else "")
    return (ended - sent["t"] if "t" in sent else float("nan"), proc.returncode,
            int(rows.group(1)) if rows else 0, message[-1] if message else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", default=[os.path.dirname(HERE)])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--after", type=float, default=1.0)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="mbd-interrupt-")
    script = os.path.join(work, "long_run.py")
    with open(script, "w") as fh:
        fh.write(MODEL)
    trees = [os.path.abspath(t) for t in args.trees]
    envs = {}
    for k, tree in enumerate(trees):
        env = dict(os.environ, PYTHONPATH=tree)
        env.setdefault("NUMBA_CACHE_DIR", os.path.join(work, f"numba-{k}"))
        envs[tree] = env
        # warm the cache: a short run of the same model
        subprocess.run([sys.executable, "-m", "mbd", "run", script, "--t-end", "0.6", "--out",
                        os.path.join(work, "warm")], cwd=tree, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    figures = {tree: [] for tree in trees}
    for r in range(args.rounds):
        for tree in trees:
            wall, code, rows, last = interrupted_run(tree, script, os.path.join(work, "out"),
                                                     args.after, envs[tree])
            figures[tree].append((wall, rows))
            print(f"round {r + 1}, {tree}: SIGINT -> exit {wall:.2f} s, status {code}, "
                  f"{rows} rows; {last[:160]}")
    lines = ["# Ctrl-C far into a long run: SIGINT to exit", "",
             f"`python benchmarks/interrupt.py` on {os.cpu_count()} cores (shared), the median "
             f"of {args.rounds} rounds: `mbd run` of a 3000 s run at 1e-4 s output step "
             f"(tests/mbd/cli/test_cli.py's stop pendulum), SIGINT {args.after:g} s after its "
             "progress bar first showed; the rows computed are kept (a .npz, or since the rows "
             "go to disk as the run makes them, its rows folder), with their plot.", "",
             "| tree | rows written | SIGINT -> exit, s (median) | every round, s |",
             "|---|---|---|---|"]
    for tree in trees:
        walls = [w for w, _ in figures[tree]]
        rows = int(statistics.median(n for _, n in figures[tree]))
        lines.append(f"| {os.path.basename(tree)} | {rows:,} | {statistics.median(walls):.2f} "
                     f"| {', '.join(f'{w:.2f}' for w in walls)} |")
    lines += ["", "The goal (issue 30): Ctrl-C at any moment gives a clean message, the rows so "
              "far and a plot within 1 s.", ""]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        sys.path.insert(0, os.path.dirname(HERE))
        from mbd.model.files import atomic_open
        with atomic_open(os.path.join(HERE, "INTERRUPT.md")) as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
