//! moreau: MuJoCo's physics in Rust, differentiable.
//!
//! The layout mirrors MuJoCo's pipeline (seed 000, "Computation"): one module per stage.

#![allow(non_snake_case)]

pub mod collision;
pub mod data;
pub mod model;
pub mod setconst;

pub use data::{Data, Scalar};
pub use model::Model;
