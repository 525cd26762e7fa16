"""The public API is typed (DESIGN §10, "habits of a library people build on"): every function
and class the packages export (``__all__`` of mbd, joints, forces and viz) has its parameters
and its return annotated -- a class its ``__init__`` (``-> None``) and the public methods and
properties defined in it -- and each package ships the PEP 561 marker ``py.typed``, so that a
type checker reads the hints of an installed mbd."""
import inspect
import pathlib

import forces
import joints
import mbd
import viz

PACKAGES = (mbd, joints, forces, viz)

#: parameters that need no hint: the instance, the class, and ``*args``/``**kwargs``
EXEMPT_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def function_misses(fn, where, init=False):
    """What ``fn`` (named ``where`` in the messages) leaves unannotated: each parameter but
    self/cls/*args/**kwargs, and its return (``-> None`` for an ``__init__``)."""
    try:
        signature = inspect.signature(fn)    # (follows __wrapped__: ControlElement's recorder)
    except (TypeError, ValueError):
        return [f"{where}: no signature to read"]
    misses = [f"{where}: parameter {name!r} has no annotation"
              for name, p in signature.parameters.items()
              if name not in ("self", "cls") and p.kind not in EXEMPT_KINDS
              and p.annotation is inspect.Parameter.empty]
    returned = signature.return_annotation
    if init and returned not in (None, "None"):
        got = "nothing" if returned is inspect.Signature.empty else repr(returned)
        misses.append(f"{where}: __init__ must be annotated -> None, got {got}")
    elif returned is inspect.Signature.empty:
        misses.append(f"{where}: the return has no annotation")
    return misses


def class_misses(cls, where):
    """What the class ``cls`` leaves unannotated: its own ``__init__`` (a dataclass's
    generated one included) and every public method, static or class method and property
    defined in its body (or bound to it there, as the package face binds ``Model.build``)."""
    misses = []
    if "__init__" in vars(cls):
        misses += function_misses(cls.__init__, f"{where}.__init__", init=True)
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if isinstance(member, property):
            if member.fget is not None:
                misses += function_misses(member.fget, f"{where}.{name} (property)")
        elif inspect.isfunction(member):
            misses += function_misses(member, f"{where}.{name}")
    return misses


def public_misses(packages=PACKAGES):
    """Every miss of every exported function and class of ``packages`` (every name of their
    ``__all__``: none is left out)."""
    misses = []
    for package in packages:
        for name in package.__all__:
            obj = getattr(package, name)
            where = f"{package.__name__}.{name}"
            if inspect.isclass(obj):
                misses += class_misses(obj, where)
            elif inspect.isfunction(obj):
                misses += function_misses(obj, where)
    return misses


def test_the_public_api_is_annotated():
    misses = public_misses()
    assert not misses, f"{len(misses)} missing annotations:\n" + "\n".join(misses)


def test_the_run_stage_api_is_annotated():
    # not exported by the face, but the run stage's public API: the views a Result hands out
    # (mbd.run.result.__all__) and the evaluation they and the analyses compute through
    from mbd.run import result
    from mbd.run.evaluation import Evaluation
    from mbd.run.evaluator import Evaluator
    misses = []
    for obj in [getattr(result, name) for name in result.__all__] + [Evaluation, Evaluator]:
        where = f"{obj.__module__}.{obj.__qualname__}"
        if inspect.isclass(obj):
            misses += class_misses(obj, where)
        elif inspect.isfunction(obj):
            misses += function_misses(obj, where)
    assert not misses, f"{len(misses)} missing annotations:\n" + "\n".join(misses)


def test_each_package_ships_py_typed():
    missing = [package.__name__ for package in PACKAGES
               if not (pathlib.Path(package.__file__).parent / "py.typed").is_file()]
    assert not missing, f"no py.typed marker in {missing}"


def test_the_checker_sees_what_is_missing():
    # the checker must be able to fail: a function and a class with holes in their hints
    def half(a: int, b, *args, **kwargs):
        return a

    class Half:
        def __init__(self, x: float):
            self.x = x

        @property
        def twice(self):
            return 2 * self.x

        def scaled(self, k: float) -> float:
            return k * self.x

        def _private(self, k):
            return k

    assert function_misses(half, "half") == ["half: parameter 'b' has no annotation",
                                             "half: the return has no annotation"]
    assert class_misses(Half, "Half") == [
        "Half.__init__: __init__ must be annotated -> None, got nothing",
        "Half.twice (property): the return has no annotation"]
