"""The element registry: law kinds register here, and each gets its generated compiled entries.

A law kind is one module (``forces/elastogap.py``): its parameter record, its compiled
functions and its event labels. It registers itself with one line,
``KIND = register("elastogap", PARAMETERS, LABELS, force=force, switching=switching, ...)``,
and its law class reads its code from ``KIND`` (see :class:`mbd.Law`). The core never imports
an element package (DESIGN §1); it calls a kind through the entries generated here.

Each kind gets one generated module (:func:`source`), written as a source file (numba caches
only functions that have one) named by the hash of its text, in the cache folder, and imported
from there:

- its functions by role (:data:`ROLES`): ``force(p, x, v, s)``, ``switching(p, x, v, s, g)``,
  ``armed(p, s, k)``, ``odd_at_zero(p)``, ``natural_sides(p, x, v, s, g)``, ``next_mode(p, x,
  v, s, k)`` (the sides after switching function k crossed; by default its side flips) and
  ``energy(p, x, s)``: the kind's own, or the default for a role it lacks; and ``energies``
  over many rows. Python calls these (:mod:`mbd.compiled.lawkernels`).
- its kernel entry ``element_law(task, elements, mode, i, x, v, g, k)``: the force, the
  switching functions, the sides the state selects, whether a switching function is armed,
  and whether the force is odd at x = 0, on element i's record (the tasks
  ``mbd.compiled.layout.LAW_*``). The core's kernels call it through its address, which each
  element's record holds (``ELEMENT.law_entry``). So every kind is compiled once, in its own
  functions, and only when a model uses it; the kernels are compiled once for every kind.

Sealing. The first use of the laws by the compile stage seals the registry: reading a kind's
code (``model.build()``), loading or saving any cached kernel (its key holds :func:`digest`,
see :mod:`mbd.compiled.jit.jitcache`), or calling a kind's functions. Sealing first imports the
element packages declared under the entry-point group ``mbd.elements`` (forces declares itself), so
that every process has the same kinds and shares the numba disk cache, whether or not it
imported ``forces``; without distribution metadata (a checkout run without install) the kinds
imported so far are used (and the modules named in ``$MBD_ELEMENTS``, which is how a process hands
its kinds to the compiling processes it starts). Codes are then given in the order of (module name,
order of registration within it): the same in every process, whatever the import order. Registering
a kind after sealing is an error.
"""
import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import sys
from functools import cache

from numba import types

from ..model import files
from . import layout
from .jit import jitcache, native
from .layout import LAW_ARMED, LAW_FORCE, LAW_NATURAL_SIDES, LAW_SWITCHES, LAW_SWITCHING, MAX_PARAMS

#: the entry-point group under which element packages declare themselves (pyproject.toml)
GROUP = "mbd.elements"

#: the core's own kinds, which the core itself uses (imported when sealing, like the element
#: packages)
CORE_KINDS = (__package__ + ".constant",)

#: the environment variable naming (comma-separated) more modules to import when sealing: how
#: a process hands its kinds to the processes it starts (:mod:`mbd.run.warmup`)
MODULES = "MBD_ELEMENTS"

#: the kinds' functions: role -> (the kind function's arguments, the value for a kind
#: without one, or None for a function with no value)
ROLES = {
    "force": ("p, x, v, s", "np.nan"),
    "switching": ("p, x, v, s, g", None),
    "armed": ("p, s, k", "False"),
    "odd_at_zero": ("p", "False"),
    "natural_sides": ("p, x, v, s, g", None),
    "next_mode": ("p, x, v, s, k", None),
    "energy": ("p, x, s", "0.0"),
}

#: what a role's generated function does before (``head``) the kind's own, and (``default``)
#: for a kind without one
_HEAD = {"switching": ("    for k in range(LAW_SWITCHES):\n"
                       "        g[k] = 0.0\n")}
_DEFAULT = {"natural_sides": ("    # the sides the state selects: each the sign of its g (zero "
                              "counting as +1),\n"
                              "    # settled in order, g_k may read the sides before it\n"
                              "    for k in range(LAW_SWITCHES):\n"
                              "        s[k] = 1.0\n"
                              "    for k in range(LAW_SWITCHES):\n"
                              "        switching(p, x, v, s, g)\n"
                              "        s[k] = 1.0 if g[k] >= 0.0 else -1.0\n"),
            # by default a crossing of switching function k moves to its other side
            "next_mode": "    s[k] = -s[k]\n"}

#: appended to a kind's functions: the function over many rows that Python calls
_ROWS = ('\n\n@njit()\ndef energies(P, X, S, out):\n'
         '    """The stored energy (J) at the rows X (n,) with the parameter rows P (n, '
         'MAX_PARAMS)\n    and sides S (n, LAW_SWITCHES), into ``out`` (n,)."""\n'
         '    for j in range(X.shape[0]):\n'
         '        out[j] = energy(P[j], X[j], S[j])\n')

