//! Height field against convex geoms.

use super::Sink;
use crate::data::{Data, Scalar};
use crate::model::Model;

/// Height field against any convex geom.
pub fn hfield_convex<T: Scalar>(_m: &Model, _d: &Data<T>, _s: &mut Sink<T>) {}
