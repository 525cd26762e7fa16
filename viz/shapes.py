"""Shapes to draw bodies with: attach one to a body's CS with ``body.add_shape(shape, cs="cg")``.

Each shape is centred on the origin of the CS it is attached to and given in that CS's axes
(metres). The dynamics never read shapes; they only change the picture.
"""
import math
import os

import numpy as np
import pyvista as pv


def _positive(kind, name, value):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{kind}: {name} must be a number, got {value!r}") from None
    if not (math.isfinite(x) and x > 0.0):
        raise ValueError(f"{kind}: {name} must be > 0 and finite, got {value!r}")
    return x


def _axis(kind, axis):
    try:
        a = np.asarray(axis, dtype=float).reshape(3)
    except (TypeError, ValueError):
        raise ValueError(f"{kind}: axis must be 3 numbers, got {axis!r}") from None
    n = float(np.linalg.norm(a))
    if not (math.isfinite(n) and n > 0.0):
        raise ValueError(f"{kind}: axis must be a nonzero finite vector, got {axis!r}")
    return a / n


class Shape:
    """Common part of the shapes: ``color`` (any matplotlib/pyvista colour; None lets the scene
    choose one) and ``opacity`` in [0, 1]."""

    def __init__(self, color=None, opacity=1.0):
        kind = type(self).__name__
        try:
            opacity = float(opacity)
        except (TypeError, ValueError):
            raise ValueError(f"{kind}: opacity must be a number in [0, 1], got {opacity!r}") from None
        if not 0.0 <= opacity <= 1.0:
            raise ValueError(f"{kind}: opacity must be in [0, 1], got {opacity!r}")
        self.color = color
        self.opacity = opacity

    def polydata(self):
        """The surface as a ``pyvista.PolyData`` in the local coordinates of its CS (m)."""
        raise NotImplementedError


class Box(Shape):
    """A box with edge lengths ``size = (lx, ly, lz)`` (m) along the CS's x, y, z axes.

    Examples
    --------
    >>> [float(b) for b in Box(size=(2.0, 1.0, 0.5)).polydata().bounds]
    [-1.0, 1.0, -0.5, 0.5, -0.25, 0.25]
    """

    def __init__(self, size, color=None, opacity=1.0):
        super().__init__(color, opacity)
        try:
            size = tuple(size)
        except TypeError:
            raise ValueError(f"Box: size must be 3 lengths (lx, ly, lz), got {size!r}") from None
        if len(size) != 3:
            raise ValueError(f"Box: size must be 3 lengths (lx, ly, lz), got {size!r}")
        self.size = tuple(_positive("Box", f"size[{i}]", s) for i, s in enumerate(size))

    def polydata(self):
        lx, ly, lz = self.size
        return pv.Box(bounds=(-lx / 2, lx / 2, -ly / 2, ly / 2, -lz / 2, lz / 2))


class Cylinder(Shape):
    """A solid cylinder of ``radius`` and ``length`` (m) centred on the CS origin, its axis
    along ``axis`` (CS coordinates, default z)."""

    def __init__(self, radius, length, axis=(0.0, 0.0, 1.0), color=None, opacity=1.0):
        super().__init__(color, opacity)
        self.radius = _positive("Cylinder", "radius", radius)
        self.length = _positive("Cylinder", "length", length)
        self.axis = _axis("Cylinder", axis)

    def polydata(self):
        return pv.Cylinder(center=(0.0, 0.0, 0.0), direction=self.axis, radius=self.radius,
                           height=self.length, resolution=32, capping=True)


class Sphere(Shape):
    """A sphere of ``radius`` (m) centred on the CS origin."""

    def __init__(self, radius, color=None, opacity=1.0):
        super().__init__(color, opacity)
        self.radius = _positive("Sphere", "radius", radius)

    def polydata(self):
        return pv.Sphere(radius=self.radius, center=(0.0, 0.0, 0.0), theta_resolution=32,
                         phi_resolution=16)


class Capsule(Shape):
    """A cylinder of ``radius`` capped by two hemispheres; ``length`` (m) is the distance
    between the hemispheres' centres (the overall length is ``length + 2 radius``), along
    ``axis`` (default z), centred on the CS origin."""

    def __init__(self, radius, length, axis=(0.0, 0.0, 1.0), color=None, opacity=1.0):
        super().__init__(color, opacity)
        self.radius = _positive("Capsule", "radius", radius)
        self.length = _positive("Capsule", "length", length)
        self.axis = _axis("Capsule", axis)

    def polydata(self):
        return pv.Capsule(center=(0.0, 0.0, 0.0), direction=self.axis, radius=self.radius,
                          cylinder_length=self.length, resolution=32)


class Mesh(Shape):
    """A surface read from a file by pyvista (STL, OBJ, PLY, VTK, ...), its coordinates
    multiplied by ``scale`` and taken as CS coordinates (m after scaling)."""

    def __init__(self, path, scale=1.0, color=None, opacity=1.0):
        super().__init__(color, opacity)
        self.path = os.fspath(path)
        if not os.path.isfile(self.path):
            raise ValueError(f"Mesh: no file {self.path!r}")
        self.scale = _positive("Mesh", "scale", scale)
        self._mesh = None

    def polydata(self):
        if self._mesh is None:
            mesh = pv.read(self.path)
            if not isinstance(mesh, pv.PolyData):
                mesh = mesh.extract_surface()
            self._mesh = mesh.scale(self.scale, inplace=False)
        return self._mesh.copy()
