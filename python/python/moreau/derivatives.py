"""Jacobians of moreau's dynamics, returned as new NumPy arrays.

- `transition(m, d, method="analytic", eps=1e-6, centered=False, sensors=True)` returns
  `(A, B, C, D)` in the layout of `mujoco.mjd_transitionFD`: `A = ∂x'/∂x`, `B = ∂x'/∂u`,
  `C = ∂s/∂x`, `D = ∂s/∂u` with `x = (qpos tangent, qvel, act)`, `u = ctrl`, `s = sensordata`.
  `method="analytic"` gives the exact Jacobians at the constraint solution (through soft
  contact, by the implicit function theorem); `"fd"` finite differences as
  `mjd_transitionFD`.
- `inverse(m, d, method="analytic", eps=1e-6, centered=False, flg_actuation=False)` returns
  `(DfDq, DfDv, DfDa)` of `qfrc_inverse` in MuJoCo's transposed layout
  (`D[i, j] = ∂f_j/∂in_i`), as `mujoco.mjd_inverseFD`.

Both release the GIL and leave the state of `d` unchanged.
"""

from moreau import _moreau

transition = _moreau.derivatives.transition
inverse = _moreau.derivatives.inverse

__all__ = ["transition", "inverse"]
