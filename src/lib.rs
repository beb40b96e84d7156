//! moreau: MuJoCo's physics in Rust, differentiable.
//!
//! The layout mirrors MuJoCo's pipeline (seed 000, "Computation"): one module per stage.

#![allow(non_snake_case)]

pub mod actuation;
pub mod check;
pub mod collision;
pub mod com;
pub mod constraint;
pub mod crb;
pub mod data;
pub mod derivative;
pub mod forward;
pub mod hybrid;
pub mod integrator;
pub mod jacobian;
pub mod kinematics;
pub mod model;
pub mod passive;
pub mod rne;
pub mod setconst;
pub mod solver;
pub mod spatial;
pub mod state;
pub mod tendon;

pub use data::{Data, Scalar};
pub use model::Model;
pub mod mjcf;

pub use mjcf::{load, load_from_str, MjcfError, Vfs};
