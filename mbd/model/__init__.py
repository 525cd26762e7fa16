"""The model stage: what an engineer writes — :class:`Model` (bodies, CSs, grounds, the
environment, joints and elements), the element interfaces that ``joints`` and ``forces``
implement, the shapes (plain geometry), the state record, input values and their validation,
the errors and whole-file writing. Nothing here imports a later stage."""
