//! `MjData` fields about the constraint rows that MuJoCo 4.0.0 keeps and moreau derives from
//! its rows:
//! - `tendon_efcadr` (API Reference "mjData": the first constraint row involving each tendon,
//!   -1 for none). The rows involving a tendon, as measured on MuJoCo 4.0.0: its frictional
//!   row, its limit row, and the rows of a tendon equality naming it as `tendon1` or `tendon2`.
//! - The dual problem's matrices, which MuJoCo forms only for PGS or the noslip pass
//!   (`noslip_iterations > 0`; otherwise `nA = nY = 0`): `efc_Y = J L⁻¹ D^(−1/2)` row by row,
//!   i.e. row i is `D^(−1/2) L⁻ᵀ J_iᵀ` with `M = Lᵀ D L` the factor `qLD` (`mj_solveM2`), and
//!   `efc_AR = Y Yᵀ + diag(R) = J M⁻¹ Jᵀ + R` (Computation, "Constraint model"; the "projection"
//!   of the dual solvers). With a dense `efc_J` both are dense row-major (`nefc × nv`,
//!   `nefc × nefc`) and their row arrays zero; with a sparse one, `efc_Y` has `efc_J`'s pattern
//!   and row i of `efc_AR` the rows that share a kinematic tree with row i, ascending (rules
//!   measured on MuJoCo 4.0.0). moreau computes them when first read, from the `efc_J`,
//!   `efc_R` and `qLD` of the last `mj_forward` (the ones MuJoCo formed them from), and keeps
//!   them with a copy of those inputs: a later read returns the kept matrices while the inputs
//!   are unchanged to the bit, and recomputes them once after a step, a forward or any write
//!   that changed them ([`DualCache`]; checking the inputs costs O(nJ + nM), forming the
//!   matrices O(nefc² nv)).

use moreau::data::Data;
use moreau::model::{Model, SolverType};

/// MuJoCo's `efc_Y` and `efc_AR` with their row arrays (module docs); empty when MuJoCo forms
/// neither.
#[derive(Default, Clone)]
pub(crate) struct Dual {
    pub(crate) y: Vec<f64>,
    pub(crate) y_rownnz: Vec<i32>,
    pub(crate) y_rowadr: Vec<i32>,
    pub(crate) y_colind: Vec<i32>,
    pub(crate) ar: Vec<f64>,
    pub(crate) ar_rownnz: Vec<i32>,
    pub(crate) ar_rowadr: Vec<i32>,
    pub(crate) ar_colind: Vec<i32>,
}

/// The last `Dual` formed for an `MjData`, with the inputs it was formed from.
#[derive(Default)]
pub struct DualCache {
    /// `efc_J`'s values (its used part), `efc_R`, `qLD`, `qLDiagInv`, as bits.
    key: Vec<u64>,
    /// `nefc`, whether `efc_J` is sparse and formed at all, `efc_J`'s row arrays.
    shape: Vec<usize>,
    dual: Option<Dual>,
}

/// What [`dual`] reads from `d`, as bits (`key`) and sizes and indices (`shape`).
fn inputs(m: &Model, d: &Data, key: &mut Vec<u64>, shape: &mut Vec<usize>) {
    let (nv, n) = (m.nv, d.nefc);
    let formed = m.opt.solver == SolverType::Pgs || m.opt.noslip_iterations > 0;
    key.clear();
    shape.clear();
    shape.extend([n, usize::from(d.efc_J_sparse), usize::from(formed)]);
    shape.extend([d.qLD.len(), d.qLDiagInv.len()]);
    if !formed || n == 0 {
        return;
    }
    let used = if d.efc_J_sparse {
        shape.extend_from_slice(&d.efc_J_rownnz[..n]);
        shape.extend_from_slice(&d.efc_J_rowadr[..n]);
        let end = (0..n)
            .map(|i| d.efc_J_rowadr[i] + d.efc_J_rownnz[i])
            .max()
            .unwrap_or(0);
        shape.extend_from_slice(&d.efc_J_colind[..end]);
        end
    } else {
        n * nv
    };
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    key.extend(bits(&d.efc_J[..used.min(d.efc_J.len())]));
    key.extend(bits(&d.efc_R[..n]));
    key.extend(bits(&d.qLD[..m.nM.min(d.qLD.len())]));
    key.extend(bits(&d.qLDiagInv[..nv.min(d.qLDiagInv.len())]));
}

/// [`dual`] through `cache`: formed again only when its inputs changed.
pub(crate) fn dual_cached(m: &Model, d: &Data, cache: &std::sync::Mutex<DualCache>) -> Dual {
    let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
    let (mut key, mut shape) = (Vec::new(), Vec::new());
    inputs(m, d, &mut key, &mut shape);
    if c.dual.is_none() || c.key != key || c.shape != shape {
        c.dual = Some(dual(m, d));
        c.key = key;
        c.shape = shape;
    }
    c.dual.clone().unwrap_or_default()
}

