//! Projected Gauss–Seidel on the dual problem ½fᵀ(A+R)f + fᵀb, f ∈ Ω (Computation "Dual problem"
//! and "Algorithms"), as MuJoCo 4.0.0 runs it (established against its binary, sweep by sweep;
//! the 3.x source sweeps the rows in order without momentum, 4.0.0 does not):
//!
//! - blocks: every scalar row (equality, friction loss, limit, frictionless contact, and each
//!   pyramidal edge on its own) and every elliptic contact (its `dim` rows together);
//! - each sweep visits the blocks in a pseudo-random order: the block list is shuffled in place
//!   before every sweep by a Fisher–Yates pass (for i = nblock … 2: swap entries i−1 and
//!   `r mod i`) with PCG32 (XSH-RR, multiplier 6364136223846793005, increment 1, state 1 at the
//!   start of every solve, i.e. per island), the order carried over from sweep to sweep;
//! - scalar rows: exact 1-D minimum, projected (friction loss on its box, equality free, the rest
//!   on f ≥ 0); an elliptic contact: first along the ray from the cone tip through the current
//!   force, then its friction forces within the ellipse sliced at the current normal force (a
//!   small QCQP solved by Newton on the Lagrange multiplier); a block update that raises the
//!   cost by more than 1e-10 is undone;
//! - Nesterov momentum with adaptive restart: before sweep t > 0, with β = (k−1)/(k+2) > 0,
//!   f ← Π(f + β (f − f_prev)) (Π: friction loss clamped, f ≥ 0, elliptic friction scaled into
//!   the cone, normal < 0 zeroes the contact), f_prev the force before the previous sweep's
//!   extrapolation; after the sweep k ← 0 if (f_new − y)·(y − f_prev) < 0 (y the extrapolated
//!   start), else k ← k + 1 (k starts at 0, so sweeps 0, 1 and the two after a restart have none);
//! - statistics per sweep: improvement (the dual cost decrease × 1/max(1e-15, trace M)),
//!   gradient = lineslope = 0, nactive and nchange of the dual state (equality and friction loss
//!   always active; f > 0; elliptic not in its top zone), neval = nupdate = 0; stop after the
//!   sweep whose improvement is below `tolerance`;
//! - the row states left behind: that dual state of the final forces (MuJoCo's `efc_state`
//!   after PGS). Checked by tests/engine/pgs_oracle.rs.

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use crate::data::scratch::{BRow, Problem, SolverScratch, B_CHUNK};
use crate::data::{ConstraintState, ConstraintType, EfcCone};
use crate::data::{SolverLog, SolverStat};
use crate::math::dense;
use crate::math::{sc, Scalar};
use crate::model::Model;
use crate::solver::problem::re;

/// Minimizes ½xᵀAx + xᵀb subject to Σ (x_j/d_j)² ≤ r² (n ≤ 5, d_j > 0) into `x`; returns
/// whether the constraint is active. In y = x/d: Newton on the multiplier λ of
/// φ(λ) = |y(λ)|² − r², y(λ) = −(DAD + λI)⁻¹Db, from λ = 0, stopping as MuJoCo 4.0.0's QCQP
/// does (φ < 1e-10, a Newton step below 1e-10, or 20 steps; a Cholesky pivot of DAD + λI
/// below 1e-10 gives x = 0, inactive); active iff λ ≠ 0. The result is not put on the
/// ellipse: the callers rescale it when active.
pub(super) fn qcqp<T: Scalar>(a: &[T], b: &[T], d: &[T], r: T, n: usize, x: &mut [T]) -> bool {
    let z = T::zero();
    let mut ap = [z; 25];
    let mut bp = [z; 5];
    for i in 0..n {
        bp[i] = b[i] * d[i];
        for j in 0..n {
            ap[i * n + j] = a[i * n + j] * d[i] * d[j];
        }
    }
    let mut lam = z;
    let mut y = [z; 5];
    let mut l = [z; 25];
    let small: T = sc(1e-10);
    for _ in 0..20 {
        l[..n * n].copy_from_slice(&ap[..n * n]);
        for i in 0..n {
            l[i * n + i] += lam;
        }
        // Cholesky with the 1e-10 pivot test
        for j in 0..n {
            for i in j..n {
                let mut v = l[i * n + j];
                for k in 0..j {
                    v -= l[i * n + k] * l[j * n + k];
                }
                if i == j {
                    if v < small {
                        x[..n].fill(z);
                        return false;
                    }
                    l[j * n + j] = v.sqrt();
                } else {
                    l[i * n + j] = v / l[j * n + j];
                }
            }
        }
        for i in 0..n {
            y[i] = -bp[i];
        }
        dense::chol_solve(&l[..n * n], n, &mut y[..n]);
        let val = dense::dot(&y[..n], &y[..n]) - r * r;
        if val < small {
            break;
        }
        // φ'(λ) = −2 yᵀ(DAD + λI)⁻¹y
        let mut w = y;
        dense::chol_solve(&l[..n * n], n, &mut w[..n]);
        let deriv = sc::<T>(-2.0) * dense::dot(&y[..n], &w[..n]);
        let delta = -val / deriv;
        if delta < small {
            break;
        }
        lam += delta;
    }
    for i in 0..n {
        x[i] = y[i] * d[i];
    }
    lam != z
}

