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
    # the FMU of the FMI section, written whole
    assert (tmp_path / "gearbox.fmu").stat().st_size > 0


def test_adding_an_element_quotes_the_real_elastogap():
    """docs/adding-an-element.md's worked example is the real ElastoGap: every line of its
    code blocks is a line of forces/elastogap.py or forces/__init__.py (the controller kind's
    block: of mbd/control/gain.py)."""
    root = README.parent
    doc = (root / "docs" / "adding-an-element.md").read_text()
    assert "(docs/adding-an-element.md)" in README.read_text()
    lines = set()
    for name in ("elastogap.py", "__init__.py"):
        lines.update(line.rstrip() for line in (root / "forces" / name).read_text().splitlines())
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert len(blocks) >= 5
    # the controller kind's block is the real gain
    gain = {line.rstrip() for line in (root / "mbd" / "control" / "gain.py").read_text()
            .splitlines()}
    for block in blocks:
        quoted = gain if "register_controller(" in block else lines
        for line in block.splitlines():
            if line.strip() and line != "# forces/__init__.py":
                assert line.rstrip() in quoted, line


def test_readme_and_docs_cite_no_spec_outside_the_repository():
    """The specification is not in the repository: the README and docs/ cite their own
    sections, never "SPEC §n" (``--output COL=SPEC``, a command's argument, is no citation)."""
    for path in [README, *sorted((README.parent / "docs").glob("*.md"))]:
        text = path.read_text()
        cited = [text[max(0, m.start() - 30):m.end() + 10] for m in re.finditer(r"\bSPEC\b", text)
                 if text[m.start() - 4:m.start()] != "COL="]
        assert cited == [], (path.name, cited)


def test_the_sections_ci_points_to_are_there():
    """.ci/run names README sections in its comments ("Running the tests"): each is a heading
    of the README (issue 45: it pointed to one that did not exist)."""
    ci = (README.parent / ".ci" / "run").read_text()
    named = re.findall(r'README, section "([^"]+)"', ci)
    assert named, ".ci/run names no README section: this test checks nothing"
    headings = {m.strip() for m in re.findall(r"^#+ (.+)$", README.read_text(), re.M)}
    assert set(named) <= headings, set(named) - headings
