"""What the commands share: loading a model (a model script with its --set, or a URDF robot
description), and writing a results file (an OSError becomes an InputError naming the file)."""
import os
import types
import warnings

from ..model.errors import InputError, ModelError
from ..study.scripts import apply_setting, load_script, model_of, os_reason

#: the ending of a robot description, loaded through :func:`mbd.from_urdf`
URDF_SUFFIX = ".urdf"
#: the command-line options that apply to a URDF only: (attribute, option)
URDF_OPTIONS = (("floating", "--floating"), ("ground", "--ground"),
                ("package_dir", "--package-dir"),
                ("limits", "--limits"), ("lock", "--lock"), ("no_mimic", "--no-mimic"),
                ("start", "--start"))


def is_urdf(path):
    """Whether ``path`` names a URDF robot description (it ends in .urdf, any case)."""
    return os.fspath(path).lower().endswith(URDF_SUFFIX)


def script_only(command, path):
    """Refuse a URDF given to a command that takes a model script only (``mbd sweep``,
    ``mbd fmu``: they import the script again, elsewhere), saying how to make one."""
    if is_urdf(path):
        raise InputError(f"mbd {command} takes a model script, not a URDF ({path}): write a "
                         "script whose build_model() returns mbd.from_urdf(PATH, "
                         "package_dirs=[...]) and give that")


def load(args):
    """The model of ``args.model`` -> (settings, model with the --set applied, the settings
    applied as text): a model script (``settings`` the module, its T_END and the like), or a
    URDF (:func:`load_urdf`; ``settings`` has none, so a run takes the defaults)."""
    if is_urdf(args.model):
        module, model = load_urdf(args.model, package_dirs=getattr(args, "package_dir", None),
                                  floating=getattr(args, "floating", False),
                                  ground=getattr(args, "ground", False),
                                  limits=getattr(args, "limits", None),
                                  lock=getattr(args, "lock", None),
                                  mimic=not getattr(args, "no_mimic", False),
                                  start=getattr(args, "start", None))
    else:
        given = [option for attr, option in URDF_OPTIONS if getattr(args, attr, None)]
        if given:
            raise InputError(f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to "
                             f"a URDF robot description (a .urdf file) only, not to the model "
                             f"script {args.model}")
        module = load_script(args.model)
        model = model_of(module, args.model)
    applied = [apply_setting(model, s) for s in getattr(args, "set", None) or []]
    return module, model, applied


def load_urdf(path, package_dirs=None, floating=False, limits=None, lock=None, mimic=True,
              start=None, ground=False):
    """The model of the robot the URDF file ``path`` describes (:func:`mbd.from_urdf`, gravity
    9.81 m/s^2 along -z) and its run settings (none: the defaults of a script that sets none).

    Parameters
    ----------
    path : str
        The .urdf file.
    package_dirs : list of str, optional
        ``--package-dir``: the folders holding the packages its ``package://PACKAGE/...``
        meshes name (the folder in which PACKAGE is); the URDF's folder and its parents are
        searched as well.
    floating : bool
        ``--floating``: a free-floating base (a SixDof from the world to the root link).
    limits : {"stops", "ignore"} or None
        ``--limits``: joint position limits as end stops (the default), or not modelled.
    lock : list of str, optional
        ``--lock JOINT[=VALUE]``: joints locked at VALUE (rad or m; 0 without one).
    mimic : bool
        False for ``--no-mimic``: mimic joints move on their own.
    start : {"checked", "inside", "anywhere"} or None
        ``--start``: a joint starting outside its limits refused by the build (the default),
        started at its nearest limit, or left there (:func:`mbd.from_urdf`'s ``start``).
    ground : bool
        ``--ground`` (with ``--floating``): every link's ``<collision>`` touches a floor at
        z = 0 (``from_urdf(contact=True)``) and the robot starts with its lowest point on it
        (:func:`mbd.exchange.urdfcontact.stand_on_floor`).

    Returns
    -------
    settings : types.SimpleNamespace
        ``__file__`` only: no T_END, OUTPUT_STEP, RTOL or ATOL of its own.
    model : mbd.Model

    Raises
    ------
    InputError
        A missing file or package folder; a mesh not found (naming the mesh and its link, and
        what to give ``--package-dir``); without the URDF reader installed.
    ModelError
        What :func:`mbd.from_urdf` finds wrong in the robot.
    """
    from ..exchange import from_urdf
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise InputError(f"no URDF file at {os.path.abspath(path)}: the file does not exist "
                         "(give the path of a robot description, NAME.urdf)")
    package_dirs = list(package_dirs or [])
    for folder in package_dirs:
        if not os.path.isdir(folder):
            raise InputError(f"--package-dir {folder}: no such folder (give the folder that "
                             "holds the package a package://PACKAGE/... mesh path names)")
    if ground and not floating:
        raise InputError("--ground stands a robot with a floating base on the floor: give "
                         "--floating too (a fixed base never moves onto it)")
    locked = {}
    for text in lock or []:
        joint, _, value = text.partition("=")
        try:
            locked[joint.strip()] = float(value) if value else 0.0
        except ValueError:
            raise InputError(f"--lock {text}: VALUE must be a number (rad or m), as in "
                             f"--lock {joint.strip()}=0.5") from None
    try:
        with warnings.catch_warnings():
            # joints starting outside their limits: the build names them, after the --set
            # (which may move them inside), so the reader's warning would say it twice
            from ..exchange.urdf import StartOutsideLimits
            warnings.simplefilter("ignore", StartOutsideLimits)
            model = from_urdf(path, package_dirs=package_dirs, floating=bool(floating),
                              limits=limits or "stops", lock=locked, mimic=bool(mimic),
                              start=start or "checked", contact=bool(ground))
        if ground:
            from ..exchange.urdfcontact import stand_on_floor
            stand_on_floor(model)
    except ImportError as err:
        raise InputError(f"reading the URDF {path} needs the optional extra mbd[urdf] "
                         f"(yourdfpy, trimesh, pycollada): pip install 'mbd[urdf]' ({err})") \
            from None
    except ModelError as err:
        mesh = getattr(err, "mesh", None)
        if mesh is None:
            raise
        raise InputError(_missing_mesh(path, err, package_dirs)) from None
    return types.SimpleNamespace(__file__=os.path.abspath(path)), model


def _missing_mesh(path, err, package_dirs):
    """The message of a URDF mesh not found: the mesh, its link, where it was looked for and
    what to give ``--package-dir``."""
    mesh, link = err.mesh, getattr(err, "link", "?")
    looked = getattr(err, "looked_in", [])
    text = (f"the URDF {path}: link '{link}': its mesh {mesh!r} is not found (looked for it "
            f"at {', '.join(looked[:3])}{' ...' if len(looked) > 3 else ''})")
    if mesh.startswith("package://"):
        package = mesh[len("package://"):].lstrip("/").partition("/")[0]
        text += (f"; give --package-dir DIR, the folder that holds the package '{package}' "
                 f"(DIR/{package}/...)")
        if package_dirs:
            text += f"; the folders given, {', '.join(package_dirs)}, do not hold it"
    else:
        text += "; the URDF names it relative to its own folder"
    return text


def written(write, path):
    """``write(path)`` (a results file); an OSError becomes an InputError naming the file."""
    try:
        return write(path)
    except OSError as err:
        raise InputError(f"cannot write the results file {path}: {os_reason(err)}") from None
