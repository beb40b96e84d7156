//! Making and resetting a [`Data`]: `mj_makeData`, `mj_resetData` and `mj_resetDataKeyframe`
//! (API Reference "Initialization"), with their pass over the trees that start asleep
//! (`sleep="init"`, XML reference `body/sleep`; docs/mujoco-behaviour.md "Sleeping").
//!
//! With the `sleep` enable flag a reset, after clearing the state to `qpos0`, measured on
//! MuJoCo 4.0.0:
//! - without `sleep="init"` trees computes the kinematics, the centre-of-mass quantities,
//!   cameras and lights and the tendons at `qpos0` (the mocap bodies still at the origin);
//! - with them runs the whole forward dynamics with every tree awake (the mocap bodies at the
//!   origin, their poses set after it), then counts one step at rest for every tree, the
//!   `sleep="init"` trees already at their last one (`tree_asleep` −1), so that each island of
//!   that pass (or unconstrained tree) made only of `sleep="init"` trees falls asleep as one
//!   cycle while every other tree that may sleep is at −10 and a tree that may not at −11.
//!   A `sleep="init"` tree whose island holds another tree stays awake at −11 with the warning
//!   "N trees were marked as sleep='init' but only M could be slept. Body 'name' (id=b) is the
//!   root of the first tree that could not be slept." (`mju_warning`; `d.warning` does not
//!   count it). The sleeping trees' `qacc` is 0, `qacc_smooth` and `qfrc_smooth` are 0
//!   everywhere, and the constraint rows and islands are cleared (`nefc` 0, `nisland` 0); the
//!   contacts, `qfrc_constraint`, the sensors and every other field keep the pass's values.
//! - `mj_resetDataKeyframe` does that at `qpos0`, then loads the keyframe; the next step
//!   wakes a tree the keyframe moved.

use crate::data::arena::StackOverflow;
use crate::data::Data;
use crate::forward::forward;
use crate::math::Scalar;
use crate::model::{enable, Model};
use crate::sleep::{policy, AWAKE_RESET};
use crate::smooth::com::com_pos;
use crate::smooth::kinematics::{camlight, kinematics};
use crate::smooth::tendon::tendon;
use nalgebra::{Quaternion, Vector3};

impl<T: Scalar> Data<T> {
    /// Allocates everything for model `m` and resets it (`mj_makeData`, which resets as
    /// [`Data::reset`] does): the state at `qpos0`, zero velocity, and with the `sleep` flag
    /// the `sleep="init"` trees asleep (docs/mujoco-behaviour.md "Sleeping").
    pub fn new(m: &Model) -> Self {
        let mut d = Data::alloc(m);
        sleep_init(m, &mut d);
        d
    }

    /// [`Data::new`], with MuJoCo 4.0.0's fatal stack overflow as an error: `Err` if the forward
    /// pass the reset runs over `sleep="init"` trees overflowed the arena's stack (MuJoCo's
    /// `mj_makeData` fails there, Python's `mujoco.FatalError`; only a model edited after
    /// compiling can get there, as the compiler runs the same pass and refuses the model).
    pub fn try_new(m: &Model) -> Result<Self, StackOverflow> {
        let d = Data::new(m);
        d.stack_overflow.map_or(Ok(d), Err)
    }

    /// Resets the state to `qpos0`, zero velocity, activation, control and applied forces, and
    /// mocap bodies to their model poses (`mj_resetData`); with the `sleep` flag the
    /// `sleep="init"` trees fall asleep (docs/mujoco-behaviour.md "Sleeping"). If the forward
    /// pass over `sleep="init"` trees overflows the arena's stack (MuJoCo 4.0.0: a fatal
    /// error), every tree stays awake and `stack_overflow` says where ([`Data::try_reset`]
    /// returns it).
    pub fn reset(&mut self, m: &Model) {
        reset_data(m, self);
    }

    /// [`Data::reset`], with MuJoCo 4.0.0's fatal stack overflow in the pass over
    /// `sleep="init"` trees as an error (the trees all awake, `time` 0, as MuJoCo's
    /// `mj_resetData` leaves them when it fails).
    pub fn try_reset(&mut self, m: &Model) -> Result<(), StackOverflow> {
        self.reset(m);
        self.stack_overflow.map_or(Ok(()), Err)
    }

    /// Resets ([`Data::reset`]), then loads keyframe `k` (`mj_resetDataKeyframe`): time, qpos,
    /// qvel, act, ctrl, mocap pose. Components a keyframe leaves empty keep their reset values.
    /// A `sleep="init"` tree is put to sleep at `qpos0`; the next step wakes it if the keyframe
    /// moved it. `Err` (and nothing reset) when `k` is not a keyframe of `m`; a stack overflow
    /// of the reset's pass is left in `stack_overflow`, as by [`Data::reset`].
    pub fn reset_keyframe(&mut self, m: &Model, k: usize) -> Result<(), String> {
        if k >= m.nkey {
            return Err(format!("keyframe {k} out of range (model has {})", m.nkey));
        }
        self.reset(m);
        self.load_keyframe(m, k);
        Ok(())
    }
}

