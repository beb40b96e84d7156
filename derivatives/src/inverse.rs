//! Analytic inverse-dynamics derivatives (seed 000 "Reduced primal problem"; mujoco-facts §3).
//!
//! `qfrc_inverse(q, v, a) = M(q) a + c(q, v) − qfrc_passive(q, v) − Jᵀ f(J a − aref)` with the
//! soft-constraint force `f = −∂s/∂jar` and `H[s] = ∂²s/∂jar²` (block-diagonal: `D` on quadratic
//! rows, 0 on satisfied and linear friction rows, the cone Hessian on elliptic middle-zone
//! blocks). Hence, exactly (away from the measure-zero state switches):
//! - `∂f/∂a = M + Jᵀ H J` (analytic);
//! - `∂f/∂v = ∂c/∂v − ∂qfrc_passive/∂v + Jᵀ H diag(B) J` (analytic: the RNE and passive
//!   velocity derivatives of [`moreau::derivative`], and `∂aref/∂v = −diag(B) J`);
//! - `∂f/∂q`: `∂(M a + c − springs − gravcomp)/∂q` and `∂M/∂q` analytic ([`crate::rnea`]);
//!   constraint and tendon-passive terms by a dual pass restricted to the stages they need
//!   ([`crate::pos`]).
//!
//! Layout as [`crate::fd::InverseJacobians`]: `D[i][j] = ∂f_j/∂in_i`.
//!
//! Not covered analytically (reported by [`unsupported`]): connect/weld equality rows (their
//! `aref` has the velocity-quadratic `J̇ v` term), fluid forces, `invdiscrete`, and
//! position-dependent velocity terms are of course only in `∂/∂q`.

#![allow(clippy::needless_range_loop)]

use moreau::constraint::cost::{evaluate, Rows, CONE_H};
use moreau::constraint::{ConstraintState, ConstraintType};
use moreau::derivative::{d_passive_vel, d_rne_vel};
use moreau::model::{enable, EqType, Model};
use moreau::solver::dense::full_m;
use moreau::Data;
use nalgebra::DMatrix;

/// Why the analytic velocity/acceleration derivatives do not apply to `m`, if they don't.
pub fn unsupported(m: &Model) -> Option<&'static str> {
    if m.eq_type
        .iter()
        .any(|t| matches!(t, EqType::Connect | EqType::Weld))
    {
        return Some("connect/weld equality constraints (J̇ v in aref)");
    }
    if m.opt.density != 0.0 || m.opt.viscosity != 0.0 {
        return Some("fluid forces");
    }
    if m.opt.enabled(enable::INVDISCRETE) {
        return Some("invdiscrete");
    }
    None
}

/// Dense `M` (`nv × nv`).
pub fn mass_matrix(m: &Model, d: &Data<f64>) -> DMatrix<f64> {
    let nv = m.nv;
    let mut buf = vec![0.0; nv * nv];
    full_m(m, &d.qM, &mut buf);
    DMatrix::from_row_slice(nv, nv, &buf)
}

/// Dense constraint Jacobian `J` (`nefc × nv`).
pub fn efc_jacobian(m: &Model, d: &Data<f64>) -> DMatrix<f64> {
    DMatrix::from_row_slice(d.nefc, m.nv, &d.efc_J_dense(m.nv))
}

/// `H[s]` at `jar = J qacc − aref` (`nefc × nefc`, block-diagonal), i.e. `−∂efc_force/∂jar`.
pub fn constraint_hessian(m: &Model, d: &Data<f64>) -> DMatrix<f64> {
    let n = d.nefc;
    let nv = m.nv;
    let mut h = DMatrix::zeros(n, n);
    if n == 0 {
        return h;
    }
    let mut jar = vec![0.0; n];
    for r in 0..n {
        jar[r] = d.efc_J_row(r, nv).dot(&d.qacc) - d.efc_aref[r];
    }
    let rows = Rows {
        ty: &d.efc_type,
        D: &d.efc_D,
        R: &d.efc_R,
        frictionloss: &d.efc_frictionloss,
        cone: &d.efc_cone,
    };
    let mut force = vec![0.0; n];
    let mut state = vec![ConstraintState::Satisfied; n];
    let mut ch = vec![0.0; d.efc_cone.len() * CONE_H];
    evaluate(&rows, &jar, &mut force, &mut state, Some(&mut ch));
    let mut i = 0;
    let mut ci = 0;
    while i < n {
        if d.efc_type[i] == ConstraintType::ContactElliptic {
            while d.efc_cone[ci].adr != i {
                ci += 1;
            }
            let dim = d.efc_cone[ci].dim;
            match state[i] {
                ConstraintState::Quadratic => {
                    for k in 0..dim {
                        h[(i + k, i + k)] = d.efc_D[i + k];
                    }
                }
                ConstraintState::Cone => {
                    for a in 0..dim {
                        for b in 0..dim {
                            h[(i + a, i + b)] = ch[ci * CONE_H + a * dim + b];
                        }
                    }
                }
                _ => {}
            }
            i += dim;
        } else {
            if state[i] == ConstraintState::Quadratic {
                h[(i, i)] = d.efc_D[i];
            }
            i += 1;
        }
    }
    h
}

