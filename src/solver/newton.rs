//! Newton's method on the reduced primal problem (Computation "Algorithms";
//! docs/mujoco-behaviour.md#newton): the Hessian H = M + Jᵀ diag(D·[QUADRATIC]) J + Σ_cones Jcᵀ
//! H_cone Jc, factored as `Lᵀ D L` eliminating the last dof first. When every active row has its
//! nonzeros on one root path of the dof tree (contacts with the world, joint limits:
//! `Problem::row_leaf`), H has M's tree sparsity and is built, factored
//! ([`crate::smooth::crb::factor_tree`]), updated and solved in M's tree-sparse layout
//! (`SolverScratch::Ht`), like `mj_factorM`. Otherwise (contacts between two chains or trees, dual
//! numbers) the choice is MuJoCo's: on the general sparse pattern of H ([`hsparse`]) when the
//! model's constraint Jacobian is sparse (`opt.jacobian` "sparse", or "auto" from 60 dofs:
//! `mj_isSparse`, docs/mujoco-behaviour.md#defaults; `Problem::sparse_model`), else densely
//! ([`dense::ldl_factor_rev`], which skips the zeros). All three build H with the same sums in the
//! same order; MuJoCo factors H by Cholesky, so they differ from it in round-off only. The loop itself (line search, statistics, stopping) is shared with CG in
//! `primal.rs`.

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use super::hsparse;
use crate::data::scratch::{HessianEntry, Problem, SolverScratch};
use crate::data::{ConstraintState, ConstraintType, CONE_H};
use crate::math::{dense, Scalar};

/// Rows with at most this many nonzeros take the sparse path in [`hessian`].
const SPARSE_MAX: usize = 48;

/// Builds H from the problem's current states and cone Hessians and factors it: tree-sparse
/// in `s.Ht` when [`tree_leaf`] allows it for every active row and cone (`s.H_tree`), else
/// sparse in `s.Hs` when the model's Jacobian is sparse (`s.H_sparse`), else dense in `s.H`.
/// Solve with [`solve_h`].
///
/// In a solve that reuses the problem's position part (`s.hcache_on`: a step that skipped the
/// position stage, as the finite-difference Jacobians' velocity and control perturbations do),
/// the factor is a function of the rows' states alone unless an elliptic cone is in its cone
/// zone (whose Hessian depends on the point): the last [`HCACHE`] factors are kept in
/// `p.hcache` by their states and read there when the states recur (`s.H_kept`), bit for bit
/// what the build gives. [`update_hessian`] keeps its results there too, by the factor they
/// were updated from and the new states.
pub fn hessian<T: Scalar>(p: &mut Problem<T>, s: &mut SolverScratch<T>) {
    let keep = s.hcache_on
        && !p.cone.iter().any(|c| {
            p.ty[c.adr] == ConstraintType::ContactElliptic
                && p.state[c.adr] == ConstraintState::Cone
        });
    s.H_kept = None;
    if keep {
        if let Some(k) = p.hcache[..p.hcache_n]
            .iter()
            .position(|e| e.parent.is_none() && e.state[..] == p.state[..])
        {
            // read where it is kept: copied out only if an update changes it
            borrow(p, s, k, false);
            return;
        }
    }
    s.H_tree = tree_ok(p);
    s.H_sparse = !s.H_tree && p.sparse_model && p.J_sparse;
    if s.H_tree {
        hessian_tree(p, s);
    } else if s.H_sparse {
        p.hsym();
        hsparse::hessian(p, s);
    } else {
        hessian_dense(p, s);
    }
    if keep {
        keep_factor(p, s, None);
    }
}

/// Reads the factor of `p.hcache[k]` from there ([`solve_h`]); `here`: the scratch's arrays
/// hold it too.
fn borrow<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>, k: usize, here: bool) {
    let e = &p.hcache[k];
    (s.H_tree, s.H_sparse) = (e.tree, e.sparse);
    s.H_kept = Some((k, here));
}

/// Stores the factor in the scratch's arrays in `p.hcache` for the current states, built
/// (`parent` None) or updated from the factor of entry `parent.0` of generation `parent.1`,
/// and reads it from there (the scratch's arrays hold it too).
fn keep_factor<T: Scalar>(
    p: &mut Problem<T>,
    s: &mut SolverScratch<T>,
    parent: Option<(usize, u64)>,
) {
    let k = p.hcache_next;
    if k == p.hcache.len() {
        p.hcache.push(HessianEntry {
            state: Vec::new(),
            tree: false,
            sparse: false,
            h: Vec::new(),
            dinv: Vec::new(),
            gen: 0,
            parent: None,
        });
    }
    p.hcache_next = (k + 1) % HCACHE;
    p.hcache_n = (p.hcache_n + 1).min(HCACHE);
    let e = &mut p.hcache[k];
    e.gen += 1;
    e.parent = parent;
    e.state.clear();
    e.state.extend_from_slice(&p.state);
    (e.tree, e.sparse) = (s.H_tree, s.H_sparse);
    let h = if s.H_tree {
        &s.Ht
    } else if s.H_sparse {
        &s.Hs
    } else {
        &s.H
    };
    e.h.clear();
    e.h.extend_from_slice(h);
    e.dinv.clear();
    if s.H_tree {
        e.dinv.extend_from_slice(&s.Hdinv);
    }
    borrow(p, s, k, true);
}

/// The factored Hessians [`hessian`] and [`update_hessian`] keep per problem.
const HCACHE: usize = 8;

/// `x ← H⁻¹ x` for `x = s.Mgrad` with the factor of [`hessian`] / [`update_hessian`].
pub fn solve_h<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    let kept = s.H_kept.map(|(k, _)| &p.hcache[k]);
    if s.H_tree {
        let (h, dinv) = kept.map_or((&s.Ht, &s.Hdinv), |e| (&e.h, &e.dinv));
        crate::smooth::crb::solve_tree_col(&p.Madr, &p.Mcol, h, dinv, &mut s.Mgrad);
    } else if s.H_sparse {
        let h = kept.map_or(&s.Hs, |e| &e.h);
        hsparse::solve(&p.hpat, h, p.nv, &mut s.Mgrad);
    } else {
        let h = kept.map_or(&s.H, |e| &e.h);
        dense::ldl_solve_rev(h, p.nv, &mut s.Mgrad);
    }
}

