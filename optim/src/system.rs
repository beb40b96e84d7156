//! A moreau model as a discrete-time system for the optimizers: `x = (qpos, qvel, act)`,
//! `u = ctrl`, `f` = one `moreau::integrator::step`.

use crate::ilqr::Dynamics;
use moreau::model::JointType;
use moreau::{Data, Model};
use moreau_derivatives::fd::FdWorkspace;
use nalgebra::DMatrix;

/// Wraps a model and one preallocated `Data`. The linearization ([`Dynamics::jacobians`]) is
/// `moreau_derivatives`' `mjd_transitionFD` ([`FdWorkspace::transition`], centered differences,
/// sensors skipped, the stages that a perturbation cannot change reused) unless
/// [`MoreauSystem::fd`] is `None`, in which case the trait's generic central differences of
/// full steps are used.
pub struct MoreauSystem {
    pub model: Model,
    pub data: Data,
    /// Preallocated transition-Jacobian workspace (`None`: generic differences of `step`).
    pub fd: Option<FdWorkspace>,
    /// Finite-difference step of the transition Jacobians.
    pub fd_eps: f64,
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
        let mut fd = FdWorkspace::new(&model);
        fd.sensors = false;
        Ok(MoreauSystem {
            model,
            data,
            fd: Some(fd),
            fd_eps: 1e-6,
        })
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

    /// `mjd_transitionFD` at `(x, u)` (tangent and state coordinates coincide: no ball or free
    /// joints), or the trait's generic differences when `fd` is `None`.
    fn jacobians(
        &mut self,
        x: &[f64],
        u: &[f64],
        a: &mut DMatrix<f64>,
        b: &mut DMatrix<f64>,
    ) -> Result<(), String> {
        let Some(mut ws) = self.fd.take() else {
            return generic_jacobians(self, x, u, a, b);
        };
        self.set_state(x);
        self.data.ctrl.copy_from_slice(u);
        self.data.qacc_warmstart.iter_mut().for_each(|v| *v = 0.0);
        let jac = ws.transition(&self.model, &mut self.data, self.fd_eps, true);
        a.copy_from(&jac.A);
        b.copy_from(&jac.B);
        self.fd = Some(ws);
        if self.data.warning.iter().any(|w| w.number > 0) {
            self.data.warning = Default::default();
            return Err("simulation reported a bad state".into());
        }
        Ok(())
    }
}

/// Central differences of full steps (the `Dynamics` default), callable from an override.
fn generic_jacobians(
    sys: &mut MoreauSystem,
    x: &[f64],
    u: &[f64],
    a: &mut DMatrix<f64>,
    b: &mut DMatrix<f64>,
) -> Result<(), String> {
    let (nx, nu) = (sys.nx(), sys.nu());
    let eps = 1e-6;
    let (mut xp, mut up) = (x.to_vec(), u.to_vec());
    let (mut fp, mut fm) = (vec![0.0; nx], vec![0.0; nx]);
    for j in 0..nx + nu {
        let (plus, minus) = if j < nx {
            xp[j] = x[j] + eps;
            sys.step(&xp, u, &mut fp)?;
            xp[j] = x[j] - eps;
            sys.step(&xp, u, &mut fm)?;
            xp[j] = x[j];
            (&fp, &fm)
        } else {
            let k = j - nx;
            up[k] = u[k] + eps;
            sys.step(x, &up, &mut fp)?;
            up[k] = u[k] - eps;
            sys.step(x, &up, &mut fm)?;
            up[k] = u[k];
            (&fp, &fm)
        };
        for i in 0..nx {
            let v = (plus[i] - minus[i]) / (2.0 * eps);
            if j < nx {
                a[(i, j)] = v;
            } else {
                b[(i, j - nx)] = v;
            }
        }
    }
    Ok(())
}
