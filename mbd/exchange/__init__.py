"""Exchange with other tools (SPEC §10): FMI co-simulation export (:mod:`mbd.exchange.fmu`).
The packaging libraries (pythonfmu3, pythonfmu: the extra ``mbd[fmi]``) are imported only
when an FMU is made or run."""
from .fmu import export_fmu

__all__ = ["export_fmu"]
