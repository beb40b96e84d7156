//! The NCP criteria of Le Lidec & Carpentier (section II): per contact, with the force `λ/Δt` and
//! the contact velocity `c` in the contact frame (N, T1, T2),
//!
//! * primal error `ε_p = dist_{K_μ}(λ/Δt)`,
//! * dual error `ε_d = dist_{K_μ*}(c + Γ(c, μ))`,
//! * complementarity `ε_c = |⟨λ/Δt, c + Γ(c, μ)⟩|`,
//!
//! with `K_μ = {‖λ_T‖ ≤ μ λ_N}`, its dual `K_μ* = {y_N ≥ μ ‖y_T‖}` and the de Saxcé term
//! `Γ(c, μ) = (μ‖c_T‖, 0, 0)`; `ε_abs` is the largest of the three over all contacts.
//!
//! [`soft_contact_ncp`] evaluates them for MuJoCo's soft solvers from the assembled constraint
//! rows (pyramidal edges decoded to normal/tangent forces, elliptic rows used directly) and the
//! next-step velocity `qvel + h qacc`.

use moreau::data::{ConstraintType, Data};
use moreau::model::Model;
use nalgebra::Vector3;

/// The three errors of one contact.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NcpErrors {
    pub primal: f64,
    pub dual: f64,
    pub compl: f64,
}

impl NcpErrors {
    /// `max(ε_p, ε_d, ε_c)`.
    pub fn abs(&self) -> f64 {
        self.primal.max(self.dual).max(self.compl)
    }

    /// Component-wise maximum.
    pub fn max(&self, o: &NcpErrors) -> NcpErrors {
        NcpErrors {
            primal: self.primal.max(o.primal),
            dual: self.dual.max(o.dual),
            compl: self.compl.max(o.compl),
        }
    }
}

/// Projection on the cone `{‖y_T‖ ≤ a y_N}` (`a ≥ 0`; `a = ∞` is the half-space `y_N ≥ 0`).
pub fn proj_cone_a(y: &Vector3<f64>, a: f64) -> Vector3<f64> {
    if a.is_infinite() {
        return Vector3::new(y[0].max(0.0), y[1], y[2]);
    }
    let (n, s) = (y[0], y[1].hypot(y[2]));
    if s <= a * n {
        return *y;
    }
    // The polar cone is {a s ≤ −n}.
    if a * s <= -n {
        return Vector3::zeros();
    }
    let pn = (n + a * s) / (1.0 + a * a);
    let k = if s > 0.0 { a * pn / s } else { 0.0 };
    Vector3::new(pn, y[1] * k, y[2] * k)
}

/// Projection on the Coulomb cone `K_μ`.
pub fn proj_cone(y: &Vector3<f64>, mu: f64) -> Vector3<f64> {
    proj_cone_a(y, mu)
}

/// Projection on the dual cone `K_μ* = {y_N ≥ μ‖y_T‖}` (= `K_{1/μ}`).
pub fn proj_dual_cone(y: &Vector3<f64>, mu: f64) -> Vector3<f64> {
    proj_cone_a(y, if mu > 0.0 { 1.0 / mu } else { f64::INFINITY })
}

/// The errors of one contact with impulse `lambda` (force × `dt`; pass `dt = 1` for a force),
/// velocity `c` and friction `mu`.
pub fn contact_errors(lambda: &Vector3<f64>, c: &Vector3<f64>, mu: f64, dt: f64) -> NcpErrors {
    let f = lambda / dt;
    let y = c + Vector3::new(mu * c[1].hypot(c[2]), 0.0, 0.0);
    NcpErrors {
        primal: (f - proj_cone(&f, mu)).norm(),
        dual: (y - proj_dual_cone(&y, mu)).norm(),
        compl: f.dot(&y).abs(),
    }
}

/// Per-contact errors for stacked impulses and velocities (`3nc` each).
pub fn errors(lambda: &[f64], c: &[f64], mu: &[f64], dt: f64) -> Vec<NcpErrors> {
    (0..mu.len())
        .map(|i| {
            let l = Vector3::new(lambda[3 * i], lambda[3 * i + 1], lambda[3 * i + 2]);
            let v = Vector3::new(c[3 * i], c[3 * i + 1], c[3 * i + 2]);
            contact_errors(&l, &v, mu[i], dt)
        })
        .collect()
}

/// Component-wise maximum over contacts (zeros without contacts).
pub fn max_errors(e: &[NcpErrors]) -> NcpErrors {
    e.iter().fold(NcpErrors::default(), |a, b| a.max(b))
}

/// A contact of MuJoCo's soft constraint problem seen as an NCP contact.
#[derive(Clone, Debug)]
pub struct SoftContact {
    /// Index in `d.contact`.
    pub contact: usize,
    /// Contact force in the contact frame (N, T1, T2), decoded from `efc_force`.
    pub force: Vector3<f64>,
    /// Contact velocity `J (qvel + h qacc)` in the contact frame.
    pub velocity: Vector3<f64>,
    /// Sliding friction `friction[0]` (0 for condim 1).
    pub mu: f64,
    pub errors: NcpErrors,
}

