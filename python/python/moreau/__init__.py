"""moreau: MuJoCo's physics in Rust, differentiable, with MuJoCo's Python API.

A MuJoCo script ports by changing its import::

    import moreau as mujoco

    m = mujoco.MjModel.from_xml_path("humanoid.xml")
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d)
    print(d.qpos)

`MjModel`, `MjData`, the `mj_*` / `mjd_*` functions and the `mjt*` enums have MuJoCo 4.0.0's
names, signatures and array layouts (see `docs/python.md` for the differences). moreau adds:

- `moreau.derivatives`: analytic transition and inverse-dynamics Jacobians;
- `moreau.rollout` / `moreau.batch`: MuJoCo's `mujoco.rollout` and `mujoco.batch` (many
  simulations on a thread pool);
- `moreau.optim`: trajectory optimization, MPC, predictive sampling, system identification;
- `moreau.jax` / `moreau.torch` (optional extras): a differentiable, batched step whose
  gradients are the analytic transition Jacobians.

Every function that computes releases the GIL.
"""

import copyreg as _copyreg

import numpy as _np

from moreau import _moreau
from moreau._enums import *  # noqa: F401,F403
from moreau._spec import (  # noqa: F401
    MjsActuator,
    MjsBody,
    MjsCamera,
    MjsDefault,
    MjsGeom,
    MjsJoint,
    MjsLight,
    MjSpec,
    MjsOrientation,
    MjsSite,
)
from moreau._moreau import (  # noqa: F401
    FatalError,
    MjContact,
    MjContactList,
    MjcfLoadError,
    MjData,
    MjModel,
    MjOption,
    MjSolverStat,
    MjWarningStat,
    UnstableSimulationError,
    mjNISLAND,
    mj_comPos,
    mj_copyData,
    mj_differentiatePos,
    mj_energyPos,
    mj_energyVel,
    mj_extractState,
    mj_forward,
    mj_fullM,
    mj_fwdPosition,
    mj_fwdVelocity,
    mj_getState,
    mj_id2name,
    mj_integratePos,
    mj_inverse,
    mj_jac,
    mj_jacBody,
    mj_jacBodyCom,
    mj_jacGeom,
    mj_jacSite,
    mj_kinematics,
    mj_mulM,
    mj_multiRay,
    mj_name2id,
    mj_normalizeQuat,
    mj_ray,
    mj_resetData,
    mj_resetDataKeyframe,
    mj_setConst,
    mj_sensorAcc,
    mj_sensorPos,
    mj_sensorVel,
    mj_setState,
    mj_stateSize,
    mj_step,
    mj_step1,
    mj_step2,
    mj_version,
    mj_versionString,
    mjd_inverseFD,
    mjd_transitionFD,
    get_threads,
    set_threads,
)
from moreau import batch, derivatives, optim, rollout, viewer  # noqa: F401

__version__ = "0.1.0"

# The dtype of MuJoCo's `mjtNum` arrays (`mujoco.MJTNUM_DTYPE`): moreau computes in float64.
MJTNUM_DTYPE = _np.float64


def _data_from_pickle(m, state, derived=None):
    """Rebuilds a pickled `MjData`: a new data of `m` holding `state` (mjSTATE_INTEGRATION)
    and, where given, the derived fields `MjData._derived` returned."""
    d = MjData(m)
    mj_setState(m, d, state, int(mjtState.mjSTATE_INTEGRATION))  # noqa: F405
    if derived is not None:
        d._set_derived(*derived)
    return d


def _reduce_data(d):
    """Pickling of `MjData`, whole as MuJoCo's: its model (pickled once however many data share
    it), its mjSTATE_INTEGRATION state, and its derived fields (every array `MjData` shows,
    `xquat`, `xmat`, the contacts, the constraint rows `efc_*`, the warning counters and
    `solver_niter`, `solver_nnz`), so that the copy reads as `d` without a call to `mj_forward` and steps bit
    for bit as `d`."""
    import numpy as np

    spec = int(mjtState.mjSTATE_INTEGRATION)  # noqa: F405
    state = np.empty(mj_stateSize(d.model, spec))
    mj_getState(d.model, d, state, spec)
    return _data_from_pickle, (d.model, state, d._derived())


_copyreg.pickle(MjData, _reduce_data)
