//! The contact Jacobian of the hard-contact problem, shared by the stepping ([`crate::hard`])
//! and the NCP criteria ([`crate::ncp`]).

use moreau::data::Data;
use moreau::jac;
use moreau::model::Model;

/// Writes the `3 × nv` Jacobian (rows normal, tangent 1, tangent 2) of contact `con` of `d` into
/// `out`: the velocity of the geom-1 point relative to the geom-0 point at the contact position,
/// in the contact frame. Needs kinematics and `com_pos`.
pub fn contact_jacobian(m: &Model, d: &Data<f64>, con: usize, out: &mut [f64]) {
    let nv = m.nv;
    let c = &d.contact[con];
    let b0 = m.geom_bodyid[c.geom[0]];
    let b1 = m.geom_bodyid[c.geom[1]];
    let mut j0 = vec![0.0; 3 * nv];
    let mut j1 = vec![0.0; 3 * nv];
    jac(m, d, &c.pos, b0, Some(&mut j0), None);
    jac(m, d, &c.pos, b1, Some(&mut j1), None);
    for r in 0..3 {
        for k in 0..nv {
            out[r * nv + k] = (0..3)
                .map(|a| c.frame[(r, a)] * (j1[a * nv + k] - j0[a * nv + k]))
                .sum();
        }
    }
}
