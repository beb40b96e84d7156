//! One contact of [`Data::contact`](super::Data::contact) (`mjContact`).

use crate::math::{sc, Scalar};
use crate::model::Model;
use nalgebra::{Matrix3, Vector3};

/// One contact (`mjContact`). `frame` rows are (normal, tangent 1, tangent 2); the normal points
/// from `geom[0]` to `geom[1]`. The parameters are model constants: `f64`, but for `friction`
/// and `solref`, which are of the scalar type so that dual numbers can carry their derivatives
/// with respect to the geoms' parameters ([`crate::pipeline::mix_friction_solref`]; they enter
/// at zero derivative from the collision).
#[derive(Clone, Debug)]
pub struct Contact<T: Scalar = f64> {
    /// Signed distance: negative in penetration.
    pub dist: T,
    /// Contact point, midway between the two surfaces (world frame).
    pub pos: Vector3<T>,
    /// Rows: normal, tangent 1, tangent 2.
    pub frame: Matrix3<T>,
    /// Margin below which the contact is active (`dist < includemargin`).
    pub includemargin: f64,
    /// (tangent, tangent, torsion, roll, roll).
    pub friction: [T; 5],
    pub solref: [T; 2],
    pub solreffriction: [f64; 2],
    pub solimp: [f64; 5],
    /// Friction of the regularized cone: `friction[0]/sqrt(impratio)` for active contacts with
    /// friction, else 0 (MuJoCo sets it in the constraint stage; set here for convenience).
    pub mu: f64,
    /// Contact dimensionality (condim: 1, 3, 4 or 6).
    pub dim: usize,
    /// The two geoms; the lower geom type first.
    pub geom: [usize; 2],
    /// 0: active (`dist < includemargin`); 1: listed because of `gap` only.
    pub exclude: u8,
    /// First efc row of this contact, or -1 (set by the constraint stage).
    pub efc_address: i32,
}

impl<T: Scalar> Contact<T> {
    /// The contact normal (first frame row).
    pub fn normal(&self) -> Vector3<T> {
        Vector3::new(self.frame[(0, 0)], self.frame[(0, 1)], self.frame[(0, 2)])
    }

    /// A purely geometric contact: parameters are MuJoCo's defaults until the driver mixes them.
    pub fn geometric(dist: T, pos: Vector3<T>, frame: Matrix3<T>, geom: [usize; 2]) -> Self {
        Contact {
            dist,
            pos,
            frame,
            includemargin: 0.0,
            friction: [1.0, 1.0, 0.005, 1e-4, 1e-4].map(sc),
            solref: [0.02, 1.0].map(sc),
            solreffriction: [0.0, 0.0],
            solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            mu: 1.0,
            dim: 3,
            geom,
            exclude: 0,
            efc_address: -1,
        }
    }
}

/// Capacity reserved for `Data::contact` by `Data::new`: every contact a collision pass can
/// keep ([`super::arena::max_contacts`]), so stepping never grows the list; past it contacts are
/// dropped with [`Warning::ContactFull`](super::Warning::ContactFull).
pub fn contact_capacity(m: &Model) -> usize {
    super::arena::max_contacts(m)
}
