//! moreau: MuJoCo's physics in Rust, differentiable.
//!
//! A [`Model`] is loaded from MJCF ([`load`], [`load_from_str`] with a [`Vfs`] of assets) and is
//! never mutated afterwards; a [`Data`] holds the state and everything the pipeline computes
//! from it. [`step`] advances the state by one time step (`mj_step`), [`forward`] computes the
//! accelerations without integrating (`mj_forward`), [`inverse`] the generalized forces that
//! produce a given acceleration (`mj_inverse`). `Data<T>` is generic over the [`Scalar`], so the
//! same pipeline runs on `f64` and on forward-mode dual numbers.
//!
//! ```
//! let xml = r#"<mujoco><worldbody><body pos="0 0 1"><freejoint/>
//!     <geom type="sphere" size="0.1"/></body></worldbody></mujoco>"#;
//! let m = moreau::load_from_str(xml, &moreau::Vfs::new())?;
//! let mut d: moreau::Data = moreau::Data::new(&m);
//! for _ in 0..100 {
//!     moreau::step(&m, &mut d);
//! }
//! // free fall under gravity for 100 steps of 2 ms
//! assert!((d.time - 0.2).abs() < 1e-12);
//! assert!(d.qpos[2] < 1.0 && d.qvel[2] < 0.0);
//! # Ok::<(), moreau::MjcfError>(())
//! ```
//!
//! The public surface is this page: the model and data types ([`model`], [`data`]), loading,
//! the simulation entry points, the state vector, Jacobians, ray casting and the model-wide
//! computations of MuJoCo's compiler ([`set_const`], [`set_length_range`]). The sibling crates
//! (derivatives, optimization, command line, the papers' solvers) reach into the pipeline's
//! stages through one documented module, [`pipeline`].
//!
//! The source is laid out as MuJoCo's pipeline: `smooth/` (kinematics, com, crb, rne, tendons,
//! Jacobians), `passive/`, `actuation`, `sensor`, `collision/`, `constraint/`, `solver/`,
//! `forward`, `inverse`, `integrator`, with `math/` for the numerical kernels and `mjcf/` for
//! the loader.

#![allow(non_snake_case)]

// The unit tests that share the integration tests' oracle helpers name the crate `moreau`.
#[cfg(test)]
extern crate self as moreau;

pub mod data;
pub mod model;
pub mod pipeline;
pub mod sleep;
pub mod work;

pub(crate) mod actuation;
pub(crate) mod check;
pub(crate) mod clock;
pub(crate) mod collision;
pub(crate) mod constraint;
pub(crate) mod derivative;
pub(crate) mod energy;
pub(crate) mod forward;
pub(crate) mod integrator;
pub(crate) mod inverse;
pub(crate) mod lengthrange;
pub(crate) mod math;
pub(crate) mod mjcf;
pub(crate) mod passive;
pub(crate) mod ray;
pub(crate) mod reset;
pub(crate) mod sensor;
pub(crate) mod setconst;
pub(crate) mod simple;
pub(crate) mod smooth;
pub(crate) mod solver;
pub(crate) mod state;

pub use data::{Contact, Data, Warning};
pub use math::Scalar;
pub use model::Model;

pub use mjcf::{
    load, load_from_str, load_from_str_in, load_from_str_with_source, load_with_source, parse_spec,
    raised_at_parse, ErrorKind, MjcfError, MjcfSource, SpecElement, Vfs,
};
/// The loader's bounds on hostile input (see [`load`]).
pub use mjcf::{
    MAX_BODY_DEPTH, MAX_DATA_BYTES, MAX_ELEMENT_DEPTH, MAX_FILE_BYTES, MAX_INCLUDE_DEPTH,
};

pub use forward::forward;
pub use integrator::{step, step1, step2, try_forward, try_step};
pub use inverse::inverse;

/// State component bits for [`get_state`] / [`set_state`] (`mjtState`).
pub use state::bits as state_bits;
pub use state::{
    differentiate_pos, get_state, integrate_pos, normalize_quat, set_state, state_size, StateError,
};

pub use smooth::crb::{full_m, mul_m, solve_m};
pub use smooth::jacobian::{jac, jac_body, jac_body_com, jac_dot, jac_site};

pub use ray::{multi_ray, ray};
pub use reset::{init_trees, init_warning, reset_data};

pub use data::scratch::NnzScratch;
pub use lengthrange::{
    set_length_range, LengthRangeMode, LengthRangeOpt, MAX_STEPS as LENGTHRANGE_MAX_STEPS,
};
pub use setconst::{set_const, set_const_error};
pub use simple::simple_body;
pub use solver::nnz::ar_nnz;
