//! faer 0.24 against moreau's hand-written factorizations, on the same matrices, for callgrind
//! (docs/performance.md, "faer"). Every kernel runs inside its own `#[inline(never)]` function,
//! so `callgrind_annotate --inclusive=yes` gives each one's instructions; the program prints the
//! number of calls and the largest disagreement between the solutions.
//!
//!     faer-bench newton MODEL STEPS CTRL.csv   the Newton Hessians of a rollout
//!     faer-bench band N BW NP REPS             collocation's banded / bordered normal matrix
//!     faer-bench small N REPS                  an n × n dense SPD solve (iLQR's Q_uu)
//!     faer-bench multi N C REPS                n × n dense SPD factor, solve with C columns
//!                                              (the analytic Jacobians' M + JᵀHJ off the tree)
//!
//! `newton`: steps MODEL (keyframe 0 if it has one) under the controls of CTRL.csv
//! (`tools/reference/mj_step_ctrl.py MODEL STEPS --make-ctrl CTRL.csv`) and after each step
//! forms the solver's final Hessian H = M + Σ_QUADRATIC D_i J_iᵀ J_i from `qM`, `efc_J`,
//! `efc_D` and `efc_state` (pyramidal cones: no cone terms), then factors and solves it with
//! moreau's dense Cholesky (`pipeline::chol_factor_fast`, the kernel of CG, PGS and noslip),
//! faer's dense LLᵀ, and faer's sparse LLᵀ (simplicial or supernodal, faer's choice) on the
//! pattern of M + Σ_all rows J_iᵀ J_i with the reversed dof order (the engine's elimination
//! order: no fill on a tree), its symbolic analysis once per step.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::LltRegularization;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, SymbolicCholesky, SymmetricOrdering,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, Mat, Par, Side, Spec};
use moreau::{Data, Model};
use moreau_optim::band::{BandMatrix, Bordered};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let r = match a.get(1).map(String::as_str) {
        Some("newton") if a.len() == 5 => newton(&a[2], num(&a[3]), &a[4]),
        Some("band") if a.len() == 6 => band(num(&a[2]), num(&a[3]), num(&a[4]), num(&a[5])),
        Some("small") if a.len() == 4 => small(num(&a[2]), num(&a[3])),
        Some("multi") if a.len() == 5 => multi(num(&a[2]), num(&a[3]), num(&a[4])),
        _ => Err("usage: faer-bench newton MODEL STEPS CTRL | band N BW NP REPS | small N REPS | multi N C REPS".into()),
    };
    if let Err(e) = r {
        eprintln!("faer-bench: {e}");
        std::process::exit(1);
    }
}

fn num(s: &str) -> usize {
    s.parse().unwrap_or_else(|_| {
        eprintln!("faer-bench: not a count: {s}");
        std::process::exit(1)
    })
}

