"""Would islands pay? The contact graph of spheres dropped in a box, row by row (not a test:
run it by hand; no timed assertions).

Issue 48 asks whether stepping islands of bodies in contact apart (each with its own step
and events) is what gets mbd to its peers on many contacts. This measures the scene of
``benchmarks/contact_scale.py`` (N spheres dropped in a 1 m box, 2 s, the same model and
run settings) for what islands could save, from one run's records:

- **islands**: at each output row (every 10 ms), the spheres joined by sphere-sphere
  contacts in contact (a wall or the floor is ground: it joins nothing), by union-find;
  their count, the largest one's share of N, and the share of the spheres touching nothing
  at all (in flight: an island that could take any step);
- **events**: each event's island (the island, at the row before it, of the spheres of its
  contact, joined): its size over N, averaged over the events. Today every event restarts the
  stepping of all N spheres; stepped apart, an event restarts its island alone, so this is
  the share of the restarts' work that would remain;
- **steps**: the run's steps, evaluations and wall (one warm run), as ``contact_scale.py``
  counts them;
- **alone**: a sample of the spheres (every N/SAMPLE-th), each run alone in the box from its
  own start (warm, the median of ROUNDS runs): N times their mean wall is what stepping
  apart would cost if no two spheres touched, against the run of all N together.

Usage::

    python benchmarks/islands.py                 # N = 50, 100; writes ISLANDS.md
    python benchmarks/islands.py --sizes 20 --out FILE
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import contact_scale as scene  # noqa: E402
from common import machine  # noqa: E402

import mbd  # noqa: E402
from mbd.model.files import atomic_open  # noqa: E402

SIZES = (50, 100)
DATE = "2026-12-08"
SAMPLE = 10         # spheres run alone per size
ROUNDS = 3          # timed runs of each (the median)


def islands(n, pairs, touching):
    """Each sphere's island root (n,) from the sphere pairs [(i, j)] whose ``touching`` is
    true, by union-find."""
    root = list(range(n))

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for (i, j), on in zip(pairs, touching):
        if on:
            root[find(i)] = find(j)
    return np.array([find(i) for i in range(n)])


def alone(n):
    """(mean wall (s) of a 2 s run of one sphere alone in the box, from the starts of every
    (n // SAMPLE)-th of the n, warm, the median of ROUNDS; their mean evaluations)."""
    walls, nfev = [], []
    for p in scene.sphere_starts(n)[::max(n // SAMPLE, 1)]:
        system = scene.sphere_model(1, starts=[p]).build()
        run = dict(output_step=0.01, rtol=1e-6, atol=1e-6)
        system.simulate(scene.S_T, **run)
        times = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            result = system.simulate(scene.S_T, **run)
            times.append(time.perf_counter() - start)
        walls.append(float(np.median(times)))
        nfev.append(result.stats.get("nfev"))
    return float(np.mean(walls)), float(np.mean(nfev))


def measure(n, log):
    """The island measures of n spheres (a dict)."""
    model = scene.sphere_model(n)
    system = model.build()
    start = time.perf_counter()
    result = system.simulate(scene.S_T, output_step=0.01, rtol=1e-6, atol=1e-6)
    wall = time.perf_counter() - start
    index = {f"ball{k}": k for k in range(n)}
    contacts = [e for e in model.elements if isinstance(e, mbd.Contact)]
    named = {c.name: c for c in contacts}
    rows = len(result.t)
    touching = {c.name: result.contact(c.name).in_contact.any(axis=1) for c in contacts}
    pairs = [(c.name, index[c.a.name], index[c.b.name]) for c in contacts
             if c.a.name in index and c.b.name in index]
    anything = np.zeros((rows, n), dtype=bool)       # a sphere touching a sphere or a wall
    for c in contacts:
        for body in (c.a.name, c.b.name):
            if body in index:
                anything[:, index[body]] |= touching[c.name]
    roots = np.array([islands(n, [(i, j) for _, i, j in pairs],
                              [touching[name][r] for name, _, _ in pairs])
                      for r in range(rows)])
    sizes = [np.bincount(np.unique(row, return_inverse=True)[1]) for row in roots]
    count = np.array([len(s) for s in sizes])
    largest = np.array([s.max() for s in sizes]) / n
    # each event's island: at the row before it, its contact's spheres' islands together
    share = []
    for event in result.events:
        contact = named.get(event.element.split(":")[0])
        if contact is None:
            continue
        r = max(int(np.searchsorted(result.t, event.t, side="right")) - 1, 0)
        members = {roots[r][index[b]] for b in (contact.a.name, contact.b.name) if b in index}
        share.append(sum(int(np.sum(roots[r] == m)) for m in members) / n)
    late = result.t >= 1.0
    out = dict(n=n, wall=wall, nsteps=result.stats.get("nsteps"), nfev=result.stats.get("nfev"),
               events=len(result.events), count=count, largest=largest,
               flying=1.0 - anything.mean(axis=1), event_share=np.array(share), late=late,
               t=result.t)
    out["alone"], out["alone_nfev"] = alone(n)
    log(f"  N = {n}: {wall:.1f} s, {out['events']} events, largest island "
        f"{largest.mean():.2f} N on average")
    return out


def report(sizes, log):
    """The report's text."""
    lines = [f"# Islands: the contact graph of spheres dropped in a box ({DATE})", "",
             f"`python benchmarks/islands.py`. {machine(['numpy', 'scipy', 'numba'])} The scene "
             "and run settings of "
             "`contact_scale.py` (N spheres of 0.04 m dropped in a 1 m box, 2 s, DOP853 at "
             "rtol = atol = 1e-6, a row every 10 ms); an island is the spheres joined by "
             "sphere-sphere contacts in contact at a row (the box is ground: it joins "
             "nothing).", "",
             "| N | steps / evaluations / events | islands at a row, mean (0-1 s / 1-2 s) | "
             "largest island / N, mean (0-1 s / 1-2 s) | spheres touching nothing, share "
             "(0-1 s / 1-2 s) | an event's island / N, mean over events | wall of the N "
             "together / N times one alone (s per 2 s run; one alone's evaluations) |",
             "|---|---|---|---|---|---|---|"]
    found = []
    # (compiled once on a small scene of the same kinds: every run below is warm)
    scene.sphere_model(2).build().simulate(0.1, output_step=0.01, rtol=1e-6, atol=1e-6)
    for n in sizes:
        m = measure(n, log)
        found.append(m)
        early, late = ~m["late"], m["late"]
        lines.append(
            f"| {n} | {m['nsteps']} / {m['nfev']} / {m['events']} | "
            f"{m['count'][early].mean():.1f} / {m['count'][late].mean():.1f} | "
            f"{m['largest'][early].mean():.2f} / {m['largest'][late].mean():.2f} | "
            f"{m['flying'][early].mean():.2f} / {m['flying'][late].mean():.2f} | "
            f"{m['event_share'].mean():.2f} | {m['wall']:.1f} / {n * m['alone']:.2f} "
            f"({m['alone_nfev']:.0f}) |")
    lines += ["", "Largest island / N over time (every 0.2 s):", "",
              "| t (s) | " + " | ".join(f"N = {m['n']}" for m in found) + " |",
              "|---|" + "---|" * len(found)]
    for t in np.arange(0.0, scene.S_T + 1e-9, 0.2):
        cells = []
        for m in found:
            r = int(np.argmin(np.abs(m["t"] - t)))
            cells.append(f"{m['largest'][r]:.2f}")
        lines.append(f"| {t:.1f} | " + " | ".join(cells) + " |")
    lines += ["", "Reading: today every sphere takes every step, and every event restarts the "
              "stepping of all of them. Stepped apart, an event would restart its island "
              "alone, and an island touching nothing could take any step:"]
    for m in found:
        lines.append(
            f"- N = {m['n']}: the largest island holds {100 * m['largest'].mean():.0f} % of the "
            f"spheres on average (at most {100 * m['largest'].max():.0f} %), an event's island "
            f"{100 * m['event_share'].mean():.0f} %, and {100 * m['flying'][~m['late']].mean():.0f}"
            f" % of the spheres touch nothing in the first second: "
            + ("islands would leave most of the work where it is."
               if m["largest"].mean() > 0.5 else
               "the work of an event's restart would shrink to that share.")
            + f" Each sphere stepped alone, the N would take {m['n'] * m['alone']:.2f} s "
            f"against {m['wall']:.1f} s together ({m['wall'] / (m['n'] * m['alone']):.0f}x): "
            "the bound of "
            "islands with no contact between spheres, which an island's own contacts and its "
            "joining others add to.")
    return "\n".join(lines) + "\n"


def main(argv=None):
    """Measure and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--out", default=os.path.join(HERE, "ISLANDS.md"))
    args = parser.parse_args(argv)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    text = report([int(s) for s in args.sizes.split(",")], log)
    print(text)
    with atomic_open(args.out) as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
