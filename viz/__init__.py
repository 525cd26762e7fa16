"""Pictures of a System or a Result: matplotlib time histories and pyvista scenes.

``viz`` imports ``mbd``, never the other way round (DESIGN §1).

>>> from viz import plot     # doctest: +SKIP
>>> fig, axes = plot(result, "run.png")
"""
from .plots import plot

__all__ = ["plot"]
