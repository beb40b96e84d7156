//! A diagonal quadratic state/control cost on a moreau model's tangent space, shared by the two
//! MPC planners so that they optimize the same objective: iLQR through
//! [`DiagonalCost::quadratic`] and predictive sampling through its [`RolloutCost`] impl.
//!
//! Stage cost `ℓ(x, u) = ½ Σ_i q_i e_i² + ½ Σ_k r_k u_k²` with `e = x ⊖ x*` the tangent
//! difference `(qpos ⊖ qpos*, qvel − qvel*, act − act*)` (`mj_differentiatePos` for the
//! position part; ball and free quaternions by `mju_subQuat`, API Reference).

#![allow(clippy::needless_range_loop)]

use crate::ilqr::QuadraticCost;
use crate::sampling::RolloutCost;
use moreau::model::JointType;
use moreau::pipeline::{quat_normalize, quat_sub};
use moreau::{Data, Model};
use nalgebra::{DMatrix, DVector};

/// Diagonal weights around a reference state.
#[derive(Clone, Debug)]
pub struct DiagonalCost {
    /// Reference state `(qpos*, qvel*, act*)`, `nq + nv + na`.
    pub xref: Vec<f64>,
    /// Tangent-space weights, `2nv + na`.
    pub q: Vec<f64>,
    /// Control weights, `nu`.
    pub r: Vec<f64>,
    /// Terminal weights = `terminal · q` (iLQR only; sampling has no terminal term).
    pub terminal: f64,
}

impl DiagonalCost {
    /// Zero weights around `xref`; fails when `xref` does not have `nq + nv + na` entries.
    pub fn new(m: &Model, xref: Vec<f64>) -> Result<Self, String> {
        if xref.len() != m.nq + m.nv + m.na {
            return Err(format!(
                "DiagonalCost: xref has {} entries, the model's state {}",
                xref.len(),
                m.nq + m.nv + m.na
            ));
        }
        Ok(DiagonalCost {
            xref,
            q: vec![0.0; 2 * m.nv + m.na],
            r: vec![0.0; m.nu],
            terminal: 0.0,
        })
    }

    /// The same cost for [`crate::ilqr`] (`dt` = the step of the system it plans with).
    pub fn quadratic(&self, dt: f64) -> QuadraticCost {
        let q = DMatrix::from_diagonal(&DVector::from_column_slice(&self.q));
        QuadraticCost {
            qf: &q * self.terminal,
            q,
            r: DMatrix::from_diagonal(&DVector::from_column_slice(&self.r)),
            xref: DVector::from_column_slice(&self.xref),
            dt,
        }
    }

    /// `ℓ` at the state `(qpos, qvel, act)` and control `ctrl`, without allocating.
    pub fn stage_of(
        &self,
        m: &Model,
        qpos: &[f64],
        qvel: &[f64],
        act: &[f64],
        ctrl: &[f64],
    ) -> f64 {
        let (nq, nv) = (m.nq, m.nv);
        let qref = &self.xref[..nq];
        let mut c = 0.0;
        let rot = |a: usize| {
            let q1 = quat_normalize(&[qpos[a], qpos[a + 1], qpos[a + 2], qpos[a + 3]]);
            let q0 = quat_normalize(&[qref[a], qref[a + 1], qref[a + 2], qref[a + 3]]);
            quat_sub(&q1, &q0)
        };
        for j in 0..m.njnt {
            let (pa, va) = (m.jnt_qposadr[j], m.jnt_dofadr[j]);
            match m.jnt_type[j] {
                JointType::Free => {
                    for k in 0..3 {
                        c += self.q[va + k] * (qpos[pa + k] - qref[pa + k]).powi(2);
                    }
                    let r = rot(pa + 3);
                    for k in 0..3 {
                        c += self.q[va + 3 + k] * r[k] * r[k];
                    }
                }
                JointType::Ball => {
                    let r = rot(pa);
                    for k in 0..3 {
                        c += self.q[va + k] * r[k] * r[k];
                    }
                }
                JointType::Hinge | JointType::Slide => {
                    c += self.q[va] * (qpos[pa] - qref[pa]).powi(2)
                }
            }
        }
        for i in 0..nv {
            c += self.q[nv + i] * (qvel[i] - self.xref[nq + i]).powi(2);
        }
        for i in 0..act.len() {
            c += self.q[2 * nv + i] * (act[i] - self.xref[nq + nv + i]).powi(2);
        }
        for (k, u) in ctrl.iter().enumerate() {
            c += self.r[k] * u * u;
        }
        0.5 * c
    }
}

impl RolloutCost for DiagonalCost {
    fn stage(&self, m: &Model, d: &Data) -> f64 {
        self.stage_of(m, &d.qpos, &d.qvel, &d.act, &d.ctrl)
    }
}
