//! The noslip post-pass (MuJoCo's `mj_solNoSlip`; `noslip_iterations`, `noslip_tolerance`):
//! after the main solver, projected Gauss–Seidel sweeps on the dual problem without
//! regularization, ½fᵀAf + fᵀb with A = J M⁻¹ Jᵀ (no R), over the friction forces only; the
//! equality, limit and normal forces keep the main solver's values. Per island with islands on
//! (MuJoCo 4.0.0), on the whole system otherwise.
//!
//! One sweep, in row order:
//! - friction-loss rows: exact 1-D minimum clamped to [−frictionloss, frictionloss];
//! - pyramidal contacts: each pair of opposing edges (2k, 2k+1) keeps its sum (hence the normal
//!   force) and minimizes over the split, f = mid ± y with |y| ≤ mid;
//! - elliptic contacts: the friction components minimize the 2..5-dim quadratic inside the
//!   ellipse Σ (f_j/μ_j)² ≤ f_n² at the fixed normal force f_n (raw friction coefficients μ_j),
//!   put on the ellipse when the constraint is active; zero when f_n < 1e-15.
//!
//! A block update that would increase the cost by more than 1e-10 is undone. Improvement of a
//! sweep: the dual cost decrease (the first sweep also counts ½Σ R_i f_i², the removal of the
//! regularization), times 1/trace(M) of the island; the pass stops when it falls below
//! `noslip_tolerance` or after `noslip_iterations` sweeps. Its sweeps are appended to the
//! island's statistics (improvement, and nactive / nchange of the dual state as for PGS) and
//! counted in `solver_niter`. Unlike PGS in 4.0.0, the noslip sweeps go in row order without
//! momentum (checked against MuJoCo 4.0.0, tests/engine/pgs_oracle.rs and tests/engine/noslip_oracle.rs). Finally
//! `qacc = qacc_smooth + M⁻¹Jᵀf` and the row states are the dual state of the final forces.

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use super::pgs::{
    b_axpy, b_dot, b_dot_dense, build_b, dual_state, qacc_from_force, qcqp, sweep_stats,
};
use crate::data::scratch::{Problem, SolverScratch};
use crate::data::{ConstraintState, ConstraintType, SolverLog, SolverStat};
use crate::math::{sc, Scalar};
use crate::solver::problem::re;

use crate::model::Model;

/// MuJoCo's mjMINVAL.
const MINVAL: f64 = 1e-15;

/// Cost change ½δᵀAδ + δᵀres of a block update (`a`: n × n); undoes the update (returns 0) if
/// the change is above 1e-10.
fn cost_change<T: Scalar>(a: &[T], f: &mut [T], old: &[T], res: &[T], n: usize) -> T {
    let mut c = T::zero();
    for p in 0..n {
        let dp = f[p] - old[p];
        c += dp * res[p];
        for q in 0..n {
            c += sc::<T>(0.5) * dp * a[p * n + q] * (f[q] - old[q]);
        }
    }
    if c > sc(1e-10) {
        f[..n].copy_from_slice(&old[..n]);
        c = T::zero();
    }
    c
}

