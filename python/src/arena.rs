//! The arena's sizes (API Reference "mjModel" `narena`, `nconmax`, `njmax`; "mjData" `narena`,
//! `maxuse_con`, `maxuse_efc`): moreau bounds a step's contacts and constraint rows by MuJoCo
//! 4.0.0's arena bytes (docs/mujoco-behaviour.md, "Contact capacity").

use crate::data::MjData;
use crate::model::MjModel;
use pyo3::prelude::*;

#[pymethods]
impl MjModel {
    /// Bytes of the arena of each `MjData` (`<size memory>`, else MuJoCo's default for the
    /// model's sizes).
    #[getter]
    fn narena(&self) -> usize {
        moreau::data::narena(&self.model)
    }

    /// `<size nconmax>`, -1 when not set.
    #[getter]
    fn nconmax(&self) -> i64 {
        self.model.nconmax
    }

    /// `<size njmax>`, -1 when not set.
    #[getter]
    fn njmax(&self) -> i64 {
        self.model.njmax
    }
}

#[pymethods]
impl MjData {
    /// Bytes of this data's arena (the model's `narena`).
    #[getter]
    fn narena(&self, py: Python<'_>) -> usize {
        moreau::data::narena(&self.model.bind(py).borrow().model)
    }

    /// Most contacts of a collision pass since the last reset.
    #[getter]
    fn maxuse_con(&self) -> usize {
        self.data.maxuse_con
    }

    /// Most constraint rows of a step since the last reset.
    #[getter]
    fn maxuse_efc(&self) -> usize {
        self.data.maxuse_efc
    }
}
