//! Numerical kernels shared by the pipeline stages: spatial algebra and dense linear algebra.

pub mod dense;
pub mod spatial;