/// Frame force `(N, T1, T2)` of the contact whose rows start at `adr`: elliptic and frictionless
/// rows are the frame components; pyramidal edge pairs `(f⁺_j, f⁻_j)` (edges `J_N ± μ_j J_Tj`)
/// give `f_N = Σ f`, `f_Tj = μ_j (f⁺_j − f⁻_j)` (`mju_decodePyramid`). Torsional and rolling
/// components of condim 4/6 are dropped.
pub fn decode_contact_force(
    ty: ConstraintType,
    efc_force: &[f64],
    adr: usize,
    dim: usize,
    friction: &[f64; 5],
) -> Vector3<f64> {
    match ty {
        ConstraintType::ContactPyramidal => {
            let e = &efc_force[adr..adr + 2 * (dim - 1)];
            let n: f64 = e.iter().sum();
            Vector3::new(n, friction[0] * (e[0] - e[1]), friction[1] * (e[2] - e[3]))
        }
        ConstraintType::ContactElliptic => {
            Vector3::new(efc_force[adr], efc_force[adr + 1], efc_force[adr + 2])
        }
        _ => Vector3::new(efc_force[adr], 0.0, 0.0),
    }
}

/// The NCP criteria of MuJoCo's soft solution in `d` (after `forward`): per contact with efc
/// rows, the decoded frame force (a force, so `Δt = 1` in the criteria) and the contact velocity
/// at the end of the step, `J (qvel + h qacc)` (Euler's next velocity).
pub fn soft_contact_ncp(m: &Model, d: &Data<f64>) -> Vec<SoftContact> {
    let nv = m.nv;
    let h = m.opt.timestep;
    let vnext: Vec<f64> = (0..nv).map(|i| d.qvel[i] + h * d.qacc[i]).collect();
    let mut jc = vec![0.0; 3 * nv];
    d.efc_cone
        .iter()
        .map(|cone| {
            let ci = d.efc_id[cone.adr];
            let con = &d.contact[ci];
            let force = decode_contact_force(
                d.efc_type[cone.adr],
                &d.efc_force,
                cone.adr,
                cone.dim,
                &con.friction,
            );
            crate::contact::contact_jacobian(m, d, ci, &mut jc);
            let velocity =
                Vector3::from_fn(|r, _| (0..nv).map(|k| jc[r * nv + k] * vnext[k]).sum::<f64>());
            let mu = if cone.dim >= 3 { con.friction[0] } else { 0.0 };
            SoftContact {
                contact: ci,
                force,
                velocity,
                mu,
                errors: contact_errors(&force, &velocity, mu, 1.0),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projections_are_projections() {
        // Idempotent, in the set, and the residual is orthogonal to the projection (Moreau's
        // decomposition for a cone).
        let mus = [0.0, 0.3, 1.0, 2.5];
        let ys = [
            Vector3::new(1.0, 0.2, -0.1),
            Vector3::new(-1.0, 0.2, 0.1),
            Vector3::new(0.1, 2.0, -1.0),
            Vector3::new(-0.3, 0.0, 0.0),
            Vector3::new(0.0, 0.0, 1.0),
        ];
        for mu in mus {
            for y in &ys {
                for dual in [false, true] {
                    let p = if dual {
                        proj_dual_cone(y, mu)
                    } else {
                        proj_cone(y, mu)
                    };
                    let pp = if dual {
                        proj_dual_cone(&p, mu)
                    } else {
                        proj_cone(&p, mu)
                    };
                    assert!((p - pp).norm() < 1e-14);
                    assert!((y - p).dot(&p).abs() < 1e-14, "{mu} {y} {p}");
                    if !dual {
                        assert!(p[1].hypot(p[2]) <= mu * p[0] + 1e-14);
                    } else {
                        assert!(p[0] + 1e-14 >= mu * p[1].hypot(p[2]));
                    }
                }
            }
        }
    }

    #[test]
    fn ncp_solutions_have_zero_error() {
        let mu = 0.5;
        // Sliding with maximum dissipation: c_N = 0, λ_T = −μ λ_N c_T/‖c_T‖.
        let c = Vector3::new(0.0, 0.6, -0.8);
        let l = Vector3::new(2.0, -0.6, 0.8);
        assert!(contact_errors(&l, &c, mu, 1.0).abs() < 1e-15);
        // Takeoff and stiction.
        assert_eq!(
            contact_errors(&Vector3::zeros(), &Vector3::new(1.0, 3.0, 0.0), mu, 1.0).abs(),
            0.0
        );
        assert_eq!(
            contact_errors(&Vector3::new(1.0, 0.1, 0.2), &Vector3::zeros(), mu, 1.0).abs(),
            0.0
        );
        // Sliding with a force not opposite to the velocity: complementarity error.
        let l = Vector3::new(2.0, 0.8, 0.6);
        let e = contact_errors(&l, &c, mu, 1.0);
        assert!(e.compl > 0.1 && e.primal == 0.0 && e.dual == 0.0);
        // Penetrating velocity: dual error; force outside the cone: primal error.
        let e = contact_errors(
            &Vector3::new(1.0, 0.0, 0.0),
            &Vector3::new(-0.1, 0.0, 0.0),
            mu,
            1.0,
        );
        assert!((e.dual - 0.1).abs() < 1e-15);
        let e = contact_errors(&Vector3::new(1.0, 1.0, 0.0), &Vector3::zeros(), mu, 0.5);
        assert!((e.primal - (2.0f64 - 1.0) / 1.25f64.sqrt()).abs() < 1e-14);
    }
}
