"""Orientation input and quaternion helpers (Python side, not the hot path).

Quaternions in mbd are unit and scalar-first, ``(w, x, y, z)``, as in MuJoCo; scipy's
``Rotation`` is accepted wherever an orientation is asked for.
"""
import numpy as np
from scipy.spatial.transform import Rotation

from . import values


def as_rotation_matrix(value, what):
    """A 3x3 rotation matrix from None (the identity), a scipy Rotation, a 3x3 matrix or a
    (w, x, y, z) quaternion; a matrix or quaternion is an array of real numbers (the model
    builder refuses anything else first, naming it).

    Raises ValueError naming ``what`` when the value is not a proper rotation.
    """
    if value is None:
        return np.eye(3)
    if isinstance(value, Rotation):
        if not value.single:
            raise ValueError(f"{what}: expected one rotation, got {len(value)}")
        return value.as_matrix()
    arr = np.asarray(value, dtype=float)
    if arr.shape == (4,):
        return quaternion_to_matrix(values.unit_quaternion(arr, what))
    if arr.shape != (3, 3) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{what}: expected a Rotation, a 3x3 matrix or a quaternion (w, x, y, z),"
                         f" got {value!r}")
    if np.abs(arr @ arr.T - np.eye(3)).max() > 1e-9 or np.linalg.det(arr) < 0:
        raise ValueError(f"{what}: the 3x3 matrix is not a proper rotation (R R^T != I or det < 0)")
    return arr


def quaternion_to_matrix(q):
    """3x3 rotation matrix of the unit quaternion q = (w, x, y, z)."""
    w, x, y, z = q
    return Rotation.from_quat([x, y, z, w]).as_matrix()
