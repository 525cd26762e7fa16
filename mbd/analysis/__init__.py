"""Analyses at one state or about one: static equilibrium, linearization and modes, the
chart of independent coordinates they work in."""
