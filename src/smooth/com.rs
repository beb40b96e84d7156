//! COM-based quantities (`mj_comPos`, `mj_comVel`; Computation "General framework",
//! "Simulation pipeline"): subtree centers of mass, `cinert`, `cdof`, `cvel`, `cdof_dot`.
//!
//! Every tree uses the frame centred at `subtree_com[body_rootid]` and aligned with the world.

use crate::data::Data;
use crate::math::spatial::{cross_motion, join};
use crate::math::{sc, Scalar};
use crate::model::{JointType, Model};
use nalgebra::{Vector3, Vector6};

/// Computes `subtree_com`, `cinert` and `cdof` from the kinematics.
pub fn com_pos<T: Scalar>(m: &Model, d: &mut Data<T>) {
    // subtree centres of mass: mass-weighted xipos summed leaves to root. (The loops walk the
    // per-body arrays by zipped slices: the same arithmetic, without a bounds check per index.)
    let nb = m.nbody;
    for ((c, xi), &mass) in d.subtree_com[..nb]
        .iter_mut()
        .zip(&d.xipos[..nb])
        .zip(&m.body_mass[..nb])
    {
        *c = *xi * sc::<T>(mass);
    }
    for b in (1..nb).rev() {
        let p = m.body_parentid[b];
        let c = d.subtree_com[b];
        d.subtree_com[p] += c;
    }
    for ((c, xi), &sm) in d.subtree_com[..nb]
        .iter_mut()
        .zip(&d.xipos[..nb])
        .zip(&m.body_subtreemass[..nb])
    {
        *c = if sm < 1e-15 { *xi } else { *c / sc::<T>(sm) };
    }
    // cinert: inertia about the tree's com frame origin.
    d.cinert[0] = [T::zero(); 10];
    let bodies = d.cinert[1..nb]
        .iter_mut()
        .zip(&d.xipos[1..nb])
        .zip(&d.ximat[1..nb])
        .zip(&m.body_mass[1..nb])
        .zip(&m.body_inertia[1..nb])
        .zip(&m.body_rootid[1..nb]);
    for (((((ci, xi), r), &mass), di), &root) in bodies {
        let mass: T = sc(mass);
        let c = *xi - d.subtree_com[root];
        let dk: [T; 3] = [sc(di[0]), sc(di[1]), sc(di[2])];
        // entry (a, e) of the rotated inertia r·diag(dk)·rᵀ, summed over k = 0, 1, 2 in that
        // order, each term (r[a,k]·dk[k])·r[e,k]: the products and sums of the full 3×3 matrix
        // products this replaces (nalgebra's `*` adds the terms of a product column by column,
        // k ascending, from the first), without their multiplications by the zeros off the
        // diagonal (which add exact zeros: the same values up to the sign of a zero entry)
        let rot = |a: usize, e: usize| {
            r[(a, 0)] * dk[0] * r[(e, 0)]
                + r[(a, 1)] * dk[1] * r[(e, 1)]
                + r[(a, 2)] * dk[2] * r[(e, 2)]
        };
        // the parallel-axis term (|c|² I − c cᵀ)·mass, entry by entry as the matrix expression
        // computes it (off the diagonal 0 − c_a c_e)
        let cc = c.dot(&c);
        let z = T::zero();
        *ci = [
            rot(0, 0) + (cc - c.x * c.x) * mass,
            rot(1, 1) + (cc - c.y * c.y) * mass,
            rot(2, 2) + (cc - c.z * c.z) * mass,
            rot(0, 1) + (z - c.x * c.y) * mass,
            rot(0, 2) + (z - c.x * c.z) * mass,
            rot(1, 2) + (z - c.y * c.z) * mass,
            c.x * mass,
            c.y * mass,
            c.z * mass,
            mass,
        ];
    }
    // cdof: motion axes in the com frame.
    for j in 0..m.njnt {
        let b = m.jnt_bodyid[j];
        let off = d.subtree_com[m.body_rootid[b]] - d.xanchor[j];
        let a = m.jnt_dofadr[j];
        let z = Vector3::zeros();
        match m.jnt_type[j] {
            JointType::Free => {
                for k in 0..3 {
                    let mut e = Vector3::zeros();
                    e[k] = T::one();
                    d.cdof[a + k] = join(&z, &e);
                    let ax: Vector3<T> = d.xmat[b].column(k).into();
                    d.cdof[a + 3 + k] = join(&ax, &ax.cross(&off));
                }
            }
            JointType::Ball => {
                for k in 0..3 {
                    let ax: Vector3<T> = d.xmat[b].column(k).into();
                    d.cdof[a + k] = join(&ax, &ax.cross(&off));
                }
            }
            JointType::Slide => d.cdof[a] = join(&z, &d.xaxis[j]),
            JointType::Hinge => {
                let ax = d.xaxis[j];
                d.cdof[a] = join(&ax, &ax.cross(&off));
            }
        }
    }
}

/// Computes `cvel` (body spatial velocities) and `cdof_dot` (time derivative of `cdof`). Each
/// joint's `cdof_dot` uses the velocity accumulated before that joint; the translational dofs of a
/// free joint are world-fixed (`cdof_dot = 0`).
pub fn com_vel<T: Scalar>(m: &Model, d: &mut Data<T>) {
    d.cvel[0] = Vector6::zeros();
    for b in 1..m.nbody {
        let mut v = d.cvel[m.body_parentid[b]];
        let j0 = m.body_jntadr[b];
        for j in j0..j0 + m.body_jntnum[b] {
            let mut a = m.jnt_dofadr[j];
            let n = match m.jnt_type[j] {
                JointType::Free => {
                    for k in 0..3 {
                        d.cdof_dot[a + k] = Vector6::zeros();
                        v += d.cdof[a + k] * d.qvel[a + k];
                    }
                    a += 3;
                    3
                }
                JointType::Ball => 3,
                _ => 1,
            };
            for k in a..a + n {
                d.cdof_dot[k] = cross_motion(&v, &d.cdof[k]);
            }
            for k in a..a + n {
                v += d.cdof[k] * d.qvel[k];
            }
        }
        d.cvel[b] = v;
    }
}
