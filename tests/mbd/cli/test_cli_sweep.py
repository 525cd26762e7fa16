"""``mbd sweep`` (SPEC §7): the command-line form of :func:`mbd.sweep` — a grid from
``--grid`` lists and ranges, given cases from ``--cases``, ``--set`` fixed for every run, named
``--output`` columns; the table printed and written; the same command resumes; bad input is
exit status 2 with one message naming it, before any run."""
import csv
import pathlib

import numpy as np
import pytest

from mbd import cli

ROOT = pathlib.Path(__file__).resolve().parents[3]
SLOT = str(ROOT / "examples" / "bistop_slot.py")


def table(folder):
    with open(folder / "sweep.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_grid_ranges_and_lists_run_every_combination(tmp_path, capsys):
    """--grid slot.k=5e6,1e7 --grid slot.e=1.5:2.1:3 is 2 x 3 runs, the first name slowest;
    the range is numpy's linspace with both ends; the peak force column is in the table."""
    out = tmp_path / "study"
    status = cli.main(["sweep", SLOT, "--grid", "slot.k=5e6,1e7", "--grid", "slot.e=1.5:2.1:3",
                       "--output", "peak=absmax:force.slot.value", "--t-end", "1",
                       "--out", str(out), "--workers", "2"])
    assert status == 0
    rows = table(out)
    pairs = [(float(r["slot.k"]), float(r["slot.e"])) for r in rows]
    assert pairs == [(k, e) for k in (5e6, 1e7) for e in np.linspace(1.5, 2.1, 3)]
    assert all(r["status"] == "ok" for r in rows)
    peak = {p: float(r["peak"]) for p, r in zip(pairs, rows)}
    # a stiffer stop of the same exponent pushes back harder at its smaller penetration
    assert peak[(1e7, 1.5)] > peak[(5e6, 1.5)]
    printed = capsys.readouterr().out
    assert "6 runs (6 run now on local worker processes, 0 found" in printed
    assert "6 ok, 0 failed" in printed
    # the same command again: everything is found, nothing runs
    assert cli.main(["sweep", SLOT, "--grid", "slot.k=5e6,1e7", "--grid", "slot.e=1.5:2.1:3",
                     "--output", "peak=absmax:force.slot.value", "--t-end", "1",
                     "--out", str(out)]) == 0
    assert "(0 run now on local worker processes, 6 found" in capsys.readouterr().out
    assert [float(r["peak"]) for r in table(out)] == [peak[p] for p in pairs]


def test_cases_file_and_a_fixed_setting(tmp_path):
    """--cases FILE.csv runs its rows as given; --set slot.cmax=0 holds for every run (a
    column of its own with that one value)."""
    cases = tmp_path / "cases.csv"
    cases.write_text("slot.k,slot.e\n6e6,1.7\n1.2e7,2.0\n")
    out = tmp_path / "study"
    assert cli.main(["sweep", SLOT, "--cases", str(cases), "--set", "slot.cmax=0",
                     "--output", "v_end=final:joint.slide.v", "--t-end", "1",
                     "--out", str(out)]) == 0
    rows = table(out)
    assert [(float(r["slot.k"]), float(r["slot.e"]), float(r["slot.cmax"])) for r in rows] == \
        [(6e6, 1.7, 0.0), (1.2e7, 2.0, 0.0)]
    # no damping in the stops: the block leaves each contact at its arrival speed, 6 m/s
    for r in rows:
        assert abs(float(r["v_end"])) == pytest.approx(6.0, rel=1e-6)


@pytest.mark.parametrize("args, words", [
    (["--grid", "slot.kk=1e7"], ["slot.kk", "no parameter 'kk'", "x1, x2, k, e, cmax, d"]),
    (["--grid", "nothing.k=1e7"], ["no body, joint or force element named 'nothing'"]),
    (["--grid", "slot.k=1e7,abc"], ["--grid 'slot.k=1e7,abc'", "not a list of numbers"]),
    (["--grid", "slot.k=1:2:1"], ["count >= 2"]),
    (["--grid", "slotk=1e7"], ["expected NAME.PARAM=VALUES"]),
    (["--grid", "slot.k=-1"], ["slot.k", "-1"]),
    (["--grid", "slot.k=1e7", "--output", "peak=top:force.slot.value"],
     ["unknown reduction 'top'"]),
    (["--grid", "slot.k=1e7", "--output", "peak=max:force.gap.value"],
     ["no force element 'gap'", "slot"]),
    ([], ["nothing to sweep"]),
])
def test_bad_input_is_named_before_any_run(tmp_path, capsys, args, words):
    out = tmp_path / "study"
    assert cli.main(["sweep", SLOT, "--t-end", "1", "--out", str(out), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mbd sweep: ") and "sweep: sweep:" not in err
    for word in words:
        assert word in err, (word, err)
    assert not (out / "sweep.csv").exists()
    assert not list(out.glob("runs/*.npz"))
