"""The web viewer's page (``viz.html``): its size and how long it takes to open in a headless
Chromium, for a 10 s run of a 10-body chain at 100 rows/s (SPEC §11: under 5 MB, open in under
2 s) and for the demo's 5 s run. Not a test: run it by hand, ``python benchmarks/web.py``;
writes benchmarks/WEB.md.

Timed, ROUNDS times each, the median reported:

- **write**: ``viz.html(result, path)`` (the drawing's meshes, the poses of every row, the
  page);
- **open**: from ``page.goto(file://...)`` until the viewer says it is ready (the page parsed,
  three.js and the data decoded, the scene built and drawn once), in a new tab of one
  browser (launched once, not timed);
- **ready in page**: the page's own ``performance.now()`` when it is ready (from the start of
  the navigation, the browser's share of the open).

Needs the test extra's playwright and a Chromium (Debian: ``apt-get install chromium``).
"""
import os
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "viz"))

from playwright.sync_api import sync_playwright  # noqa: E402
from test_web import chain  # noqa: E402

import viz  # noqa: E402
from mbd.cli import demo  # noqa: E402

ROUNDS = 5


def cases():
    """(name, result) of the runs timed."""
    yield "10-body chain, 10 s at 100 rows/s", chain().simulate(10.0, output_step=0.01)
    yield "demo, 5 s at 100 rows/s", demo.build_model().build().simulate(
        demo.T_END, output_step=demo.OUTPUT_STEP, rtol=demo.RTOL, atol=demo.ATOL)


def main():
    rows = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                    args=["--no-sandbox"])
        for name, result in cases():
            path = pathlib.Path(folder) / "page.html"
            writes, opens, inside = [], [], []
            for _ in range(ROUNDS):
                started = time.perf_counter()
                viz.html(result, path)
                writes.append(time.perf_counter() - started)
                page = browser.new_page(viewport={"width": 960, "height": 720})
                started = time.perf_counter()
                page.goto(f"file://{path}")
                page.wait_for_function("window.mbdViewer && window.mbdViewer.ready")
                opens.append(time.perf_counter() - started)
                inside.append(page.evaluate("performance.now()") / 1000.0)
                page.close()
            rows.append((name, len(result.t), len(result.system.bodies),
                         os.path.getsize(path) / 1e6, statistics.median(writes),
                         statistics.median(opens), statistics.median(inside)))
            print(rows[-1])
        browser.close()
    lines = ["# The web viewer's page: size and opening time", "",
             f"`python benchmarks/web.py` on {os.cpu_count()} cores, the median of {ROUNDS} "
             "rounds; Chromium headless (WebGL through SwiftShader, on the CPU).", "",
             "| run | rows | bodies | page, MB | write, s | open, s | ready in page, s |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {n} | {r} | {b} | {mb:.2f} | {w:.2f} | {o:.2f} | {i:.2f} |"
              for n, r, b, mb, w, o, i in rows]
    lines += ["", "SPEC §11 asks for a 10-body, 10 s run at 100 rows/s: under 5 MB, open in "
              "under 2 s.", ""]
    (HERE / "WEB.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
