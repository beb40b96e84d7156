//! moreau: MuJoCo's physics in Rust, differentiable.
//!
//! The layout mirrors MuJoCo's pipeline (seed 000, "Computation"): one module per stage.

#![allow(non_snake_case)]

pub mod data;
pub mod model;
pub mod setconst;

pub use data::{Data, Scalar};
pub use model::Model;
pub mod mjcf;

pub use mjcf::{load, load_from_str, MjcfError, Vfs};
