//! moreau: MuJoCo's physics in Rust, differentiable.
//!
//! The layout mirrors MuJoCo's pipeline (seed 000, "Computation"): one module per stage.
pub mod hybrid;
