"""The house rules a machine can check: the one-way import rule of DESIGN §1 and §9 over every
package of the house (mbd's stages, joints, forces, viz; imports inside functions included),
no import cycle, and that the README's two commands are the ones CI runs."""
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

#: the packages of the house (DESIGN §1), each graphed module by module
PACKAGES = ("mbd", "joints", "forces", "viz")

#: where the outer packages stand among mbd's stages: just below the stage named. joints and
#: forces implement the model's interfaces and register their kernels (they import mbd's
#: stages up to control) and exchange makes them from a URDF; viz draws a Result (it imports
#: the face) and the command line draws with it.
BELOW = {"joints": "exchange", "forces": "exchange", "viz": "cli"}


def module_name(path, root=ROOT):
    """The dotted module name of a file under ``root`` (a package's __init__ is the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path, known, root=ROOT):
    """{(imported module, line)} for every import in ``path`` of a package of ``known`` (the
    dotted names of the modules graphed), at module level or inside a function (the whole
    tree is walked), relative or absolute; ``from package import name`` resolves to the module
    ``package.name`` when that is a module of ``known``, else to the package."""
    tree = ast.parse(path.read_text(), filename=str(path))
    own = module_name(path, root).split(".")
    package = own if path.name == "__init__.py" else own[:-1]
    graphed = {name.split(".")[0] for name in known}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update((a.name, node.lineno) for a in node.names
                         if a.name.split(".")[0] in graphed)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] not in graphed:
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


def import_graph(root=ROOT, packages=PACKAGES):
    """{module: {imported modules}} over every module of ``packages`` under ``root`` (imports
    inside functions included; imports of other packages left out) and the line of each
    import as {(module, imported): line}."""
    files = sorted(f for package in packages for f in (root / package).rglob("*.py"))
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


def mbd_import_graph(root=ROOT):
    """:func:`import_graph` of the mbd package alone."""
    return import_graph(root, ("mbd",))


def rank(module):
    """Where ``module`` stands in the house, bottom up: mbd's stages in the order of
    :data:`STAGES`, each outer package just below the stage :data:`BELOW` names."""
    top = module.split(".")[0]
    if top in BELOW:
        return 2 * STAGES.index(BELOW[top]) - 1
    return 2 * STAGES.index(stage_of(module))


def upward_imports(graph, where):
    """``module -> imported (line N)`` for every import pointing to a later stage."""
    return [f"{a} -> {b} (line {where[(a, b)]})" for a in sorted(graph) for b in sorted(graph[a])
            if rank(b) > rank(a)]


def described(cycle, where):
    """A cycle of :func:`cycle_in` as ``a -> b (line N) -> ...``."""
    return " -> ".join([cycle[0]] + [f"{b} (line {where[(a, b)]})"
                                     for a, b in zip(cycle, cycle[1:])])


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


def test_the_house_imports_point_down_and_form_no_cycle():
    """Every package, module by module: joints and forces import mbd's stages below exchange
    only (not the face), exchange makes joints, force elements and shapes (mbd.model.shapes)
    and imports no viz, viz imports mbd and is imported by the command line alone; no chain
    of imports, inside functions or not, comes back to where it started."""
    graph, where = import_graph()
    assert {m.split(".")[0] for m in graph} == set(PACKAGES)
    assert not upward_imports(graph, where), upward_imports(graph, where)
    cycle = cycle_in(graph)
    assert cycle is None, f"import cycle: {described(cycle, where)}"


def test_the_house_checker_sees_a_cycle_closed_inside_a_function(tmp_path):
    # the cycle this test was written for: the face imports exchange, whose URDF reader (a
    # function-local import) drew shapes with viz, whose renderer imports the face
    files = {"mbd/__init__.py": "from .exchange import from_urdf\n",
             "mbd/exchange/__init__.py": "def from_urdf(path):\n    from .urdf import read\n"
                                         "    return read(path)\n",
             "mbd/exchange/urdf.py": "import viz\n\n\ndef read(path):\n    return viz.Box\n",
             "viz/__init__.py": "from .render import animate\n",
             "viz/render.py": "from mbd import Result\n\n\ndef animate(result):\n    pass\n",
             "joints/__init__.py": "", "forces/__init__.py": ""}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph, where = import_graph(tmp_path)
    assert graph["mbd.exchange"] == {"mbd.exchange.urdf"}          # the local import is seen
    cycle = cycle_in(graph)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert set(cycle) == {"mbd", "mbd.exchange", "mbd.exchange.urdf", "viz", "viz.render"}
    assert "mbd.exchange.urdf (line 2)" in described(cycle, where)
    assert upward_imports(graph, where) == ["mbd.exchange.urdf -> viz (line 1)"]
    # the same tree with shapes in the model: no cycle, nothing upward
    (tmp_path / "mbd/model").mkdir()
    (tmp_path / "mbd/model/__init__.py").write_text("")
    (tmp_path / "mbd/model/shapes.py").write_text("class Box:\n    pass\n")
    (tmp_path / "mbd/exchange/urdf.py").write_text(
        "from ..model.shapes import Box\n\n\ndef read(path):\n    return Box\n")
    graph, where = import_graph(tmp_path)
    assert graph["mbd.exchange.urdf"] == {"mbd.model.shapes"}
    assert cycle_in(graph) is None and upward_imports(graph, where) == []


def test_the_linter_finds_nothing():
    """ruff (pyflakes, import order, bugbear: pyproject.toml's [tool.ruff]) over the whole
    tree, as CI runs it."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
