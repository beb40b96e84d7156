//! moreau: MuJoCo's physics in Rust, differentiable.
//!
//! The layout mirrors MuJoCo's pipeline (seed 000, "Computation"): one module per stage.

#![allow(non_snake_case)]

pub mod actuation;
pub mod check;
pub mod clock;
pub mod collision;
pub mod com;
pub mod constraint;
pub mod crb;
pub mod data;
pub mod derivative;
pub mod fluid;
pub mod forward;
pub mod hybrid;
pub mod integrator;
pub mod inverse;
pub mod jacobian;
pub mod kinematics;
pub mod lengthrange;
pub mod mjcf;
pub mod model;
pub mod passive;
pub mod ray;
pub mod rne;
pub mod sensor;
pub mod setconst;
pub mod solver;
pub mod spatial;
pub mod state;
pub mod tendon;

pub use data::{Data, Scalar};
pub use model::Model;

pub use mjcf::{load, load_from_str, MjcfError, Vfs};