/// Noslip pass on problem `p` (the main solver's `p.force` on entry); returns the sweep count
/// and appends the statistics to `stats`. Updates `p.force`, `p.qacc`, `p.state`.
///
/// A = J M⁻¹ Jᵀ = B Bᵀ through the sparse rows of B ([`build_b`]): a row's residual
/// (A f + b)_i is B_i · y + b_i with y = Bᵀ f (nv), kept up to date as the forces change, and
/// the blocks' entries of A are the rows' sparse dot products, so a sweep costs the rows'
/// nonzeros, not nefc² (no dense A).
pub(super) fn solve<T: Scalar>(
    m: &Model,
    p: &mut Problem<T>,
    s: &mut SolverScratch<T>,
    stats: Option<&mut SolverLog<'_>>,
) -> usize {
    let n = p.nefc;
    let z = T::zero();
    build_b(p, s);
    // dual states (MuJoCo's dualState) for the statistics nactive, nchange
    let mut st_old = std::mem::take(&mut s.state_old);
    let mut st = std::mem::take(&mut s.stmp);
    dual_state(&p.ty, &p.frictionloss, &p.cone, n, &p.force, &mut st_old);
    // y = Bᵀ f
    let mut y = std::mem::take(&mut s.bres);
    y.clear();
    y.resize(p.nv, z);
    for i in 0..n {
        let fi = p.force[i];
        if fi != z {
            b_axpy(s, i, fi, &mut y);
        }
    }
    let mut blocks = std::mem::take(&mut s.noslip_a);
    let formed = s.noslip_a_valid;
    let iter = sweeps(
        m,
        p,
        s,
        &mut y,
        &mut blocks,
        formed,
        &mut st,
        &mut st_old,
        stats,
    );
    s.noslip_a = blocks;
    // the entries depend on B only: a later pass on the same B (a step that skipped the
    // position stage, `crate::solver::solve_skip`) reads them back
    s.noslip_a_valid = true;
    s.bres = y;
    s.state_old = st_old;
    s.stmp = st;
    // qacc = qacc_smooth + M⁻¹ Jᵀ f; the row states: the dual state of the final forces (as
    // MuJoCo 4.0.0's noslip leaves efc_state)
    let f = std::mem::take(&mut p.force);
    qacc_from_force(p, s, &f);
    p.force = f;
    dual_state(&p.ty, &p.frictionloss, &p.cone, n, &p.force, &mut p.state);
    iter
}