/// MuJoCo 4.0.0's PGS random number generator: PCG32 (XSH-RR) with increment 1.
struct Pcg32(u64);

impl Pcg32 {
    fn next(&mut self) -> u32 {
        let old = self.0;
        self.0 = old.wrapping_mul(6364136223846793005).wrapping_add(1);
        let x = (((old >> 18) ^ old) >> 27) as u32;
        x.rotate_right((old >> 59) as u32)
    }
}

/// A sweep's statistics `(nactive, nchange)`: the dual state of `f` ([`dual_state`], into
/// `st`) against the previous sweep's `st_old`; the two are then swapped, so that `st_old`
/// holds this sweep's states.
pub(super) fn sweep_stats<T: Scalar>(
    ty: &[ConstraintType],
    frictionloss: &[T],
    cones: &[EfcCone<T>],
    n: usize,
    f: &[T],
    st: &mut Vec<ConstraintState>,
    st_old: &mut Vec<ConstraintState>,
) -> (usize, usize) {
    let nactive = dual_state(ty, frictionloss, cones, n, f, st);
    let nchange = st[..n]
        .iter()
        .zip(&st_old[..n])
        .filter(|(a, b)| a != b)
        .count();
    std::mem::swap(st, st_old);
    (nactive, nchange)
}

/// Dual constraint state of every row at forces `f` into `st` (MuJoCo's `dualState`); returns
/// the number of active rows.
pub(super) fn dual_state<T: Scalar>(
    ty: &[ConstraintType],
    frictionloss: &[T],
    cones: &[EfcCone<T>],
    n: usize,
    f: &[T],
    st: &mut [ConstraintState],
) -> usize {
    use ConstraintState as S;
    let z = T::zero();
    let (ty, f, st) = (&ty[..n], &f[..n], &mut st[..n]);
    let mut nactive = 0;
    let mut i = 0;
    let mut ci = 0;
    while i < n {
        match ty[i] {
            ConstraintType::Equality => {
                st[i] = S::Quadratic;
                nactive += 1;
            }
            ConstraintType::FrictionDof | ConstraintType::FrictionTendon => {
                let fl = frictionloss[i];
                st[i] = if f[i] <= -fl {
                    S::LinearPos
                } else if f[i] >= fl {
                    S::LinearNeg
                } else {
                    S::Quadratic
                };
                nactive += 1;
            }
            ConstraintType::ContactElliptic => {
                while cones[ci].adr != i {
                    ci += 1;
                }
                let c = &cones[ci];
                let dim = c.dim;
                // in the regular cone's coordinates: N = f0/mu, T = |f_j / friction_j|
                let nn = f[i] / c.mu;
                let mut tt = z;
                for j in 1..dim {
                    let v = f[i + j] / c.friction[j - 1];
                    tt += v * v;
                }
                let tt = tt.sqrt();
                let r = if c.mu * nn >= tt {
                    S::Satisfied
                } else if nn + c.mu * tt <= z {
                    S::Quadratic
                } else {
                    S::Cone
                };
                if r != S::Satisfied {
                    nactive += dim;
                }
                st[i..i + dim].fill(r);
                i += dim;
                continue;
            }
            _ => {
                if f[i] <= z {
                    st[i] = S::Satisfied;
                } else {
                    st[i] = S::Quadratic;
                    nactive += 1;
                }
            }
        }
        i += 1;
    }
    nactive
}

/// Projects `f` onto the feasible set Ω (after the momentum extrapolation).
fn project<T: Scalar>(p: &Problem<T>, blocks: &[(usize, usize)], f: &mut [T]) {
    let z = T::zero();
    for &(i, ci) in blocks {
        match p.ty[i] {
            ConstraintType::Equality => {}
            ConstraintType::FrictionDof | ConstraintType::FrictionTendon => {
                let fl = p.frictionloss[i];
                f[i] = if f[i] < -fl { -fl } else { f[i].min(fl) };
            }
            ConstraintType::ContactElliptic => {
                let c = &p.cone[ci];
                let dim = c.dim;
                if f[i] < z {
                    f[i..i + dim].fill(z);
                    continue;
                }
                let mut e = z;
                for j in 1..dim {
                    e += f[i + j] * f[i + j] / (c.friction[j - 1] * c.friction[j - 1]);
                }
                let nn = f[i] * f[i];
                if e > nn {
                    let k = (nn / e.max(sc(MINVAL))).sqrt();
                    for v in &mut f[i + 1..i + dim] {
                        *v *= k;
                    }
                }
            }
            _ => {
                if f[i] < z {
                    f[i] = z;
                }
            }
        }
    }
}

