"""Pictures of a System or a Result: pyvista scenes and animations, matplotlib plots.

The pyvista scene and animation arrive with issue 5; :func:`viz.plots.plot_joints` draws time
histories today.
"""
