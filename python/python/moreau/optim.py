"""Trajectory optimization, MPC, predictive sampling and system identification on moreau
(the `moreau-optim` crate), with options, progress and results as Python objects.

- `contact_trajopt(problem="hopper", horizon=60, ...)`: direct collocation through contact on
  the project's problems (the hopper hop, the ball and box pushes) -> `CollocationResult`;
- `ilqr(m, x0, us, xref, Q, R, Qf=None, ...)` -> `IlqrResult`, and `Mpc(m, xref, Q, R, ...)`
  whose `step(x)` returns the control of receding-horizon iLQR;
- `PredictiveSampling(m, xref, q, r, ...)` whose `control(d)` returns `(ctrl, cost)`;
- `record(m, controls)` / `Recording(qpos, qvel, qacc, force)` and `identify(m, recording,
  params)` -> `Identified` (least squares on inverse dynamics); `excitation(nu, steps)`.

States are `x = (qpos, qvel, act)`; weights act on the tangent space `(dq, qvel, act)` of size
`2nv + na`. Solves release the GIL; `callback(info)` is called after each iteration (raise to
stop).
"""

from moreau import _moreau

_o = _moreau.optim
contact_trajopt = _o.contact_trajopt
ilqr = _o.ilqr
record = _o.record
excitation = _o.excitation
identify = _o.identify
CollocationResult = _o.CollocationResult
IlqrResult = _o.IlqrResult
Mpc = _o.Mpc
PredictiveSampling = _o.PredictiveSampling
Recording = _o.Recording
Identified = _o.Identified

__all__ = [
    "contact_trajopt",
    "ilqr",
    "record",
    "excitation",
    "identify",
    "CollocationResult",
    "IlqrResult",
    "Mpc",
    "PredictiveSampling",
    "Recording",
    "Identified",
]
