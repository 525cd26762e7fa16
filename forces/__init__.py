"""Force elements: 1-D laws and the placements that apply them (DESIGN §4).

The laws and placements of SPEC §3 arrive with issue 3; the core's contract they implement is
:class:`mbd.ForceElement`.
"""
