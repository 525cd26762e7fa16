"""Ctrl-C held over a compilation (mbd.compiled.jit.interrupts) on the paths the run's own tests do
not take, and the ``mbd`` command's end after an interrupted run:

- in a thread other than the main one (a sweep's, a web server's), nothing is held: signals
  are the main thread's, and the block runs plain; the compile listener leaves such a
  thread's compilations alone;
- a SIGINT held while the handler in place was the default (SIG_DFL, not Python's) is raised
  as KeyboardInterrupt when the block ends; one held while SIGINT was ignored stays ignored;
- ``mbd.cli.entry`` ends the process at once (``os._exit``) with status 130 after an
  interrupted run, its output flushed first; any other status is returned.
"""
import os
import signal
import sys
import threading

import pytest

from mbd import cli
from mbd.compiled.jit import interrupts


def _in_a_thread(work):
    """``work()`` in a thread of its own: what it returned or raised."""
    outcome = {}

    def run():
        try:
            outcome["value"] = work()
        except BaseException as err:     # handed to the test's thread
            outcome["error"] = err
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def test_held_in_another_thread_is_a_plain_block():
    """Off the main thread no handler is installed (signal.signal would raise there)."""
    def work():
        before = signal.getsignal(signal.SIGINT)
        with interrupts.held():
            inside = signal.getsignal(signal.SIGINT)
        return before, inside
    before, inside = _in_a_thread(work)
    assert inside is before


def test_the_listener_leaves_another_threads_compilations_alone():
    listener = interrupts._Holding()

    def work():
        listener.on_start(None)
        depth, block = listener.depth, listener.block
        listener.on_end(None)
        return depth, block
    assert _in_a_thread(work) == (0, None)
    assert listener.depth == 0 and listener.block is None


@pytest.mark.parametrize("handler, raised", [(signal.SIG_DFL, True), (signal.SIG_IGN, False)])
def test_a_held_sigint_acts_as_the_handler_before_would(handler, raised):
    """SIG_DFL would have ended the process: held, it ends the block as KeyboardInterrupt
    (the run then stops cleanly); SIG_IGN would have ignored it: so does the block's end."""
    previous = signal.signal(signal.SIGINT, handler)
    try:
        ended = []
        if raised:
            with pytest.raises(KeyboardInterrupt):
                with interrupts.held():
                    os.kill(os.getpid(), signal.SIGINT)
                    ended.append("block")
        else:
            with interrupts.held():
                os.kill(os.getpid(), signal.SIGINT)
                ended.append("block")
        assert ended == ["block"]                       # the block itself ran to its end
        assert signal.getsignal(signal.SIGINT) == handler    # and the handler is back
    finally:
        signal.signal(signal.SIGINT, previous)


class _Exited(Exception):
    pass


@pytest.mark.parametrize("status", [0, 2, cli.INTERRUPTED])
def test_the_command_ends_at_once_after_an_interrupted_run(monkeypatch, capsys, status):
    """Status 130 (an interrupted run, its files written): stdout and stderr are flushed and
    the process ends by os._exit(130), skipping the interpreter's teardown; any other status
    is returned to the caller (the console script's sys.exit)."""
    exits = []

    def exit_now(code):
        exits.append(code)
        raise _Exited

    def command():
        print("mbd run: interrupted", file=sys.stderr)
        return status
    monkeypatch.setattr(cli, "main", command)
    monkeypatch.setattr(os, "_exit", exit_now)
    if status == cli.INTERRUPTED:
        with pytest.raises(_Exited):
            cli.entry()
        assert exits == [cli.INTERRUPTED]
    else:
        assert cli.entry() == status and exits == []
    assert capsys.readouterr().err == "mbd run: interrupted\n"