/// A reproducible SPD-ish fill: x ∈ [-1, 1).
fn rnd(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

// ----------------------------------------------------------------------------------- dense

#[inline(never)]
fn hand_dense(h: &mut [f64], n: usize, x: &mut [f64]) {
    moreau::pipeline::chol_factor_fast(h, n);
    // L Lᵀ x = b with L row-major lower
    for i in 0..n {
        let mut s = x[i];
        for k in 0..i {
            s -= h[i * n + k] * x[k];
        }
        x[i] = s / h[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = x[i];
        for k in i + 1..n {
            s -= h[k * n + i] * x[k];
        }
        x[i] = s / h[i * n + i];
    }
}

#[inline(never)]
fn faer_dense(h: &mut Mat<f64>, x: &mut Mat<f64>, buf: &mut MemBuffer) {
    let stack = MemStack::new(buf);
    let reg = LltRegularization {
        dynamic_regularization_delta: 1e-15,
        dynamic_regularization_epsilon: 1e-15,
    };
    faer::linalg::cholesky::llt::factor::cholesky_in_place(
        h.as_mut(),
        reg,
        Par::Seq,
        stack,
        Spec::default(),
    )
    .expect("positive definite");
    faer::linalg::cholesky::llt::solve::solve_in_place_with_conj(
        h.as_ref(),
        Conj::No,
        x.as_mut(),
        Par::Seq,
        stack,
    );
}

/// [`faer_dense`] on M (its own symbol for callgrind).
#[inline(never)]
fn faer_dense_m(h: &mut Mat<f64>, x: &mut Mat<f64>, buf: &mut MemBuffer) {
    faer_dense(h, x, buf)
}

fn dense_buf(n: usize) -> MemBuffer {
    let req = faer::linalg::cholesky::llt::factor::cholesky_in_place_scratch::<f64>(
        n,
        Par::Seq,
        Spec::default(),
    )
    .or(faer::linalg::cholesky::llt::solve::solve_in_place_scratch::<f64>(n, 1, Par::Seq));
    MemBuffer::new(req)
}

// ------------------------------------------------------------------------------------ tree

/// moreau's tree-sparse `Lᵀ D L` of M (`mj_factorM`'s, `pipeline::factor_ld`) and its solve.
#[inline(never)]
fn hand_tree(m: &Model, ld: &mut [f64], dinv: &mut [f64], x: &mut [f64]) {
    let _ = moreau::pipeline::factor_ld(m, ld, dinv);
    moreau::pipeline::solve_ld(m, ld, dinv, x);
}

// ---------------------------------------------------------------------------------- sparse

/// A symmetric matrix's lower triangle in compressed columns (faer's layout).
struct Csc {
    n: usize,
    colptr: Vec<usize>,
    rowind: Vec<usize>,
    val: Vec<f64>,
}

impl Csc {
    /// The lower triangle of the row-major n × n `full` on the entries where `keep(r, c)`.
    fn lower(n: usize, full: &[f64], keep: impl Fn(usize, usize) -> bool) -> Csc {
        let mut a = Csc {
            n,
            colptr: vec![0],
            rowind: Vec::new(),
            val: Vec::new(),
        };
        for c in 0..n {
            for r in c..n {
                if keep(r, c) {
                    a.rowind.push(r);
                    a.val.push(full[r * n + c]);
                }
            }
            a.colptr.push(a.rowind.len());
        }
        a
    }
}

#[inline(never)]
fn faer_symbolic(a: &Csc, perm_fwd: &[usize], perm_inv: &[usize]) -> SymbolicCholesky<usize> {
    let sym = SymbolicSparseColMatRef::new_checked(a.n, a.n, &a.colptr, None, &a.rowind);
    let perm = faer::perm::PermRef::new_checked(perm_fwd, perm_inv, a.n);
    factorize_symbolic_cholesky(
        sym,
        Side::Lower,
        SymmetricOrdering::Custom(perm),
        CholeskySymbolicParams::default(),
    )
    .expect("symbolic")
}

#[inline(never)]
fn faer_sparse(
    sym: &SymbolicCholesky<usize>,
    a: &Csc,
    l: &mut Vec<f64>,
    x: &mut Mat<f64>,
    buf: &mut MemBuffer,
) {
    let stack = MemStack::new(buf);
    l.resize(sym.len_val(), 0.0);
    let am = SparseColMatRef::new(
        SymbolicSparseColMatRef::new_checked(a.n, a.n, &a.colptr, None, &a.rowind),
        &a.val,
    );
    let reg = LltRegularization {
        dynamic_regularization_delta: 1e-15,
        dynamic_regularization_epsilon: 1e-15,
    };
    let llt = sym
        .factorize_numeric_llt(l, am, Side::Lower, reg, Par::Seq, stack, Spec::default())
        .expect("positive definite");
    llt.solve_in_place_with_conj(Conj::No, x.as_mut(), Par::Seq, stack);
}

/// [`faer_sparse`] on M (its own symbol for callgrind).
#[inline(never)]
fn faer_sparse_m(
    sym: &SymbolicCholesky<usize>,
    a: &Csc,
    l: &mut Vec<f64>,
    x: &mut Mat<f64>,
    buf: &mut MemBuffer,
) {
    faer_sparse(sym, a, l, x, buf)
}

fn sparse_buf(sym: &SymbolicCholesky<usize>) -> MemBuffer {
    let req = sym
        .factorize_numeric_llt_scratch::<f64>(Par::Seq, Spec::default())
        .or(sym.solve_in_place_scratch::<f64>(1, Par::Seq));
    MemBuffer::new(req)
}

fn newton(path: &str, steps: usize, ctrl: &str) -> Result<(), String> {
    let m: Model = moreau::load(path).map_err(|e| e.to_string())?;
    let mut d: Data<f64> = Data::new(&m);
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0)?;
    }
    let text = std::fs::read_to_string(ctrl).map_err(|e| format!("{ctrl}: {e}"))?;
    let rows: Vec<Vec<f64>> = text
        .lines()
        .map(|l| l.split(',').filter_map(|v| v.trim().parse().ok()).collect())
        .collect();
    let nv = m.nv;
    let mut mdense = vec![0.0; nv * nv];
    let (mut h, mut hh) = (vec![0.0; nv * nv], vec![0.0; nv * nv]);
    let mut buf = dense_buf(nv);
    let (mut calls, mut worst_dense, mut worst_sparse, mut nnz_l) = (0usize, 0f64, 0f64, 0usize);
    let (perm_fwd, perm_inv): (Vec<usize>, Vec<usize>) =
        ((0..nv).rev().collect(), (0..nv).rev().collect());
    let mut lval = Vec::new();
    // M's pattern (the dof tree: row k holds k and its ancestors) is fixed: one symbolic analysis
    let mut anc = vec![false; nv * nv];
    for k in 0..nv {
        let mut a = k as i32;
        while a >= 0 {
            anc[k * nv + a as usize] = true;
            a = m.dof_parentid[a as usize];
        }
    }
    let mut mcsc = Csc::lower(nv, &mdense, |r, c| anc[r * nv + c]);
    let msym = faer_symbolic(&mcsc, &perm_fwd, &perm_inv);
    let mut mbuf = sparse_buf(&msym);
    let mut mval = Vec::new();
    let (mut ld, mut dinv) = (vec![0.0; m.nM], vec![0.0; nv]);
    let (mut worst_tree, mut worst_mdense) = (0f64, 0f64);
    for t in 0..steps {
        if let Some(r) = rows.get(t) {
            d.ctrl.iter_mut().zip(r).for_each(|(c, v)| *c = *v);
        }
        moreau::step(&m, &mut d);
        moreau::full_m(&m, &d.qM, &mut mdense);
        // M: the tree factor against faer's sparse LLᵀ (same pattern, reversed order) and dense LLᵀ
        {
            let b: Vec<f64> = (0..nv).map(|i| 1.0 + i as f64 / nv as f64).collect();
            ld.copy_from_slice(&d.qM[..m.nM]);
            let mut x1 = b.clone();
            hand_tree(&m, &mut ld, &mut dinv, &mut x1);
            for c in 0..nv {
                for p in mcsc.colptr[c]..mcsc.colptr[c + 1] {
                    mcsc.val[p] = mdense[mcsc.rowind[p] * nv + c];
                }
            }
            let mut x2 = Mat::<f64>::from_fn(nv, 1, |r, _| b[r]);
            faer_sparse_m(&msym, &mcsc, &mut mval, &mut x2, &mut mbuf);
            let mut fm = Mat::<f64>::from_fn(nv, nv, |r, c| mdense[r * nv + c]);
            let mut x3 = Mat::<f64>::from_fn(nv, 1, |r, _| b[r]);
            faer_dense_m(&mut fm, &mut x3, &mut buf);
            let scale = x1.iter().fold(0f64, |s, v| s.max(v.abs()));
            for i in 0..nv {
                worst_tree = worst_tree.max((x2[(i, 0)] - x1[i]).abs() / scale);
                worst_mdense = worst_mdense.max((x3[(i, 0)] - x1[i]).abs() / scale);
            }
        }
        if d.nefc == 0 {
            continue;
        }
        let j = d.efc_J_dense(nv);
        // H and the structural pattern (every row, whatever its state)
        h.copy_from_slice(&mdense);
        let mut pat: Vec<bool> = mdense.iter().map(|v| *v != 0.0).collect();
        for i in 0..d.nefc {
            let row = &j[i * nv..(i + 1) * nv];
            let quad = d.efc_state[i] == moreau::data::ConstraintState::Quadratic;
            for a in 0..nv {
                if row[a] == 0.0 {
                    continue;
                }
                for b in 0..nv {
                    if row[b] != 0.0 {
                        pat[a * nv + b] = true;
                        if quad {
                            h[a * nv + b] += d.efc_D[i] * row[a] * row[b];
                        }
                    }
                }
            }
        }
        let b: Vec<f64> = (0..nv).map(|i| 1.0 + i as f64 / nv as f64).collect();
        // hand-written dense Cholesky
        hh.copy_from_slice(&h);
        let mut x1 = b.clone();
        hand_dense(&mut hh, nv, &mut x1);
        // faer dense LLᵀ (lower triangle of the column-major copy)
        let mut fm = Mat::<f64>::from_fn(nv, nv, |r, c| h[r * nv + c]);
        let mut x2 = Mat::<f64>::from_fn(nv, 1, |r, _| b[r]);
        faer_dense(&mut fm, &mut x2, &mut buf);
        // faer sparse LLᵀ on the structural lower triangle
        let a = Csc::lower(nv, &h, |r, c| pat[r * nv + c]);
        let sym = faer_symbolic(&a, &perm_fwd, &perm_inv);
        let mut sbuf = sparse_buf(&sym);
        let mut x3 = Mat::<f64>::from_fn(nv, 1, |r, _| b[r]);
        faer_sparse(&sym, &a, &mut lval, &mut x3, &mut sbuf);
        nnz_l += sym.len_val();
        calls += 1;
        let scale = x1.iter().fold(0f64, |s, v| s.max(v.abs()));
        for i in 0..nv {
            worst_dense = worst_dense.max((x2[(i, 0)] - x1[i]).abs() / scale);
            worst_sparse = worst_sparse.max((x3[(i, 0)] - x1[i]).abs() / scale);
        }
    }
    println!(
        "nv {nv}: {steps} mass matrices (nnz(L) {}); faer sparse vs tree factor, max |dx|/|x| \
         {worst_tree:.1e}; faer dense {worst_mdense:.1e}",
        msym.len_val()
    );
    println!(
        "nv {nv}: {calls} Hessians; faer dense vs hand-written, max |dx|/|x| {worst_dense:.1e}; \
         faer sparse {worst_sparse:.1e}; mean nnz(L) {}",
        nnz_l / calls.max(1)
    );
    Ok(())
}

