"""The project's cached ``njit``, with a guard against stale cross-module machine code.

numba's on-disk cache keys a compiled function on a stamp of *its own* source file, its
bytecode and its argument types. A kernel in one module that calls a kernel of another module
has the callee's machine code linked into its own cached object, so after the callee's module
is edited the caller keeps loading the old code from the cache until the cache is cleared.

The guard: every function compiled through :func:`njit` stores, next to numba's own stamp of
its file, a hash of the source of every module of the compiled core (the *guarded set*, see
:func:`guarded_files`). numba only compares stamps for equality, so editing any guarded module
makes every cached kernel of the project stale (it is recompiled and its cache entry rewritten
in place), while an unchanged tree loads from the cache as before. The law kinds compiled into
the kernels live outside the package (``forces/elastogap.py``): :mod:`mbd.compiled.registry` adds
their sources and their generated modules to the hash (:func:`guard_also`).

Where: the kernels live in one folder per content of the package, not beside the sources
(:func:`kernel_folder`: ``<cache root>/kernels/<digest of the guarded set>/<package path>``,
the cache root being :func:`cache_root`), and each function's stamp is a hash of its file's
bytes, not numba's (mtime, size) of older releases. So two copies of the same mbd -- a clone
and the package pip installed from it, or a reinstall of the same version -- share one cache,
and whichever copy the user imports finds the kernels compiled by the other (``mbd warmup``,
a first run). An edit makes a new folder; the :data:`KEEP` most recently used are kept.

How: numba's cache for a dispatcher is a ``FunctionCache``; :func:`njit` gives its dispatchers
a ``FunctionCache`` subclass whose locator (:class:`PackageLocator`) puts the cache in
:func:`kernel_folder` (numba's own locators remain the fallback when no folder there can be
written; ``NUMBA_CACHE_LOCATOR_CLASSES`` overrides both, as in numba), and whose index file
adds the digest to the stamp of the source file each time the index is read or written.
Nothing global in numba is modified, and functions jitted with numba's own decorator are not
affected.
"""
import hashlib
import inspect
import os
import shutil
import tempfile

import numba
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    _CacheLocator,
)
from numba.core.dispatcher import Dispatcher


def _top_package(path):
    """The folder of the outermost package holding the module at ``path``."""
    folder = os.path.dirname(os.path.abspath(path))
    while os.path.exists(os.path.join(os.path.dirname(folder), "__init__.py")):
        folder = os.path.dirname(folder)
    return folder


#: the directory whose modules make up the compiled core: the top-level package this file is
#: in (``mbd``, all its stage packages included)
GUARD_DIR = _top_package(__file__)

#: a module (``.py`` file anywhere under GUARD_DIR) is guarded when its text contains this,
#: and so is every package module it imports at module level (compiled code freezes the
#: globals it reads, e.g. the record formats of ``mbd.compiled.layout``)
GUARD_MARKER = b"njit"


