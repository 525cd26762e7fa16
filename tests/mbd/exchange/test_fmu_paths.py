"""FMI export (mbd.export_fmu, SPEC §10) on the paths test_fmu.py does not walk,
with FMPy as the independent judge of what is written: a model named as a Python keyword
(its slave class could not be declared) exports an FMU FMPy validates; an Input named
``time`` is refused for FMI 3 (whose FMU would declare ``time`` twice, which FMPy rejects)
and exported for FMI 2; a bad FMI version, a missing packaging library and a failure of the
packaging library are named, and nothing is written."""
import sys

import pytest
from fmpy import read_model_description
from fmpy.validation import validate_fmu

import mbd
from mbd.exchange.fmu import identifier
from mbd.model.errors import InputError

PLANT = '''
import numpy as np, mbd
from forces import Actuator, JointForce
from joints import Revolute

def build_model():
    m = mbd.Model({name!r})
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = m.add_body("arm", mass=1.0, cg=(0.5, 0, 0), inertia=np.diag([1e-3, .02, .02]),
                     cs={{"pivot": (0, 0, 0)}})
    hinge = m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
    m.add(JointForce("motor", hinge, Actuator(m.add(mbd.Input({input!r}, unit="N.m")))))
    m.add(mbd.Sensor("angle", "hinge.q"))
    return m
'''


def script(folder, name="plant", input="torque", file="plant.py"):
    path = folder / file
    path.write_text(PLANT.format(name=name, input=input))
    return path


def test_a_model_named_as_a_python_keyword_exports_a_valid_fmu(tmp_path):
    path = mbd.export_fmu(script(tmp_path, name="class"), tmp_path / "class.fmu")
    assert validate_fmu(path) == []
    description = read_model_description(path)
    assert description.modelName == description.coSimulation.modelIdentifier == "mbd_class"
    assert description.description.startswith("mbd model 'class' (plant.py). ")
    assert {v.name for v in description.modelVariables} >= {"time", "torque", "angle"}


def test_the_identifier_of_a_models_name():
    """A C identifier, and a name Python can declare a class of."""
    assert [identifier(n) for n in ("arm", "two-link arm", "2link", "class", "None")] == [
        "arm", "two_link_arm", "mbd_2link", "mbd_class", "mbd_None"]


def test_an_input_named_time_is_refused_for_fmi_3_and_exported_for_fmi_2(tmp_path):
    plant = script(tmp_path, input="time")
    with pytest.raises(InputError, match=r"export_fmu: model 'plant' \(.*plant.py\) has an "
                                         r"Input or Sensor named 'time', the name of an FMI 3 "
                                         r"FMU's independent variable .* rename it, or export "
                                         "FMI 2"):
        mbd.export_fmu(plant, tmp_path / "three.fmu")
    assert not (tmp_path / "three.fmu").exists()
    path = mbd.export_fmu(plant, tmp_path / "two.fmu", fmi=2)
    assert validate_fmu(path) == []
    inputs = [v.name for v in read_model_description(path).modelVariables
              if v.causality == "input"]
    assert inputs == ["time"]


def test_a_bad_fmi_version_is_named(tmp_path):
    with pytest.raises(InputError, match=r"export_fmu: fmi must be 3 or 2, got 4"):
        mbd.export_fmu(script(tmp_path), tmp_path / "x.fmu", fmi=4)
    assert not (tmp_path / "x.fmu").exists()


def test_a_missing_packaging_library_is_named(tmp_path, monkeypatch):
    """Where pythonfmu is not installed (its import fails, as a None in sys.modules makes it)."""
    monkeypatch.setitem(sys.modules, "pythonfmu", None)
    with pytest.raises(InputError, match=r"export_fmu: FMI 2 export needs pythonfmu \(pip "
                                         r"install mbd\[fmi\]\)"):
        mbd.export_fmu(script(tmp_path), tmp_path / "x.fmu", fmi=2)
    assert not (tmp_path / "x.fmu").exists()


def test_a_failure_of_the_packaging_library_is_named_with_its_error(tmp_path, monkeypatch):
    """A model script named mbd.py: packed beside the FMU's module, it shadows the mbd
    package there, and the packaging library cannot make the slave."""
    # loading the script puts its folder first on sys.path (for the modules beside it): with
    # an mbd.py there, every process spawned later (a sweep's workers) would import it as mbd
    monkeypatch.setattr(sys, "path", list(sys.path))
    plant = script(tmp_path, file="mbd.py")
    with pytest.raises(InputError) as err:
        mbd.export_fmu(plant, tmp_path / "x.fmu")
    message = str(err.value)
    assert message.startswith("export_fmu: pythonfmu3 could not pack the FMU of model "
                              "'plant':\n")
    assert "this FMU runs its model with mbd, which could not be imported where it runs" in (
        message)
    assert "'mbd' is not a package" in message
    assert not (tmp_path / "x.fmu").exists()


SPLIT = '''
import numpy as np, mbd
from forces import Actuator, JointForce
from joints import Revolute
from plant_parts import ARM
from parts.geometry import PIVOT

def build_model():
    m = mbd.Model("split")
    g = m.add_ground("ground", environment=mbd.Environment(gravity=(0, 0, -9.81)))
    arm = m.add_body("arm", cs={"pivot": PIVOT}, **ARM)
    hinge = m.add(Revolute("hinge", g, arm["pivot"], axis=(0, 1, 0), q0=0.3))
    m.add(JointForce("motor", hinge, Actuator(m.add(mbd.Input("torque", unit="N.m")))))
    m.add(mbd.Sensor("angle", "hinge.q"))
    return m
'''


def test_the_modules_a_script_imports_from_its_folder_travel_in_the_fmu(tmp_path, monkeypatch):
    """A script that takes its body from a module beside it (plant_parts.py) and its pivot
    from a package beside it (parts/geometry.py): the FMU packs both with the script, and
    runs where they are not (FMPy, from another folder) as mbd runs the script itself.
    (Only the script was packed: the FMU could not import them where it ran.)"""
    import zipfile

    import numpy as np
    from fmpy import simulate_fmu

    from mbd.study.scripts import load_script

    monkeypatch.setattr(sys, "path", list(sys.path))    # (loading puts the folder first)
    folder = tmp_path / "model"
    (folder / "parts").mkdir(parents=True)
    (folder / "plant_parts.py").write_text(
        "import numpy as np\nARM = dict(mass=1.0, cg=(0.5, 0, 0), "
        "inertia=np.diag([1e-3, .02, .02]))\n")
    (folder / "parts" / "__init__.py").write_text("")
    (folder / "parts" / "geometry.py").write_text("PIVOT = (0.0, 0.0, 0.0)\n")
    (folder / "unused.py").write_text("raise RuntimeError('not imported by the script')\n")
    script = folder / "split.py"
    script.write_text(SPLIT)
    fmu = mbd.export_fmu(script, tmp_path / "split.fmu")
    with zipfile.ZipFile(fmu) as archive:
        packed = {n.split("resources/", 1)[1] for n in archive.namelist() if "resources/" in n}
    assert {"split.py", "plant_parts.py", "parts/__init__.py", "parts/geometry.py"} <= packed
    assert "unused.py" not in packed and not any("__pycache__" in n for n in packed)
    monkeypatch.chdir(tmp_path)
    sys.path.remove(str(folder))              # the FMU finds them in its own resources
    result = simulate_fmu(str(fmu), stop_time=0.2, output_interval=0.05, output=["angle"])
    own = load_script(script).build_model().build().simulate(
        0.2, output_step=0.05, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(result["angle"], own.joint("hinge").q, rtol=1e-6, atol=1e-8)
