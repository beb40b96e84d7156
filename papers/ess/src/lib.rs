//! Event-Selected-Systems (ESS) rapid integrator with B-derivative (Anderson & Revzen).
//!
//! Implements Anderson & Revzen, "Rapid Integrator for a Class of Multi-Contact Systems":
//! a system is a vector field `f(x, signs of h(x))` with event functions `h` and their
//! Jacobian `Dh` (Anderson & Revzen §2.1). [`integrate`] alternates adaptive Dormand–Prince
//! integration inside one hybrid domain with first-order projections through the guards
//! (§3.1, Listing 1); [`integrate_with_derivative`] also returns the orbital derivative
//! (B-derivative) of the flow with respect to the initial state (§3.1, \[8\], \[13\]).
//!
//! No MJCF model is involved: a system is any [`EventSelectedSystem`], e.g. a
//! [`ClosureSystem`] built from closures.
//!
//! Sign convention: guard `k` is *crossed* when `h_k` goes from negative to non-negative,
//! and liveness (§2.1 requirement 4) asks `Dh_k · f > 0` near the guard. The vector
//! field receives `signs[k] == true` for the side `h_k >= 0`.

mod bderiv;
pub mod dopri5;
mod error;
mod ess;
pub mod models;
mod system;

pub use bderiv::{saltation_matrix, FlowDerivative};
pub use dopri5::{solve as dopri5_solve, Dopri5Options, OdeSolution};
pub use error::HybridError;
pub use ess::{integrate, integrate_with_derivative, EssOptions, Event, Rearm, Stats, Trajectory};
pub use system::{fd_jacobian, ClosureSystem, EventSelectedSystem};
