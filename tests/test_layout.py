"""The house rules a machine can check: the one-way import rule of DESIGN §1, and that the
README's two commands are the ones CI runs."""
import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent


def imported_packages(path):
    """Top-level package names imported by a Python file (absolute imports only)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_mbd_imports_no_outer_package_outside_the_command_line():
    offenders = []
    for path in (ROOT / "mbd").rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("mbd/cli/") or rel == "mbd/__main__.py":
            continue
        bad = imported_packages(path) & {"joints", "forces", "viz"}
        if bad:
            offenders.append(f"{rel} imports {sorted(bad)}")
    assert not offenders, offenders


def test_joints_and_forces_do_not_import_each_other():
    for package, other in (("joints", "forces"), ("forces", "joints")):
        for path in (ROOT / package).rglob("*.py"):
            assert other not in imported_packages(path), f"{path} imports {other}"


def test_the_import_checker_sees_a_forbidden_import(tmp_path):
    # the checker must be able to fail: feed it a file that breaks the rule
    probe = tmp_path / "probe.py"
    probe.write_text("import os\nfrom forces.laws import Spring\nimport viz.scene as s\n")
    assert imported_packages(probe) == {"os", "forces", "viz"}


def readme_commands():
    """The shell commands in the README's first code block."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```(?:bash|sh|shell)\n(.*?)```", text, re.S).group(1)
    return [line.strip() for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_ci_runs_the_readme_commands():
    ci = (ROOT / ".ci" / "run").read_text()
    commands = readme_commands()
    assert len(commands) == 2, commands
    for command in commands:
        assert command in ci, f"README command {command!r} is not what .ci/run runs"