/// Brings a factor read from `p.hcache` ([`hessian`], `s.H_kept`) into the scratch's arrays
/// (unless they hold it), where [`update_hessian`] changes it.
fn take_kept<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    let Some((k, here)) = s.H_kept.take() else {
        return;
    };
    if here {
        return;
    }
    let e = &p.hcache[k];
    let h = if e.tree {
        s.Hdinv.clear();
        s.Hdinv.extend_from_slice(&e.dinv);
        &mut s.Ht
    } else if e.sparse {
        &mut s.Hs
    } else {
        &mut s.H
    };
    h.clear();
    h.extend_from_slice(&e.h);
}

/// The root path shared by the rows `adr..adr + n`: its deepest dof, `-1` if they are all
/// zero, `None` if they are not on one path (every row's own path must end at that dof or at
/// one of its ancestors: a contact's normal and friction rows may stop at different depths).
fn tree_leaf<T>(p: &Problem<T>, adr: usize, n: usize) -> Option<i32> {
    let rows = &p.row_leaf[adr..adr + n];
    let mut leaf = -1;
    for &l in rows {
        if l == -2 {
            return None;
        }
        leaf = leaf.max(l);
    }
    for &l in rows {
        if l >= 0 && l != leaf {
            // dofs are numbered parents first: walk up from the deepest to `l`'s depth
            let mut k = leaf;
            while k > l {
                k = p.parentid[k as usize];
            }
            if k != l {
                return None;
            }
        }
    }
    Some(leaf)
}

/// Every QUADRATIC row, and every elliptic cone in its cone zone, lies on one root path.
fn tree_ok<T: Scalar>(p: &Problem<T>) -> bool {
    for i in 0..p.nefc {
        if p.state[i] == ConstraintState::Quadratic && p.row_leaf[i] == -2 {
            return false;
        }
    }
    p.cone.iter().all(|c| {
        p.ty[c.adr] != ConstraintType::ContactElliptic
            || p.state[c.adr] != ConstraintState::Cone
            || tree_leaf(p, c.adr, c.dim).is_some()
    })
}

/// The root path of dof `leaf` (deepest first): its row of M's tree-sparse layout.
fn root_path<T>(p: &Problem<T>, leaf: i32) -> &[usize] {
    let a = p.Madr[leaf as usize];
    let e = p
        .Madr
        .get(leaf as usize + 1)
        .copied()
        .unwrap_or(p.Mcol.len());
    &p.Mcol[a..e]
}

/// The values of row `i` of J on `path` (a root path, deepest first, holding the row's
/// nonzeros) into `out`; returns the length of the path's prefix that holds them all (the
/// entries past it, beyond the shallowest nonzero, are zero and left unwritten).
fn path_vals<T: Scalar>(p: &Problem<T>, i: usize, path: &[usize], out: &mut [T]) -> usize {
    let z = T::zero();
    let len = path.len();
    let out = &mut out[..len];
    if !p.J_sparse {
        let row = &p.J[i * p.nv..(i + 1) * p.nv];
        for (o, &c) in out.iter_mut().zip(path) {
            *o = row[c];
        }
        return out
            .iter()
            .rposition(|&v| !crate::math::exact_zero(v))
            .map_or(0, |x| x + 1);
    }
    // the row's columns descending against the path (deepest first): a merge
    let (a, n) = (p.J_rowadr[i], p.J_rownnz[i]);
    let (vals, cols) = (&p.J[a..a + n], &p.J_colind[a..a + n]);
    let mut x = 0;
    for (&v, &c) in vals.iter().zip(cols).rev() {
        if crate::math::exact_zero(v) {
            continue;
        }
        while x < len && path[x] != c {
            out[x] = z;
            x += 1;
        }
        if x == len {
            break;
        }
        out[x] = v;
        x += 1;
    }
    x
}

/// `H[a, b] += (w vp[a]) vq[b]` for every dof `a` on `path` (a root path, deepest first) and
/// every `b` on `a`'s root path (`b ≤ a`; H in M's tree-sparse layout with row addresses
/// `madr`), with `vp`, `vq` the two rows' values on the path, nonzero only in their first
/// `np`, `nq` entries. Row `a` of the layout holds `a` and its ancestors, i.e. the rest of the
/// path, so each `a` is one contiguous update; the pairs left out would add exact zeros.
#[allow(clippy::too_many_arguments)]
fn add_path<T: Scalar>(
    h: &mut [T],
    madr: &[usize],
    path: &[usize],
    vp: &[T],
    np: usize,
    vq: &[T],
    nq: usize,
    w: T,
) {
    let vq = &vq[..nq];
    for x in 0..np.min(nq) {
        let ja = vp[x] * w;
        if crate::math::exact_zero(ja) {
            continue;
        }
        let adr = madr[path[x]];
        crate::math::dense::add_scaled(&mut h[adr..adr + nq - x], &vq[x..], ja);
    }
}

/// Rows gathered into one [`add_group`] (`SolverScratch::rowbuf` holds 6 rows).
const GROUP: usize = 6;

