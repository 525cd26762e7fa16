"""What the commands share: loading a model script with its --set, and writing a results
file (an OSError becomes an InputError naming the file)."""
from ..model.errors import InputError
from ..study.scripts import apply_setting, load_script, model_of, os_reason


def load(args):
    """Script -> (module, model with the --set applied, settings applied)."""
    module = load_script(args.model)
    model = model_of(module, args.model)
    applied = [apply_setting(model, s) for s in getattr(args, "set", None) or []]
    return module, model, applied


def written(write, path):
    """``write(path)`` (a results file); an OSError becomes an InputError naming the file."""
    try:
        return write(path)
    except OSError as err:
        raise InputError(f"cannot write the results file {path}: {os_reason(err)}") from None
