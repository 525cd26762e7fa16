"""Ctrl-C while the command line starts (numpy, numba and the kernels import for about a
second and a half): one clean line and exit status 130, never a traceback. Driven
deterministically: the child sends itself SIGINT at the moment under test."""
import signal
import subprocess
import sys


def child(code):
    # SIGINT's default action in the child, whatever this process inherited (a shell's
    # background job ignores SIGINT, and so would the child: Python would not handle it)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_ctrl_c_while_importing_is_a_clean_exit():
    # as `python -m mbd` does: sys.argv[0] is "-m" while the package imports; SIGINT lands
    # between the handler's install and the end of the imports
    done = child("import os, signal, sys\n"
                 "sys.argv = ['-m', 'run']\n"
                 "import mbd\n"
                 "os.kill(os.getpid(), signal.SIGINT)\n"
                 "import time; time.sleep(30)\n")
    assert done.returncode == 130
    assert done.stderr == "mbd: interrupted while starting: nothing was run or written\n"


def test_a_library_import_keeps_python_s_ctrl_c():
    # a user's script importing mbd: Ctrl-C stays a KeyboardInterrupt it may catch
    done = child("import os, signal, sys\n"
                 "sys.argv = ['my_script.py']\n"
                 "import mbd\n"
                 "try:\n"
                 "    os.kill(os.getpid(), signal.SIGINT)\n"
                 "    import time; time.sleep(30)\n"
                 "except KeyboardInterrupt:\n"
                 "    print('caught')\n")
    assert done.returncode == 0 and done.stdout == "caught\n"


def test_once_the_command_runs_ctrl_c_is_its_to_handle():
    # after mbd.cli.main() starts, SIGINT is a KeyboardInterrupt again: the command writes
    # what it computed (tests/mbd/cli/test_cli.py interrupts a run)
    done = child("import signal, sys\n"
                 "sys.argv = ['-m']\n"
                 "import mbd\n"
                 "from mbd import cli\n"
                 "assert signal.getsignal(signal.SIGINT) is mbd._interrupted_while_starting\n"
                 "try:\n"
                 "    cli.main(['bogus-command'])\n"
                 "except SystemExit:\n"
                 "    pass\n"
                 "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n")
    assert done.stdout.strip().endswith("True"), done.stderr
