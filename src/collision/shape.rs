//! Convex shapes in their local frame with their support functions, posed shapes, and the
//! result of the convex search ([`super::convex::penetration_within`]).

use crate::math::{sc, Scalar};
use crate::model::{GeomType, Model};
use nalgebra::{Matrix3, Vector3};

type V3 = Vector3<f64>;

/// A convex shape in its local frame.
#[derive(Clone, Copy, Debug)]
pub enum Shape<'a> {
    Sphere(f64),
    Capsule(f64, f64),
    Ellipsoid([f64; 3]),
    Cylinder(f64, f64),
    Box([f64; 3]),
    Mesh(&'a [[f64; 3]]),
}

impl Shape<'_> {
    /// Support point in direction `d` (local frame).
    pub fn support(&self, d: &V3) -> V3 {
        let sgn = |x: f64| if x >= 0.0 { 1.0 } else { -1.0 };
        match *self {
            Shape::Sphere(r) => {
                let n = d.norm();
                if n > 0.0 {
                    d * (r / n)
                } else {
                    V3::new(r, 0.0, 0.0)
                }
            }
            Shape::Capsule(r, h) => {
                let n = d.norm();
                let b = if n > 0.0 { d * (r / n) } else { V3::zeros() };
                b + V3::new(0.0, 0.0, sgn(d.z) * h)
            }
            Shape::Ellipsoid(s) => {
                let sd = V3::new(s[0] * d.x, s[1] * d.y, s[2] * d.z);
                let n = sd.norm();
                if n > 0.0 {
                    V3::new(s[0] * sd.x, s[1] * sd.y, s[2] * sd.z) / n
                } else {
                    V3::new(s[0], 0.0, 0.0)
                }
            }
            Shape::Cylinder(r, h) => {
                let n = (d.x * d.x + d.y * d.y).sqrt();
                let (x, y) = if n > 0.0 {
                    (d.x * r / n, d.y * r / n)
                } else {
                    (r, 0.0)
                };
                V3::new(x, y, sgn(d.z) * h)
            }
            Shape::Box(s) => V3::new(sgn(d.x) * s[0], sgn(d.y) * s[1], sgn(d.z) * s[2]),
            Shape::Mesh(v) => {
                let mut best = f64::NEG_INFINITY;
                let mut p = V3::zeros();
                for q in v {
                    let q = V3::new(q[0], q[1], q[2]);
                    let x = q.dot(d);
                    if x > best {
                        best = x;
                        p = q;
                    }
                }
                p
            }
        }
    }
}

impl Shape<'_> {
    /// The support point of a sphere or an ellipsoid in local direction `d`, in any scalar
    /// (closed form; other shapes: the origin). Differentiable re-evaluation, [`super::cvxdiff`].
    pub fn support_t<T: Scalar>(&self, d: &Vector3<T>) -> Vector3<T> {
        let s = match *self {
            Shape::Sphere(r) => [r; 3],
            Shape::Ellipsoid(s) => s,
            _ => return Vector3::zeros(),
        };
        let (a, b, c) = (sc::<T>(s[0]), sc::<T>(s[1]), sc::<T>(s[2]));
        let sd = Vector3::new(a * d.x, b * d.y, c * d.z);
        Vector3::new(a * sd.x, b * sd.y, c * sd.z) / sd.norm()
    }
}

/// A posed shape in the world.
#[derive(Clone, Copy, Debug)]
pub struct Posed<'a> {
    pub shape: Shape<'a>,
    pub pos: V3,
    pub mat: Matrix3<f64>,
}

impl Posed<'_> {
    /// Support point in world direction `d`.
    pub(super) fn support(&self, d: &V3) -> V3 {
        self.pos + self.mat * self.shape.support(&(self.mat.transpose() * d))
    }
}

/// The shape of geom `g` (None for planes, height fields, SDFs and meshes without vertices).
pub fn geom_shape<'a>(m: &'a Model, g: usize) -> Option<Shape<'a>> {
    let s = m.geom_size[g];
    Some(match m.geom_type[g] {
        GeomType::Sphere => Shape::Sphere(s[0]),
        GeomType::Capsule => Shape::Capsule(s[0], s[1]),
        GeomType::Ellipsoid => Shape::Ellipsoid(s),
        GeomType::Cylinder => Shape::Cylinder(s[0], s[1]),
        GeomType::Box => Shape::Box(s),
        GeomType::Mesh => {
            let id = usize::try_from(m.geom_dataid[g]).ok()?;
            let v = &m.mesh.get(id)?.vert;
            if v.is_empty() {
                return None;
            }
            Shape::Mesh(v)
        }
        _ => return None,
    })
}

/// Result of [`super::convex::penetration_within`]: signed distance, witness points on A and B, normal A → B.
#[derive(Clone, Copy, Debug)]
pub struct ConvexContact {
    pub dist: f64,
    pub pa: V3,
    pub pb: V3,
    pub normal: V3,
}