/// `H[a, b] += Σ_k (w_k v_k[a]) v_k[b]` over the rows `k` of a group on one root `path`
/// (deepest first), `v_k` = `buf[k len..]` (`len` = path length) nonzero in its first `cnt[k]`
/// entries (the entries up to the longest are zeroed here). Per entry of H the rows' terms are
/// added in row order, each the product [`add_path`] forms, so H equals row-by-row updates
/// (up to the sign of an exact zero: a term `0·v` that [`add_path`] skips is added here), with
/// one pass over each entry instead of one per row.
fn add_group<T: Scalar>(
    h: &mut [T],
    madr: &[usize],
    path: &[usize],
    buf: &mut [T],
    cnt: &[usize],
    w: &[T],
) {
    let len = path.len();
    let n = cnt.iter().copied().max().unwrap_or(0);
    for (k, &ck) in cnt.iter().enumerate() {
        buf[k * len + ck..k * len + n].fill(T::zero());
    }
    match cnt.len() {
        1 => group_rows::<T, 1>(h, madr, path, buf, n, w),
        2 => group_rows::<T, 2>(h, madr, path, buf, n, w),
        3 => group_rows::<T, 3>(h, madr, path, buf, n, w),
        4 => group_rows::<T, 4>(h, madr, path, buf, n, w),
        5 => group_rows::<T, 5>(h, madr, path, buf, n, w),
        6 => group_rows::<T, 6>(h, madr, path, buf, n, w),
        _ => {}
    }
}

/// [`add_group`] for `G` rows, each with `n` values on the path.
fn group_rows<T: Scalar, const G: usize>(
    h: &mut [T],
    madr: &[usize],
    path: &[usize],
    buf: &[T],
    n: usize,
    w: &[T],
) {
    let len = path.len();
    let rows: [&[T]; G] = std::array::from_fn(|k| &buf[k * len..k * len + n]);
    for x in 0..n {
        let ja: [T; G] = std::array::from_fn(|k| rows[k][x] * w[k]);
        let adr = madr[path[x]];
        for (y, e) in h[adr..adr + n - x].iter_mut().enumerate() {
            let mut hy = *e;
            for k in 0..G {
                hy += ja[k] * rows[k][x + y];
            }
            *e = hy;
        }
    }
}

/// `H[a, b] += Σ_p Σ_q (hc[p, q] v_p[a]) v_q[b]` for the `D` rows of an elliptic cone on one
/// root `path` (deepest first; `v_p` = `buf[p len..]`, `len` = path length, nonzero in its
/// first `cnt[p]` entries, zeroed here up to the longest, `n`), `hc` the cone's D × D Hessian.
/// Per entry of H the terms are added in the order and with the products of one [`add_path`]
/// per pair (p, q), p-major, so H equals those pair-by-pair updates (up to the sign of an
/// exact zero: a term `0·v` that [`add_path`] skips is added here), with one pass over each
/// entry instead of D².
fn cone_rows<T: Scalar, const D: usize>(
    h: &mut [T],
    madr: &[usize],
    path: &[usize],
    buf: &mut [T],
    cnt: &[usize],
    n: usize,
    hc: &[T],
) {
    let len = path.len();
    for (k, &ck) in cnt[..D].iter().enumerate() {
        buf[k * len + ck..k * len + n].fill(T::zero());
    }
    let rows: [&[T]; D] = std::array::from_fn(|k| &buf[k * len..k * len + n]);
    let hc = &hc[..D * D];
    for x in 0..n {
        let ja: [[T; D]; D] =
            std::array::from_fn(|p| std::array::from_fn(|q| rows[p][x] * hc[p * D + q]));
        let adr = madr[path[x]];
        for (y, e) in h[adr..adr + n - x].iter_mut().enumerate() {
            let mut hy = *e;
            for p in 0..D {
                for q in 0..D {
                    hy += ja[p][q] * rows[q][x + y];
                }
            }
            *e = hy;
        }
    }
}

/// H in M's tree-sparse layout (every active row on one root path): the same sums as
/// [`hessian_dense`] (a pair off the path adds exact zeros there), then the tree LᵀDL.
fn hessian_tree<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    s.Ht.clear();
    s.Ht.extend_from_slice(&p.qM);
    let adds = |i: usize| p.state[i] == ConstraintState::Quadratic && p.row_leaf[i] >= 0;
    let mut i = 0;
    while i < p.nefc {
        if !adds(i) {
            i += 1;
            continue;
        }
        // a group: this row and the next rows that add to H on the same root path (a
        // contact's pyramid rows), skipping the rows that add nothing, at most GROUP
        let leaf = p.row_leaf[i];
        let path = root_path(p, leaf);
        let len = path.len();
        let mut cnt = [0usize; GROUP];
        let mut w = [T::zero(); GROUP];
        let mut g = 0;
        while i < p.nefc && g < GROUP {
            if adds(i) {
                if p.row_leaf[i] != leaf {
                    break;
                }
                cnt[g] = path_vals(p, i, path, &mut s.rowbuf[g * len..(g + 1) * len]);
                w[g] = p.D[i];
                g += 1;
            }
            i += 1;
        }
        add_group(&mut s.Ht, &p.Madr, path, &mut s.rowbuf, &cnt[..g], &w[..g]);
    }
    for (c, cone) in p.cone.iter().enumerate() {
        let adr = cone.adr;
        if p.ty[adr] != ConstraintType::ContactElliptic || p.state[adr] != ConstraintState::Cone {
            continue;
        }
        let dim = cone.dim;
        let leaf = match tree_leaf(p, adr, dim) {
            Some(l) if l >= 0 => l,
            _ => continue,
        };
        let path = root_path(p, leaf);
        let len = path.len();
        // the path values of the cone's rows, one after the other
        let mut cnt = [0usize; 6];
        for (k, ck) in cnt[..dim].iter_mut().enumerate() {
            *ck = path_vals(p, adr + k, path, &mut s.rowbuf[k * len..(k + 1) * len]);
        }
        let hc = &s.cone_H[c * CONE_H..c * CONE_H + dim * dim];
        let n = cnt[..dim].iter().copied().max().unwrap_or(0);
        match dim {
            3 => cone_rows::<T, 3>(&mut s.Ht, &p.Madr, path, &mut s.rowbuf, &cnt, n, hc),
            4 => cone_rows::<T, 4>(&mut s.Ht, &p.Madr, path, &mut s.rowbuf, &cnt, n, hc),
            6 => cone_rows::<T, 6>(&mut s.Ht, &p.Madr, path, &mut s.rowbuf, &cnt, n, hc),
            _ => {
                for pp in 0..dim {
                    for qq in 0..dim {
                        let w = hc[pp * dim + qq];
                        if crate::math::exact_zero(w) {
                            continue;
                        }
                        let vp = &s.rowbuf[pp * len..(pp + 1) * len];
                        let vq = &s.rowbuf[qq * len..(qq + 1) * len];
                        add_path(&mut s.Ht, &p.Madr, path, vp, cnt[pp], vq, cnt[qq], w);
                    }
                }
            }
        }
    }
    crate::smooth::crb::factor_tree(&p.Madr, &p.parentid, &mut s.Ht, &mut s.Hdinv);
}