// ------------------------------------------------------------------------------------ band

#[inline(never)]
fn hand_band(h: &mut BandMatrix, x: &mut [f64]) {
    assert!(h.cholesky());
    h.solve(x);
}

#[inline(never)]
fn hand_bordered(h: &mut Bordered, x: &mut [f64]) {
    assert!(h.cholesky());
    h.solve(x);
}

fn band(n: usize, bw: usize, np: usize, reps: usize) -> Result<(), String> {
    let mut s = 7u64;
    let nt = n + np;
    // A = diagonally dominant band + border, as a full symmetric matrix
    let mut full = vec![0.0; nt * nt];
    for i in 0..nt {
        for j in 0..=i {
            let inband = i < n && i - j <= bw;
            let border = i >= n;
            if inband || border {
                let v = if i == j {
                    4.0 * (bw + np) as f64
                } else {
                    rnd(&mut s)
                };
                full[i * nt + j] = v;
                full[j * nt + i] = v;
            }
        }
    }
    let b: Vec<f64> = (0..nt).map(|i| 1.0 + (i % 7) as f64).collect();
    // faer's sparse LLᵀ on the lower triangle's pattern, natural order (no fill outside the band
    // and border), its symbolic analysis once
    let a = Csc::lower(nt, &full, |r, c| full[r * nt + c] != 0.0);
    let id: Vec<usize> = (0..nt).collect();
    let sym = faer_symbolic(&a, &id, &id);
    let mut sbuf = sparse_buf(&sym);
    let mut lval = Vec::new();
    let mut worst: f64 = 0.0;
    for _ in 0..reps {
        let mut x1 = b.clone();
        if np == 0 {
            let mut h = BandMatrix::zeros(n, bw);
            for i in 0..n {
                for j in i.saturating_sub(bw)..=i {
                    h.add(i, j, full[i * nt + j]);
                }
            }
            hand_band(&mut h, &mut x1);
        } else {
            let mut h = Bordered::zeros(n, bw, np);
            for i in 0..n {
                for j in i.saturating_sub(bw)..=i {
                    h.band.add(i, j, full[i * nt + j]);
                }
                for p in 0..np {
                    h.border[(i, p)] = full[(n + p) * nt + i];
                }
            }
            for p in 0..np {
                for q in 0..np {
                    h.corner[(p, q)] = full[(n + p) * nt + n + q];
                }
            }
            hand_bordered(&mut h, &mut x1);
        }
        let mut x2 = Mat::<f64>::from_fn(nt, 1, |r, _| b[r]);
        faer_sparse(&sym, &a, &mut lval, &mut x2, &mut sbuf);
        let scale = x1.iter().fold(0f64, |s, v| s.max(v.abs()));
        for i in 0..nt {
            worst = worst.max((x2[(i, 0)] - x1[i]).abs() / scale);
        }
    }
    println!(
        "n {n} bw {bw} np {np}: {reps} solves; nnz(L) {}; faer sparse vs hand-written, max |dx|/|x| {worst:.1e}",
        sym.len_val()
    );
    Ok(())
}

