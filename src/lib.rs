//! moreau: MuJoCo's physics in Rust, differentiable.
//!
//! The layout mirrors MuJoCo's pipeline (MuJoCo's Computation chapter, docs/architecture.md): one
//! module per stage.

#![allow(non_snake_case)]

pub mod actuation;
pub mod check;
pub mod clock;
pub mod collision;
pub mod constraint;
pub mod data;
pub mod derivative;
pub mod forward;
pub mod integrator;
pub mod inverse;
pub mod lengthrange;
pub mod math;
pub mod mjcf;
pub mod model;
pub mod passive;
pub mod ray;
pub mod sensor;
pub mod setconst;
pub mod smooth;
pub mod solver;
pub mod state;

pub use math::spatial;
pub use passive::fluid;
pub use smooth::{com, crb, jacobian, kinematics, rne, tendon};

pub use data::{Data, Scalar};
pub use model::Model;

pub use mjcf::{load, load_from_str, MjcfError, Vfs};
