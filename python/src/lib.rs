//! The `moreau` Python package's extension module (`moreau._moreau`): MuJoCo's Python API
//! (`mujoco.MjModel`, `mujoco.MjData`, `mujoco.mj_step`, `mujoco.mjd_transitionFD`, …) on the
//! moreau engine, and moreau's own analytic derivatives and optimizers.
//!
//! One Rust module per area, each registering its names on the extension module:
//! [`model`] (`MjModel`, `MjOption`), [`data`] (`MjData`, contacts), [`islands`] (`MjData`'s
//! islands and sleep fields), [`fields`] (`MjModel`'s trees, frame shortcuts and the like),
//! [`sparsity`] (`MjModel`'s sparsity
//! patterns, inertia maps and mesh polygons), [`names`] (`MjModel`'s `names` and `name_*adr`),
//! [`efc`] (`MjData`'s `tendon_efcadr`, `efc_AR`, `efc_Y`), [`layout`] (MuJoCo's
//! layouts of fields moreau stores otherwise), [`functions`] (`mj_*`),
//! [`batch`] (`moreau.rollout`, `moreau.batch`), [`derivatives`] (`mjd_*` and
//! `moreau.derivatives`), [`diff`] (the differentiable step behind `moreau.jax` /
//! `moreau.torch`), [`optim`] (`moreau.optim`), [`viewer`] (the page of `moreau
//! view`). The pure-Python layer (`python/moreau/`) adds the enums, the JAX and PyTorch wrappers
//! and re-exports.
//!
//! Every call that does work releases the GIL ([`pyo3::Python::detach`]). NumPy arrays that
//! view model or data memory keep the owning `MjModel` / `MjData` alive as their base object;
//! the buffers they view are never reallocated (see [`arrays`]).

#![allow(non_snake_case)]

use pyo3::prelude::*;

pub mod arena;
pub mod arrays;
pub mod batch;
pub mod batch_fields;
pub mod data;
pub mod derivatives;
pub mod diff;
pub mod efc;
pub mod efc_fields;
pub mod errors;
pub mod fields;
pub mod functions;
pub mod islands;
pub mod layout;
pub mod model;
pub mod names;
pub mod optim;
pub mod sparsity;
pub mod spec;
pub mod values;
pub mod viewer;

/// The extension module `moreau._moreau`.
#[pymodule]
fn _moreau(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // warnings reach stderr and MUJOCO_LOG.TXT as with MuJoCo's default `mju_user_warning`
    moreau::data::set_warning_handler(Some(moreau::data::mujoco_warning_handler));
    errors::register(m)?;
    batch::register(m)?;
    model::register(m)?;
    data::register(m)?;
    fields::register(m)?;
    functions::register(m)?;
    derivatives::register(m)?;
    diff::register(m)?;
    optim::register(m)?;
    viewer::register(m)?;
    spec::register(m)?;
    Ok(())
}
