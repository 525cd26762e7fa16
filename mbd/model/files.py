"""Files written whole or not at all: a temporary file beside the target, moved into place
only when everything was written (DESIGN: "files are written whole or not at all")."""
import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path beside ``path``; on success it replaces ``path``, on any failure
    it is removed and an existing ``path`` is left unchanged.

    The new file gets the permissions a plain ``open()`` would give (or those of the file it
    replaces), not mkstemp's private 0600.

    Examples
    --------
    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with atomic_path(target) as tmp:
    ...     with open(tmp, "w") as fh:
    ...         _ = fh.write("done")
    >>> with open(target) as fh:
    ...     fh.read()
    'done'
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=os.path.basename(path))
    os.close(fd)
    try:
        os.chmod(tmp, _new_file_mode(path))
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_open(path, mode="w"):
    """Open a file for writing that appears at ``path`` only once closed without error."""
    with atomic_path(path) as tmp:
        with open(tmp, mode) as fh:
            yield fh


def _new_file_mode(path):
    """Permission bits for ``path``: kept when it exists, else 0666 less the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)  # reading the umask means setting it; put it straight back
        os.umask(mask)
        return 0o666 & ~mask