fn dual(m: &Model, d: &Data) -> Dual {
    let (nv, n) = (m.nv, d.nefc);
    let formed = m.opt.solver == SolverType::Pgs || m.opt.noslip_iterations > 0;
    if !formed || n == 0 || d.qLD.len() < m.nM || d.qLDiagInv.len() < nv {
        return Dual {
            y_rownnz: vec![0; n],
            y_rowadr: vec![0; n],
            ar_rownnz: vec![0; n],
            ar_rowadr: vec![0; n],
            ..Dual::default()
        };
    }
    // the dense rows of Y
    let mut y = vec![0.0; n * nv];
    for (i, x) in y.chunks_exact_mut(nv.max(1)).enumerate().take(n) {
        if d.efc_J_sparse {
            let a = d.efc_J_rowadr[i];
            for k in a..a + d.efc_J_rownnz[i] {
                x[d.efc_J_colind[k]] = d.efc_J[k];
            }
        } else {
            x.copy_from_slice(&d.efc_J[i * nv..(i + 1) * nv]);
        }
        // Lᵀ z = J_iᵀ, descendants first (row k of qLD after its diagonal: k's ancestors)
        for k in (0..nv).rev() {
            let xk = x[k];
            if xk == 0.0 {
                continue;
            }
            let mut p = m.dof_parentid[k];
            let end = m.dof_Madr.get(k + 1).copied().unwrap_or(m.nM);
            for &l in &d.qLD[m.dof_Madr[k] + 1..end] {
                let Ok(pp) = usize::try_from(p) else { break };
                x[pp] -= l * xk;
                p = m.dof_parentid[pp];
            }
        }
        for (xk, &di) in x.iter_mut().zip(&d.qLDiagInv[..nv]) {
            *xk *= di.sqrt();
        }
    }
    let dot = |i: usize, j: usize| -> f64 {
        let (a, b) = (&y[i * nv..(i + 1) * nv], &y[j * nv..(j + 1) * nv]);
        let s: f64 = a.iter().zip(b).map(|(p, q)| p * q).sum();
        if i == j {
            s + d.efc_R[i]
        } else {
            s
        }
    };
    let mut out = Dual::default();
    if !d.efc_J_sparse {
        out.ar = (0..n * n).map(|k| dot(k / n, k % n)).collect();
        out.y = y;
        out.y_rownnz = vec![0; n];
        out.y_rowadr = vec![0; n];
        out.y_colind = vec![0; n * nv];
        out.ar_rownnz = vec![0; n];
        out.ar_rowadr = vec![0; n];
        out.ar_colind = vec![0; n * n];
        return out;
    }
    // each dof's tree, named by its root dof (parents come before their children)
    let mut tree = vec![0usize; nv];
    for k in 0..nv {
        tree[k] = usize::try_from(m.dof_parentid[k]).map_or(k, |p| tree[p]);
    }
    // row i of efc_Y: the columns of J_i and their ancestors, ascending
    let mut mark = vec![false; nv];
    let closure: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            let a = d.efc_J_rowadr[i];
            for &c in &d.efc_J_colind[a..a + d.efc_J_rownnz[i]] {
                let mut k = c as i32;
                while let Ok(kk) = usize::try_from(k) {
                    if mark[kk] {
                        break;
                    }
                    mark[kk] = true;
                    k = m.dof_parentid[kk];
                }
            }
            let cols: Vec<usize> = (0..nv).filter(|&k| mark[k]).collect();
            for &k in &cols {
                mark[k] = false;
            }
            cols
        })
        .collect();
    let trees: Vec<Vec<usize>> = closure
        .iter()
        .map(|cols| {
            let mut t: Vec<usize> = cols.iter().map(|&c| tree[c]).collect();
            t.dedup();
            t
        })
        .collect();
    for i in 0..n {
        out.y_rowadr.push(out.y.len() as i32);
        out.y_rownnz.push(closure[i].len() as i32);
        for &c in &closure[i] {
            out.y.push(y[i * nv + c]);
            out.y_colind.push(c as i32);
        }
        out.ar_rowadr.push(out.ar.len() as i32);
        let before = out.ar.len();
        for j in 0..n {
            if trees[i].iter().any(|t| trees[j].binary_search(t).is_ok()) {
                out.ar.push(dot(i, j));
                out.ar_colind.push(j as i32);
            }
        }
        out.ar_rownnz.push((out.ar.len() - before) as i32);
    }
    out
}
