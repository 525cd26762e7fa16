"""What the README shows a reader of its first model is what the code prints: the first
model's events (its start: level, in the middle of the backlash, the first contact 35 ms
later) and, in "Reading results", the energy balance's repr, ``summary()`` and ``lines()``
on that run (issue 30). The printed numbers are compared to 5 significant digits, and
figures at the integration tolerance (the residuals, below 1e-6 J) only as being there."""
import contextlib
import doctest
import io
import os
import pathlib
import re

import pytest

#: these tests assert accuracy bounds (closed forms, reference values, balances): run again
#: on a perturbed problem under --perturb (tests/perturb.py)
pytestmark = pytest.mark.accuracy

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def section(title):
    """The text of the README's section ``## title``, up to the next one."""
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def same_output(want, got):
    """True when ``got`` reads as ``want``: the same words, and numbers equal to 1e-5
    relative or 1e-6 absolute (J, rad or s)."""
    if NUMBER.split(want) != NUMBER.split(got):
        return False
    a, b = [float(x) for x in NUMBER.findall(want)], [float(x) for x in NUMBER.findall(got)]
    return len(a) == len(b) and all(abs(x - y) <= 1e-5 * max(abs(x), abs(y)) + 1e-6
                                    for x, y in zip(a, b))


class Checker(doctest.OutputChecker):
    def check_output(self, want, got, optionflags):
        return same_output(want, got)


@pytest.fixture(scope="module")
def first_model(tmp_path_factory):
    """The globals after running the first model's block, and what it printed."""
    text = section("A first model")
    code = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    cwd = pathlib.Path.cwd()
    namespace, printed = {}, io.StringIO()
    os.chdir(tmp_path_factory.mktemp("readme"))       # it writes pendulum.csv
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(code, str(README), "exec"), namespace)
    finally:
        os.chdir(cwd)
    return namespace, printed.getvalue()


def test_the_first_model_starts_clear_of_the_contact_and_prints_what_the_readme_shows(
        first_model):
    namespace, printed = first_model
    text = section("A first model")
    shown = re.findall(r"```text\n(.*?)```", text, re.S)[0]
    assert same_output(shown, printed), printed
    result = namespace["result"]
    # it starts inside the play (|q| < b/2 = 0.1 rad, no contact), and the first event is a
    # contact beginning, well after the start
    assert abs(result.joint("hinge").q[0]) < 0.1 and result.force("stop").state["contact"][0] == 0
    first = result.events[0]
    assert first.what == "upper contact begins" and first.t > 0.03


def test_reading_results_prints_the_balance_as_the_readme_shows(first_model):
    namespace, _ = first_model
    block = next(b for b in re.findall(r"```text\n(.*?)```", section("Reading results"), re.S)
                 if b.startswith(">>> balance = result.energy_balance()"))
    test = doctest.DocTestParser().get_doctest(block, dict(namespace), "README", str(README), 0)
    assert len(test.examples) == 4
    runner = doctest.DocTestRunner(checker=Checker(), optionflags=doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    runner.run(test, out=report.write)
    assert runner.failures == 0, report.getvalue()
    # and the words say what the balance holds: nothing supplied, the two dampers' losses
    balance = namespace["result"].energy_balance()
    assert balance.role == {"stop": "passive", "strap": "passive"}
    assert balance.totals()[4] == 0.0 and balance.totals()[3] > 3.0
