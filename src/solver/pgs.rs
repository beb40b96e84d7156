//! Projected Gauss–Seidel on the dual problem ½fᵀ(A+R)f + fᵀb, f ∈ Ω (seed 000, "Dual problem"
//! and "Algorithms"): scalar rows are minimized exactly and projected (friction loss on its box,
//! limits / frictionless / pyramidal edges on f ≥ 0); an elliptic contact is updated as a block:
//! first along the ray from the cone tip through the current force, then its friction forces
//! within the ellipse sliced at the current normal force (a small QCQP solved by Newton on the
//! Lagrange multiplier).
//!
//! Stopping: scaled dual-cost improvement of a sweep (× 1/trace(M)) below `tolerance`. Only the
//! `improvement` statistic is filled. Matches MuJoCo 4.0.0 sweep-for-sweep on the elliptic
//! sphere cases of the oracle, but not on pyramidal / friction-loss / equality rows (MuJoCo's
//! first-sweep improvement differs by a few %): it is checked to converge to the optimum instead.

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use super::{dense, re, Problem, SolverScratch};
use crate::constraint::cost::evaluate;
use crate::constraint::ConstraintType;
use crate::data::{sc, Scalar, SolverStat, NSOLVER};
use crate::model::Model;

/// Minimizes ½xᵀAx + xᵀb subject to Σ (x_j/r_j)² ≤ 1 (n ≤ 5, r_j > 0) into `x`; returns
/// whether the constraint is active (the unconstrained minimum lies outside).
pub(super) fn qcqp<T: Scalar>(a: &[T], b: &[T], r: &[T], n: usize, x: &mut [T]) -> bool {
    let z = T::zero();
    // scaled problem in y = x / r: A' = R A R, b' = R b, constraint |y| <= 1
    let mut ap = [z; 25];
    let mut bp = [z; 5];
    for i in 0..n {
        bp[i] = r[i] * b[i];
        for j in 0..n {
            ap[i * n + j] = r[i] * a[i * n + j] * r[j];
        }
    }
    let mut lam = z;
    let mut y = [z; 5];
    let mut l = [z; 25];
    let mut active = false;
    for _ in 0..30 {
        l[..n * n].copy_from_slice(&ap[..n * n]);
        for i in 0..n {
            l[i * n + i] += lam;
        }
        dense::chol_factor(&mut l[..n * n], n);
        for i in 0..n {
            y[i] = -bp[i];
        }
        dense::chol_solve(&l[..n * n], n, &mut y[..n]);
        let yy = dense::dot(&y[..n], &y[..n]);
        let phi = yy - T::one();
        if phi <= sc(1e-10) {
            break;
        }
        active = true;
        // phi'(lam) = -2 yᵀ(A' + lam I)⁻¹ y
        let mut w = y;
        dense::chol_solve(&l[..n * n], n, &mut w[..n]);
        let dphi = sc::<T>(-2.0) * dense::dot(&y[..n], &w[..n]);
        lam -= phi / dphi;
    }
    let yn = dense::dot(&y[..n], &y[..n]).sqrt();
    let s = if yn > T::one() {
        T::one() / yn
    } else {
        T::one()
    };
    for i in 0..n {
        x[i] = y[i] * s * r[i];
    }
    active
}

/// PGS solve of problem `p` from the start forces `p.force` (the global warm start, see
/// [`super::solve`]); returns the sweep count and appends the statistics to `stats`. Writes
/// `p.qacc = qacc_smooth + M⁻¹Jᵀf` and the row states of s at the resulting `jar`.
pub(super) fn solve<T: Scalar>(
    m: &Model,
    p: &mut Problem<T>,
    s: &mut SolverScratch<T>,
    mut stats: Option<&mut Vec<SolverStat>>,
) -> usize {
    let nv = p.nv;
    let n = p.nefc;
    let z = T::zero();
    let half: T = sc(0.5);
    let tol: T = sc(m.opt.tolerance);
    let mut trace = z;
    trace += p.trace_m();
    let scale = T::one() / trace;
    build_ar(p, s, true);

    let mut f = std::mem::take(&mut p.force);
    let mut iter = 0;
    while iter < m.opt.iterations {
        let mut improvement = z;
        let mut i = 0;
        let mut ci = 0;
        while i < n {
            let ty = p.ty[i];
            if ty == ConstraintType::ContactElliptic {
                while p.cone[ci].adr != i {
                    ci += 1;
                }
                let cone = p.cone[ci];
                let dim = cone.dim;
                improvement -= elliptic_block(&s.AR, n, &p.b, i, dim, &cone.friction, &mut f);
                i += dim;
                continue;
            }
            let arow = &s.AR[i * n..(i + 1) * n];
            let res = dense::dot(arow, &f) + p.b[i];
            let aii = arow[i];
            let old = f[i];
            let mut new = old - res / aii;
            match ty {
                ConstraintType::Equality => {}
                ConstraintType::FrictionDof | ConstraintType::FrictionTendon => {
                    let fl = p.frictionloss[i];
                    new = new.max(-fl).min(fl);
                }
                _ => new = new.max(z),
            }
            let delta = new - old;
            f[i] = new;
            improvement -= delta * res + half * aii * delta * delta;
            i += 1;
        }
        let improvement = improvement * scale;
        iter += 1;
        if let Some(st) = stats.as_deref_mut() {
            if st.len() < NSOLVER {
                st.push(SolverStat {
                    improvement: re(improvement),
                    ..Default::default()
                });
            }
        }
        if improvement < tol {
            break;
        }
    }

    // qacc = qacc_smooth + M⁻¹ Jᵀ f; states from the primal cost at the resulting jar
    for k in 0..nv {
        let mut v = p.qacc_smooth[k];
        for i in 0..n {
            v += s.MinvJT[i * nv + k] * f[i];
        }
        p.qacc[k] = v;
    }
    p.force = f;
    p.mul_j_aref(&p.qacc, &mut s.jar);
    let (rows, _, state) = p.rows_force_state();
    evaluate(&rows, &s.jar, &mut s.ftmp, state, None);
    iter
}

