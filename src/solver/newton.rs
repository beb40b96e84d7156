//! Newton's method on the reduced primal problem (seed 000, "Algorithms"; mujoco-facts §4): the
//! Hessian H = M + Jᵀ diag(D·[QUADRATIC]) J + Σ_cones Jcᵀ H_cone Jc, factored densely as
//! `Lᵀ D L` eliminating the last dof first ([`dense::ldl_factor_rev`]): H has the dof tree's
//! sparsity when every active row couples the dofs of one kinematic chain (contacts with the
//! world, limits), and the factorization then has no fill-in and skips the zeros (MuJoCo
//! factors its dense H by Cholesky; the two differ in round-off only). The loop itself (line
//! search, statistics, stopping) is shared with CG in `primal.rs`.

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use super::{dense, Problem, SolverScratch};
use crate::constraint::cost::CONE_H;
use crate::constraint::{ConstraintState, ConstraintType};
use crate::data::Scalar;

/// Rows with at most this many nonzeros take the sparse path in [`hessian`].
const SPARSE_MAX: usize = 48;

/// Builds H in `s.H` from the problem's current states and cone Hessians, and factors it in
/// place ([`dense::ldl_factor_rev`]; solve with [`dense::ldl_solve_rev`]).
pub fn hessian<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    let nv = p.nv;
    let h = &mut s.H;
    p.dense_m(h);
    let j = &p.J;
    for i in 0..p.nefc {
        if p.state[i] != ConstraintState::Quadratic {
            continue;
        }
        let di = p.D[i];
        if let Some(cols) = p.jrow(i).cols {
            // compressed row: the pairs of its pattern (ascending columns)
            let vals = p.jrow(i).vals;
            for (x, (&a, &va)) in cols.iter().zip(vals).enumerate() {
                let ja = va * di;
                if ja == T::zero() {
                    continue;
                }
                let ha = &mut h[a * nv..a * nv + a + 1];
                for (&b, &vb) in cols[..=x].iter().zip(vals) {
                    ha[b] += ja * vb;
                }
            }
            continue;
        }
        let row = &j[i * nv..(i + 1) * nv];
        // rows of a dense J touch few dofs (a contact: its two kinematic chains): collect the
        // nonzeros and update only their pairs; zero products would add ±0, so the result is
        // bit-identical to the dense loop
        let mut nz = [0usize; SPARSE_MAX];
        let mut cnt = 0;
        for (a, &ra) in row.iter().enumerate() {
            if ra != T::zero() {
                if cnt == SPARSE_MAX {
                    cnt = usize::MAX;
                    break;
                }
                nz[cnt] = a;
                cnt += 1;
            }
        }
        if cnt != usize::MAX {
            for (x, &a) in nz[..cnt].iter().enumerate() {
                let ja = row[a] * di;
                if ja == T::zero() {
                    continue;
                }
                let ha = &mut h[a * nv..a * nv + a + 1];
                for &b in &nz[..=x] {
                    ha[b] += ja * row[b];
                }
            }
            continue;
        }
        for (a, &ra) in row.iter().enumerate() {
            let ja = ra * di;
            if ja == T::zero() {
                continue;
            }
            for (hb, &rb) in h[a * nv..a * nv + a + 1].iter_mut().zip(&row[..=a]) {
                *hb += ja * rb;
            }
        }
    }
    let pr = p;
    for (c, cone) in p.cone.iter().enumerate() {
        let adr = cone.adr;
        if p.ty[adr] != ConstraintType::ContactElliptic || p.state[adr] != ConstraintState::Cone {
            continue;
        }
        let dim = cone.dim;
        let hc = &s.cone_H[c * CONE_H..c * CONE_H + dim * dim];
        // tmp = Hc Jc (dim x nv), accumulated row by row into H's lower triangle
        for p in 0..dim {
            for q in 0..dim {
                let w = hc[p * dim + q];
                if w == T::zero() {
                    continue;
                }
                if let (Some(cp), Some(cq)) = (pr.jrow(adr + p).cols, pr.jrow(adr + q).cols) {
                    // compressed rows: pairs (a, b ≤ a) of the two patterns
                    let (vp, vq) = (pr.jrow(adr + p).vals, pr.jrow(adr + q).vals);
                    for (&a, &ra) in cp.iter().zip(vp) {
                        let ja = ra * w;
                        if ja == T::zero() {
                            continue;
                        }
                        for (&b, &rb) in cq.iter().zip(vq) {
                            if b > a {
                                break;
                            }
                            h[a * nv + b] += ja * rb;
                        }
                    }
                    continue;
                }
                let rp = &j[(adr + p) * nv..(adr + p + 1) * nv];
                let rq = &j[(adr + q) * nv..(adr + q + 1) * nv];
                for (a, &ra) in rp.iter().enumerate() {
                    let ja = ra * w;
                    if ja == T::zero() {
                        continue;
                    }
                    for (hb, &rb) in h[a * nv..a * nv + a + 1].iter_mut().zip(&rq[..=a]) {
                        *hb += ja * rb;
                    }
                }
            }
        }
    }
    dense::ldl_factor_rev(h, nv);
}

/// Brings the factored Hessian in `s.H` up to date after the states moved from `old` to
/// `p.state` (mujoco-facts §4: MuJoCo updates its factor by rank-1 up/downdates per row that
/// entered or left QUADRATIC). Nothing to do when no row changed; rank-1 updates of
/// `sqrt(D_i) J_i` ([`dense::ldl_rank1_rev`]) for a few changed rows; a full rebuild when
/// elliptic cones are in their cone zone (their Hessians change with the point), when many rows
/// changed, or when a downdate would lose positive definiteness.
pub fn update_hessian<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>, nupdate: usize) {
    let nv = p.nv;
    let cones = p.cone.iter().any(|c| {
        p.ty[c.adr] == ConstraintType::ContactElliptic
            && (p.state[c.adr] == ConstraintState::Cone
                || s.state_old[c.adr] == ConstraintState::Cone)
    });
    if cones || 6 * nupdate > nv {
        hessian(p, s);
        return;
    }
    for i in 0..p.nefc {
        let (o, n) = (s.state_old[i], p.state[i]);
        let (oq, nq) = (
            o == ConstraintState::Quadratic,
            n == ConstraintState::Quadratic,
        );
        if oq == nq {
            continue;
        }
        let sd = p.D[i].sqrt();
        if p.J_sparse {
            p.jrow(i).expand(&mut s.tmp);
            for x in s.tmp.iter_mut() {
                *x *= sd;
            }
        } else {
            for (x, &j) in s.tmp.iter_mut().zip(&p.J[i * nv..(i + 1) * nv]) {
                *x = j * sd;
            }
        }
        if !dense::ldl_rank1_rev(&mut s.H, nv, &mut s.tmp, nq) {
            hessian(p, s);
            return;
        }
    }
}
