"""The element registry: law kinds register here, and their compiled dispatch is generated.

A law kind is one module (``forces/elastogap.py``): its parameter record, its compiled
functions and its event labels. It registers itself with one line,
``KIND = register("elastogap", PARAMETERS, LABELS, force=force, switching=switching, ...)``,
and its law class reads its code from ``KIND`` (see :class:`mbd.Law`). The core never imports
an element package (DESIGN §1); it calls the laws through the dispatch generated here:

- ``force(code, p, x, v, s)``, ``switching(code, p, x, v, s, g)``, ``armed(code, p, s, k)``,
  ``odd_at_zero(code, p)``, ``natural_sides(code, p, x, v, s, g)``, ``next_mode(code, p, x,
  v, s, k)`` (the sides after switching function k crossed; by default its side flips) and
  ``energy(code, p, x, s)`` (:data:`ROLES`), each an ``if code == K: return
  kind_K.<role>(...)`` chain over the registered kinds, and ``energies`` over many rows; written as
  a source file (numba caches only functions that have one) named by the hash of its text, in
  the cache folder, and imported from there. The core's kernels read them as attributes of
  :mod:`mbd.compiled.lawkernels`.

Sealing. The first use of the laws by the compile stage seals the registry: reading a kind's
code (``model.build()``), loading or saving any cached kernel (its key holds :func:`digest`,
see :mod:`mbd.compiled.jitcache`), or evaluating a dispatch function. Sealing first imports the
element packages declared under the entry-point group ``mbd.elements`` (forces declares itself), so
that every process has the same dispatch and shares the numba disk cache, whether or not it
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
import tempfile

from ..model import files
from . import jitcache
from .layout import LAW_SWITCHES, MAX_PARAMS

#: the entry-point group under which element packages declare themselves (pyproject.toml)
GROUP = "mbd.elements"

#: the core's own kinds, which the core itself uses (imported when sealing, like the element
#: packages)
CORE_KINDS = (__package__ + ".constant",)

#: the environment variable naming (comma-separated) more modules to import when sealing: how
#: a process hands its kinds to the processes it starts (:mod:`mbd.run.warmup`)
MODULES = "MBD_ELEMENTS"

#: the dispatch's functions: role -> (the kind function's arguments, the numba options of the
#: dispatch function, the value for a kind without one or None for a function with no
#: value). Each dispatch function takes the law ``code`` first, then these.
ROLES = {
    "force": ("p, x, v, s", "", "np.nan"),
    "switching": ("p, x, v, s, g", "", None),
    "armed": ("p, s, k", 'inline="always"', "False"),
    "odd_at_zero": ("p", 'inline="always"', "False"),
    "natural_sides": ("p, x, v, s, g", "", None),
    "next_mode": ("p, x, v, s, k", "", None),
    "energy": ("p, x, s", 'inline="always"', "0.0"),
}

#: what the dispatch functions do before (``head``) and after (``tail``) the kinds' chain
_HEAD = {"switching": ("    for k in range(LAW_SWITCHES):\n"
                       "        g[k] = 0.0\n")}
_TAIL = {"natural_sides": ("    # the sides the state selects: each the sign of its g (zero "
                           "counting as +1),\n"
                           "    # settled in order, g_k may read the sides before it\n"
                           "    for k in range(LAW_SWITCHES):\n"
                           "        s[k] = 1.0\n"
                           "    for k in range(LAW_SWITCHES):\n"
                           "        switching(code, p, x, v, s, g)\n"
                           "        s[k] = 1.0 if g[k] >= 0.0 else -1.0\n"),
         # by default a crossing of switching function k moves to its other side
         "next_mode": "    s[k] = -s[k]\n"}

#: appended to the dispatch: the functions over many rows that Python calls
_ROWS = ('\n\n@njit()\ndef energies(code, P, X, S, out):\n'
         '    """The stored energy (J) of law ``code`` at the rows X (n,) with the parameter '
         'rows P\n    (n, MAX_PARAMS) and sides S (n, LAW_SWITCHES), into ``out`` (n,)."""\n'
         '    for j in range(X.shape[0]):\n'
         '        out[j] = energy(code, P[j], X[j], S[j])\n')

#: the names of the dispatch module's functions: the roles and the row functions
FUNCTIONS = tuple(ROLES) + ("energies",)


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

    @property
    def code(self):
        """The law code (int) the compiled dispatch knows this kind by; seals the registry."""
        self.registry.seal()
        return self._code

    def __repr__(self):
        return f"Kind({self.name!r}, module={self.module!r}, code={self._code})"