/// MuJoCo's mjMINVAL.
const MINVAL: f64 = 1e-15;

/// PGS solve of problem `p` from the start forces `p.force` (the global warm start, see
/// [`super::solve`]); returns the sweep count and appends the statistics to `stats`. Writes
/// `p.qacc = qacc_smooth + M⁻¹Jᵀf` and the dual state of the final forces into `p.state`.
pub(super) fn solve<T: Scalar>(
    m: &Model,
    p: &mut Problem<T>,
    s: &mut SolverScratch<T>,
    mut stats: Option<&mut SolverLog<'_>>,
) -> usize {
    let n = p.nefc;
    let z = T::zero();
    let half: T = sc(0.5);
    let tol: T = sc(m.opt.tolerance);
    let scale = T::one() / p.trace_m().max(sc(MINVAL));
    if !s.ar_valid {
        build_ar(p, s, true);
        s.ar_valid = true;
    }

    // blocks in row order: (first row, cone index of an elliptic contact or usize::MAX)
    s.pgs_block.clear();
    let mut i = 0;
    let mut ci = 0;
    while i < n {
        if p.ty[i] == ConstraintType::ContactElliptic {
            while p.cone[ci].adr != i {
                ci += 1;
            }
            s.pgs_block.push((i, ci));
            i += p.cone[ci].dim;
        } else {
            s.pgs_block.push((i, usize::MAX));
            i += 1;
        }
    }

    let mut f = std::mem::take(&mut p.force);
    // f before the last extrapolation, the sweep's start point, the dual states
    let mut prev = std::mem::take(&mut s.jv);
    let mut y = std::mem::take(&mut s.ftmp);
    let mut st_old = std::mem::take(&mut s.state_old);
    let mut st = std::mem::take(&mut s.stmp);
    dual_state(&p.ty, &p.frictionloss, &p.cone, n, &f, &mut st_old);
    let mut rng = Pcg32(1);
    let mut k: i64 = 0;
    let mut iter = 0;
    while iter < m.opt.iterations {
        let beta: T = if iter > 0 {
            sc((k - 1) as f64 / (k + 2) as f64)
        } else {
            z
        };
        if beta > z {
            for r in 0..n {
                let x = f[r];
                f[r] = beta * (x - prev[r]) + x;
                prev[r] = x;
            }
            project(p, &s.pgs_block, &mut f);
        } else {
            prev.copy_from_slice(&f);
        }
        y.copy_from_slice(&f);
        let nb = s.pgs_block.len();
        for j in (2..=nb).rev() {
            let r = rng.next() as usize % j;
            s.pgs_block.swap(j - 1, r);
        }

        let mut improvement = z;
        for &(i, ci) in &s.pgs_block {
            if ci != usize::MAX {
                let cone = &p.cone[ci];
                improvement -= elliptic_block(&s.AR, n, &p.b, i, cone.dim, &cone.friction, &mut f);
                continue;
            }
            let arow = &s.AR[i * n..(i + 1) * n];
            let res = dense::dot_mj(arow, &f) + p.b[i];
            let arinv = T::one() / arow[i];
            let old = f[i];
            let mut new = old - res * arinv;
            match p.ty[i] {
                ConstraintType::Equality => {}
                ConstraintType::FrictionDof | ConstraintType::FrictionTendon => {
                    let fl = p.frictionloss[i];
                    if new < -fl {
                        new = -fl;
                    } else if new > fl {
                        new = fl;
                    }
                }
                _ => {
                    if new < z {
                        new = z;
                    }
                }
            }
            let delta = new - old;
            let change = half * delta * delta * (T::one() / arinv) + delta * res;
            if change > sc(1e-10) {
                continue; // undone
            }
            f[i] = new;
            improvement -= change;
        }

        let (nactive, nchange) =
            sweep_stats(&p.ty, &p.frictionloss, &p.cone, n, &f, &mut st, &mut st_old);
        let improvement = improvement * scale;
        if let Some(stv) = stats.as_deref_mut() {
            stv.push(SolverStat {
                improvement: re(improvement),
                nactive,
                nchange,
                ..Default::default()
            });
        }
        // adaptive restart of the momentum
        let mut dir = z;
        if iter > 0 {
            for r in 0..n {
                dir += (f[r] - y[r]) * (y[r] - prev[r]);
            }
        }
        if iter > 0 && dir < z {
            k = 0;
        } else {
            k += 1;
        }
        iter += 1;
        if improvement < tol {
            break;
        }
    }
    s.jv = prev;
    s.ftmp = y;
    s.state_old = st_old;
    s.stmp = st;

    // qacc = qacc_smooth + M⁻¹ Jᵀ f; the row states: the dual state of the final forces (what
    // MuJoCo 4.0.0 leaves in efc_state after PGS, islands on or off)
    qacc_from_force(p, s, &f);
    dual_state(&p.ty, &p.frictionloss, &p.cone, n, &f, &mut p.state);
    p.force = f;
    iter
}

