//! A moreau model as a discrete-time system for the optimizers: `x = (qpos, qvel, act)`,
//! `u = ctrl`, `f` = one `moreau::integrator::step`.

use crate::ilqr::Dynamics;
use moreau::model::JointType;
use moreau::{Data, Model};

/// Wraps a model and one preallocated `Data`.
pub struct MoreauSystem {
    pub model: Model,
    pub data: Data,
}

impl MoreauSystem {
    /// Fails for models with ball or free joints: their quaternion coordinates need tangent-space
    /// differences, which this wrapper does not do yet.
    pub fn new(model: Model) -> Result<Self, String> {
        if model
            .jnt_type
            .iter()
            .any(|t| matches!(t, JointType::Ball | JointType::Free))
        {
            return Err("MoreauSystem: ball and free joints are not supported yet".into());
        }
        let data = Data::new(&model);
        Ok(MoreauSystem { model, data })
    }

    /// Splits `x` into the data's qpos, qvel and act.
    pub fn set_state(&mut self, x: &[f64]) {
        let (nq, nv) = (self.model.nq, self.model.nv);
        self.data.qpos.copy_from_slice(&x[..nq]);
        self.data.qvel.copy_from_slice(&x[nq..nq + nv]);
        self.data.act.copy_from_slice(&x[nq + nv..]);
    }

    /// Writes the data's qpos, qvel and act into `x`.
    pub fn get_state(&self, x: &mut [f64]) {
        let (nq, nv) = (self.model.nq, self.model.nv);
        x[..nq].copy_from_slice(&self.data.qpos);
        x[nq..nq + nv].copy_from_slice(&self.data.qvel);
        x[nq + nv..].copy_from_slice(&self.data.act);
    }
}

impl Dynamics for MoreauSystem {
    fn nx(&self) -> usize {
        self.model.nq + self.model.nv + self.model.na
    }
    fn nu(&self) -> usize {
        self.model.nu
    }
    fn step(&mut self, x: &[f64], u: &[f64], xnext: &mut [f64]) -> Result<(), String> {
        self.set_state(x);
        self.data.ctrl.copy_from_slice(u);
        self.data.qacc_warmstart.iter_mut().for_each(|a| *a = 0.0);
        moreau::integrator::step(&self.model, &mut self.data);
        if self.data.warning.iter().any(|w| w.number > 0) {
            self.data.warning = Default::default();
            return Err("simulation reported a bad state".into());
        }
        self.get_state(xnext);
        Ok(())
    }
}