/// The sweeps of [`solve`] from `y = Bᵀ f`; returns their count. The blocks' entries of A
/// (fixed during the pass) are formed in the first sweep and kept in `blocks`, in the order the
/// sweep visits them (which depends on the rows' types and cones only); the later sweeps read
/// them back, and so do all sweeps when `formed` (`blocks` holds them for the current B).
#[allow(clippy::too_many_arguments)]
fn sweeps<T: Scalar>(
    m: &Model,
    p: &mut Problem<T>,
    s: &SolverScratch<T>,
    y: &mut [T],
    blocks: &mut Vec<T>,
    formed: bool,
    st: &mut Vec<ConstraintState>,
    st_old: &mut Vec<ConstraintState>,
    mut stats: Option<&mut SolverLog<'_>>,
) -> usize {
    let n = p.nefc;
    let z = T::zero();
    let half: T = sc(0.5);
    let minval: T = sc(MINVAL);
    let scale = T::one() / p.trace_m();
    let f = &mut p.force;
    let resid = |y: &[T], i: usize| b_dot_dense(s, i, y) + p.b[i];
    // y += Bᵀ (f − old) over rows `i0..i0 + k`
    let push = |y: &mut [T], f: &[T], old: &[T], i0: usize, k: usize| {
        for q in 0..k {
            let dq = f[i0 + q] - old[q];
            if dq != z {
                b_axpy(s, i0 + q, dq, y);
            }
        }
    };

    if !formed {
        blocks.clear();
    }
    let mut iter = 0;
    while iter < m.opt.noslip_iterations {
        // the entries of A of the blocks: computed in the first sweep, then read back
        let first = iter == 0 && !formed;
        let mut cur = 0;
        let mut entry = |blocks: &mut Vec<T>, i: usize, j: usize| {
            let v = if first {
                let v = b_dot(s, i, j);
                blocks.push(v);
                v
            } else {
                blocks[cur]
            };
            cur += 1;
            v
        };
        let mut improvement = z;
        if iter == 0 {
            for i in 0..n {
                improvement += half * f[i] * f[i] * p.R[i];
            }
        }
        let mut i = 0;
        let mut ci = 0;
        while i < n {
            match p.ty[i] {
                ConstraintType::FrictionDof | ConstraintType::FrictionTendon => {
                    let res = resid(y, i);
                    let old = f[i];
                    let aii = entry(blocks, i, i);
                    let fl = p.frictionloss[i];
                    f[i] = (old - res / aii).max(-fl).min(fl);
                    let delta = f[i] - old;
                    improvement -= half * delta * delta * aii + delta * res;
                    push(y, f, &[old], i, 1);
                    i += 1;
                }
                ConstraintType::ContactPyramidal | ConstraintType::ContactElliptic => {
                    while p.cone[ci].adr != i {
                        ci += 1;
                    }
                    let cone = p.cone[ci];
                    if p.ty[i] == ConstraintType::ContactPyramidal {
                        let mut j = i;
                        while j < i + cone.nrow {
                            let res = [resid(y, j), resid(y, j + 1)];
                            let old = [f[j], f[j + 1]];
                            let a01 = entry(blocks, j, j + 1);
                            let a00 = entry(blocks, j, j);
                            let ac = [a00, a01, a01, entry(blocks, j + 1, j + 1)];
                            let bc = [
                                res[0] - ac[0] * old[0] - ac[1] * old[1],
                                res[1] - ac[2] * old[0] - ac[3] * old[1],
                            ];
                            let mid = half * (old[0] + old[1]);
                            let k1 = ac[0] + ac[3] - ac[1] - ac[2];
                            let k0 = mid * (ac[0] - ac[3]) + bc[0] - bc[1];
                            if k1 < minval {
                                f[j] = mid;
                                f[j + 1] = mid;
                            } else {
                                let y = -k0 / k1;
                                if y < -mid {
                                    f[j] = z;
                                    f[j + 1] = mid + mid;
                                } else if y > mid {
                                    f[j] = mid + mid;
                                    f[j + 1] = z;
                                } else {
                                    f[j] = mid + y;
                                    f[j + 1] = mid - y;
                                }
                            }
                            improvement -= cost_change(&ac, &mut f[j..j + 2], &old, &res, 2);
                            push(y, f, &old, j, 2);
                            j += 2;
                        }
                    } else {
                        let m1 = cone.dim - 1;
                        let mut res = [z; 5];
                        let mut old = [z; 5];
                        let mut ac = [z; 25];
                        for q in 0..m1 {
                            res[q] = resid(y, i + 1 + q);
                            old[q] = f[i + 1 + q];
                        }
                        let mut bc = res;
                        for q in 0..m1 {
                            for r in 0..m1 {
                                ac[q * m1 + r] = if r < q {
                                    ac[r * m1 + q]
                                } else {
                                    entry(blocks, i + 1 + q, i + 1 + r)
                                };
                                bc[q] -= ac[q * m1 + r] * old[r];
                            }
                        }
                        let fnorm = f[i];
                        if fnorm < minval {
                            for q in 0..m1 {
                                f[i + 1 + q] = z;
                            }
                        } else {
                            let mut v = [z; 5];
                            if qcqp(&ac, &bc, &cone.friction, fnorm, m1, &mut v) {
                                // on the ellipse exactly
                                let mut e = z;
                                for q in 0..m1 {
                                    e += v[q] * v[q] / (cone.friction[q] * cone.friction[q]);
                                }
                                let k = (fnorm * fnorm / e.max(minval)).sqrt();
                                for x in v.iter_mut().take(m1) {
                                    *x *= k;
                                }
                            }
                            f[i + 1..i + 1 + m1].copy_from_slice(&v[..m1]);
                        }
                        improvement -= cost_change(&ac, &mut f[i + 1..i + 1 + m1], &old, &res, m1);
                        push(y, f, &old, i + 1, m1);
                    }
                    i += cone.nrow;
                }
                _ => i += 1,
            }
        }
        let (nactive, nchange) = sweep_stats(&p.ty, &p.frictionloss, &p.cone, n, f, st, st_old);
        let improvement = improvement * scale;
        iter += 1;
        if let Some(stv) = stats.as_deref_mut() {
            stv.push(SolverStat {
                improvement: re(improvement),
                nactive,
                nchange,
                ..Default::default()
            });
        }
        if improvement < sc(m.opt.noslip_tolerance) {
            break;
        }
    }
    iter
}