#: the names of a kind module's functions that Python calls: the roles and the row function
FUNCTIONS = tuple(ROLES) + ("energies",)

@cache
def entry_type():
    """The numba signature every kind's kernel entry ``element_law(task, elements, mode, i, x,
    v, g, k)`` (:func:`source`; g the element's row of switching functions, any row for the
    tasks that write none) is compiled for, and that the kernels' calls must match
    (:func:`mbd.compiled.lawkernels.call_law` checks it), from the record formats of
    :mod:`mbd.compiled.layout`."""
    f8, i8 = types.float64, types.int64
    elements = native.typeof(layout.records(layout.ELEMENT, 1))
    modes = native.typeof(layout.initial_mode(1))
    return f8(i8, elements, modes, i8, f8, f8, types.float64[::1], i8)


class Kind:
    """One registered law kind: its name, module, parameter record (the names of its
    parameter row, in order), event labels and compiled functions {role: function}; ``locks``:
    whether its elements stick (a lock row holds their rate at zero while their side 1 is
    negative, :mod:`mbd.run.locks`)."""

    def __init__(self, registry, name, module, parameters, labels, functions, order,
                 locks=False):
        self.registry, self.name, self.module, self.locks = registry, name, module, locks
        self.parameters, self.labels = tuple(parameters), tuple(labels)
        self.functions, self.order = functions, order
        self._code = None
        self._compiled = None       # its generated module, once sealed
        self._entry = None          # its kernel entry's address, once compiled

    @property
    def code(self):
        """The law code (int) the kernels and the element records know this kind by; seals the
        registry."""
        self.registry.seal()
        return self._code

    @property
    def compiled(self):
        """The kind's generated module (:func:`source`): its functions by role and
        ``energies``, which Python calls, and its kernel entries (seals)."""
        self.registry.seal()
        return self._compiled

    def entry(self):
        """The address (int) of the kind's kernel entry (:func:`source`), compiled (or loaded
        from the cache) on first use, for the element records of this process's runs."""
        if self._entry is None:
            self._entry = native.address(self.compiled.element_law, entry_type())
        return self._entry

    def __repr__(self):
        return f"Kind({self.name!r}, module={self.module!r}, code={self._code})"


class Registry:
    """The law kinds of a process and, once sealed, their generated modules.

    ``entry_points`` is the lookup of the element packages to load when sealing (a function
    returning entry points; tests replace it).
    """

    def __init__(self, entry_points=None):
        self.entry_points = entry_points or _entry_points
        self._kinds = {}
        self._state = "open"        # open -> sealing -> sealed
        self._digest = None
        self._codes = None          # the kinds in code order, once sealed

    def register(self, name, parameters, labels=(), module=None, locks=False, **functions):
        """Register law kind ``name`` with its parameter record ``parameters`` (names of the
        row's slots, at most ``MAX_PARAMS``), its switch labels ``labels`` (one (negative
        side, positive side) pair per switching function, at most ``LAW_SWITCHES``) and its
        compiled functions by role (:data:`ROLES`; each must be a module-level name of
        ``module``, by default the caller's module); ``locks``: its elements stick (see
        :class:`Kind`). Returns the :class:`Kind`."""
        module = module or sys._getframe(1).f_globals["__name__"]
        if self._state == "sealed":
            raise RuntimeError(f"law kind {name!r} (module {module}) is registered after the "
                               "element registry was sealed by the first compilation; import "
                               "its module before building or running a model")
        if name in self._kinds:
            raise ValueError(f"law kind {name!r} is registered twice (modules "
                             f"{self._kinds[name].module} and {module})")
        unknown = sorted(set(functions) - set(ROLES))
        if unknown:
            raise ValueError(f"law kind {name!r}: unknown roles {unknown}; roles are "
                             f"{', '.join(ROLES)}")
        if len(parameters) > MAX_PARAMS or len(labels) > LAW_SWITCHES:
            raise ValueError(f"law kind {name!r}: at most {MAX_PARAMS} parameters and "
                             f"{LAW_SWITCHES} switches, got {len(parameters)} and "
                             f"{len(labels)}")
        kind = Kind(self, name, module, parameters, labels,
                    {r: f for r, f in functions.items() if f is not None}, len(self._kinds),
                    locks)
        self._kinds[name] = kind
        return kind

    def seal(self):
        """Load the declared element packages, give the codes and generate each kind's module
        (once)."""
        if self._state == "sealed":
            return
        if self._state == "sealing":
            raise RuntimeError("the element registry was used while it was being sealed (an "
                               "element package compiled or built a model on import)")
        self._state = "sealing"
        try:
            for entry in sorted(self.entry_points(), key=lambda e: e.name):
                entry.load()
            for name in CORE_KINDS + tuple(filter(None, os.environ.get(MODULES, "").split(","))):
                importlib.import_module(name)
            ordered = sorted(self._kinds.values(), key=lambda k: (k.module, k.order))
            for code, kind in enumerate(ordered):
                kind._code = code
            for kind in ordered:
                kind._compiled = _load(source(kind))
            self._digest = _digest(ordered)
        except BaseException:
            self._state = "open"
            raise
        self._state = "sealed"

    def kinds(self):
        """The registered kinds in code order (seals)."""
        self.seal()
        return sorted(self._kinds.values(), key=lambda k: k._code)

    def modules(self):
        """The modules of the registered kinds that another process can import (seals), for
        :data:`MODULES`."""
        return sorted({k.module for k in self.kinds() if k.module != "__main__"})

    def code(self, name, *default):
        """The code of kind ``name`` (seals); ``default`` (if given) when no such kind is
        registered, else KeyError."""
        self.seal()
        if name not in self._kinds and default:
            return default[0]
        if name not in self._kinds:
            raise KeyError(f"no law kind {name!r} is registered (registered: "
                           f"{', '.join(sorted(self._kinds))})")
        return self._kinds[name]._code

    def kind(self, code):
        """The kind of law code ``code`` (seals)."""
        self.seal()
        return self._by_code()[code]

    def _by_code(self):
        if self._codes is None:
            self._codes = sorted(self._kinds.values(), key=lambda k: k._code)
        return self._codes

    def locking(self):
        """The codes of the kinds whose elements stick (seals)."""
        return {k._code for k in self.kinds() if k.locks}

    def digest(self):
        """Hex hash of the registered kinds' module files and of their generated modules
        (seals): part of every compiled kernel's cache key (:mod:`mbd.compiled.jit.jitcache`)."""
        self.seal()
        return self._digest


