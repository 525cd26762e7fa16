"""load_script puts a script's folder on sys.path once (issue 30: every load added another
entry, so a sweep or a long session piled them up)."""
import sys

import pytest

from mbd.model.errors import InputError
from mbd.study.scripts import load_script, model_of

SCRIPT = """
import mbd
import {helper}                      # a module beside the script, at import time

def build_model():
    import {lazy}                    # and one imported only when the model is made
    model = mbd.Model({helper}.NAME + {lazy}.SUFFIX)
    return model
"""


@pytest.fixture
def clean_path(monkeypatch):
    """sys.path as it is, restored after the test; the helper modules imported forgotten."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield sys.path
    for name in set(sys.modules) - before:
        if name.startswith(("fh_", "_mbd_model_fh")):
            del sys.modules[name]


def folder_of_scripts(root, tag, n):
    """A folder with n model scripts fh_<tag>_<k>.py importing its helper modules."""
    root.mkdir()
    (root / f"fh_{tag}_helper.py").write_text(f"NAME = {tag!r}\n")
    (root / f"fh_{tag}_lazy.py").write_text("SUFFIX = '_lazy'\n")
    paths = []
    for k in range(n):
        path = root / f"fh_{tag}_{k}.py"
        path.write_text(SCRIPT.format(helper=f"fh_{tag}_helper", lazy=f"fh_{tag}_lazy"))
        paths.append(path)
    return paths


def test_many_loads_from_one_folder_leave_one_entry(tmp_path, clean_path):
    paths = folder_of_scripts(tmp_path / "a", "a", 5)
    length = len(sys.path)
    for _ in range(3):
        for path in paths:
            module = load_script(path)
            # the lazy import in build_model() works after the load: why the entry stays
            assert model_of(module, str(path)).name == "a_lazy"
    assert len(sys.path) == length + 1
    assert sys.path.count(str(tmp_path / "a")) == 1 and sys.path[0] == str(tmp_path / "a")


def test_two_folders_each_once_and_first_while_its_script_loads(tmp_path, clean_path):
    a = folder_of_scripts(tmp_path / "a", "a", 2)
    b = folder_of_scripts(tmp_path / "b", "b", 2)
    length = len(sys.path)
    for pa, pb in zip(a + a, b + b):
        load_script(pa)
        assert sys.path[0] == str(tmp_path / "a")
        load_script(pb)
        assert sys.path[0] == str(tmp_path / "b")
    assert len(sys.path) == length + 2
    assert sys.path[:2] == [str(tmp_path / "b"), str(tmp_path / "a")]


def test_a_folder_already_on_the_path_is_not_added_again(tmp_path, clean_path):
    (path,) = folder_of_scripts(tmp_path / "a", "a", 1)
    sys.path.append(str(tmp_path / "a"))
    length = len(sys.path)
    load_script(path)
    assert len(sys.path) == length and sys.path[0] == str(tmp_path / "a")


def test_a_script_that_raises_leaves_no_duplicate_either(tmp_path, clean_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    bad = folder / "fh_bad.py"
    bad.write_text("raise RuntimeError('broken')\n")
    length = len(sys.path)
    for _ in range(3):
        with pytest.raises(InputError, match="broken"):
            load_script(bad)
    assert len(sys.path) == length + 1 and sys.path.count(str(folder)) == 1