/// The rows of B = J L⁻¹ D^(−1/2) into `s.B` (by groups of rows with the same ancestor
/// closure, each group's closure ascending in `s.B_colind`, each row's addresses in
/// `s.B_row`: see [`SolverScratch::B`]), with M = Lᵀ D L the problem's tree factor (`qLD`,
/// `qLDiagInv`), so that A = J M⁻¹ Jᵀ = B Bᵀ. Row i of B is D^(−1/2) L⁻ᵀ J_iᵀ: the first half
/// of the tree solve, which only moves values from a dof to its ancestors, so the row's
/// nonzeros are on the ancestor closure of J_i's columns (a contact: its bodies' root paths),
/// not on all of the problem's dofs. The projection of `mj_projectConstraint` (MuJoCo's
/// computational pipeline: A through M's sparse factor), with no dense M.
///
/// Nothing to do when `s.b_valid` (B is that of `p`'s position part already); sets it.
#[inline(never)]
pub(super) fn build_b<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    if s.b_valid {
        return;
    }
    s.b_valid = true;
    s.noslip_a_valid = false;
    let (nv, n) = (p.nv, p.nefc);
    let z = T::zero();
    s.bmark.clear();
    s.bmark.resize(nv, false);
    // D^(−1/2) once per dof
    s.bscale.clear();
    s.bscale.extend(p.qLDiagInv[..nv].iter().map(|&d| d.sqrt()));
    if p.J_sparse {
        // the groups, their closures and B's layout depend only on J's row structure and
        // the tree (RK4's four solves of a step usually share them): formed again only when
        // those changed
        if !b_key(p, s, false) {
            b_key(p, s, true);
            b_layout(p, s);
        }
        // the work space by dof (zero between chunks)
        s.bgrp.clear();
        s.bgrp.resize(nv * B_CHUNK, z);
        let mut i = 0;
        while i < n {
            i += b_group_values(p, s, i);
        }
    } else {
        // the key describes a compressed-row J only
        s.B_key.clear();
        s.B.clear();
        s.B_colind.clear();
        s.B_row.clear();
        s.bwork.clear();
        s.bwork.resize(nv, z);
        for i in 0..n {
            build_b_dense_row(p, s, i);
        }
    }
}

/// The inputs of [`b_layout`] in one list in `s.B_key`: the sizes, each dof's parent (the
/// tree, and with it the factor's layout `Madr`, `Mcol`), each row's nonzero count and
/// columns. `write`: stores them (returns true); otherwise returns whether the stored list
/// equals them, i.e. the layout in `s` is this problem's.
fn b_key<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>, write: bool) -> bool {
    let (nv, n) = (p.nv, p.nefc);
    let cols = |r: usize| {
        let a = p.J_rowadr[r];
        &p.J_colind[a..a + p.J_rownnz[r]]
    };
    let parents = &p.parentid[..nv];
    let key = &mut s.B_key;
    if write {
        key.clear();
        key.extend([nv, n]);
        key.extend(parents.iter().map(|&q| (q + 1) as usize));
        key.extend_from_slice(&p.J_rownnz[..n]);
        for r in 0..n {
            key.extend_from_slice(cols(r));
        }
        return true;
    }
    // the sizes come first, so lists of different lengths differ before either ends
    if key.len() < 2 + nv + n || key[0] != nv || key[1] != n {
        return false;
    }
    let (kp, rest) = key[2..].split_at(nv);
    let (knnz, mut kcols) = rest.split_at(n);
    if !kp.iter().zip(parents).all(|(&a, &q)| a == (q + 1) as usize) || knnz != &p.J_rownnz[..n] {
        return false;
    }
    for r in 0..n {
        let c = cols(r);
        if kcols.len() < c.len() || kcols[..c.len()] != *c {
            return false;
        }
        kcols = &kcols[c.len()..];
    }
    kcols.is_empty()
}

