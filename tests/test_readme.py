"""The README's Python example runs as written."""
import pathlib
import re
import shutil

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "README has no python example"
    monkeypatch.chdir(tmp_path)
    # the examples the README names by their path from the repository's root
    shutil.copytree(README.parent / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("images", "__pycache__"))
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
    header = (tmp_path / "pendulum.csv").read_text().splitlines()[0].split(",")
    assert header[:3] == ["t", "hinge.q", "hinge.v"]
    # the sweep's table: a row per case of its 3 x 2 grid, each run's result beside it
    rows = (tmp_path / "slot-study" / "sweep.csv").read_text().splitlines()
    assert len(rows) == 1 + 6 and all(",ok," in row for row in rows[1:])
    assert len(list((tmp_path / "slot-study" / "runs").glob("*.npz"))) == 6
