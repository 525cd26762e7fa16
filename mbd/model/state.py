"""A state of a System: the time, positions and velocities the run stage works on."""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class State:
    """A state of a System: time t (s), positions q (nq,), velocities v (nv,)."""

    t: float
    q: np.ndarray
    v: np.ndarray