/// B's layout for a compressed-row J (`build_b`): the groups of consecutive rows whose
/// columns have the same ancestor closure (a contact's rows; a contact with the world, whose
/// frame is the world's axes, gives exact zeros on a free joint's translations, so its rows'
/// columns differ while their closure does not), each closure ascending in `s.B_colind`, and
/// each row's `BRow`. `s.B` is sized to hold every group's entries.
#[inline(never)]
fn b_layout<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    let n = p.nefc;
    let jcols = |r: usize| {
        let a = p.J_rowadr[r];
        &p.J_colind[a..a + p.J_rownnz[r]]
    };
    s.B_colind.clear();
    s.B_row.clear();
    // the rows' groups and closures, `m` and `val` set below
    let mut prev: Option<(usize, usize, usize)> = None; // (first row, col, ncol)
    let mut i = 0;
    while i < n {
        let cols = jcols(i);
        let mut m = 1;
        while i + m < n && jcols(i + m) == cols {
            m += 1;
        }
        // the ancestor closure of the columns, ascending, at `adr` in `B_colind`: the
        // columns themselves when they hold their parents (a body's dof chain)
        let adr = s.B_colind.len();
        for &c in cols {
            s.bmark[c] = true;
        }
        let closed = cols
            .iter()
            .all(|&c| usize::try_from(p.parentid[c]).map_or(true, |pc| s.bmark[pc]));
        if closed {
            s.B_colind.extend_from_slice(cols);
        } else {
            for &c in cols {
                let mut k = p.parentid[c];
                s.B_colind.push(c);
                while k >= 0 && !s.bmark[k as usize] {
                    s.bmark[k as usize] = true;
                    s.B_colind.push(k as usize);
                    k = p.parentid[k as usize];
                }
            }
            s.B_colind[adr..].sort_unstable();
        }
        for &k in &s.B_colind[adr..] {
            s.bmark[k] = false;
        }
        let l = s.B_colind.len() - adr;
        // the previous group has the same closure: these rows join it
        let (first, col) = match prev {
            Some((g, pc, pl)) if pl == l && s.B_colind[pc..pc + l] == s.B_colind[adr..] => {
                s.B_colind.truncate(adr);
                (g, pc)
            }
            _ => (i, adr),
        };
        prev = Some((first, col, l));
        for _ in 0..m {
            s.B_row.push(BRow {
                val: 0,
                col,
                ncol: l,
                m: 0,
                group: first,
            });
        }
        i += m;
    }
    // the groups' entries one after another, a column's entries of the group's rows side by
    // side
    let mut val = 0;
    let mut g = 0;
    while g < n {
        let mut m = 1;
        while g + m < n && s.B_row[g + m].group == g {
            m += 1;
        }
        for (r, b) in s.B_row[g..g + m].iter_mut().enumerate() {
            b.val = val + r;
            b.m = m;
        }
        val += m * s.B_row[g].ncol;
        g += m;
    }
    s.B.clear();
    s.B.resize(val, T::zero());
}

/// The rows of B of the group starting at row `i` (`build_b`, layout by [`b_layout`]);
/// returns its row count. The rows go through `Lᵀ x = J_iᵀ` together, up to [`B_CHUNK`] at a
/// time, in a work array by dof with the rows side by side (`s.bgrp`, zero outside a chunk):
/// each row sees the same operations in the same order as alone (they do not interact), so
/// every entry of B is the one-row elimination's.
fn b_group_values<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>, i: usize) -> usize {
    let g = s.B_row[i];
    let (m, l) = (g.m, g.ncol);
    let cl = &s.B_colind[g.col..g.col + l];
    let b = &mut s.B[g.val..g.val + m * l];
    let (w, scale) = (&mut s.bgrp, &s.bscale);
    let mut r0 = 0;
    while r0 < m {
        let mc = (m - r0).min(B_CHUNK);
        // scatter the chunk's rows of J: entry (dof k, r) at k·mc + r
        for r in 0..mc {
            let a = p.J_rowadr[i + r0 + r];
            let e = a + p.J_rownnz[i + r0 + r];
            for (&c, &v) in p.J_colind[a..e].iter().zip(&p.J[a..e]) {
                w[c * mc + r] = v;
            }
        }
        match mc {
            1 => eliminate::<T, 1>(p, cl, w, scale, b, m, r0),
            2 => eliminate::<T, 2>(p, cl, w, scale, b, m, r0),
            3 => eliminate::<T, 3>(p, cl, w, scale, b, m, r0),
            4 => eliminate::<T, 4>(p, cl, w, scale, b, m, r0),
            5 => eliminate::<T, 5>(p, cl, w, scale, b, m, r0),
            6 => eliminate::<T, 6>(p, cl, w, scale, b, m, r0),
            7 => eliminate::<T, 7>(p, cl, w, scale, b, m, r0),
            _ => eliminate::<T, B_CHUNK>(p, cl, w, scale, b, m, r0),
        }
        r0 += mc;
    }
    m
}