/// The most dofs [`cone_dense_block`] handles (its columns in one bit mask).
const CONE_BLOCK_MAX: usize = 64;

/// The update of [`hessian_dense`] by an elliptic cone's `dim` rows from `adr` with Hessian
/// `hc` (`H[a, b] += Σ_p Σ_q (hc[p, q] J[p, a]) J[q, b]`, `b ≤ a`), for rows that the gather
/// compressed from a dense J (`Problem::J_sparse` without `Problem::sparse_model`: a stored
/// value is never an exact zero, so "stored" and "nonzero" agree). The rows' values are laid
/// out on the union of their columns (`buf`, `dim` rows of that width, zero where a row has no
/// entry); per entry of H the terms are added in the order and with the products of the
/// pair-by-pair loop over the compressed rows (pairs `(p, q)` p-major, a pair with `hc[p, q]
/// = 0` skipped, a term with `hc[p, q] J[p, a] = 0` or no `J[q, b]` skipped), so H is the
/// same bit for bit, with one pass over each entry instead of `dim²` passes over the rows.
/// Returns false (nothing done) for rows that are not compressed or span more than
/// [`CONE_BLOCK_MAX`] dofs.
fn cone_dense_block<T: Scalar>(
    p: &Problem<T>,
    adr: usize,
    dim: usize,
    hc: &[T],
    h: &mut [T],
    buf: &mut [T],
) -> bool {
    let nv = p.nv;
    if !p.J_sparse || nv > CONE_BLOCK_MAX || !matches!(dim, 3 | 4 | 6) || buf.len() < dim * nv {
        return false;
    }
    // the union of the rows' columns, ascending
    let mut mask = 0u64;
    for r in adr..adr + dim {
        let (a, n) = (p.J_rowadr[r], p.J_rownnz[r]);
        for &c in &p.J_colind[a..a + n] {
            mask |= 1u64 << c;
        }
    }
    let mut cols = [0usize; CONE_BLOCK_MAX];
    let mut k = 0;
    let mut bits = mask;
    while bits != 0 {
        cols[k] = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        k += 1;
    }
    let cols = &cols[..k];
    // each row's values on the union's columns
    for (q, r) in (adr..adr + dim).enumerate() {
        let (a, n) = (p.J_rowadr[r], p.J_rownnz[r]);
        let (rc, rv) = (&p.J_colind[a..a + n], &p.J[a..a + n]);
        let out = &mut buf[q * k..(q + 1) * k];
        let mut t = 0;
        for (o, &c) in out.iter_mut().zip(cols) {
            if t < n && rc[t] == c {
                *o = rv[t];
                t += 1;
            } else {
                *o = T::zero();
            }
        }
    }
    let v = &buf[..dim * k];
    match dim {
        3 => cone_block::<T, 3>(v, cols, hc, h, nv),
        4 => cone_block::<T, 4>(v, cols, hc, h, nv),
        6 => cone_block::<T, 6>(v, cols, hc, h, nv),
        _ => unreachable!(),
    }
    true
}

/// [`cone_dense_block`]'s update for `D` rows `v` (`D` rows of `cols.len()` values). Where
/// every term of an entry is added (no zero factor among them, the common case: a contact's
/// rows share their columns) the sum runs without the per-term tests, in the same order.
fn cone_block<T: Scalar, const D: usize>(
    v: &[T],
    cols: &[usize],
    hc: &[T],
    h: &mut [T],
    nv: usize,
) {
    let k = cols.len();
    let hc = &hc[..D * D];
    let rows: [&[T]; D] = std::array::from_fn(|q| &v[q * k..(q + 1) * k]);
    for (x, &a) in cols.iter().enumerate() {
        let mut ja = [[T::zero(); D]; D];
        let mut on = [[false; D]; D];
        let mut all = true;
        for pp in 0..D {
            let vp = rows[pp][x];
            for qq in 0..D {
                let w = hc[pp * D + qq];
                let j = vp * w;
                ja[pp][qq] = j;
                on[pp][qq] = !crate::math::exact_zero(w) && !crate::math::exact_zero(j);
                all &= on[pp][qq];
            }
        }
        let ha = &mut h[a * nv..a * nv + a + 1];
        for (y, &b) in cols[..=x].iter().enumerate() {
            let vy: [T; D] = std::array::from_fn(|qq| rows[qq][y]);
            let nz: [bool; D] = std::array::from_fn(|qq| !crate::math::exact_zero(vy[qq]));
            let mut hy = ha[b];
            if all && nz.iter().all(|&t| t) {
                for jp in &ja {
                    for qq in 0..D {
                        hy += jp[qq] * vy[qq];
                    }
                }
            } else if all {
                for jp in &ja {
                    for qq in 0..D {
                        if nz[qq] {
                            hy += jp[qq] * vy[qq];
                        }
                    }
                }
            } else {
                for pp in 0..D {
                    for qq in 0..D {
                        if on[pp][qq] && nz[qq] {
                            hy += ja[pp][qq] * vy[qq];
                        }
                    }
                }
            }
            ha[b] = hy;
        }
    }
}