/// `s.AR = J M⁻¹ Jᵀ (+ diag(R) if `with_r`)` and `s.MinvJT` (rows M⁻¹ J_iᵀ) of problem `p`.
pub(super) fn build_ar<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>, with_r: bool) {
    let (nv, n) = (p.nv, p.nefc);
    let z = T::zero();
    s.MinvJT.resize(n * nv, z);
    s.AR.resize(n * n, z);
    for i in 0..n {
        let row = &mut s.MinvJT[i * nv..(i + 1) * nv];
        p.jrow(i).expand(row);
        dense::chol_solve(&p.Mchol, nv, row);
    }
    for i in 0..n {
        for j in 0..=i {
            let mj = &s.MinvJT[j * nv..(j + 1) * nv];
            let v = if p.J_sparse {
                p.jrow(i).dot(mj)
            } else {
                dense::dot(&p.J[i * nv..(i + 1) * nv], mj)
            };
            s.AR[i * n + j] = v;
            s.AR[j * n + i] = v;
        }
        if with_r {
            s.AR[i * n + i] += p.R[i];
        }
    }
}

/// One elliptic-contact block update at rows `adr..adr+dim`; returns the dual cost change.
fn elliptic_block<T: Scalar>(
    ar: &[T],
    n: usize,
    b: &[T],
    adr: usize,
    dim: usize,
    mu: &[T; 5],
    f: &mut [T],
) -> T {
    let z = T::zero();
    let half: T = sc(0.5);
    let mut res = [z; 6];
    let mut ac = [z; 36];
    for p in 0..dim {
        res[p] = dense::dot(&ar[(adr + p) * n..(adr + p + 1) * n], f) + b[adr + p];
        for q in 0..dim {
            ac[p * dim + q] = ar[(adr + p) * n + adr + q];
        }
    }
    let mut old = [z; 6];
    old[..dim].copy_from_slice(&f[adr..adr + dim]);
    let mut x = old;
    // 1. ray from the cone tip through the current force (normal-only update at the tip)
    if x[0] < sc(1e-15) {
        x[0] = (x[0] - res[0] / ac[0]).max(z);
        for v in x.iter_mut().take(dim).skip(1) {
            *v = z;
        }
    } else {
        let mut vav = z;
        let mut vr = z;
        for p in 0..dim {
            vr += x[p] * res[p];
            for q in 0..dim {
                vav += x[p] * ac[p * dim + q] * x[q];
            }
        }
        if vav > sc(1e-15) {
            let t = (-vr / vav).max(-T::one());
            for v in x.iter_mut().take(dim) {
                *v += t * *v;
            }
        }
    }
    // residual after the ray step
    let mut res1 = res;
    for p in 0..dim {
        for q in 0..dim {
            res1[p] += ac[p * dim + q] * (x[q] - old[q]);
        }
    }
    // 2. friction within the ellipse |x_j / (mu_j x_0)| <= 1
    if x[0] > z && dim > 1 {
        let m1 = dim - 1;
        let mut a = [z; 25];
        let mut bb = [z; 5];
        let mut r = [z; 5];
        for p in 0..m1 {
            r[p] = mu[p] * x[0];
            let mut v = res1[p + 1];
            for q in 0..m1 {
                a[p * m1 + q] = ac[(p + 1) * dim + q + 1];
                v -= a[p * m1 + q] * x[q + 1];
            }
            bb[p] = v;
        }
        let mut sol = [z; 5];
        qcqp(&a, &bb, &r, m1, &mut sol);
        x[1..(m1 + 1)].copy_from_slice(&sol[..m1]);
    }
    // cost change: Δᵀres + ½ΔᵀAcΔ
    let mut change = z;
    for p in 0..dim {
        let dp = x[p] - old[p];
        change += dp * res[p];
        for q in 0..dim {
            change += half * dp * ac[p * dim + q] * (x[q] - old[q]);
        }
    }
    f[adr..adr + dim].copy_from_slice(&x[..dim]);
    change
}
