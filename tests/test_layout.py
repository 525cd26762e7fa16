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
        # the composition roots (DESIGN §9): the command line, and exchange (a URDF becomes
        # joints, force elements and shapes)
        if rel.startswith(("mbd/cli/", "mbd/exchange/")) or rel == "mbd/__main__.py":
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


#: the stages of mbd, bottom up (DESIGN §9): a module may import its own stage's modules and
#: earlier stages', never a later one's. The package face (mbd/__init__.py, which binds the
#: stage facades Model.build and System.simulate) and, above it, the command line (a user of
#: the public API) sit on top.
STAGES = ("model", "compiled", "system", "control", "run", "analysis", "study", "exchange",
          "__init__", "cli", "__main__")


def module_name(path, root=ROOT):
    """The dotted module name of a file under ``root`` (a package's __init__ is the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path, known, root=ROOT):
    """{(imported module, line)} for every import of mbd in ``path``, at module level or inside
    a function, relative or absolute; ``from package import name`` resolves to the module
    ``package.name`` when that is a module of ``known``, else to the package."""
    tree = ast.parse(path.read_text(), filename=str(path))
    own = module_name(path, root).split(".")
    package = own if path.name == "__init__.py" else own[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update((a.name, node.lineno) for a in node.names
                         if a.name.split(".")[0] == "mbd")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "mbd":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add((sub if sub in known else target, node.lineno))
    return found


def stage_of(module):
    """The stage of an mbd module: its subpackage, or the face/__main__ for top-level files."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def mbd_import_graph(root=ROOT):
    """{module: {imported modules}} over every module of the mbd package under ``root`` (local
    imports included) and the line of each import as {(module, imported): line}."""
    files = sorted((root / "mbd").rglob("*.py"))
    known = {module_name(f, root) for f in files}
    graph, where = {}, {}
    for path in files:
        name = module_name(path, root)
        graph.setdefault(name, set())
        for target, line in imported_modules(path, known, root):
            if target != name:
                graph[name].add(target)
                where[(name, target)] = line
    return graph, where


def upward_imports(graph, where):
    """``module -> imported (line N)`` for every import pointing to a later stage."""
    rank = {stage: i for i, stage in enumerate(STAGES)}
    return [f"{a} -> {b} (line {where[(a, b)]})" for a in sorted(graph) for b in sorted(graph[a])
            if rank[stage_of(b)] > rank[stage_of(a)]]


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


def test_every_folder_of_modules_is_a_package_the_install_finds():
    """setuptools installs only packages (folders with an __init__.py): a stage folder
    without one (say, one a .gitignore hid from the clone) would import here and be missing
    from ``pip install .``."""
    import setuptools
    found = set(setuptools.find_packages(str(ROOT), include=["mbd*", "joints*", "forces*",
                                                              "viz*"]))
    folders = {".".join(p.parent.relative_to(ROOT).parts)
               for package in ("mbd", "joints", "forces", "viz")
               for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts}
    assert folders <= found, sorted(folders - found)


def test_every_mbd_module_is_in_a_stage():
    graph, _ = mbd_import_graph()
    assert not [m for m in graph if stage_of(m) not in STAGES]
    # the flat folder is gone: only the face and python -m's entry point sit at the top
    assert sorted(p.name for p in (ROOT / "mbd").glob("*.py")) == ["__init__.py", "__main__.py"]


def test_mbd_imports_point_down_the_stages_and_form_no_cycle():
    graph, where = mbd_import_graph()
    assert not upward_imports(graph, where), upward_imports(graph, where)
    assert cycle_in(graph) is None, f"import cycle: {' -> '.join(cycle_in(graph))}"


def test_the_stage_checker_sees_an_upward_import_and_a_local_one(tmp_path):
    # the checker must be able to fail: a model module importing the run stage inside a function
    pkg = tmp_path / "mbd"
    (pkg / "model").mkdir(parents=True)
    (pkg / "run").mkdir()
    for f in ("__init__.py", "model/__init__.py", "run/__init__.py", "run/result.py"):
        (pkg / f).write_text("")
    (pkg / "model" / "builder.py").write_text(
        "def build(self):\n    from ..run.result import Result\n    return Result\n")
    graph, where = mbd_import_graph(tmp_path)
    assert graph["mbd.model.builder"] == {"mbd.run.result"}
    assert upward_imports(graph, where) == ["mbd.model.builder -> mbd.run.result (line 2)"]


def test_the_cycle_finder_finds_a_cycle():
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": {"a"}}) is not None
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": set()}) is None