def _entry_points():
    """The entry points of :data:`GROUP` in the installed distributions."""
    return importlib.metadata.entry_points(group=GROUP)


def source(kind):
    """The text of ``kind``'s generated module: its functions by role and ``energies``, which
    Python calls, and its kernel entry ``element_law``, which the kernels call through its
    address (see the module docstring)."""
    alias = "kind"
    out = [f'"""The compiled functions of law kind {kind.name!r} (module {kind.module}), '
           'generated by\nmbd.compiled.registry: do not edit."""\n', "import numpy as np\n\n",
           f"from {__package__}.jit.jitcache import njit\n",
           f"from {__package__}.layout import LAW_SWITCHES\n"]
    if kind.functions:
        out.append(f"import {kind.module} as {alias}\n")

    def own(role, args):
        """The call of the kind's own function of ``role``, or None."""
        function = kind.functions.get(role)
        return None if function is None else f"{alias}.{_name(kind, function)}({args})"

    for role, (args, default) in ROLES.items():
        out += [f"\n\n@njit()\ndef {role}({args}):\n", _HEAD.get(role, "")]
        call = own(role, args)
        if call is not None:
            out.append(f"    return {call}\n" if default else f"    {call}\n")
        elif role in _DEFAULT:
            out.append(_DEFAULT[role])
        elif default:
            out.append(f"    return {default}\n")
        elif not _HEAD.get(role):
            out.append("    pass\n")
    out.append(_ROWS)
    # the kernel entry: each task on element i's record, with the kind's own functions
    force = own("force", "p, x, v, s") or "np.nan"
    switching = own("switching", "p, x, v, s, g")
    sides = own("natural_sides", "p, x, v, s, g")
    armed = own("armed", "p, s, k")
    odd = own("odd_at_zero", "p")
    out += ["\n\n@njit()\ndef element_law(task, elements, mode, i, x, v, g, k):\n",
            '    """Task ``task`` (mbd.compiled.layout.LAW_FORCE ...) of element i\'s law on its '
            'record:\n    the force, the switching functions into its row g, the sides the state '
            'selects, whether\n    switching function k is armed, whether the force is odd at '
            'x = 0 (1.0 or 0.0)."""\n',
            "    p = elements[i].params[:]\n    s = mode[i].sides[:]\n",
            f"    if task == {LAW_FORCE}:\n        return {force}\n",
            f"    if task == {LAW_SWITCHING}:\n",
            "        for j in range(LAW_SWITCHES):\n            g[j] = 0.0\n",
            f"        {switching}\n" if switching else "",
            "        return 0.0\n",
            f"    if task == {LAW_NATURAL_SIDES}:\n"]
    if sides:
        out.append(f"        {sides}\n")
    else:       # each side the sign of its g, settled in order (g_k may read those before)
        out += ["        for j in range(LAW_SWITCHES):\n            s[j] = 1.0\n",
                "        for j in range(LAW_SWITCHES):\n",
                "            for m in range(LAW_SWITCHES):\n                g[m] = 0.0\n",
                f"            {switching}\n" if switching else "",
                "            s[j] = 1.0 if g[j] >= 0.0 else -1.0\n"]
    out += ["        return 0.0\n",
            f"    if task == {LAW_ARMED}:\n",
            f"        return 1.0 if {armed} else 0.0\n" if armed else "        return 0.0\n",
            f"    return 1.0 if {odd} else 0.0\n" if odd else "    return 0.0\n"]
    return "".join(out)


