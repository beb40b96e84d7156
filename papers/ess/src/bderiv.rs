//! The orbital derivative (B-derivative) of the flow, Anderson & Revzen §1 and §3.1 (refs. [8],
//! [13]).

use crate::error::HybridError;
use nalgebra::{DMatrix, DVector};

/// Derivative of the flow map `x0 ↦ Φ^t(x0)` along one integrated trajectory.
///
/// For an event-selected system the flow is piecewise differentiable and its
/// B-derivative is continuous and piecewise linear in the perturbation (Anderson & Revzen §1, \[8\]).
/// `jacobian` is the linear piece selected by the event order of this trajectory
/// (`event_order`, the guards in the order the integrator projected through them, §3.1):
/// the product of variational-equation solutions inside each domain and, at each guard
/// `j`, the saltation matrix `I + (f⁺ − f⁻) Dh_j / (Dh_j f⁻)` ([`saltation_matrix`]).
/// It equals the classical derivative wherever the crossings are not simultaneous, and is
/// the one-sided directional derivative for perturbations that keep this event order.
#[derive(Clone, Debug)]
pub struct FlowDerivative {
    /// Final time `t`.
    pub t: f64,
    /// Final state `Φ^t(x0)`.
    pub x: DVector<f64>,
    /// `n × n` linear piece `D_{x0} Φ^t` selected by `event_order`.
    pub jacobian: DMatrix<f64>,
    /// Guards crossed, in order.
    pub event_order: Vec<usize>,
}

impl FlowDerivative {
    /// Evaluates the selected piece on a direction `v`: `D_{x0} Φ^t · v`.
    pub fn apply(&self, v: &DVector<f64>) -> Result<DVector<f64>, HybridError> {
        if v.len() != self.jacobian.ncols() {
            return Err(HybridError::DimensionMismatch {
                what: "direction",
                expected: self.jacobian.ncols(),
                got: v.len(),
            });
        }
        Ok(&self.jacobian * v)
    }
}

/// Saltation matrix `I + (f⁺ − f⁻) Dh_j / (Dh_j · f⁻)` of a transversal crossing of
/// guard `j` (the jump of the variational solution across a guard; requires liveness
/// `Dh_j · f⁻ > 0`, Anderson & Revzen §2.1 requirement 4).
pub fn saltation_matrix(
    f_minus: &DVector<f64>,
    f_plus: &DVector<f64>,
    dh_j: &DVector<f64>,
) -> Result<DMatrix<f64>, HybridError> {
    let n = f_minus.len();
    if f_plus.len() != n || dh_j.len() != n {
        return Err(HybridError::DimensionMismatch {
            what: "saltation inputs",
            expected: n,
            got: f_plus.len().min(dh_j.len()),
        });
    }
    let denom = dh_j.dot(f_minus);
    if denom.is_nan() || denom <= 0.0 {
        return Err(HybridError::LivenessViolated {
            guard: 0,
            t: f64::NAN,
        });
    }
    Ok(DMatrix::identity(n, n) + (f_plus - f_minus) * dh_j.transpose() / denom)
}
