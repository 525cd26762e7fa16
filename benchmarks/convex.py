"""Time per call of mbd.compiled.convex.gjk_epa (not a test: run it by hand): box against box,
separated and penetrating, over random poses, called from a compiled loop (what the contact
kernels will pay) and from Python (that plus numba's dispatch); and, beside them, coal's
distance on the same poses (from Python).

Usage::

    python benchmarks/convex.py [--poses 200] [--repeat 50]
"""
import argparse
import time

import numba
import numpy as np
from scipy.spatial.transform import Rotation

from mbd.compiled import convex, geometry


@numba.njit(cache=False)
def _loop(dims, cs, Rs, verts, pv, ff, fi, vi, g, n, pa, pb, repeat):
    """Every pose (box b at cs[i], Rs[i] against box a at the origin), repeat times."""
    eye = np.eye(3)
    origin = np.zeros(3)
    for _ in range(repeat):
        for i in range(cs.shape[0]):
            convex.gjk_epa(convex.BOX, dims, origin, eye, verts, convex.BOX, dims, cs[i],
                           Rs[i], verts, pv, ff, fi, vi, g, n, pa, pb)


def poses(rng, count, separated):
    """Poses of box b (half sizes 0.5, 0.3, 0.2 as a's) that are separated or penetrate a."""
    dims = np.array([0.5, 0.3, 0.2])
    work, (g, n, pa, pb) = convex.work(), geometry.points(1)
    cs, Rs = [], []
    while len(cs) < count:
        c = rng.uniform(-1.2, 1.2, 3)
        R = Rotation.random(random_state=rng).as_matrix()
        convex.gjk_epa(convex.BOX, dims, np.zeros(3), np.eye(3), convex.NO_VERTICES,
                       convex.BOX, dims, c, R, convex.NO_VERTICES, *work, g, n, pa, pb)
        if (g[0] > 0.0) == separated:
            cs.append(c)
            Rs.append(R)
    return dims, np.array(cs), np.array(Rs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--poses", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    work, points = convex.work(), geometry.points(1)
    for separated in (True, False):
        dims, cs, Rs = poses(rng, args.poses, separated)
        _loop(dims, cs, Rs, convex.NO_VERTICES, *work, *points, 1)          # compile
        t = time.perf_counter()
        _loop(dims, cs, Rs, convex.NO_VERTICES, *work, *points, args.repeat)
        compiled = (time.perf_counter() - t) / (args.repeat * len(cs))
        t = time.perf_counter()
        for c, R in zip(cs, Rs):
            convex.gjk_epa(convex.BOX, dims, np.zeros(3), np.eye(3), convex.NO_VERTICES,
                           convex.BOX, dims, c, R, convex.NO_VERTICES, *work, *points)
        python = (time.perf_counter() - t) / len(cs)
        line = (f"box-box {'separated' if separated else 'penetrating'}: "
                f"{compiled * 1e6:.2f} us per call compiled, {python * 1e6:.2f} us from Python")
        try:
            import coal
        except ImportError:
            print(line)
            continue
        box = coal.Box(*(2 * dims))
        request, result = coal.DistanceRequest(), coal.DistanceResult()
        identity = coal.Transform3s(np.eye(3), np.zeros(3))
        t = time.perf_counter()
        for c, R in zip(cs, Rs):
            coal.distance(box, identity, box, coal.Transform3s(R, c), request, result)
        print(f"{line}; coal {(time.perf_counter() - t) / len(cs) * 1e6:.2f} us from Python")


if __name__ == "__main__":
    main()
