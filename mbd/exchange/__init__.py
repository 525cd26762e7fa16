"""Exchange with other tools (SPEC §10): FMI co-simulation export (:mod:`mbd.exchange.fmu`)
and URDF import (:mod:`mbd.exchange.urdf`). The packaging libraries (pythonfmu3, pythonfmu:
the extra ``mbd[fmi]``) are imported only when an FMU is made or run; the URDF reader
(yourdfpy: ``mbd[urdf]``) only when a URDF is read."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .fmu import export_fmu

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence
    from typing import Any

    from ..model.builder import Model


def from_urdf(path: str | os.PathLike, package_dirs: Sequence[str] = (), floating: bool = False,
              limits: str = "stops", name: str | None = None, **options: Any) -> Model:
    """The :class:`mbd.Model` of the robot a URDF file describes: see
    :func:`mbd.exchange.urdf.from_urdf`."""
    # imported here: the importer makes joints and force elements, whose packages import
    # mbd's stages (DESIGN §9: exchange is a composition root), and yourdfpy is an extra
    from .urdf import from_urdf as read
    return read(path, package_dirs=package_dirs, floating=floating, limits=limits, name=name,
                **options)


__all__ = ["export_fmu", "from_urdf"]
