"""Render the gallery's pictures: one still PNG per example into ``examples/images/``.

Each example's ``build_model()`` is simulated for a short while and drawn at the end of that
run with ``viz.snapshot`` (320x240, isometric camera fitted to the motion so far).

Run: ``python examples/make_stills.py`` (all) or ``python examples/make_stills.py NAME ...``.
"""
import importlib.util
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
IMAGES = HERE / "images"
SIZE = (320, 240)

#: example name -> (seconds simulated before the picture, camera)
STILLS = {
    "pendulum": (0.5, "xz"),
    "tumbling_handle": (1.0, None),
    "elastogap": (0.5, None),
    "backlash": (0.2, None),
    "bistop_slot": (1.0, None),
    "body_spring_damper": (0.6, None),
    "variable_spring": (0.3, None),
    "fourbar_backlash": (0.3, None),
    "slider_crank_stop": (0.3, None),
    "double_pendulum": (0.8, None),
    "two_machines": (4.0, None),
}
#: paths drawn up to the picture's time, where a body alone would say little
TRAILS = {"pendulum": [("bob", "cg")], "bistop_slot": [("block", "cg")],
          "double_pendulum": [("lower", "tip")]}


def load(name):
    """The example module ``examples/NAME.py``."""
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def still(name, path=None, size=SIZE):
    """Simulate example ``name`` briefly and write its picture; returns the path."""
    import viz
    t_end, camera = STILLS[name]
    path = IMAGES / f"{name}.png" if path is None else pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    module = load(name)
    # the example's own tolerances where it names them (a stiff stop in a loop needs them)
    rtol, atol = getattr(module, "RTOL", 1e-8), getattr(module, "ATOL", 1e-8)
    result = module.build_model().build().simulate(t_end=t_end, output_step=t_end / 50,
                                                   rtol=rtol, atol=atol)
    viz.snapshot(result, str(path), t=result.t[-1], size=size, camera=camera,
                 trails=TRAILS.get(name, ()))
    return path


def main(names=None):
    for name in names or STILLS:
        print(still(name).relative_to(HERE))


if __name__ == "__main__":
    main(sys.argv[1:])
