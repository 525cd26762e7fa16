"""The results of a linearization (:mod:`mbd.analysis.linear`): the linear model and its
modes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg

if TYPE_CHECKING:     # (hints only: the model and system stages are below)
    from scipy.signal import StateSpace

    from ..model.state import State
    from ..system.system import System


@dataclass
class Mode:
    """One mode of a :class:`LinearModel`: a conjugate pair of eigenvalues (listed once,
    Im > 0) or a real eigenvalue.

    Attributes
    ----------
    eigenvalue : complex
        lambda, 1/s.
    shape : dict
        Joint coordinate name ("hinge.q", "joint.q1") -> complex amplitude of the mode
        (rad or m), normalized to a largest magnitude of 1, that entry real and positive.
    """

    eigenvalue: complex
    shape: dict[str, complex] = field(default_factory=dict)
    stability_tolerance: float = 0.0

    @property
    def frequency(self) -> float:
        """Undamped natural frequency |lambda| / 2 pi, Hz."""
        return abs(self.eigenvalue) / (2.0 * np.pi)

    @property
    def damped_frequency(self) -> float:
        """|Im lambda| / 2 pi, Hz (0 for a real eigenvalue)."""
        return abs(self.eigenvalue.imag) / (2.0 * np.pi)

    @property
    def damping_ratio(self) -> float:
        """-Re lambda / |lambda| (1 or more: no oscillation; negative: growing; nan for
        lambda = 0)."""
        r = abs(self.eigenvalue)
        return -self.eigenvalue.real / r + 0.0 if r > 0 else float("nan")

    @property
    def growth_rate(self) -> float:
        """Re lambda, 1/s (> 0: the mode grows)."""
        return self.eigenvalue.real

    @property
    def stable(self) -> bool:
        """False when the mode grows (Re lambda above the model's stability tolerance)."""
        return self.eigenvalue.real <= self.stability_tolerance

    @property
    def kind(self) -> str:
        """"oscillating", "decaying" (a real negative eigenvalue: overdamped, or the falling
        half of a saddle), "growing", "neutral" (a zero eigenvalue: a free
        coordinate without stiffness)."""
        if not self.stable:
            return "growing"
        if abs(self.eigenvalue) <= self.stability_tolerance:
            return "neutral"
        return "oscillating" if self.eigenvalue.imag > 0 else "decaying"


@dataclass
class LinearModel:
    """The linearized dynamics x' = A x + B u, y = C x + D u about ``state``, in minimal
    coordinates (see :mod:`mbd.analysis.linear`), continuous controllers' states appended.

    Attributes
    ----------
    A, B, C, D : ndarray
        (2 dof + nc, 2 dof + nc), (2 dof + nc, nu), (ny, 2 dof + nc), (ny, nu); SI units of
        the named states, inputs and outputs; nc the continuous controllers' states.
    M, K, Cd : ndarray (dof, dof)
        Second-order form M z'' + Cd z' + K z = M B[dof:2 dof] u (the controllers' states
        held at their operating values): the reduced mass matrix (kg, kg m^2), stiffness
        (N/m, N m/rad) and damping (N s/m, N m s/rad), from A and the mass matrix.
    state_names, input_names, output_names : list of str
        States: the independent coordinates ("hinge.q", "joint.q0"; a spherical primitive's
        are small rotation angles about its follower axes), then their rates ("hinge.v"),
        then the continuous controllers' states ("pid.x0", "pid.x1"; "pi.x" for a
        controller of one state).
    system : System
    state : State
        The operating state.
    coordinates : list of str
        Every joint coordinate's name (nv), for :attr:`T`.
    T : ndarray (nv, dof)
        All joint coordinates' increments per independent coordinate (dq = T z).
    error : float
        Ridders' estimate of the largest absolute error of A's entries.
    controller_states : ndarray (nc,)
        The continuous controllers' states at the operating point (their units).
    """

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    M: np.ndarray
    K: np.ndarray
    Cd: np.ndarray
    state_names: list[str]
    input_names: list[str]
    output_names: list[str]
    system: System | None = None
    state: State | None = None
    coordinates: list[str] = field(default_factory=list)
    T: np.ndarray | None = None
    error: float = 0.0
    independent: np.ndarray | None = None
    controller_states: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def dof(self) -> int:
        return self.M.shape[0]

    def to_scipy(self) -> StateSpace:
        """The model as a :class:`scipy.signal.StateSpace` (continuous time)."""
        import scipy.signal
        B = self.B if self.B.shape[1] else np.zeros((len(self.A), 1))
        C = self.C if self.C.shape[0] else np.eye(len(self.A))
        D = np.zeros((C.shape[0], B.shape[1])) if not (self.B.shape[1] and self.C.shape[0]) \
            else self.D
        return scipy.signal.StateSpace(self.A, B, C, D)

    def eigenvalues(self) -> np.ndarray:
        """The eigenvalues of A (2 dof + nc), 1/s."""
        return np.linalg.eigvals(self.A) if len(self.A) else np.zeros(0, dtype=complex)

    def stability_tolerance(self, lams: np.ndarray | None = None) -> float:
        """The real part above which an eigenvalue counts as growing: round-off and the
        derivative's error relative to the fastest eigenvalue."""
        lams = self.eigenvalues() if lams is None else lams
        top = float(np.abs(lams).max(initial=0.0))
        return 1e-8 * top + 1e-6 * np.sqrt(max(self.error, 0.0)) + 1e-12

    def modes(self) -> list[Mode]:
        """The modes (a list of :class:`Mode`), sorted by undamped frequency: one per
        conjugate pair of eigenvalues and one per real eigenvalue (with controllers' states,
        the closed loop's)."""
        if not len(self.A):
            return []
        lams, vecs = np.linalg.eig(self.A)
        tol = self.stability_tolerance(lams)
        n = self.dof
        out = []
        # a zero eigenvalue comes with a free coordinate (no stiffness): one neutral mode per
        # direction of K's null space, whose shape is that direction
        if np.any(np.abs(lams) <= tol):
            scale = np.abs(self.K).max(initial=0.0)
            free = (scipy.linalg.null_space(self.K, rcond=1e-9) if scale > 0
                    else np.eye(n))
            for k in range(free.shape[1]):
                out.append(Mode(0j, self._shape(free[:, k].astype(complex)), tol))
        for k in range(len(lams)):
            lam = lams[k]
            if abs(lam) <= tol or lam.imag < -tol:
                continue            # neutral (above), or the conjugate standing for a pair
            if abs(lam.imag) <= tol:
                lam = complex(lam.real, 0.0)
            # the coordinates' amplitudes, else the rates' (the controllers' states have
            # none in joint coordinates: a mode of a controller alone has a zero shape)
            z = vecs[:n, k] if np.any(np.abs(vecs[:n, k]) > 0) else vecs[n:2 * n, k]
            out.append(Mode(complex(lam), self._shape(z, real=lam.imag == 0.0), tol))
        # frequencies equal to 10 digits tie (a saddle's +-s pair): the growing one first
        out.sort(key=lambda m: (float(f"{m.frequency:.10e}"), -m.eigenvalue.real))
        return out

    def _shape(self, z, real=False):
        """Mode shape over every joint coordinate from the independent ones' amplitudes z:
        T z, scaled to a largest magnitude of 1, that entry real and positive."""
        shape = self.T @ z
        big = int(np.argmax(np.abs(shape)))
        if abs(shape[big]) > 0:
            shape = shape / shape[big]
        if real:
            shape = shape.real + 0j
        return dict(zip(self.coordinates, shape))

    @property
    def stable(self) -> bool:
        """True when no mode grows."""
        return all(m.stable for m in self.modes())

    def table(self) -> str:
        """The modes as a text table: frequency, damping, stability, largest coordinate."""
        rows = [f"{'mode':>4}  {'f (Hz)':>12}  {'f damped (Hz)':>13}  {'damping':>9}  "
                f"{'Re (1/s)':>11}  {'kind':<11}  largest coordinate"]
        for k, m in enumerate(self.modes(), 1):
            name = max(m.shape, key=lambda c: abs(m.shape[c])) if m.shape else ""
            rows.append(f"{k:>4}  {m.frequency:12.6g}  {m.damped_frequency:13.6g}  "
                        f"{m.damping_ratio:9.4g}  {m.growth_rate:11.4g}  {m.kind:<11}  {name}")
        return "\n".join(rows)


# ----------------------------------------------------------------------------- linearize
