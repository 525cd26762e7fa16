"""The build stage: validation of a whole model, its machines and spanning tree, the flat
records (:mod:`mbd.compiled.layout`) and the immutable :class:`System`."""
