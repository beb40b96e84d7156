//! moreau: MuJoCo's physics in Rust, differentiable.
//!
//! The layout mirrors MuJoCo's pipeline (seed 000, "Computation"): one module per stage.

#![allow(non_snake_case)]

pub mod com;
pub mod crb;
pub mod data;
pub mod derivative;
pub mod kinematics;
pub mod model;
pub mod rne;
pub mod setconst;
pub mod spatial;
pub mod state;

pub use data::{Data, Scalar};
pub use model::Model;