def _scan():
    """``(relative path, absolute path, mtime_ns, size)`` of every .py file under GUARD_DIR."""
    found = []
    for root, dirs, files in os.walk(GUARD_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                try:
                    st = os.stat(path)
                except OSError:     # vanished between listing and stat (an editor's save)
                    continue
                rel = os.path.relpath(path, GUARD_DIR).replace(os.sep, "/")
                found.append((rel, path, st.st_mtime_ns, st.st_size))
    found.sort()
    return found


_memo = {}   # the scan's (path, mtime_ns, size) key -> (guarded files, digest)

#: more sources of the digest: functions returning a hex string (:func:`guard_also`)
_also = []


def guard_also(part):
    """Add ``part()`` (a function returning a hex string, called when a cache key is read or
    written) to :func:`tree_digest`: the law kinds of :mod:`mbd.compiled.registry`, which live
    outside this package but are compiled into its kernels."""
    _also.append(part)


def _package_imports(rel, source, known):
    """The package modules (relative paths among ``known``) a module imports at module level:
    ``from . import x``, ``from .x import y``, ``from ..pkg import x`` (relative imports,
    resolved from the module's own folder; a package stands for its ``__init__.py``)."""
    import ast
    try:
        tree = ast.parse(source)
    except SyntaxError:          # a module being edited: hashed all the same
        return []
    folder = os.path.dirname(rel)
    out = []

    def module(*parts):
        path = "/".join(p for p in parts if p)
        for candidate in (path + ".py", path + "/__init__.py"):
            if candidate in known:
                return candidate
        return None

    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            base = folder
            for _ in range(node.level - 1):
                base = os.path.dirname(base)
            stem = os.path.join(base, *node.module.split(".")) if node.module else base
            found = [module(stem)] + [module(stem, a.name) for a in node.names]
            out.extend(f for f in found if f)
    return out


def _guard():
    scan = _scan()
    key = tuple((rel, mtime, size) for rel, _, mtime, size in scan)
    hit = _memo.get(key)
    if hit is None:
        sources = {}
        for rel, path, _, _ in scan:
            try:
                with open(path, "rb") as f:
                    sources[rel] = f.read()
            except OSError:
                continue
        own = os.path.relpath(os.path.abspath(__file__), GUARD_DIR).replace(os.sep, "/")
        todo = [rel for rel, data in sources.items() if GUARD_MARKER in data or rel == own]
        guarded = set()
        while todo:               # the marked modules and what they import, transitively
            rel = todo.pop()
            if rel in guarded or rel not in sources:
                continue
            guarded.add(rel)
            todo.extend(_package_imports(rel, sources[rel], sources))
        h = hashlib.sha256()
        files = sorted(guarded)
        for rel in files:
            h.update(b"%s\0%d\0" % (rel.encode(), len(sources[rel])))
            h.update(sources[rel])
        hit = (tuple(files), h.hexdigest())
        _memo.clear()
        _memo[key] = hit
    return hit


def guarded_files():
    """The guarded set: the paths, relative to GUARD_DIR, of the modules whose source is hashed
    into every cache key of :func:`njit` (every .py file under this package that contains
    ``GUARD_MARKER``, this file, and the package modules they import at module level)."""
    return list(_guard()[0])


def tree_digest():
    """The hex SHA-256 over the guarded set's paths and bytes, and the parts of
    :func:`guard_also`. The guarded set's hash is computed at first use and reused while no
    .py file under GUARD_DIR changes its size or mtime (the same memoization numba uses for
    its per-file hash), so loading the ~150 kernels costs one hash."""
    if not _also:
        return _guard()[1]
    return hashlib.sha256("\0".join([_guard()[1]] + [part() for part in _also]).encode()
                          ).hexdigest()


def cache_root():
    """The folder mbd keeps what it compiles in: ``$MBD_CACHE_DIR``; else
    ``$NUMBA_CACHE_DIR/mbd``; else the user cache dir (``$XDG_CACHE_HOME/mbd`` or
    ``~/.cache/mbd``); else ``mbd-cache`` in the temporary dir -- the first that can be made and
    written into.

    Raises
    ------
    OSError
        When none can.
    """
    own, numba_dir = os.environ.get("MBD_CACHE_DIR"), os.environ.get("NUMBA_CACHE_DIR")
    user = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    candidates = ([own] if own else []) + ([os.path.join(numba_dir, "mbd")] if numba_dir
                                           else [])
    for folder in candidates + [os.path.join(user, "mbd"),
                                os.path.join(tempfile.gettempdir(), "mbd-cache")]:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    raise OSError("no writable folder for mbd's compiled code and generated modules (set "
                  "MBD_CACHE_DIR)")


#: how many kernel folders (:func:`kernel_folder`, one per content of the package) are kept:
#: those most recently used; an older one is removed when a new one is made
KEEP = 8

#: (the package digest, the variables cache_root reads) -> its folder (or None): chosen once
#: per process and setting
_kernel_folder = {}


def kernel_folder():
    """The folder of the compiled kernels of this content of the package:
    ``<cache root>/kernels/<first 16 hex of the guarded set's digest>`` (None when no cache
    root can be written). Its mtime is set when a process first uses it; making a new one
    removes all but the :data:`KEEP` most recently used."""
    digest = _guard()[1][:16]
    key = (digest, *(os.environ.get(v) for v in ("MBD_CACHE_DIR", "NUMBA_CACHE_DIR",
                                                  "XDG_CACHE_HOME", "HOME")))
    if key not in _kernel_folder:
        try:
            kernels = os.path.join(cache_root(), "kernels")
            folder = os.path.join(kernels, digest)
            new = not os.path.isdir(folder)
            os.makedirs(folder, exist_ok=True)
            os.utime(folder)
            if new:
                _prune(kernels)
        except OSError:
            folder = None
        _kernel_folder[key] = folder
    return _kernel_folder[key]


def _prune(kernels):
    """Remove all but the :data:`KEEP` most recently used kernel folders of ``kernels``."""
    def used(entry):
        try:
            return entry.stat().st_mtime
        except OSError:
            return 0.0
    with os.scandir(kernels) as it:
        folders = sorted((e for e in it if e.is_dir()), key=used, reverse=True)
    for entry in folders[KEEP:]:
        shutil.rmtree(entry.path, ignore_errors=True)   # (another process may still be in it)


_stamps = {}    # (path, mtime_ns, size) -> the hash of the file's bytes


def content_stamp(path):
    """The hex SHA-256 of the bytes of the file at ``path`` (memoized on its mtime and
    size): the stamp of a function's source in its cache index, the same for every copy of
    the file wherever it lies and whenever it was written."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _stamps:
        with open(path, "rb") as f:
            _stamps[key] = hashlib.sha256(f.read()).hexdigest()
    return _stamps[key]


def _package_path(py_file):
    """The sub-folder of a source file's cache in :func:`kernel_folder`: its package's path
    from the outermost package (``mbd/compiled``, ``forces``), the same in every copy; for a
    file outside any package (a law kind's generated module), its folder's name and a hash of
    its path."""
    folder = os.path.dirname(os.path.abspath(py_file))
    if os.path.exists(os.path.join(folder, "__init__.py")):
        top = _top_package(py_file)
        return os.path.relpath(folder, os.path.dirname(top))
    return _CacheLocator.get_suitable_cache_subpath(py_file)


class PackageLocator(_CacheLocator):
    """numba's cache locator for mbd's kernels: the folder :func:`kernel_folder` /
    :func:`_package_path`, the stamp :func:`content_stamp`, functions told apart by their
    first line (as numba's own locators do)."""

    def __init__(self, py_func, py_file, cache_path):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = cache_path

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return content_stamp(self._py_file)

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        folder = kernel_folder() if os.path.isfile(py_file) else None
        if folder is None:
            return None
        self = cls(py_func, py_file, os.path.join(folder, _package_path(py_file)))
        try:
            self.ensure_cache_path()
        except OSError:      # numba's locators next
            return None
        return self


class _PackageCacheImpl(CompileResultCacheImpl):
    _locator_classes = [PackageLocator, *CompileResultCacheImpl._locator_classes]


class _GuardedIndex(IndexDataCacheFile):
    """numba's index file of one function, whose source stamp (numba's stamp of the file)
    gets the tree digest when the index is read or written, not when the function is
    decorated: the digest holds the registered law kinds (:func:`guard_also`), known only
    once the compile stage seals their registry."""

    @property
    def _source_stamp(self):
        return (self._file_stamp, "mbd.compiled.jit.jitcache", tree_digest())

    @_source_stamp.setter
    def _source_stamp(self, stamp):     # numba's, set on construction
        self._file_stamp = stamp


class GuardedFunctionCache(FunctionCache):
    """numba's per-function disk cache, in :func:`kernel_folder`, keyed on the bytes of the
    function's file (:func:`content_stamp`, whatever numba's locator stamps) and on
    :func:`tree_digest`."""

    _impl_class = _PackageCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = _GuardedIndex(self._cache_path, self._impl.filename_base,
                                         content_stamp(inspect.getfile(py_func)))


def njit(inline="never", **options):
    """numba's ``njit`` with the project's settings and the stale-cache guard.

    - ``cache=True``: compiled code is stored on disk, in :func:`kernel_folder` (under
      ``$MBD_CACHE_DIR``, ``$NUMBA_CACHE_DIR/mbd`` or ``~/.cache/mbd``; numba's usual places
      when none can be written), and loaded by later processes, from any copy of the same
      sources, instead of recompiling.
    - ``error_model="numpy"``: a division by zero gives inf/nan, which the driver reports,
      instead of raising in the hot path.
    - ``inline``: ``"never"`` by default; ``"always"`` merges a thin wrapper into its callers:
      every call passes the model and workspace tuples (some 40 array structs) by value, which
      costs more than a short chain's dynamics when it happens a few times per evaluation.
    - The guard: the cache key also holds a hash of every module of the compiled core (every
      .py file of this package that mentions ``njit``, see :func:`guarded_files`), because a
      cached kernel contains the code of the kernels it calls, inlined or linked in, and numba
      by itself only notices edits of the kernel's own file. Editing any core module therefore
      recompiles every kernel once; editing other modules of the package (the pure-Python
      driver) does not. A core module must not bake in globals from a module outside the
      guarded set (numba freezes global constants into the code): keep the core's imports
      among core modules.

    Other numba options pass through (``cache=False`` gives an uncached function; an explicit
    ``error_model`` overrides the default). ``@njit`` without parentheses also works.
    """
    if callable(inline):               # used bare: @njit
        return njit()(inline)
    cache = options.pop("cache", True)
    settings = dict(error_model="numpy", inline=inline)
    settings.update(options)
    jit = numba.njit(cache=False, **settings)

    def decorate(func):
        disp = jit(func)
        if cache and isinstance(disp, Dispatcher):   # not when NUMBA_DISABLE_JIT returns func
            disp._cache = GuardedFunctionCache(disp.py_func)
        return disp

    return decorate