/// `Lᵀ x = J_iᵀ` for `M` rows `r0..r0 + M` of a group side by side (`w`: entry (dof k, r) at
/// `k·M + r`) on the group's closure `cl`: deepest dof first, row k of L lists k's ancestors,
/// all in the closure; a row whose x_k is zero skips k, as alone. x_k is final once k is
/// reached (its descendants come after it), so it then goes to B scaled by `scale[k]` =
/// D_k^(−1/2) (`b`: the group's entries, (closure position t, row r) at `t·m + r`) and its
/// work entries are zeroed again.
#[inline(always)]
fn eliminate<T: Scalar, const M: usize>(
    p: &Problem<T>,
    cl: &[usize],
    w: &mut [T],
    scale: &[T],
    b: &mut [T],
    m: usize,
    r0: usize,
) {
    let z = T::zero();
    let nm = p.qLD.len();
    for (t, &k) in cl.iter().enumerate().rev() {
        let src: &mut [T; M] = (&mut w[k * M..(k + 1) * M]).try_into().unwrap();
        let xs = *src;
        *src = [z; M];
        let a = p.Madr[k] + 1;
        let e = p.Madr.get(k + 1).copied().unwrap_or(nm);
        let (lv, lc) = (&p.qLD[a..e], &p.Mcol[a..e]);
        if xs.iter().all(|&x| x != z) {
            for (&lv, &cv) in lv.iter().zip(lc) {
                let d = cv * M;
                let dst: &mut [T; M] = (&mut w[d..d + M]).try_into().unwrap();
                for r in 0..M {
                    dst[r] -= lv * xs[r];
                }
            }
        } else {
            for r in 0..M {
                let x = xs[r];
                if x == z {
                    continue;
                }
                for (&lv, &cv) in lv.iter().zip(lc) {
                    w[cv * M + r] -= lv * x;
                }
            }
        }
        let sk = scale[k];
        let dst: &mut [T; M] = (&mut b[t * m + r0..t * m + r0 + M]).try_into().unwrap();
        for r in 0..M {
            dst[r] = xs[r] * sk;
        }
    }
}

/// The row of B from the dense row `i` of J (`build_b`), a group of its own.
fn build_b_dense_row<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>, i: usize) {
    let nv = p.nv;
    let z = T::zero();
    // a dual entry with a zero value may carry a derivative: only f64 zeros are structural
    let f64s = std::any::TypeId::of::<T>() == std::any::TypeId::of::<f64>();
    let nm = p.qLD.len();
    let adr = s.B_colind.len();
    let row = p.jrow(i);
    // deepest dof first (parents come before their children): a dof is in the closure when
    // J_i has it or one of its children is in it; collected descending, then put in
    // ascending order
    let mark = &mut s.bmark[..nv];
    let work = &mut s.bwork[..nv];
    for (c, &v) in row.vals[..nv].iter().enumerate().rev() {
        if v != z || !f64s {
            work[c] = v;
            mark[c] = true;
        }
        if mark[c] {
            s.B_colind.push(c);
            if let Ok(pc) = usize::try_from(p.parentid[c]) {
                debug_assert!(pc < c);
                mark[pc] = true;
            }
        }
    }
    s.B_colind[adr..].reverse();
    let cols = &s.B_colind[adr..];
    s.B_row.push(BRow {
        val: s.B.len(),
        col: adr,
        ncol: cols.len(),
        m: 1,
        group: i,
    });
    // Lᵀ x = J_iᵀ on the closure, deepest dof first: row k of L lists k's ancestors
    for &k in cols.iter().rev() {
        s.bmark[k] = false;
        let xk = s.bwork[k];
        if xk == z {
            continue;
        }
        let a = p.Madr[k];
        let e = p.Madr.get(k + 1).copied().unwrap_or(nm);
        for (&lv, &cv) in p.qLD[a + 1..e].iter().zip(&p.Mcol[a + 1..e]) {
            s.bwork[cv] -= lv * xk;
        }
    }
    let (work, scale) = (&mut s.bwork, &s.bscale);
    s.B.extend(cols.iter().map(|&k| work[k] * scale[k]));
    for &k in cols {
        work[k] = z;
    }
}

/// Row `i` of [`build_b`]: its columns, its entries from the first on (the t-th at `t·m`)
/// and `m`.
#[inline]
fn b_row<T>(s: &SolverScratch<T>, i: usize) -> (&[usize], &[T], usize) {
    let r = s.B_row[i];
    // a group of rows without columns (J's rows all zero) holds no entries: its rows' `val`
    // may lie past the end of B
    let v = if r.ncol == 0 { &[][..] } else { &s.B[r.val..] };
    (&s.B_colind[r.col..r.col + r.ncol], v, r.m)
}

/// The entries of the group of row `i` of [`build_b`] (a column's `m` entries after another)
/// and the row's place in its group.
#[inline]
fn b_panel<T>(s: &SolverScratch<T>, i: usize) -> (&[T], usize) {
    let b = s.B_row[i];
    let r = i - b.group;
    let start = b.val - r;
    (&s.B[start..start + b.ncol * b.m], r)
}

