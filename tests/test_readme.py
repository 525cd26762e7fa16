"""The README's Python example runs as written."""
import pathlib
import re

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "README has no python example"
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
    header = (tmp_path / "pendulum.csv").read_text().splitlines()[0].split(",")
    assert header[:3] == ["t", "hinge.q", "hinge.v"]
