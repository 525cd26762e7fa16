"""Pictures of a System or a Result: pyvista scenes and animations (off-screen by default),
an interactive viewer where a display exists, matplotlib time histories, and maps and curves
of a parameter study (the table of ``mbd.sweep``).

``viz`` imports ``mbd``, never the other way round (DESIGN §1). Typical use::

    viz.animate(result, "run.gif", fps=30)       # frames interpolated from the result
    viz.snapshot(result, "frame.png", t=0.5)      # one picture
    viz.show(result)                              # a window with a time slider (needs a display)
    viz.html(result, "run.html")                  # one page to turn around and scrub, any browser
    viz.animate_mode(eq.linear, 0, "mode1.gif")   # a mode moving about an equilibrium
    fig, axes = viz.plot(result, "run.png")       # joint coordinates, forces, energy, events
    fig = viz.plot_study(table, "peak", "slot.k", y="slot.e", path="map.png")  # mbd.sweep
    body.add_shape(viz.Box((0.1, 0.1, 1.0), color="steelblue"), cs="cg")
"""
import ctypes.util
import os
import sys


def _headless_window():
    """On a Linux machine without a display, VTK's default window (X first, EGL after)
    prints "bad X server connection" before every first picture: where EGL's library is
    there, ask VTK for its EGL window straight away (where EGL then fails, VTK still goes
    on to OSMesa). A choice already made in the environment is kept."""
    display = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    if (sys.platform.startswith("linux") and not display
            and "VTK_DEFAULT_OPENGL_WINDOW" not in os.environ
            and ctypes.util.find_library("EGL")):
        os.environ["VTK_DEFAULT_OPENGL_WINDOW"] = "vtkEGLRenderWindow"


_headless_window()

# matplotlib's backend is chosen before VTK is loaded: plots first
# isort: off
from .plots import plot  # noqa: E402  (after the window's choice, before VTK is loaded)
from .study import plot_study  # noqa: E402
from .render import RenderError, animate, frame_times, show, snapshot  # noqa: E402
from .modes import animate_mode  # noqa: E402
from .scene import Scene  # noqa: E402
from .shapes import Box, Capsule, ConvexMesh, Cylinder, Mesh, Plane, Sphere  # noqa: E402
from .webpage import html, notebook  # noqa: E402
# isort: on

__all__ = ["plot", "plot_study", "animate", "animate_mode", "snapshot", "show", "frame_times",
           "RenderError", "Scene", "Box", "Cylinder", "Sphere", "Capsule", "Plane", "ConvexMesh", "Mesh",
           "html", "notebook"]