/// `B_i · B_j` of two rows of [`build_b`] (their common columns, in ascending order). Two rows
/// of one group (the same columns) pair their entries in order, as the merge would.
#[inline]
pub(super) fn b_dot<T: Scalar>(s: &SolverScratch<T>, i: usize, j: usize) -> T {
    let (ca, va, ma) = b_row(s, i);
    let (cb, vb, mb) = b_row(s, j);
    let mut acc = T::zero();
    if s.B_row[i].group == s.B_row[j].group {
        for t in 0..ca.len() {
            acc += va[t * ma] * vb[t * mb];
        }
        return acc;
    }
    let (mut x, mut y) = (0, 0);
    while x < ca.len() && y < cb.len() {
        match ca[x].cmp(&cb[y]) {
            std::cmp::Ordering::Less => x += 1,
            std::cmp::Ordering::Greater => y += 1,
            std::cmp::Ordering::Equal => {
                acc += va[x * ma] * vb[y * mb];
                x += 1;
                y += 1;
            }
        }
    }
    acc
}

/// `B_i · y` for a row of [`build_b`] and a dense `y` (nv).
#[inline]
pub(super) fn b_dot_dense<T: Scalar>(s: &SolverScratch<T>, i: usize, y: &[T]) -> T {
    let (cols, v, m) = b_row(s, i);
    let mut acc = T::zero();
    if m == 1 {
        for (&v, &c) in v.iter().zip(cols) {
            acc += v * y[c];
        }
    } else {
        let (panel, r) = b_panel(s, i);
        for (e, &c) in panel.chunks_exact(m).zip(cols) {
            acc += e[r] * y[c];
        }
    }
    acc
}

/// `y += f B_iᵀ` for a row of [`build_b`].
#[inline]
pub(super) fn b_axpy<T: Scalar>(s: &SolverScratch<T>, i: usize, f: T, y: &mut [T]) {
    let (cols, v, m) = b_row(s, i);
    if m == 1 {
        for (&v, &c) in v.iter().zip(cols) {
            y[c] += v * f;
        }
    } else {
        let (panel, r) = b_panel(s, i);
        for (e, &c) in panel.chunks_exact(m).zip(cols) {
            y[c] += e[r] * f;
        }
    }
}

/// `s.AR = J M⁻¹ Jᵀ (+ diag(R) if `with_r`)` of problem `p` (dense n × n) from the rows of B
/// ([`build_b`]): an entry is B_i · B_j over the columns the two rows share, in ascending
/// column order (the merge of their column lists), zero for two rows with no common dof
/// (different trees).
///
/// By pairs of groups of rows (a contact's rows share their columns): with the first group's
/// columns' positions marked by dof (`s.bpos`), one pass over the second group's columns
/// finds the shared ones in ascending order and adds the products of their entries, blocks of
/// up to 4 × 4 rows at a time in registers (B holds a column's entries of a group's rows side
/// by side). Every entry adds the same products in the same order, from zero, as the merge of
/// its two rows, so A is the rowwise merge's bit for bit; a block is written to both
/// triangles.
#[inline(never)]
pub(super) fn build_ar<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>, with_r: bool) {
    let (n, nv) = (p.nefc, p.nv);
    build_b(p, s);
    // every entry is written below (zeros for two groups without a common column)
    s.AR.resize(n * n, T::zero());
    s.bpos.clear();
    s.bpos.resize(nv, NONE);
    let (ar, b, pos) = (&mut s.AR[..n * n], &s.B, &mut s.bpos);
    let mut g0 = 0;
    while g0 < n {
        let x = s.B_row[g0];
        let xcols = &s.B_colind[x.col..x.col + x.ncol];
        for (t, &c) in xcols.iter().enumerate() {
            pos[c] = t;
        }
        let mut h0 = 0;
        while h0 <= g0 {
            let y = s.B_row[h0];
            let ycols = &s.B_colind[y.col..y.col + y.ncol];
            let mut r0 = 0;
            while r0 < x.m {
                let ra = (x.m - r0).min(4);
                let xp = Panel {
                    val: x.val + r0,
                    m: x.m,
                };
                let mut q0 = 0;
                while q0 < y.m {
                    let rb = (y.m - q0).min(4);
                    let yp = Panel {
                        val: y.val + q0,
                        m: y.m,
                    };
                    let (i0, j0) = (g0 + r0, h0 + q0);
                    macro_rules! blk {
                        ($($x:literal $y:literal),*) => {
                            match (ra, rb) {
                                $(($x, $y) => put(ar, n, i0, j0,
                                    &block::<T, $x, $y>(b, pos, xp, ycols, yp)),)*
                                _ => unreachable!(),
                            }
                        };
                    }
                    blk!(1 1, 1 2, 1 3, 1 4, 2 1, 2 2, 2 3, 2 4, 3 1, 3 2, 3 3, 3 4, 4 1, 4 2, 4 3, 4 4);
                    q0 += rb;
                }
                r0 += ra;
            }
            h0 += y.m;
        }
        for &c in xcols {
            pos[c] = NONE;
        }
        g0 += x.m;
    }
    if with_r {
        for i in 0..n {
            ar[i * n + i] += p.R[i];
        }
    }
}