/// Dense H in `s.H`, factored by [`dense::ldl_factor_rev`]. Only its lower triangle is built
/// and read (the build, the factor, its solve and rank-1 updates touch columns `0..=k` of row
/// `k` only).
fn hessian_dense<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    let nv = p.nv;
    s.H.resize(nv * nv, T::zero());
    let h = &mut s.H;
    p.dense_m_lower(h);
    let j = &p.J;
    for i in 0..p.nefc {
        if p.state[i] != ConstraintState::Quadratic {
            continue;
        }
        let di = p.D[i];
        if p.J_sparse {
            // compressed row: the pairs of its pattern (ascending columns)
            let (ra, rn) = (p.J_rowadr[i], p.J_rownnz[i]);
            let (cols, vals) = (&p.J_colind[ra..ra + rn], &p.J[ra..ra + rn]);
            for (x, (&a, &va)) in cols.iter().zip(vals).enumerate() {
                let ja = va * di;
                if crate::math::exact_zero(ja) {
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
            if !crate::math::exact_zero(ra) {
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
                if crate::math::exact_zero(ja) {
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
            if crate::math::exact_zero(ja) {
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
        if !p.sparse_model && cone_dense_block(p, adr, dim, hc, h, &mut s.rowbuf) {
            continue;
        }
        // tmp = Hc Jc (dim x nv), accumulated row by row into H's lower triangle
        for p in 0..dim {
            for q in 0..dim {
                let w = hc[p * dim + q];
                if crate::math::exact_zero(w) {
                    continue;
                }
                if let (Some(cp), Some(cq)) = (pr.jrow(adr + p).cols, pr.jrow(adr + q).cols) {
                    // compressed rows: pairs (a, b ≤ a) of the two patterns
                    let (vp, vq) = (pr.jrow(adr + p).vals, pr.jrow(adr + q).vals);
                    for (&a, &ra) in cp.iter().zip(vp) {
                        let ja = ra * w;
                        if crate::math::exact_zero(ja) {
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
                    if crate::math::exact_zero(ja) {
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

/// Brings the factored Hessian up to date after the states moved from `old` to `p.state`
/// (docs/mujoco-behaviour.md#newton: MuJoCo updates its factor by rank-1 up/downdates per row that
/// entered or left QUADRATIC). Nothing to do when no row changed; rank-1 updates of `sqrt(D_i) J_i`
/// ([`rank1_tree`] on the tree-sparse factor, [`dense::ldl_rank1_rev`] on the dense one) for up to
/// nv changed rows (the nv bound, against nv/6, takes humanoid −2.1%, walker −1.5%, hopper −1.1%
/// step instructions; its round-off can tip the hopper MPC's iLQR into "regularization exceeded its
/// maximum", so `moreau_optim::mpc::IlqrMpc` falls back on its shifted plan when a solve fails); a
/// full rebuild when elliptic cones are in their cone zone (their Hessians change with the point),
/// when more than nv rows changed, or when a downdate would lose positive definiteness. A row off
/// one root path that enters a tree-sparse factor does not rebuild H: the tree factor is laid
/// out where [`hessian`] would build H for such rows (on the general pattern in a sparse model,
/// [`hsparse::from_tree`], else densely, `tree_to_dense`) and updated there, as MuJoCo updates
/// its factor by the rows that change; the sparse and the dense layout then take the same
/// operations, so a sparse model and its dense twin still agree bit for bit.
pub fn update_hessian<T: Scalar>(p: &mut Problem<T>, s: &mut SolverScratch<T>, nupdate: usize) {
    let nv = p.nv;
    let cones = p.cone.iter().any(|c| {
        p.ty[c.adr] == ConstraintType::ContactElliptic
            && (p.state[c.adr] == ConstraintState::Cone
                || s.state_old[c.adr] == ConstraintState::Cone)
    });
    if cones || nupdate > nv {
        hessian(p, s);
        return;
    }
    // a factor read from the kept ones: this update's result may be kept too
    let from = s.H_kept.map(|(k, _)| (k, p.hcache[k].gen));
    // the update below goes from the rows that are QUADRATIC in `state_old` to those of
    // `p.state`, so the factor it starts from must be that of `state_old`: the kept entry's
    // states (the key of its result) have the same QUADRATIC rows, up to rows of J that are
    // zero (a tree-sparse factor skips them, leaving the entry as it was)
    debug_assert!(from.is_none_or(|(k, _)| quadratic_rows_agree(
        p,
        &p.hcache[k].state,
        &s.state_old[..p.nefc]
    )));
    if let Some(from) = from {
        if let Some(k) = p.hcache[..p.hcache_n]
            .iter()
            .position(|e| e.parent == Some(from) && e.state[..] == p.state[..])
        {
            borrow(p, s, k, false);
            return;
        }
    }
    let mut updated = false;
    for i in 0..p.nefc {
        let (o, n) = (s.state_old[i], p.state[i]);
        let (oq, nq) = (
            o == ConstraintState::Quadratic,
            n == ConstraintState::Quadratic,
        );
        if oq == nq {
            continue;
        }
        let leaf = p.row_leaf[i];
        if s.H_tree && leaf < 0 {
            if leaf == -1 {
                continue; // a zero row changes nothing
            }
            // the tree factor laid out where `hessian` would build H for these rows (on the
            // general pattern in a sparse model, else dense) and updated there, as MuJoCo
            // updates its factor by the rows that change (no rebuild)
            take_kept(p, s);
            if p.sparse_model && p.J_sparse {
                p.hsym();
                if !hsparse::from_tree(&p.hpat, &p.Madr, &p.Mcol, &s.Ht, &mut s.Hs, nv) {
                    hessian(p, s);
                    return;
                }
                (s.H_tree, s.H_sparse) = (false, true);
            } else {
                tree_to_dense(p, s);
                (s.H_tree, s.H_sparse) = (false, false);
            }
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
        take_kept(p, s);
        updated = true;
        let ok = if s.H_tree {
            rank1_tree(
                &p.Madr,
                &p.parentid,
                &mut s.Ht,
                &mut s.Hdinv,
                &mut s.tmp,
                leaf,
                nq,
            )
        } else if s.H_sparse {
            hsparse::rank1(&p.hpat, &mut s.Hs, nv, &mut s.tmp, nq)
        } else {
            dense::ldl_rank1_rev(&mut s.H, nv, &mut s.tmp, nq)
        };
        if !ok {
            hessian(p, s);
            return;
        }
    }
    // the update is a function of the factor it started from (its states: the old ones), the
    // rows that changed and their D and J, which the kept position part fixes
    if let (Some(from), true) = (from, updated) {
        keep_factor(p, s, Some(from));
    }
}

/// Whether states `a` and `b` have the same rows in QUADRATIC, rows of J that are zero
/// (`row_leaf` -1) aside: two such state vectors give the same factored Hessian
/// ([`update_hessian`]'s precondition on the factor it starts from).
fn quadratic_rows_agree<T>(p: &Problem<T>, a: &[ConstraintState], b: &[ConstraintState]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).enumerate().all(|(i, (&x, &y))| {
            (x == ConstraintState::Quadratic) == (y == ConstraintState::Quadratic)
                || p.row_leaf.get(i) == Some(&-1)
        })
}

/// Lays the tree-sparse factor in `s.Ht` ([`crate::smooth::crb::factor_tree`]'s layout) out
/// densely in `s.H` ([`dense::ldl_factor_rev`]'s: row k's multipliers of the dofs below it, then
/// its D on the diagonal), exact zeros where the tree has no entry: the factor of the same H.
fn tree_to_dense<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    let nv = p.nv;
    let nm = s.Ht.len();
    s.H.clear();
    s.H.resize(nv * nv, T::zero());
    for k in 0..nv {
        // row k of the tree layout: k (its D), then its ancestors
        let (m0, m1) = (p.Madr[k], p.Madr.get(k + 1).copied().unwrap_or(nm));
        for (&c, &v) in p.Mcol[m0..m1].iter().zip(&s.Ht[m0..m1]) {
            s.H[k * nv + c] = v;
        }
    }
}

/// [`dense::ldl_rank1_rev`] on a tree-sparse factor ([`crate::smooth::crb::factor_tree`]'s layout, 1/D
/// in `dinv`) for a `w` that vanishes off the root path of `leaf`: the same operations in the
/// same order (the path's dofs, deepest first; each updates its ancestors only, so `w` stays
/// on the path and L gets no fill-in).
fn rank1_tree<T: Scalar>(
    madr: &[usize],
    parent: &[i32],
    ld: &mut [T],
    dinv: &mut [T],
    w: &mut [T],
    leaf: i32,
    up: bool,
) -> bool {
    let mut alpha: T = if up { T::one() } else { -T::one() };
    let mut k = leaf;
    while k >= 0 {
        let ku = k as usize;
        k = parent[ku];
        let pk = w[ku];
        if crate::math::exact_zero(pk) {
            continue;
        }
        let a = madr[ku];
        let dk = ld[a];
        let dbar = dk + alpha * pk * pk;
        if dbar <= T::zero() {
            return false;
        }
        let beta = pk * alpha / dbar;
        alpha = alpha * dk / dbar;
        ld[a] = dbar;
        dinv[ku] = T::one() / dbar;
        let mut adr = a;
        let mut i = k;
        while i >= 0 {
            let iu = i as usize;
            adr += 1;
            w[iu] -= pk * ld[adr];
            ld[adr] += beta * w[iu];
            i = parent[iu];
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replaces the problem's dense J by the same rows compressed (MuJoCo's sparse layout);
    /// returns the dense J.
    fn compress_rows(p: &mut Problem<f64>) -> Vec<f64> {
        let nv = p.nv;
        let dense_j = std::mem::take(&mut p.J);
        for i in 0..p.nefc {
            p.J_rowadr.push(p.J.len());
            for c in 0..nv {
                let v = dense_j[i * nv + c];
                if v != 0.0 {
                    p.J.push(v);
                    p.J_colind.push(c);
                }
            }
            p.J_rownnz.push(p.J.len() - p.J_rowadr[i]);
        }
        p.J_sparse = true;
        dense_j
    }

    /// A 7-dof tree (chain 0-1-2, branches 3-4 and 5-6 from 2) with an SPD M, three rows: on the
    /// root path of dof 4, on that of dof 6, and one coupling 4 and 6 (not on one path).
    fn problem() -> (Problem<f64>, SolverScratch<f64>, Vec<f64>) {
        let parent = [-1i32, 0, 1, 2, 3, 2, 5];
        let nv = parent.len();
        let mut p = Problem::<f64> {
            nv,
            ..Default::default()
        };
        let mut dense_m = vec![0.0; nv * nv];
        for a in 0..nv {
            p.Madr.push(p.qM.len());
            let mut b = a as i32;
            while b >= 0 {
                let bu = b as usize;
                let v = if bu == a {
                    4.0 + a as f64
                } else {
                    0.3 / (1.0 + (a + bu) as f64)
                };
                p.qM.push(v);
                p.Mcol.push(bu);
                dense_m[a * nv + bu] = v;
                dense_m[bu * nv + a] = v;
                b = parent[bu];
            }
        }
        p.parentid = parent.to_vec();
        let rows: [[f64; 7]; 3] = [
            [0.5, -1.0, 0.7, 0.2, 1.1, 0.0, 0.0],
            [-0.3, 0.8, 0.4, 0.0, 0.0, -0.9, 0.6],
            [0.0, 0.0, 0.0, 0.0, 0.7, 0.0, -1.2],
        ];
        p.nefc = rows.len();
        p.J = rows.iter().flatten().copied().collect();
        p.D = vec![2.0, 3.0, 1.5];
        p.ty = vec![ConstraintType::LimitJoint; 3];
        p.state = vec![ConstraintState::Satisfied; 3];
        p.leaves();
        assert_eq!(p.row_leaf, [4, 6, -2]);
        let mut s = SolverScratch::new(nv, p.qM.len());
        s.resize_nv(nv);
        s.resize(3, 0);
        (p, s, dense_m)
    }

    /// [`update_hessian`]'s precondition on a kept factor: the states agree on the rows in
    /// QUADRATIC, other changes (LINEAR_NEG to LINEAR_POS) and rows of J that are zero aside.
    #[test]
    fn kept_factor_states_agree_on_quadratic_rows() {
        use ConstraintState::*;
        let (mut p, _, _) = problem();
        let a = [Quadratic, Satisfied, LinearNeg];
        let agree = |p: &Problem<f64>, b: &[ConstraintState]| quadratic_rows_agree(p, &a, b);
        assert!(agree(&p, &a));
        assert!(agree(&p, &[Quadratic, Satisfied, LinearPos]));
        assert!(!agree(&p, &[Quadratic, Quadratic, LinearNeg]));
        assert!(!agree(&p, &[Satisfied, Satisfied, LinearNeg]));
        assert!(!agree(&p, &a[..2]));
        // a zero row adds nothing to H: its state does not matter
        p.row_leaf[1] = -1;
        assert!(agree(&p, &[Quadratic, Quadratic, LinearNeg]));
    }

    /// max |H x - b| for x = H⁻¹ b by [`solve_h`], H = M + Σ_QUADRATIC D_i J_iᵀ J_i.
    fn residual(p: &Problem<f64>, s: &mut SolverScratch<f64>, m: &[f64]) -> f64 {
        residual_j(p, s, m, &p.J)
    }

    /// [`residual`] for a problem whose rows are compressed: `j` holds them dense.
    fn residual_j(p: &Problem<f64>, s: &mut SolverScratch<f64>, m: &[f64], j: &[f64]) -> f64 {
        let nv = p.nv;
        let b: Vec<f64> = (0..nv).map(|i| 1.0 - 0.3 * i as f64).collect();
        s.Mgrad.copy_from_slice(&b);
        solve_h(p, s);
        let mut h = m.to_vec();
        for i in 0..p.nefc {
            if p.state[i] == ConstraintState::Quadratic {
                let r = &j[i * nv..(i + 1) * nv];
                for a in 0..nv {
                    for c in 0..nv {
                        h[a * nv + c] += p.D[i] * r[a] * r[c];
                    }
                }
            }
        }
        (0..nv)
            .map(|a| ((0..nv).map(|c| h[a * nv + c] * s.Mgrad[c]).sum::<f64>() - b[a]).abs())
            .fold(0.0, f64::max)
    }

    /// Consecutive QUADRATIC rows on one root path are added as one group ([`add_group`]): the
    /// factor equals, entry by entry, that of row-by-row [`add_path`] updates, and solves H.
    #[test]
    fn grouped_rows_equal_row_by_row() {
        use ConstraintState::{Quadratic, Satisfied};
        let (mut p, mut s, m) = problem();
        // two more rows on dof 4's root path after row 0 (an exact zero inside the path, a
        // shorter prefix), then the others
        let nv = p.nv;
        let extra = [
            [0.0, 0.4, -0.2, 0.0, 0.6, 0.0, 0.0],
            [0.3, -0.5, 0.8, 0.0, 0.0, 0.0, 0.0],
        ];
        let mut j = p.J[..nv].to_vec();
        j.extend(extra.iter().flatten());
        j.extend_from_slice(&p.J[nv..]);
        p.J = j;
        p.nefc = 5;
        p.D = vec![2.0, 0.7, 1.3, 3.0, 1.5];
        p.ty = vec![ConstraintType::LimitJoint; 5];
        p.state = vec![Quadratic, Quadratic, Quadratic, Satisfied, Satisfied];
        p.leaves_done = false;
        p.leaves();
        assert_eq!(p.row_leaf, [4, 4, 2, 6, -2]);
        s.resize(5, 0);
        hessian(&mut p, &mut s);
        assert!(s.H_tree);
        assert!(residual(&p, &mut s, &m) < 1e-13);
        // row by row
        let mut h = p.qM.clone();
        for i in 0..3 {
            let path = root_path(&p, p.row_leaf[i]);
            let mut buf = vec![0.0; path.len()];
            let n = path_vals(&p, i, path, &mut buf);
            add_path(&mut h, &p.Madr, path, &buf, n, &buf, n, p.D[i]);
        }
        let mut dinv = vec![0.0; nv];
        crate::smooth::crb::factor_tree(&p.Madr, &p.parentid, &mut h, &mut dinv);
        assert_eq!(h, s.Ht);
    }

    /// The general sparse Hessian ([`hsparse`]) of compressed rows equals the dense one bit for
    /// bit: the factor on its pattern (the dense factor is zero off it), the solve, and rank-1
    /// updates and downdates.
    #[test]
    fn sparse_hessian_equals_dense() {
        use ConstraintState::{Quadratic, Satisfied};
        let (mut p, mut s, _) = problem();
        let nv = p.nv;
        p.state = vec![Quadratic, Satisfied, Quadratic];
        hessian(&mut p, &mut s);
        assert!(!s.H_tree && !s.H_sparse);
        let dense_h = s.H.clone();
        let mut xd: Vec<f64> = (0..nv).map(|i| 0.7 - 0.2 * i as f64).collect();
        s.Mgrad.copy_from_slice(&xd);
        solve_h(&p, &mut s);
        xd.copy_from_slice(&s.Mgrad);
        // the same rows compressed
        let dense_j = compress_rows(&mut p);
        // compressed rows alone keep the dense factor (a model MuJoCo factors densely) ...
        hessian(&mut p, &mut s);
        assert!(!s.H_tree && !s.H_sparse);
        assert_eq!(s.H, dense_h);
        // ... a sparse model takes the sparse one
        p.sparse_model = true;
        hessian(&mut p, &mut s);
        assert!(s.H_sparse);
        let pat = &p.hpat;
        let mut seen = vec![false; nv * nv];
        for k in 0..nv {
            let (a, l) = (pat.adr[k], pat.len[k]);
            assert_eq!(s.Hs[a + l].to_bits(), dense_h[k * nv + k].to_bits());
            seen[k * nv + k] = true;
            for x in 0..l {
                let c = pat.col[a + x];
                assert!(c < k);
                assert_eq!(
                    s.Hs[a + x].to_bits(),
                    dense_h[k * nv + c].to_bits(),
                    "{k} {c}"
                );
                seen[k * nv + c] = true;
            }
            for c in 0..k {
                assert!(
                    seen[k * nv + c] || dense_h[k * nv + c] == 0.0,
                    "{k} {c} off pattern"
                );
            }
        }
        let mut xs: Vec<f64> = (0..nv).map(|i| 0.7 - 0.2 * i as f64).collect();
        s.Mgrad.copy_from_slice(&xs);
        solve_h(&p, &mut s);
        xs.copy_from_slice(&s.Mgrad);
        assert_eq!(xs, xd);
        // row 1 enters, then row 0 leaves: the same updates on both factors
        let mut dense_s = s.clone();
        dense_s.H = dense_h;
        for st in [
            [Quadratic, Quadratic, Quadratic],
            [Satisfied, Quadratic, Quadratic],
        ] {
            s.state_old.copy_from_slice(&p.state);
            p.state = st.to_vec();
            update_hessian(&mut p, &mut s, 1);
            assert!(s.H_sparse);
            for (i, (&o, &n)) in s.state_old.iter().zip(&p.state).enumerate() {
                if o != n {
                    let sd = p.D[i].sqrt();
                    let mut w: Vec<f64> = dense_j[i * nv..(i + 1) * nv]
                        .iter()
                        .map(|x| x * sd)
                        .collect();
                    assert!(dense::ldl_rank1_rev(
                        &mut dense_s.H,
                        nv,
                        &mut w,
                        n == Quadratic
                    ));
                }
            }
            for k in 0..nv {
                let (a, l) = (p.hpat.adr[k], p.hpat.len[k]);
                assert_eq!(s.Hs[a + l].to_bits(), dense_s.H[k * nv + k].to_bits());
                for x in 0..l {
                    let c = p.hpat.col[a + x];
                    assert_eq!(s.Hs[a + x].to_bits(), dense_s.H[k * nv + c].to_bits());
                }
            }
        }
    }

    /// The tree-sparse Hessian solves H x = b, its rank-1 updates and downdates agree with H,
    /// and a row off one root path moves the factor to the dense layout, where it is updated.
    #[test]
    fn tree_hessian_factor_updates_and_fallback() {
        use ConstraintState::{Quadratic, Satisfied};
        let (mut p, mut s, m) = problem();
        p.state = vec![Quadratic, Satisfied, Satisfied];
        hessian(&mut p, &mut s);
        assert!(s.H_tree);
        assert!(residual(&p, &mut s, &m) < 1e-13);
        // row 1 enters (rank-1 update), then row 0 leaves (downdate): still tree-sparse
        for st in [
            [Quadratic, Quadratic, Satisfied],
            [Satisfied, Quadratic, Satisfied],
        ] {
            s.state_old.copy_from_slice(&p.state);
            p.state = st.to_vec();
            update_hessian(&mut p, &mut s, 1);
            assert!(s.H_tree);
            assert!(residual(&p, &mut s, &m) < 1e-13, "{st:?}");
        }
        // row 2 couples two branches: the factor moves to the dense layout and is updated there
        s.state_old.copy_from_slice(&p.state);
        p.state = vec![Satisfied, Quadratic, Quadratic];
        update_hessian(&mut p, &mut s, 1);
        assert!(!s.H_tree && !s.H_sparse);
        assert!(residual(&p, &mut s, &m) < 1e-13);
        // the dense factor of the same H, rebuilt: equal to round-off (lower triangle and
        // diagonal, the part the factor's users read)
        let nv = p.nv;
        let updated = s.H.clone();
        hessian(&mut p, &mut s);
        assert!(!s.H_tree && !s.H_sparse);
        for k in 0..nv {
            for c in 0..=k {
                let (a, b) = (updated[k * nv + c], s.H[k * nv + c]);
                assert!(
                    (a - b).abs() <= 1e-13 * (1.0 + b.abs()),
                    "({k}, {c}): {a} against {b}"
                );
            }
        }
    }

    /// In a sparse model (compressed rows, `sparse_model`) a row off one root path that enters
    /// a tree-sparse factor is an update, not a rebuild: the tree factor is laid out on the
    /// general pattern ([`hsparse::from_tree`]) and updated there. The result solves H (checked
    /// against the dense H of the rows) and equals the factor rebuilt from H to round-off.
    #[test]
    fn sparse_model_updates_the_tree_factor_on_the_pattern() {
        use ConstraintState::{Quadratic, Satisfied};
        let (mut p, mut s, m) = problem();
        let dense_j = compress_rows(&mut p);
        p.sparse_model = true;
        // rows 0 and 1 on their root paths: the tree factor
        p.state = vec![Quadratic, Quadratic, Satisfied];
        hessian(&mut p, &mut s);
        assert!(s.H_tree);
        // row 1 leaves (a tree downdate) and row 2, off one path, enters: the sparse factor
        s.state_old.copy_from_slice(&p.state);
        p.state = vec![Quadratic, Satisfied, Quadratic];
        update_hessian(&mut p, &mut s, 2);
        assert!(!s.H_tree && s.H_sparse);
        assert!(residual_j(&p, &mut s, &m, &dense_j) < 1e-13);
        let updated = s.Hs.clone();
        // the same H built and factored on the pattern
        hessian(&mut p, &mut s);
        assert!(s.H_sparse);
        for (k, (a, b)) in updated.iter().zip(&s.Hs).enumerate() {
            assert!(
                (a - b).abs() <= 1e-13 * (1.0 + b.abs()),
                "entry {k}: {a} against {b}"
            );
        }
        // and row 0 leaves: a downdate on the pattern
        s.state_old.copy_from_slice(&p.state);
        p.state = vec![Satisfied, Satisfied, Quadratic];
        update_hessian(&mut p, &mut s, 1);
        assert!(s.H_sparse);
        assert!(residual_j(&p, &mut s, &m, &dense_j) < 1e-13);
    }
}
