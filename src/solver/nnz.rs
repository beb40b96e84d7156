//! The nonzero counts MuJoCo 4.0.0 reports for its solvers: `solver_nnz[island]` and `nA`
//! (API Reference "mjData": "number of nonzeros in Hessian or efc_AR" and "number of non-zeros in
//! constraint inverse inertia matrix"). They describe the matrix each solver works on, so they
//! follow the dense/sparse choice of `efc_J` (`mj_isSparse`: the `jacobian` option, or nv ≥ 60
//! under `auto`). The rules were measured on MuJoCo 4.0.0 over models with islands, tendons,
//! equality constraints, noslip and simple bodies, under every solver and `jacobian` option:
//! - PGS works on the dual matrix AR = J M⁻¹ Jᵀ + R: [`ar_nnz`].
//! - CG works on J: its nonzeros, `nefc · nv` when dense.
//! - Newton works on the Hessian H = M + Jᵀ D J: `nv²` when dense. Sparse, it counts M's lower
//!   triangle in MuJoCo's sparse layout (`M_rownnz`: a dof of a [`simple_body`] holds only its
//!   diagonal, any other dof its ancestors too), the lower triangle of H's factor (the pattern
//!   of M ∪ Σ_rows J_iᵀJ_i over every row whatever its state, with the fill of eliminating the
//!   last dof first, as [`crate::solver::hsparse`]) and the lower triangle of Σ_rows J_iᵀJ_i.
//!   A Newton solve that stops before its first iteration has not formed H: it reports J's
//!   nonzeros, as CG (the noslip pass after it does not change the count).

use crate::data::Data;
use crate::math::Scalar;
use crate::model::{Model, SolverType};
use crate::simple::simple_body;

/// `solver_nnz` of the solve over `dofs` and `rows` (an island's, or every dof and row with
/// islands off) after `niter` iterations of the selected solver (without the noslip pass's).
pub fn solver_nnz<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    dofs: &[usize],
    rows: &[usize],
    niter: usize,
) -> usize {
    let (nv, nefc) = (dofs.len(), rows.len());
    let j_nnz = || {
        if d.efc_J_sparse {
            rows.iter().map(|&r| d.efc_J_rownnz[r]).sum()
        } else {
            nefc * nv
        }
    };
    match m.opt.solver {
        SolverType::Pgs => ar_nnz(m, d, rows),
        SolverType::Cg => j_nnz(),
        SolverType::Newton if niter == 0 => j_nnz(),
        SolverType::Newton if !d.efc_J_sparse => nv * nv,
        SolverType::Newton => hessian_nnz(m, d, dofs, rows),
    }
}

/// Nonzeros of AR = J M⁻¹ Jᵀ + R over `rows` (mjData's `nA` over all rows). A dense `efc_J`
/// gives a dense AR, `nefc²`. A sparse one keeps the structural nonzeros: M⁻¹ couples every
/// pair of dofs of one kinematic tree and none of two trees, so entry (i, j) is kept when rows
/// i and j touch a common tree (a tree is the dofs below one root dof, `dof_parentid` = -1).
pub fn ar_nnz<T: Scalar>(m: &Model, d: &Data<T>, rows: &[usize]) -> usize {
    let nefc = rows.len();
    if !d.efc_J_sparse {
        return nefc * nefc;
    }
    // each dof's tree: its root dof (parents come before children)
    let mut tree = vec![0usize; m.nv];
    for (i, &p) in m.dof_parentid.iter().enumerate().take(m.nv) {
        tree[i] = usize::try_from(p).map_or(i, |p| tree[p]);
    }
    // the trees of each row, and the rows (local indices) of each tree
    let mut row_trees: Vec<Vec<usize>> = Vec::with_capacity(nefc);
    let mut tree_rows: Vec<Vec<usize>> = vec![Vec::new(); m.nv];
    for (i, &r) in rows.iter().enumerate() {
        let mut t: Vec<usize> = row_cols(d, r).iter().map(|&c| tree[c]).collect();
        t.sort_unstable();
        t.dedup();
        for &k in &t {
            tree_rows[k].push(i);
        }
        row_trees.push(t);
    }
    // for each row, the distinct rows sharing one of its trees (itself included)
    let mut seen = vec![usize::MAX; nefc];
    let mut n = 0;
    for (i, trees) in row_trees.iter().enumerate() {
        for &k in trees {
            for &j in &tree_rows[k] {
                if seen[j] != i {
                    seen[j] = i;
                    n += 1;
                }
            }
        }
    }
    n
}

/// The columns of sparse `efc_J` row `r`.
fn row_cols<T: Scalar>(d: &Data<T>, r: usize) -> &[usize] {
    let a = d.efc_J_rowadr[r];
    &d.efc_J_colind[a..a + d.efc_J_rownnz[r]]
}

/// The sparse Newton count (module docs) over `dofs` and `rows`, on lower-triangular bit rows
/// with the dofs in ascending order (the elimination order of the fill).
fn hessian_nnz<T: Scalar>(m: &Model, d: &Data<T>, dofs: &[usize], rows: &[usize]) -> usize {
    const NIL: usize = usize::MAX;
    let mut dofs = dofs.to_vec();
    dofs.sort_unstable();
    let n = dofs.len();
    let words = n.div_ceil(64);
    let mut local = vec![NIL; m.nv];
    for (a, &dof) in dofs.iter().enumerate() {
        local[dof] = a;
    }
    let set =
        |bits: &mut [u64], row: usize, col: usize| bits[row * words + col / 64] |= 1 << (col % 64);
    let count = |bits: &[u64]| bits.iter().map(|w| w.count_ones() as usize).sum::<usize>();
    // M in MuJoCo's sparse layout: the diagonal, and the ancestors unless the body is simple
    let mut mbits = vec![0u64; n * words];
    for (a, &dof) in dofs.iter().enumerate() {
        set(&mut mbits, a, a);
        if simple_body(m, m.dof_bodyid[dof]) {
            continue;
        }
        let mut j = m.dof_parentid[dof];
        while let Ok(p) = usize::try_from(j) {
            if local[p] != NIL {
                set(&mut mbits, a, local[p]);
            }
            j = m.dof_parentid[p];
        }
    }
    // Σ J_iᵀ J_i: every pair of columns of each row
    let mut jbits = vec![0u64; n * words];
    let mut cols = Vec::new();
    for &r in rows {
        cols.clear();
        cols.extend(
            row_cols(d, r)
                .iter()
                .map(|&c| local[c])
                .filter(|&c| c != NIL),
        );
        for &a in &cols {
            for &b in &cols {
                if b <= a {
                    set(&mut jbits, a, b);
                }
            }
        }
    }
    // the factor's pattern: eliminating row k (last first) couples every pair of its columns
    let mut h: Vec<u64> = mbits.iter().zip(&jbits).map(|(x, y)| x | y).collect();
    let mut below = vec![0u64; words];
    for k in (0..n).rev() {
        below.copy_from_slice(&h[k * words..(k + 1) * words]);
        below[k / 64] &= (1u64 << (k % 64)) - 1;
        for a in 0..k {
            if below[a / 64] >> (a % 64) & 1 == 1 {
                // row a gets the columns of `below` up to a
                for w in 0..=a / 64 {
                    let mask = if w < a / 64 {
                        u64::MAX
                    } else {
                        u64::MAX >> (63 - a % 64)
                    };
                    h[a * words + w] |= below[w] & mask;
                }
            }
        }
    }
    count(&mbits) + count(&h) + count(&jbits)
}
