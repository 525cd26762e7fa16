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


def mbd_import_graph():
    """{module: {modules it imports}} within the mbd package (not its command line), every
    relative import anywhere in the file, and the function each import sits in (None: module
    level) as {(module, imported): function}."""
    graph, where = {}, {}
    for path in sorted((ROOT / "mbd").glob("*.py")):
        name = path.stem
        graph.setdefault(name, set())
        tree = ast.parse(path.read_text(), filename=str(path))
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef,
                                                                 ast.AsyncFunctionDef))]
        inside = {id(node): f.name for f in functions for node in ast.walk(f)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = ([node.module.split(".")[0]] if node.module
                           else [a.name for a in node.names])
                for t in targets:
                    if (ROOT / "mbd" / f"{t}.py").exists():
                        graph[name].add(t)
                        where[(name, t)] = inside.get(id(node))
    return graph, where


#: the documented facades (DESIGN §2): a later stage imported from an earlier one's method
FACADES = {("model", "system"): "build", ("system", "simulate"): "simulate"}


def cycle_in(graph):
    """A cycle of the directed graph as a list of nodes, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_the_mbd_import_graph_is_acyclic_apart_from_the_facades():
    graph, where = mbd_import_graph()
    for (a, b), function in FACADES.items():
        assert where.get((a, b)) == function, f"facade {a}.{function} -> {b} not found"
        graph[a].discard(b)
    local = {edge: f for edge, f in where.items() if f and edge not in FACADES}
    assert not local, f"function-local imports hide a dependency: {local}"
    assert cycle_in(graph) is None, f"import cycle: {' -> '.join(cycle_in(graph))}"


def test_the_cycle_finder_finds_a_cycle():
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": {"a"}}) is not None
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": set()}) is None