/// `M + Jᵀ H J` (symmetric; the Newton Hessian at `qacc`). Needs the position and velocity
/// stages (and the constraint rows) of `d`.
pub fn dfda(m: &Model, d: &Data<f64>) -> DMatrix<f64> {
    let mut a = mass_matrix(m, d);
    if d.nefc > 0 {
        let j = efc_jacobian(m, d);
        let h = constraint_hessian(m, d);
        a += j.transpose() * h * &j;
    }
    a
}

/// `∂(qfrc_bias − qfrc_passive)/∂v` plus the constraint term `Jᵀ H diag(B) J`, rows are
/// outputs (`∂f_i/∂v_k`).
pub fn dfdv_rows(m: &Model, d: &mut Data<f64>) -> DMatrix<f64> {
    let nv = m.nv;
    let mut buf = vec![0.0; nv * nv];
    // passive adds +∂passive/∂v: negate after, then add ∂bias/∂v
    d_passive_vel(m, d, &mut buf);
    for x in buf.iter_mut() {
        *x = -*x;
    }
    if crate::rnea::unsupported(m).is_none() {
        // the O(n·depth) recursion of crate::rnea (no tendon-armature bias term there)
        let mut b = vec![0.0; nv * nv];
        crate::rnea::d_bias_vel(m, d, &mut crate::rnea::Work::default(), &mut b);
        for (x, y) in buf.iter_mut().zip(&b) {
            *x += *y;
        }
    } else {
        d_rne_vel(m, d, 0..nv, &mut buf);
    }
    let mut out = DMatrix::from_row_slice(nv, nv, &buf);
    if d.nefc > 0 {
        let j = efc_jacobian(m, d);
        let h = constraint_hessian(m, d);
        let mut bj = j.clone();
        for r in 0..d.nefc {
            let b = d.efc_KBIP[r][1];
            bj.row_mut(r).scale_mut(b);
        }
        out += j.transpose() * h * bj;
    }
    out
}

/// Analytic inverse Jacobians `(DfDq, DfDv, DfDa)` of `qfrc_inverse` at the state and `qacc`
/// of `d`, MuJoCo's transposed layout. Runs [`moreau::inverse::inverse`] on `d` first.
/// `DfDq` and the returned `DmDq` (row `i` = `∂qM/∂q_i` in qM's layout) are analytic
/// ([`crate::rnea`], [`crate::pos`]: constraint and tendon-passive terms by a restricted dual
/// pass), or by full dual passes ([`crate::dual::dual_inverse_dq`]) for
/// [`crate::rnea::unsupported`] models.
#[allow(non_snake_case, clippy::type_complexity)]
pub fn inverse_analytic(
    m: &Model,
    d: &mut Data<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>, DMatrix<f64>, DMatrix<f64>), &'static str> {
    if let Some(e) = unsupported(m) {
        return Err(e);
    }
    moreau::inverse::inverse(m, d);
    let DfDa = dfda(m, d);
    let DfDv = dfdv_rows(m, d).transpose();
    let (DfDq, DmDq) = if crate::rnea::unsupported(m).is_none() {
        let mut w = crate::rnea::Work::default();
        let dq = crate::pos::d_pos(m, d, crate::pos::Output::Inverse, &mut w).transpose();
        let mut dm = DMatrix::zeros(m.nv, m.nM);
        crate::rnea::d_mass_pos(m, d, &mut w, &mut dm);
        (dq, dm)
    } else {
        crate::dual::dual_inverse_dq(m, d)
    };
    Ok((DfDq, DfDv, DfDa, DmDq))
}
