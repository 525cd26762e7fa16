"""A model carries a free-text description (issue 30): ``mbd.Model(name, description="")``,
checked where it is set, kept by build() and shown by ``mbd check``."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mbd
from joints import Prismatic

SCRIPT = '''
import numpy as np
import mbd
from joints import Prismatic

def build_model():
    model = mbd.Model("described", description={description!r})
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    block = model.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3,
                           cs={{"o": (0, 0, 0)}})
    model.add(Prismatic("slide", ground, block["o"], axis=(1, 0, 0)))
    return model
'''


def check(tmp_path, description):
    """``python -m mbd check`` of a script whose model has ``description``: its stdout."""
    script = tmp_path / "described.py"
    script.write_text(SCRIPT.format(description=description))
    proc = subprocess.run([sys.executable, "-m", "mbd", "check", str(script)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"mbd check: {script}: the model builds"
    return lines


def block_model(**kw):
    model = mbd.Model("block", **kw)
    ground = model.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    block = model.add_body("block", mass=1.0, cg=(0, 0, 0), inertia=np.eye(3) * 1e-3,
                           cs={"o": (0, 0, 0)})
    model.add(Prismatic("slide", ground, block["o"], axis=(1, 0, 0)))
    return model


def test_a_model_has_a_description_empty_by_default():
    assert mbd.Model("a").description == ""
    assert mbd.Model("a", description="A block in a slot.").description == "A block in a slot."
    model = mbd.Model("a")
    model.description = "set later"
    assert model.description == "set later"


@pytest.mark.parametrize("bad", [5, None, b"bytes", ["a", "list"]])
def test_a_description_that_is_not_text_is_refused_naming_the_model(bad):
    with pytest.raises(mbd.ModelError, match=r"model 'slot': description must be a string") \
            as err:
        mbd.Model("slot", description=bad)
    assert repr(bad) in str(err.value)
    model = mbd.Model("slot", description="kept")
    with pytest.raises(mbd.ModelError, match=r"model 'slot': description"):
        model.description = bad
    assert model.description == "kept"       # refused before it was stored


def test_build_keeps_the_description_on_the_system():
    text = "Seed 003: Adams' BISTOP.\nUnits: SI."
    assert block_model(description=text).build().description == text
    assert block_model().build().description == ""


def test_mbd_check_shows_the_description_after_the_first_line(tmp_path):
    lines = check(tmp_path, "A block on a slide, nothing else.")
    assert lines[1] == "description: A block on a slide, nothing else."
    assert sum(line.startswith("description:") for line in lines) == 1


def test_mbd_check_indents_a_description_of_several_lines(tmp_path):
    text = textwrap.dedent("""\
        A block on a slide.
        Source: the test of issue 30.""")
    lines = check(tmp_path, text)
    assert lines[1:3] == ["description: A block on a slide.",
                          "  Source: the test of issue 30."]


def test_mbd_check_prints_no_description_line_without_one(tmp_path):
    lines = check(tmp_path, "")
    assert not any(line.startswith("description") for line in lines)
    assert lines[1].startswith("system 'described'")