/// The number of `sleep="init"` trees of `m` that a reset puts to sleep (0 without the `sleep`
/// flag).
pub fn init_trees(m: &Model) -> usize {
    if !m.opt.enabled(enable::SLEEP) {
        return 0;
    }
    m.tree_sleep_policy
        .iter()
        .filter(|&&p| p == policy::INIT)
        .count()
}

/// The warning of a reset that could put only `slept` of the `marked` `sleep="init"` trees to
/// sleep, naming the root body `root` of the first that stayed awake (MuJoCo 4.0.0's words).
pub fn init_warning(m: &Model, marked: usize, slept: usize, root: usize) -> String {
    let name = m.body_name.get(root).map_or("", String::as_str);
    format!(
        "{marked} trees were marked as sleep='init' but only {slept} could be slept. Body \
         '{name}' (id={root}) is the root of the first tree that could not be slept."
    )
}

/// [`Data::reset`] (`mj_resetData`), returning the warning's text when some `sleep="init"`
/// tree could not sleep ([`init_warning`]; it also goes to the warning handler, as MuJoCo's
/// `mju_warning`).
pub fn reset_data<T: Scalar>(m: &Model, d: &mut Data<T>) -> Option<String> {
    d.reset_state(m);
    sleep_init(m, d)
}

/// The part of a reset that follows the `sleep` flag (docs/mujoco-behaviour.md "Sleeping");
/// `d` has just been reset ([`Data::reset_state`]). Returns the warning's text when some
/// `sleep="init"` tree could not sleep (also passed to the warning handler).
fn sleep_init<T: Scalar>(m: &Model, d: &mut Data<T>) -> Option<String> {
    if !m.opt.enabled(enable::SLEEP) || crate::sleep::unsupported(m).is_some() {
        return None;
    }
    // the pass runs before the reset puts the mocap bodies at their poses (at the origin,
    // a zero quaternion, which the kinematics normalize to the identity)
    let z = T::zero();
    d.mocap_pos.fill(Vector3::zeros());
    d.mocap_quat.fill(Quaternion::new(z, z, z, z));
    let marked = init_trees(m);
    let warning = if marked == 0 {
        kinematics(m, d);
        com_pos(m, d);
        camlight(m, d);
        tendon(m, d);
        None
    } else {
        put_to_sleep(m, d, marked)
    };
    d.reset_mocap(m);
    if let Some(w) = &warning {
        crate::data::warning::report_message(w);
    }
    warning
}

/// The forward pass of a reset with `marked` `sleep="init"` trees, and their falling asleep.
fn put_to_sleep<T: Scalar>(m: &Model, d: &mut Data<T>, marked: usize) -> Option<String> {
    forward(m, d);
    if d.stack_overflow.is_some() {
        // the pass stopped (MuJoCo's fatal error): every tree stays awake, and the overflow
        // stays in `d.stack_overflow` for the caller (`Data::try_reset`, the compiler, Python)
        return None;
    }
    let init = |t: usize| m.tree_sleep_policy.get(t) == Some(&policy::INIT);
    let ntree = d.tree_asleep.len();
    for t in 0..ntree {
        d.tree_asleep[t] = if init(t) { -1 } else { AWAKE_RESET };
    }
    // one step at rest for every tree: the islands of `sleep="init"` trees alone fall asleep
    crate::sleep::update(m, d);
    crate::sleep::commit(m, d);
    let slept = (0..ntree).filter(|&t| d.tree_asleep[t] >= 0).count();
    let mut warning = None;
    if slept != marked {
        let first = (0..ntree).find(|&t| init(t) && d.tree_asleep[t] < 0);
        if let Some(t) = first {
            // the tree's root body: the body of its first dof
            let root = m.dof_bodyid[d.island_scratch.tree_dofadr[t]];
            warning = Some(init_warning(m, marked, slept, root));
        }
        for t in 0..ntree {
            if init(t) && d.tree_asleep[t] < 0 {
                d.tree_asleep[t] = AWAKE_RESET;
            }
        }
    }
    for i in 0..m.nv {
        if crate::sleep::dof_asleep(d, i) {
            d.qacc[i] = T::zero();
        }
    }
    d.qacc_smooth.fill(T::zero());
    d.qfrc_smooth.fill(T::zero());
    // the rows and islands go; the contacts stay (without rows)
    d.drop_rows(m.nv);
    d.clear_islands();
    d.solver_pos_valid = false;
    warning
}
