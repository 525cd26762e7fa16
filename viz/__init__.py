"""Pictures of a System or a Result: pyvista scenes and animations, matplotlib plots.

Empty for now: the scene, the animation and the plots arrive with issue 5. ``viz`` imports
``mbd``, never the other way round (DESIGN §1).
"""