// ----------------------------------------------------------------------------------- small

#[inline(never)]
fn nalgebra_small(
    h: &nalgebra::DMatrix<f64>,
    b: &nalgebra::DVector<f64>,
) -> nalgebra::DVector<f64> {
    h.clone().cholesky().expect("positive definite").solve(b)
}

#[inline(never)]
fn faer_small(h: &Mat<f64>, x: &mut Mat<f64>, buf: &mut MemBuffer) {
    let mut l = h.clone();
    faer_dense(&mut l, x, buf);
}

fn small(n: usize, reps: usize) -> Result<(), String> {
    let mut s = 11u64;
    let g = nalgebra::DMatrix::<f64>::from_fn(n, n, |_, _| rnd(&mut s));
    let h = &g * g.transpose() + nalgebra::DMatrix::<f64>::identity(n, n) * n as f64;
    let b = nalgebra::DVector::<f64>::from_fn(n, |i, _| 1.0 + i as f64);
    let fm = Mat::<f64>::from_fn(n, n, |r, c| h[(r, c)]);
    let mut buf = dense_buf(n);
    let mut worst: f64 = 0.0;
    for _ in 0..reps {
        let x1 = nalgebra_small(&h, &b);
        let mut x2 = Mat::<f64>::from_fn(n, 1, |r, _| b[r]);
        faer_small(&fm, &mut x2, &mut buf);
        let scale = x1.amax();
        for i in 0..n {
            worst = worst.max((x2[(i, 0)] - x1[i]).abs() / scale);
        }
    }
    println!("n {n}: {reps} solves; faer vs nalgebra, max |dx|/|x| {worst:.1e}");
    Ok(())
}

