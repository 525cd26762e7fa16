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
from .plots import plot
from .study import plot_study
from .render import RenderError, animate, frame_times, show, snapshot
from .modes import animate_mode
from .scene import Scene
from .shapes import Box, Capsule, Cylinder, Mesh, Sphere
from .webpage import html, notebook

__all__ = ["plot", "plot_study", "animate", "animate_mode", "snapshot", "show", "frame_times",
           "RenderError", "Scene", "Box", "Cylinder", "Sphere", "Capsule", "Mesh", "html",
           "notebook"]