class Registry:
    """The law kinds of a process and, once sealed, their generated dispatch module.

    ``entry_points`` is the lookup of the element packages to load when sealing (a function
    returning entry points; tests replace it).
    """

    def __init__(self, entry_points=None):
        self.entry_points = entry_points or _entry_points
        self._kinds = {}
        self._state = "open"        # open -> sealing -> sealed
        self._dispatch = None
        self._digest = None

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
        """Load the declared element packages, give the codes and generate the dispatch (once);
        returns the dispatch module."""
        if self._state == "sealed":
            return self._dispatch
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
            self._dispatch = _load(source(ordered))
            self._digest = _digest(ordered, self._dispatch.__file__)
        except BaseException:
            self._state = "open"
            raise
        self._state = "sealed"
        return self._dispatch

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

    def locking(self):
        """The codes of the kinds whose elements stick (seals)."""
        return {k._code for k in self.kinds() if k.locks}

    def digest(self):
        """Hex hash of the registered kinds' module files and of the dispatch (seals): part
        of every compiled kernel's cache key (:mod:`mbd.compiled.jitcache`)."""
        self.seal()
        return self._digest


def _entry_points():
    """The entry points of :data:`GROUP` in the installed distributions."""
    return importlib.metadata.entry_points(group=GROUP)


def source(kinds):
    """The text of the dispatch module of ``kinds`` (sealed: each has its code)."""
    modules = sorted({k.module for k in kinds if k.functions})
    alias = {m: f"kind_{j}" for j, m in enumerate(modules)}
    out = ['"""The compiled dispatch of the registered law kinds, generated by '
           'mbd.compiled.registry: do not edit."""\n', "import numpy as np\n\n",
           f"from {__package__}.jitcache import njit\n",
           f"from {__package__}.layout import LAW_SWITCHES\n"]
    out += [f"import {m} as {alias[m]}\n" for m in modules]
    for role, (args, options, default) in ROLES.items():
        out += [f"\n\n@njit({options})\ndef {role}(code, {args}):\n", _HEAD.get(role, "")]
        for kind in kinds:
            function = kind.functions.get(role)
            if function is not None:
                call = f"{alias[kind.module]}.{_name(kind, function)}({args})"
                out.append(f"    if code == {kind._code}:  # {kind.name}\n" +
                           (f"        return {call}\n" if default else
                            f"        {call}\n        return\n"))
        out.append(_TAIL.get(role, "") + (f"    return {default}\n" if default else ""))
    return "".join(out) + _ROWS


def _name(kind, function):
    """The module-level name under which ``kind``'s module holds ``function``."""
    module = sys.modules[kind.module]
    name = getattr(function, "__name__", None)
    if getattr(module, name, None) is not function:
        raise ValueError(f"law kind {kind.name!r}: its function {name} is not a module-level "
                         f"name of {kind.module}")
    return name


def cache_folder():
    """Where generated dispatch files go: ``$NUMBA_CACHE_DIR/mbd``, else the user cache dir
    (``$XDG_CACHE_HOME/mbd`` or ``~/.cache/mbd``), else a folder in the temporary dir."""
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    user = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for folder in ([os.path.join(numba_dir, "mbd")] if numba_dir else []) + [
            os.path.join(user, "mbd"), os.path.join(tempfile.gettempdir(), "mbd-cache")]:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    raise OSError("no writable folder for mbd's generated dispatch (set NUMBA_CACHE_DIR)")


def _load(text):
    """Write ``text`` (whole, once: its name is its hash) and import it as a module."""
    name = "mbd_dispatch_" + hashlib.sha256(text.encode()).hexdigest()[:16]
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


def _digest(kinds, dispatch_file):
    """Hex hash over the kinds' modules (names and file bytes) and the dispatch file's name
    (itself a hash of its text)."""
    h = hashlib.sha256(os.path.basename(dispatch_file).encode())
    for module in sorted({k.module for k in kinds}):
        path = getattr(sys.modules[module], "__file__", None)
        if path:
            with open(path, "rb") as fh:
                h.update(b"\0%s\0" % module.encode() + fh.read())
    return h.hexdigest()


#: the process's registry
REGISTRY = Registry()
register, seal, kinds, modules, code, locking, digest = (
    REGISTRY.register, REGISTRY.seal, REGISTRY.kinds, REGISTRY.modules, REGISTRY.code,
    REGISTRY.locking, REGISTRY.digest)

# every cached kernel's key holds the kinds' sources and the dispatch (sealing on first use)
jitcache.guard_also(digest)