// ----------------------------------------------------------------------------------- multi

#[inline(never)]
fn hand_chol(h: &mut [f64], n: usize) {
    moreau::pipeline::chol_factor_fast(h, n);
}

#[inline(never)]
fn faer_multi(h: &mut Mat<f64>, x: &mut Mat<f64>, buf: &mut MemBuffer) {
    faer_dense(h, x, buf)
}

fn multi(n: usize, c: usize, reps: usize) -> Result<(), String> {
    let mut s = 13u64;
    let g = nalgebra::DMatrix::<f64>::from_fn(n, n, |_, _| rnd(&mut s));
    let h = &g * g.transpose() + nalgebra::DMatrix::<f64>::identity(n, n) * n as f64;
    let req = faer::linalg::cholesky::llt::factor::cholesky_in_place_scratch::<f64>(
        n,
        Par::Seq,
        Spec::default(),
    );
    let mut buf = MemBuffer::new(req);
    let mut worst: f64 = 0.0;
    for _ in 0..reps {
        let mut hh: Vec<f64> = (0..n * n).map(|k| h[(k / n, k % n)]).collect();
        hand_chol(&mut hh, n);
        let mut fm = Mat::<f64>::from_fn(n, n, |r, cc| h[(r, cc)]);
        let mut x = Mat::<f64>::from_fn(n, c, |r, cc| 1.0 + (r + cc) as f64);
        faer_multi(&mut fm, &mut x, &mut buf);
        for i in 0..n {
            for j in 0..=i {
                worst = worst.max((fm[(i, j)] - hh[i * n + j]).abs());
            }
        }
    }
    println!("n {n} c {c}: {reps} factors; faer L vs hand-written L, max |dL| {worst:.1e}");
    Ok(())
}
