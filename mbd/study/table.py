"""A sweep's table: its rows in case order, their CSV and the study's description, written
whole into the out folder and read back when a sweep resumes there."""
import csv
import json
import os
import zipfile

from ..model.errors import InputError
from ..model.files import atomic_open

#: the table's columns after the parameters and before the outputs, and after the outputs
LEADING, TRAILING = ("run", "status"), ("t_reached", "wall_s", "result")


#: the status of a run that finished
OK = "ok"


TABLE, MANIFEST, RUNS = "sweep.csv", "sweep.json", "runs"


def cell(value):
    """A value as the CSV holds it: floats exactly (repr), tuples comma-joined."""
    if isinstance(value, tuple):
        return ",".join(repr(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return "" if value is None else str(value)


def parse_cell(text):
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return tuple(float(v) for v in text.split(","))
    except ValueError:
        return text


class Table:
    """The rows of a sweep, in case order, and their CSV in ``out`` (rewritten whole)."""

    def __init__(self, names, outputs, out):
        self.names, self.outputs, self.out = names, [o.column for o in outputs], out
        self.columns = list(names) + list(LEADING) + self.outputs + list(TRAILING)
        self.rows = {}           # run key -> {column: value}

    def add(self, values, report):
        row = dict(zip(self.names, values))
        row.update(run=report["run"], status=report["status"], t_reached=report["t_reached"],
                   wall_s=report["wall_s"], result=report.get("result", ""))
        row.update(report["outputs"])
        self.rows[report["run"]] = row

    def load(self, retry_failed=False):
        """The rows of an earlier sweep into the same folder (those whose run kept its
        result file, or failed before it had one; ``retry_failed``: the finished ones only).
        A result file that is gone, or is no .npz archive (cut short: a disk that filled, a
        copy interrupted), is no result: its case runs again."""
        path = os.path.join(self.out, TABLE)
        if not os.path.isfile(path):
            return
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if reader.fieldnames != self.columns:
                raise InputError(f"sweep: {path} has the columns {reader.fieldnames}, this "
                                 f"sweep makes {self.columns}: it is another study; give "
                                 "another out folder")
            for raw in reader:
                row = {c: (raw[c] if c in ("run", "status", "result") else parse_cell(raw[c]))
                       for c in self.columns}
                if row["result"] and not _readable(os.path.join(self.out, row["result"])):
                    continue        # its result file is gone or broken: run it again
                if retry_failed and row["status"] != OK:
                    continue
                self.rows[row["run"]] = row

    def write(self, order):
        """Write the CSV (the rows in ``order`` that are done), whole or not at all."""
        if self.out is None:
            return
        with atomic_open(os.path.join(self.out, TABLE), "w") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(self.columns)
            for key in order:
                if key in self.rows:
                    writer.writerow([cell(self.rows[key][c]) for c in self.columns])

    def frame(self, order):
        """The pandas DataFrame of the rows in ``order``."""
        import pandas
        return pandas.DataFrame([self.rows[k] for k in order if k in self.rows],
                                columns=self.columns)


def _readable(path):
    """Whether ``path`` is a file that opens as a zip archive (a .npz): its end record is
    read, not its members, so a resume over many runs stays cheap."""
    return os.path.isfile(path) and zipfile.is_zipfile(path)


#: what a study's description holds that does not decide which study it is: derived from
#: the rest (a folder written before it was described is still the same study)
DERIVED = ("units",)


def manifest(out, description):
    """Write the study's description into ``out`` or check it against the one there (its
    :data:`DERIVED` entries aside)."""
    path = os.path.join(out, MANIFEST)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as fh:
            try:
                old = json.load(fh)
            except ValueError:
                old = None
        if isinstance(old, dict):
            old = {k: v for k, v in old.items() if k not in DERIVED}
        new = {k: v for k, v in description.items() if k not in DERIVED}
        if old != new:
            differ = (sorted(k for k in new if (old or {}).get(k) != new[k])
                      if isinstance(old, dict) else ["everything"])
            raise InputError(f"sweep: the folder {out} holds another study (it differs in: "
                             f"{', '.join(differ)}); give another out folder, or empty it")
        return
    with atomic_open(path, "w") as fh:
        json.dump(description, fh, indent=1)