def _name(kind, function):
    """The module-level name under which ``kind``'s module holds ``function``."""
    module = sys.modules[kind.module]
    name = getattr(function, "__name__", None)    # (none: a functools.partial, say)
    if name is None or getattr(module, name, None) is not function:
        raise ValueError(f"law kind {kind.name!r}: its function {name or repr(function)} is "
                         f"not a module-level name of {kind.module}")
    return name


def cache_folder():
    """Where the kinds' generated modules go: :func:`mbd.compiled.jit.jitcache.cache_root` (the
    folder their compiled code's folder is in too)."""
    return jitcache.cache_root()


def _load(text):
    """Write ``text`` (whole, once: its name is its hash) and import it as a module."""
    name = "mbd_kind_" + hashlib.sha256(text.encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(cache_folder(), name + ".py")
    if not os.path.exists(path):
        with files.atomic_open(path) as fh:
            fh.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _digest(kinds):
    """Hex hash over the kinds' modules (names and file bytes) and their generated modules'
    names (each a hash of its text)."""
    h = hashlib.sha256()
    for kind in kinds:
        h.update(b"\0%s" % kind._compiled.__name__.encode())
    for module in sorted({k.module for k in kinds}):
        path = getattr(sys.modules[module], "__file__", None)
        if path:
            with open(path, "rb") as fh:
                h.update(b"\0%s\0" % module.encode() + fh.read())
    return h.hexdigest()


#: the process's registry
REGISTRY = Registry()
register, seal, kinds, kind, modules, code, locking, digest = (
    REGISTRY.register, REGISTRY.seal, REGISTRY.kinds, REGISTRY.kind, REGISTRY.modules,
    REGISTRY.code, REGISTRY.locking, REGISTRY.digest)

# every cached kernel's key holds the kinds' sources and generated modules (sealing on first
# use)
jitcache.guard_also(digest)


# ---------------------------------------------------------------------- controller kinds

class ControllerKind:
    """A continuous controller kind (SPEC §9): one module of :mod:`mbd.control` (``pid.py``)
    registers it with one line, ``KIND = register_controller("pid", PARAMETERS, kernel)``, as
    a law kind registers itself.

    Its formula is one ``@njit`` function of the kind's module, called by its compiled
    ``kernel(v, data, i) -> int64`` (:mod:`mbd.compiled.controlkernels`: the controller's
    inputs gathered into its ``CONTROL`` record, then the formula, then the checks) and, as
    its ``py_func``, by the controller's Python ``derivative``: one formula for both paths.
    The run writes the kernel's address into the record (:meth:`address`), and the
    right-hand side calls it there: the core names no kind.

    Attributes
    ----------
    name : str
    parameters : tuple of str
        What its parameter row (``CONTROL.params``) holds, in order (a matrix: its name, the
        entries by rows).
    kernel : numba dispatcher
    """

    def __init__(self, name, parameters, kernel):
        self.name, self.parameters, self.kernel = name, tuple(parameters), kernel
        self._addresses = {}

    def address(self, signature):
        """The address of the kernel compiled for ``signature`` (compiled, or loaded from the
        cache, on first use; remembered for the process)."""
        found = self._addresses.get(signature)
        if found is None:
            found = self._addresses[signature] = native.address(self.kernel, signature)
        return found

    def __repr__(self):
        return f"<controller kind {self.name!r}>"


#: the registered controller kinds by name
CONTROLLER_KINDS = {}


def register_controller(name, parameters, kernel):
    """Register a controller kind (:class:`ControllerKind`) and return it.

    Raises
    ------
    ValueError
        For a name registered already.
    """
    if name in CONTROLLER_KINDS:
        raise ValueError(f"controller kind '{name}' is registered already")
    found = CONTROLLER_KINDS[name] = ControllerKind(name, parameters, kernel)
    return found


def controller_kind(name):
    """The registered controller kind ``name``.

    Raises
    ------
    KeyError
        Naming the registered kinds.
    """
    try:
        return CONTROLLER_KINDS[name]
    except KeyError:
        raise KeyError(f"no controller kind '{name}'; the kinds are "
                       f"{sorted(CONTROLLER_KINDS)}") from None