/// No column position (`build_ar`'s `bpos`).
const NONE: usize = usize::MAX;

/// Rows of a group of rows of B: the address of their first entry and the group's row count
/// (the stride of a row's entries).
#[derive(Clone, Copy)]
struct Panel {
    val: usize,
    m: usize,
}

/// The `RA × RB` products of the `RA` rows of panel `x` (column positions by dof in `pos`)
/// and the `RB` rows of panel `y` (columns `ycols`) over their shared columns, each a sum
/// from zero in ascending column order.
#[inline(always)]
fn block<T: Scalar, const RA: usize, const RB: usize>(
    b: &[T],
    pos: &[usize],
    x: Panel,
    ycols: &[usize],
    y: Panel,
) -> [[T; RB]; RA] {
    let mut acc = [[T::zero(); RB]; RA];
    for (tb, &c) in ycols.iter().enumerate() {
        let ta = pos[c];
        if ta == NONE {
            continue;
        }
        let xa = x.val + ta * x.m;
        let xs: [T; RA] = b[xa..xa + RA].try_into().unwrap();
        let ya = y.val + tb * y.m;
        let ys: [T; RB] = b[ya..ya + RB].try_into().unwrap();
        for r in 0..RA {
            for q in 0..RB {
                acc[r][q] += xs[r] * ys[q];
            }
        }
    }
    acc
}

/// Writes a block of A with its first entry at (i0, j0), and its transpose.
#[inline(always)]
fn put<T: Scalar, const RA: usize, const RB: usize>(
    ar: &mut [T],
    n: usize,
    i0: usize,
    j0: usize,
    v: &[[T; RB]; RA],
) {
    for r in 0..RA {
        let row: &mut [T; RB] = (&mut ar[(i0 + r) * n + j0..][..RB]).try_into().unwrap();
        *row = v[r];
    }
    for q in 0..RB {
        let col: &mut [T; RA] = (&mut ar[(j0 + q) * n + i0..][..RA]).try_into().unwrap();
        for r in 0..RA {
            col[r] = v[r][q];
        }
    }
}

/// `qacc = qacc_smooth + M⁻¹ Jᵀ f` of problem `p` (`s.tmp` as work space).
pub(super) fn qacc_from_force<T: Scalar>(p: &mut Problem<T>, s: &mut SolverScratch<T>, f: &[T]) {
    p.mul_jt(f, &mut s.tmp);
    p.solve_m(&mut s.tmp);
    for ((q, &a0), &u) in p.qacc.iter_mut().zip(&p.qacc_smooth).zip(&s.tmp) {
        *q = a0 + u;
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
        res[p] = dense::dot_mj(&ar[(adr + p) * n..(adr + p + 1) * n], f) + b[adr + p];
        for q in 0..dim {
            ac[p * dim + q] = ar[(adr + p) * n + adr + q];
        }
    }
    let mut old = [z; 6];
    old[..dim].copy_from_slice(&f[adr..adr + dim]);
    let mut x = old;
    // 1. ray from the cone tip through the current force (normal-only update at the tip)
    let minval: T = sc(MINVAL);
    if x[0] < minval {
        x[0] = (x[0] - res[0] * (T::one() / ac[0])).max(z);
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
        if vav >= minval {
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
    // 2. friction within the ellipse |x_j / (mu_j x_0)| <= 1 (zero below mjMINVAL)
    if x[0] < minval {
        for v in x.iter_mut().take(dim).skip(1) {
            *v = z;
        }
    } else if dim > 1 {
        let m1 = dim - 1;
        let mut a = [z; 25];
        let mut bb = [z; 5];
        for p in 0..m1 {
            let mut v = res1[p + 1];
            for q in 0..m1 {
                a[p * m1 + q] = ac[(p + 1) * dim + q + 1];
                v -= a[p * m1 + q] * x[q + 1];
            }
            bb[p] = v;
        }
        let mut sol = [z; 5];
        if qcqp(&a, &bb, mu, x[0], m1, &mut sol) {
            // on the ellipse exactly
            let mut e = z;
            for q in 0..m1 {
                e += sol[q] * sol[q] / (mu[q] * mu[q]);
            }
            let k = (x[0] * x[0] / e.max(minval)).sqrt();
            for v in sol.iter_mut().take(m1) {
                *v *= k;
            }
        }
        x[1..(m1 + 1)].copy_from_slice(&sol[..m1]);
    }
    // cost change: Δᵀres + ½ΔᵀAcΔ; an increase above 1e-10 is undone
    let mut change = z;
    for p in 0..dim {
        let dp = x[p] - old[p];
        change += dp * res[p];
        for q in 0..dim {
            change += half * dp * ac[p * dim + q] * (x[q] - old[q]);
        }
    }
    if change > sc(1e-10) {
        return z;
    }
    f[adr..adr + dim].copy_from_slice(&x[..dim]);
    change
}
