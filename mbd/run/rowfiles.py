"""A run's rows written to disk as the run makes them (``simulate(..., rows_to=folder)``).

Each part of the rows (the times, q, v, the work accumulators, the continuous controllers'
states) goes to a NumPy ``.npy`` file of its own in the folder. A thread writes each block of
rows as soon as the run has filled it (:meth:`RowFiles.full`), beside the run; when the run
ends, whole, failed or stopped by Ctrl-C, the last rows are written and every file's header
is given its number of rows (:meth:`RowFiles.close`), and the Result reads the files
memory-mapped: the rows are not copied again, and a run stopped far in keeps them on disk
within a few milliseconds instead of copying and writing hundreds of megabytes after the
Ctrl-C (about 0.25 s a million rows on the machines measured, benchmarks/INTERRUPT.md).

Until :meth:`RowFiles.close`, a file's header says it holds no rows (a process killed
mid-run leaves files that read as empty, not as rows of another run).
"""
import os
import struct
import threading

import numpy as np

#: the bytes of every file's header (magic, version, length, the header text padded): fixed,
#: so that the header can be rewritten in place with the final number of rows
HEADER_BYTES = 128

#: the blocks the writing thread may fall behind by before the run waits for it (a run
#: faster than the disk is held to the disk's speed; each block is BLOCK_ROWS rows)
QUEUE_BLOCKS = 16


def npy_header(shape):
    """A ``.npy`` header (format 1.0) of float64 values of ``shape``, :data:`HEADER_BYTES`
    long.

    Examples
    --------
    >>> h = npy_header((3, 2))
    >>> len(h), h[:6]
    (128, b'\\x93NUMPY')
    """
    text = ("{'descr': '%s', 'fortran_order': False, 'shape': %r, }"
            % (np.dtype(float).str, tuple(int(n) for n in shape)))
    body = text.ljust(HEADER_BYTES - 10 - 1) + "\n"    # magic 6, version 2, length 2
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body.encode("latin1")


class RowFiles:
    """The files of one run's rows, written from its blocks of rows
    (:class:`mbd.run.outputrows.OutputRows`).

    Parameters
    ----------
    folder : str or path-like
        An existing folder (``simulate`` makes it and checks it before the run). The files
        ``t.npy`` and one per part (``parts``) are written there, replacing any of those
        names.
    parts : list of (str, slice or None)
        Each part's file name (without ``.npy``) and its columns of a row's state (None: a
        part the rows do not hold, no file).
    blocks : list of (ndarray, ndarray)
        The run's blocks, (times (k,) s, states (k, width)), appended to as the run goes: the
        thread reads the full ones (:meth:`full`), which the run no longer changes.

    The run and the thread share only the list and one number (the full blocks), each set
    in one step: a Ctrl-C anywhere in the run leaves nothing half handed over.
    """

    def __init__(self, folder, parts, blocks):
        self.folder = os.fspath(folder)
        self.parts = [(name, part) for name, part in parts if part is not None]
        self.paths = {name: os.path.join(self.folder, f"{name}.npy")
                      for name in ["t"] + [name for name, _ in self.parts]}
        self.blocks = blocks
        self.files = {}
        try:
            for name, path in self.paths.items():
                self.files[name] = open(path, "wb")
                self.files[name].write(npy_header(self._shape(name, 0)))
        except BaseException:
            self._close_files()
            raise
        self.ready = 0          # the full blocks the run has handed over
        self.written = 0        # the blocks the thread has written
        self.rows = 0           # the rows written
        self.stopping = False
        self.failure = None
        self.wake = threading.Condition()
        self.thread = threading.Thread(target=self._write_full, name="mbd-rows", daemon=True)
        self.thread.start()

    def _shape(self, name, rows):
        if name == "t":
            return (rows,)
        part = dict(self.parts)[name]
        return (rows, part.stop - part.start)

    def full(self, count):
        """The first ``count`` blocks are full: the thread writes them. The run waits while
        the thread is more than :data:`QUEUE_BLOCKS` behind (a run faster than the disk is
        held to the disk's speed)."""
        if self.failure is not None:
            raise self.failure
        with self.wake:
            self.ready = count
            self.wake.notify_all()
            while self.ready - self.written > QUEUE_BLOCKS and self.failure is None:
                self.wake.wait()

    def _write_full(self):
        while True:
            with self.wake:
                while self.written == self.ready and not self.stopping:
                    self.wake.wait()
                if self.written == self.ready:
                    return
                times, states = self.blocks[self.written]
            try:
                self._write(times, states, len(times))
            except BaseException as err:    # a full disk, the folder gone: handed to the run
                with self.wake:
                    self.failure = err
                    self.wake.notify_all()
                return
            with self.wake:
                self.written += 1
                self.wake.notify_all()

    def _write(self, times, states, m):
        self.files["t"].write(memoryview(np.ascontiguousarray(times[:m])))
        for name, part in self.parts:
            self.files[name].write(memoryview(np.ascontiguousarray(states[:m, part])))
        self.rows += m

    def close(self, n):
        """The run's ``n`` rows: the full blocks written by the thread, then the rest of the
        last one here; each file's header given its number of rows. Returns the rows as
        read-write memory maps, {name: array}. Raises what writing raised (an OSError: a
        full disk, the folder gone)."""
        full, rest = divmod(n, len(self.blocks[0][0])) if self.blocks else (0, 0)
        with self.wake:
            self.ready = full
            self.stopping = True
            self.wake.notify_all()
        self.thread.join()
        try:
            if self.failure is not None:
                raise self.failure
            if rest:
                self._write(*self.blocks[full], rest)
            for name, fh in self.files.items():
                fh.seek(0)
                fh.write(npy_header(self._shape(name, self.rows)))
        finally:
            self._close_files()
        # plain arrays on the maps (numba's kernels take ndarrays, not np.memmap)
        return {name: (np.asarray(np.load(path, mmap_mode="r+")) if self.rows else
                       np.zeros(self._shape(name, 0)))
                for name, path in self.paths.items()}

    def abandon(self):
        """Stop writing (after a failure): the thread ends, the files are closed as they
        are (their headers still say no rows)."""
        with self.wake:
            self.stopping = True
            self.ready = self.written
            self.wake.notify_all()
        self.thread.join()
        self._close_files()

    def _close_files(self):
        for fh in self.files.values():
            fh.close()
