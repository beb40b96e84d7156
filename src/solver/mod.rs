//! Constraint solvers (Computation "Algorithms"): Newton and CG on the reduced primal problem,
//! PGS on the dual (docs/mujoco-behaviour.md#cost, #newton), each run per constraint island
//! ([`island`], MuJoCo 4.0.0's default; one global solve with the `island` flag disabled), then the
//! optional noslip post-pass ([`noslip`]).
//!
//! Input: the tree-sparse `qM` and its LᵀDL factor `qLD`/`qLDiagInv` (from
//! [`crate::smooth::crb::factor_m`]), `qfrc_smooth`, `qacc_smooth`,
//! `qacc_warmstart` and the efc arrays with `efc_D`, `efc_R`, `efc_aref`, `efc_b` computed by
//! [`crate::constraint::params`]. Output: `qacc`, `efc_force`, `efc_state`, `qfrc_constraint`
//! (= Jᵀ efc_force), `solver[island]`, `solver_niter[island]` and the island maps. Each island
//! is gathered into a [`Problem`] (its dofs and rows in MuJoCo's island order). M stays
//! tree-sparse (products and solves over the dof tree, `mj_mulM_island`/`mj_solveM_island`):
//! an island holds whole kinematic trees, so its block of M and of M's factor are the rows of
//! the global ones; CG's preconditioner, PGS and noslip use that factor too (PGS and noslip
//! through the sparse rows of B = J L⁻¹ D^(−1/2), A = B Bᵀ, [`pgs::build_b`]). J is dense, or in compressed rows when `efc_J` is sparse
//! ([`crate::constraint::sparse`]) or when Newton runs on f64 (its nonzeros only, like
//! `efc_J_rownnz`), through [`Problem::mul_j`], [`Problem::mul_jt`], [`Problem::jrow`]; the
//! Newton Hessian is tree-sparse or dense ([`newton`]).

pub mod cg;
pub mod hsparse;
pub mod island;
pub mod newton;
pub mod noslip;
pub mod pgs;
mod primal;

use crate::constraint::cost::{evaluate, Rows};
use crate::constraint::params;
use crate::constraint::sparse::JRow;
use crate::data::scratch::{Problem, SolverScratch};
use crate::data::ConstraintState;
use crate::data::{Data, SolverStat, NISLAND};
use crate::math::{dense, sc, simd, Scalar};
use crate::model::{disable, Model, SolverType};

impl<T: Scalar> Problem<T> {
    /// The per-row constants of the reduced primal cost.
    pub fn rows(&self) -> Rows<'_, T> {
        Rows {
            ty: &self.ty,
            D: &self.D,
            R: &self.R,
            frictionloss: &self.frictionloss,
            cone: &self.cone,
        }
    }

    /// [`Problem::rows`] beside the problem's `force` and `state`, borrowed mutably (disjoint
    /// fields), for [`evaluate`].
    pub fn rows_force_state(&mut self) -> (Rows<'_, T>, &mut [T], &mut [ConstraintState]) {
        (
            Rows {
                ty: &self.ty,
                D: &self.D,
                R: &self.R,
                frictionloss: &self.frictionloss,
                cone: &self.cone,
            },
            &mut self.force,
            &mut self.state,
        )
    }

    /// `out = M x` over the problem's dofs (tree-sparse, `mj_mulM`).
    pub fn mul_m(&self, x: &[T], out: &mut [T]) {
        crate::smooth::crb::mul_tree_col(&self.Madr, &self.Mcol, &self.qM, x, out);
    }

    /// `x ← M⁻¹ x` over the problem's dofs (tree-sparse LᵀDL, `mj_solveM`).
    pub fn solve_m(&self, x: &mut [T]) {
        crate::smooth::crb::solve_tree_col(&self.Madr, &self.Mcol, &self.qLD, &self.qLDiagInv, x);
    }

    /// `tr M` of the problem, summed in dof order.
    pub fn trace_m(&self) -> T {
        let mut t = T::zero();
        for &a in &self.Madr {
            t += self.qM[a];
        }
        t
    }

    /// The lower triangle (row `i`: columns `0..=i`) of the dense M into `out` (nv × nv,
    /// row-major); the entries above the diagonal are left as they were.
    pub fn dense_m_lower(&self, out: &mut [T]) {
        let nv = self.nv;
        for i in 0..nv {
            out[i * nv..i * nv + i + 1].fill(T::zero());
            // row i of the layout: i and its ancestors (smaller indices), columns in `Mcol`
            let a = self.Madr[i];
            let e = self.Madr.get(i + 1).copied().unwrap_or(self.Mcol.len());
            for (&v, &j) in self.qM[a..e].iter().zip(&self.Mcol[a..e]) {
                out[i * nv + j] = v;
            }
        }
    }

    /// Row `i` of J.
    #[inline]
    pub fn jrow(&self, i: usize) -> JRow<'_, T> {
        if self.J_sparse {
            let (a, n) = (self.J_rowadr[i], self.J_rownnz[i]);
            JRow {
                cols: Some(&self.J_colind[a..a + n]),
                vals: &self.J[a..a + n],
            }
        } else {
            JRow {
                cols: None,
                vals: &self.J[i * self.nv..(i + 1) * self.nv],
            }
        }
    }

    /// `y = J x − aref`, the argument of `s` (Computation "Reduced primal problem").
    pub fn mul_j_aref(&self, x: &[T], y: &mut [T]) {
        self.mul_j(x, y);
        for (j, r) in y.iter_mut().zip(&self.aref) {
            *j -= *r;
        }
    }

    /// `y = J x`.
    pub fn mul_j(&self, x: &[T], y: &mut [T]) {
        if self.J_sparse {
            let rows = self.J_rowadr.iter().zip(&self.J_rownnz);
            for (yi, (&a, &n)) in y[..self.nefc].iter_mut().zip(rows) {
                let mut s = T::zero();
                for (&v, &c) in self.J[a..a + n].iter().zip(&self.J_colind[a..a + n]) {
                    s += v * x[c];
                }
                *yi = s;
            }
        } else {
            dense::mul(&self.J, x, self.nefc, self.nv, y);
        }
    }

    /// `y = Jᵀ f` (rows with `f_i = 0` skipped, as [`dense::mul_jt`]).
    pub fn mul_jt(&self, f: &[T], y: &mut [T]) {
        if self.J_sparse {
            let y = &mut y[..self.nv];
            y.fill(T::zero());
            let rows = self.J_rowadr.iter().zip(&self.J_rownnz);
            for (&fi, (&a, &n)) in f[..self.nefc].iter().zip(rows) {
                if !crate::math::exact_zero(fi) {
                    for (&v, &c) in self.J[a..a + n].iter().zip(&self.J_colind[a..a + n]) {
                        y[c] += v * fi;
                    }
                }
            }
        } else {
            dense::mul_jt(&self.J, f, self.nefc, self.nv, y);
        }
    }

    /// Fills `row_leaf` from J's values (after [`Problem::gather`]; Newton calls it before its
    /// first Hessian, so problems only gathered for the warm start skip it); `-2` for every row
    /// unless the scalar is `f64` (a dual entry with a zero value may carry a derivative, so its
    /// zeros are not structural).
    pub(crate) fn leaves(&mut self) {
        if self.leaves_done {
            return;
        }
        let (nv, nefc) = (self.nv, self.nefc);
        self.row_leaf.clear();
        if std::any::TypeId::of::<T>() != std::any::TypeId::of::<f64>() {
            self.row_leaf.resize(nefc, -2);
            return;
        }
        for i in 0..nefc {
            // the nonzero columns, deepest first, must all lie on the first one's root path
            let mut leaf = -1i32;
            let mut cur = -1i32;
            let mut on_path = |c: usize| {
                let c = c as i32;
                if leaf < 0 {
                    leaf = c;
                    cur = c;
                    return true;
                }
                while cur > c {
                    cur = self.parentid[cur as usize];
                }
                cur == c
            };
            let ok = if self.J_sparse {
                let (a, n) = (self.J_rowadr[i], self.J_rownnz[i]);
                let (cols, vals) = (&self.J_colind[a..a + n], &self.J[a..a + n]);
                cols.iter()
                    .zip(vals)
                    .rev()
                    .all(|(&c, &v)| crate::math::exact_zero(v) || on_path(c))
            } else {
                let row = &self.J[i * nv..(i + 1) * nv];
                (0..nv)
                    .rev()
                    .all(|c| crate::math::exact_zero(row[c]) || on_path(c))
            };
            self.row_leaf.push(if ok { leaf } else { -2 });
        }
    }

    /// Gathers the dofs `dofs` (whole kinematic trees, ascending) and rows `rows` of `d`;
    /// `efc2p` maps a global row to its problem row (`None`: identity). Does not touch `qacc`, `force`, `state` beyond sizing
    /// them. [`Problem::gather_pos`] then [`Problem::gather_vel`].
    fn gather(
        &mut self,
        m: &Model,
        d: &Data<T>,
        dofs: &[usize],
        rows: &[usize],
        efc2p: Option<(&[usize], usize)>,
    ) {
        self.gather_pos(m, d, dofs, rows, efc2p);
        self.gather_vel(m, d, dofs, rows, efc2p);
    }

    /// The part of [`Problem::gather`] that depends on the position stage only (MuJoCo's
    /// `mj_fwdPosition` outputs): M's block and factor, J, and the rows' type, D, R,
    /// frictionloss and cones. A step that skips the position stage keeps it
    /// ([`solve_skip`]).
    fn gather_pos(
        &mut self,
        m: &Model,
        d: &Data<T>,
        dofs: &[usize],
        rows: &[usize],
        efc2p: Option<(&[usize], usize)>,
    ) {
        let z = T::zero();
        let nvfull = m.nv;
        let (nv, nefc) = (dofs.len(), rows.len());
        self.nv = nv;
        self.nefc = nefc;
        // M's rows of the problem's dofs: an island holds whole trees, so every ancestor of one
        // of its dofs is in it, and the rows of the global factor are the island's factor
        self.g2l.resize(nvfull, 0);
        for (a, &da) in dofs.iter().enumerate() {
            self.g2l[da] = a;
        }
        self.qM.clear();
        self.qLD.clear();
        self.qLDiagInv.clear();
        if nv == nvfull {
            // every dof in order: the global layout (kept from the last such gather)
            if !(self.whole && self.Madr == m.dof_Madr && self.parentid == m.dof_parentid) {
                self.Madr.clear();
                self.Madr.extend_from_slice(&m.dof_Madr);
                self.parentid.clear();
                self.parentid.extend_from_slice(&m.dof_parentid);
                self.Mcol.clear();
                for a in 0..nv {
                    let mut j = a as i32;
                    while j >= 0 {
                        self.Mcol.push(j as usize);
                        j = self.parentid[j as usize];
                    }
                }
                self.whole = true;
            }
            self.qM.extend_from_slice(&d.qM[..m.nM]);
            self.qLD.extend_from_slice(&d.qLD[..m.nM]);
            self.qLDiagInv.extend_from_slice(&d.qLDiagInv[..nv]);
        } else {
            self.whole = false;
            self.Madr.clear();
            self.parentid.clear();
            self.Mcol.clear();
            for &da in dofs {
                let a0 = m.dof_Madr[da];
                let a1 = if da + 1 < nvfull {
                    m.dof_Madr[da + 1]
                } else {
                    m.nM
                };
                self.Madr.push(self.qM.len());
                let par = m.dof_parentid[da];
                self.parentid.push(if par < 0 {
                    -1
                } else {
                    self.g2l[par as usize] as i32
                });
                let mut j = self.parentid.len() as i32 - 1;
                while j >= 0 {
                    self.Mcol.push(j as usize);
                    j = self.parentid[j as usize];
                }
                self.qM.extend_from_slice(&d.qM[a0..a1]);
                self.qLD.extend_from_slice(&d.qLD[a0..a1]);
                self.qLDiagInv.push(d.qLDiagInv[da]);
            }
        }
        self.J_sparse = d.efc_J_sparse;
        self.leaves_done = false;
        self.hpat.done = false;
        // Newton on f64 with a dense efc_J: the rows' exact zeros are structural (a contact
        // touches its bodies' chains, a limit one dof), so the problem keeps only the nonzeros
        // in compressed rows; every product then skips the zeros, which only ever added ±0, so
        // the results are those of the dense rows (up to the sign of an exact zero)
        let compress =
            !self.J_sparse && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f64>();
        if compress {
            self.J_sparse = true;
            // every entry is written, the count advancing past the nonzeros only; the arrays
            // are only ever grown (`jrow` addresses the rows), so no step re-zeroes them
            if self.J.len() < nefc * nv {
                self.J.resize(nefc * nv, z);
            }
            if self.J_colind.len() < nefc * nv {
                self.J_colind.resize(nefc * nv, 0);
            }
            self.J_rownnz.resize(nefc, 0);
            self.J_rowadr.resize(nefc, 0);
            let all = nv == nvfull;
            // `row_leaf` on the way when the dofs fit a bit mask: the row is on the root path
            // of its deepest nonzero column iff its columns are among that dof's ancestors
            let masks = nv <= 64;
            if masks {
                self.anc.clear();
                for a in 0..nv {
                    let par = self.parentid[a];
                    let up = if par < 0 { 0 } else { self.anc[par as usize] };
                    self.anc.push(up | 1u64 << a);
                }
                self.row_leaf.clear();
            }
            // every column of a row at most 64 wide: its nonzeros from a bit mask
            let by_mask = masks && all;
            let mut k = 0;
            for (i, &r) in rows.iter().enumerate() {
                let src = &d.efc_J[r * nvfull..(r + 1) * nvfull];
                let (dv, dc) = (&mut self.J[k..k + nv], &mut self.J_colind[k..k + nv]);
                let mut n = 0;
                let mut mask = 0u64;
                let fast = if by_mask {
                    simd::compress_row(&src[..nv], dv, dc)
                } else {
                    None
                };
                if let Some((nn, mk)) = fast {
                    (n, mask) = (nn, mk);
                } else {
                    for (a, &da) in dofs.iter().enumerate() {
                        let v = if all { src[a] } else { src[da] };
                        if v != z {
                            dv[n] = v;
                            dc[n] = a;
                            n += 1;
                            mask |= 1u64 << (a & 63);
                        }
                    }
                }
                if masks {
                    self.row_leaf.push(match n {
                        0 => -1,
                        _ if mask & !self.anc[dc[n - 1]] == 0 => dc[n - 1] as i32,
                        _ => -2,
                    });
                }
                self.J_rowadr[i] = k;
                self.J_rownnz[i] = n;
                k += n;
            }
            self.leaves_done = masks;
        } else if self.J_sparse {
            // compressed rows in problem columns; a pattern column outside the problem's dofs
            // (a structural zero of a tendon row reaching another tree) is dropped
            self.J.clear();
            self.J_colind.clear();
            self.J_rownnz.resize(nefc, 0);
            self.J_rowadr.resize(nefc, 0);
            for (i, &r) in rows.iter().enumerate() {
                let row = d.efc_J_row(r, nvfull);
                let adr = self.J.len();
                for (&k, &v) in row.cols.unwrap_or(&[]).iter().zip(row.vals) {
                    let pk = self.g2l[k];
                    if pk >= nv || dofs[pk] != k {
                        continue;
                    }
                    self.J_colind.push(pk);
                    self.J.push(v);
                }
                self.J_rowadr[i] = adr;
                self.J_rownnz[i] = self.J.len() - adr;
            }
        } else {
            self.J.resize(nefc * nv, z);
            let all = nv == nvfull; // whole trees, ascending: every dof, in order
            for (i, &r) in rows.iter().enumerate() {
                let src = &d.efc_J[r * nvfull..(r + 1) * nvfull];
                let dst = &mut self.J[i * nv..(i + 1) * nv];
                if all {
                    dst.copy_from_slice(src);
                } else {
                    for (x, &da) in dst.iter_mut().zip(dofs) {
                        *x = src[da];
                    }
                }
            }
        }
        // every row in order (the global problem): slice copies
        let all_rows = efc2p.is_none() && nefc == d.nefc;
        pick(&mut self.D, &d.efc_D, rows, all_rows);
        pick(&mut self.R, &d.efc_R, rows, all_rows);
        pick(&mut self.frictionloss, &d.efc_frictionloss, rows, all_rows);
        pick(&mut self.ty, &d.efc_type, rows, all_rows);
        self.qacc.resize(nv, z);
        self.force.resize(nefc, z);
        self.state.resize(nefc, ConstraintState::Satisfied);
        self.cone.clear();
        match efc2p {
            None => self.cone.extend_from_slice(&d.efc_cone),
            Some((map, base)) => {
                let lo = base;
                let hi = base + nefc;
                for c in &d.efc_cone {
                    let a = map[c.adr];
                    if a >= lo && a < hi {
                        let mut c2 = *c;
                        c2.adr = a - lo;
                        self.cone.push(c2);
                    }
                }
            }
        }
    }

    /// The velocity- and control-dependent part of [`Problem::gather`] (same arguments as
    /// [`Problem::gather_pos`], which must have run for the same dofs and rows): `aref`, `b`,
    /// `qfrc_smooth`, `qacc_smooth`.
    fn gather_vel(
        &mut self,
        m: &Model,
        d: &Data<T>,
        dofs: &[usize],
        rows: &[usize],
        efc2p: Option<(&[usize], usize)>,
    ) {
        let nvfull = m.nv;
        let (nv, nefc) = (dofs.len(), rows.len());
        let all_rows = efc2p.is_none() && nefc == d.nefc;
        pick(&mut self.aref, &d.efc_aref, rows, all_rows);
        pick(&mut self.b, &d.efc_b, rows, all_rows);
        pick(&mut self.qfrc_smooth, &d.qfrc_smooth, dofs, nv == nvfull);
        pick(&mut self.qacc_smooth, &d.qacc_smooth, dofs, nv == nvfull);
    }
}

/// `out ← src[idx]`: the first `idx.len()` entries by one slice copy when `all` (`idx` is
/// then `0..idx.len()`), else entry by entry.
fn pick<U: Copy>(out: &mut Vec<U>, src: &[U], idx: &[usize], all: bool) {
    out.clear();
    if all {
        out.extend_from_slice(&src[..idx.len()]);
    } else {
        out.extend(idx.iter().map(|&r| src[r]));
    }
}

impl<T: Scalar> SolverScratch<T> {
    /// Sizes the per-dof vectors for a problem of `nv` dofs.
    fn resize_nv(&mut self, nv: usize) {
        let z = T::zero();
        for v in [
            &mut self.Ma,
            &mut self.grad,
            &mut self.Mgrad,
            &mut self.search,
            &mut self.Ms,
            &mut self.Mgrad_old,
            &mut self.grad_old,
            &mut self.tmp,
        ] {
            v.resize(nv, z);
        }
        self.Hdinv.resize(nv, z);
        self.rowbuf.resize(6 * nv, z);
    }
}

/// Solves for the constrained acceleration (mj_fwdConstraint's solver part), dispatching on
/// `m.opt.solver`: island discovery (`island::island`), the global warm start (total cost of
/// `qacc_warmstart` against `qacc_smooth`; PGS: the dual cost of the forces at
/// `qacc_warmstart` against zero), then one solve per island with its own scale, stopping and
/// statistics (`solver[island]`, `solver_niter[island]`), or one global solve with the
/// `island` flag disabled. Dofs in no island get `qacc_smooth`. Each solve is followed by the
/// noslip pass (`noslip`) if `noslip_iterations > 0`. With no rows: `qacc = qacc_smooth`,
/// zero iterations.
///
/// `efc_state` is the final state of every row (MuJoCo 4.0.0 with islands on leaves the
/// warm-start evaluation there and puts the final states in `iefc_state`;
/// docs/mujoco-behaviour.md#cost).
pub fn solve<T: Scalar>(m: &Model, d: &mut Data<T>) {
    solve_with(m, d, false, false);
}

/// [`solve`] for a step that skipped the position stage (`mj_forwardSkip` with `skipstage >=
/// mjSTAGE_POS`, [`crate::forward::forward_skip`]): with `skip_pos` and
/// `d.solver_pos_valid`, the islands and the position-only part of the global problem
/// (`Problem::gather_pos`: M's block and factor, J, D, R, cones) left by the last solve are
/// reused, as MuJoCo 4.0.0 builds its islands once in `mj_fwdPosition`; only `aref`, `b`,
/// `qfrc_smooth`, `qacc_smooth` are gathered again. The caller is trusted, as by
/// `mj_forwardSkip`: the position-stage results in `d` must be those the last solve saw (the
/// position stage and [`Data::resize_efc`] clear `solver_pos_valid`). Unlike [`solve`] it
/// first computes `efc_b = J qacc_smooth − aref` ([`params::compute_b`]), through the problem's
/// compressed rows when it is the global one: the same sums (the zeros of a dense row only ever
/// add ±0 to a partial sum that starts at +0, which leaves it unchanged bit for bit while
/// `qacc_smooth` is finite), which the Newton/CG warm start then reuses as `J qacc_smooth −
/// aref`. The results are those of [`params::compute_b`] followed by [`solve`] bit for bit.
pub fn solve_skip<T: Scalar>(m: &Model, d: &mut Data<T>, skip_pos: bool) {
    solve_with(m, d, skip_pos, true);
}

fn solve_with<T: Scalar>(m: &Model, d: &mut Data<T>, skip_pos: bool, compute_b: bool) {
    let nv = m.nv;
    let nefc = d.nefc;
    for v in d.solver.iter_mut() {
        v.clear();
    }
    d.solver_niter = [0; NISLAND];
    let reuse = skip_pos && d.solver_pos_valid;
    if !reuse {
        island::island(m, d);
    }
    d.solver_pos_valid = true;
    let mut s = std::mem::take(&mut d.solver_scratch);
    if nefc == 0 {
        if compute_b {
            params::compute_b(m, d);
        }
        d.qacc.copy_from_slice(&d.qacc_smooth);
        d.qfrc_constraint.fill(T::zero());
        put_back(&mut d.solver_scratch, s);
        return;
    }
    let mut p = std::mem::take(&mut s.prob);
    if !reuse {
        s.ident_dof.clear();
        s.ident_dof.extend(0..nv);
        s.ident_efc.clear();
        s.ident_efc.extend(0..nefc);
    }

    // global problem and warm start
    if !(reuse && s.prob_global && p.nv == nv && p.nefc == nefc) {
        p.gather_pos(m, d, &s.ident_dof, &s.ident_efc, None);
        s.ws_valid = false;
    }
    // efc_b through the problem's rows (the global efc rows in order, compressed): see above
    let b_rows = compute_b && p.J_sparse && d.qacc_smooth.iter().all(|x| x.is_finite());
    if b_rows {
        for i in 0..nefc {
            d.efc_b[i] = p.jrow(i).dot(&d.qacc_smooth) - d.efc_aref[i];
        }
    } else if compute_b {
        params::compute_b(m, d);
    }
    p.gather_vel(m, d, &s.ident_dof, &s.ident_efc, None);
    s.start_ws = false;
    s.start_s = None;
    s.resize_nv(nv);
    s.resize(nefc, p.cone.len());
    let pgs = m.opt.solver == SolverType::Pgs;
    warmstart(m, d, &mut p, &mut s, pgs, b_rows);

    let nisland = d.nisland;
    // one island holding every dof and row in their global order (a single robot in contact):
    // its problem is the global one already gathered, so solve that directly
    let whole = nisland == 1
        && d.nidof == nv
        && d.island_nv[0] == nv
        && d.island_nefc[0] == nefc
        && d.map_idof2dof[..nv]
            .iter()
            .enumerate()
            .all(|(a, &b)| a == b)
        && d.map_iefc2efc[..nefc]
            .iter()
            .enumerate()
            .all(|(a, &b)| a == b);
    // the problem left in `s.prob` is the global one (its position part reusable) only here
    s.prob_global = nisland == 0 || whole;
    if nisland == 0 || whole {
        d.solver_niter[0] = run(m, &mut p, &mut s, d.solver.get_mut(0));
        d.qacc.copy_from_slice(&p.qacc);
        d.efc_force.copy_from_slice(&p.force);
        d.efc_state.copy_from_slice(&p.state);
    } else {
        // the islands' gathers replace the global problem (and what was kept of its warm start)
        s.ws_valid = false;
        // start point of every island: the global warm start
        d.qacc.copy_from_slice(&p.qacc);
        d.efc_force.copy_from_slice(&p.force);
        for j in d.nidof..nv {
            let dof = d.map_idof2dof[j];
            d.qacc[dof] = d.qacc_smooth[dof];
        }
        for k in 0..nisland {
            let (a0, nvk) = (d.island_idofadr[k], d.island_nv[k]);
            let (r0, nek) = (d.island_iefcadr[k], d.island_nefc[k]);
            p.gather(
                m,
                d,
                &d.map_idof2dof[a0..a0 + nvk],
                &d.map_iefc2efc[r0..r0 + nek],
                Some((&d.map_efc2iefc, r0)),
            );
            s.start_ws = false;
            s.start_s = None;
            for (a, &dof) in d.map_idof2dof[a0..a0 + nvk].iter().enumerate() {
                p.qacc[a] = d.qacc[dof];
            }
            for (i, &r) in d.map_iefc2efc[r0..r0 + nek].iter().enumerate() {
                p.force[i] = d.efc_force[r];
            }
            s.resize_nv(nvk);
            s.resize(nek, p.cone.len());
            let niter = run(m, &mut p, &mut s, d.solver.get_mut(k));
            if k < NISLAND {
                d.solver_niter[k] = niter;
            }
            for (a, &dof) in d.map_idof2dof[a0..a0 + nvk].iter().enumerate() {
                d.qacc[dof] = p.qacc[a];
            }
            for (i, &r) in d.map_iefc2efc[r0..r0 + nek].iter().enumerate() {
                d.efc_force[r] = p.force[i];
                d.efc_state[r] = p.state[i];
            }
        }
    }
    // qfrc_constraint = J^T f: through the problem's compressed rows when it is the global one
    // (the same sums: the rows' zeros only ever added ±0)
    let compressed = (nisland == 0 || whole) && p.J_sparse && !d.efc_J_sparse;
    if compressed {
        p.mul_jt(&d.efc_force, &mut d.qfrc_constraint);
    }
    put_back(&mut s.prob, p);
    s.resize_nv(nv);
    s.resize(nefc, d.efc_cone.len());
    put_back(&mut d.solver_scratch, s);
    if compressed {
        // done
    } else if d.efc_J_sparse {
        let mut q = std::mem::take(&mut d.qfrc_constraint);
        q.fill(T::zero());
        for i in 0..nefc {
            let f = d.efc_force[i];
            if !crate::math::exact_zero(f) {
                d.efc_J_row(i, nv).axpy(f, &mut q);
            }
        }
        d.qfrc_constraint = q;
    } else {
        dense::mul_jt(&d.efc_J, &d.efc_force, nefc, nv, &mut d.qfrc_constraint);
    }
}

/// Runs the selected solver on `p`, then the noslip pass if `noslip_iterations > 0`; returns
/// the total iteration count.
fn run<T: Scalar>(
    m: &Model,
    p: &mut Problem<T>,
    s: &mut SolverScratch<T>,
    mut stats: Option<&mut Vec<SolverStat>>,
) -> usize {
    let niter = match m.opt.solver {
        SolverType::Newton => primal::solve(m, p, s, true, stats.as_deref_mut()),
        SolverType::Cg => primal::solve(m, p, s, false, stats.as_deref_mut()),
        SolverType::Pgs => pgs::solve(m, p, s, stats.as_deref_mut()),
    };
    if m.opt.noslip_iterations > 0 {
        niter + noslip::solve(m, p, s, stats)
    } else {
        niter
    }
}

/// The global warm start on the whole-system problem `p`: primal solvers put the start point
/// into `p.qacc`, PGS the start forces into `p.force` (docs/mujoco-behaviour.md#newton).
fn warmstart<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    p: &mut Problem<T>,
    s: &mut SolverScratch<T>,
    pgs: bool,
    jar_is_b: bool,
) {
    let z = T::zero();
    let nv = p.nv;
    let n = p.nefc;
    p.qacc.copy_from_slice(&d.qacc_smooth);
    p.force.fill(z);
    if m.opt.disabled(disable::WARMSTART) {
        return;
    }
    if pgs {
        // forces of s at qacc_warmstart, kept if their dual cost ½fᵀ(A+R)f + fᵀb is negative
        p.mul_j_aref(&d.qacc_warmstart, &mut s.jar);
        let (rows, force, _) = p.rows_force_state();
        evaluate(&rows, &s.jar, force, &mut s.stmp, None);
        // fᵀAf = uᵀM⁻¹u with u = Jᵀf
        p.mul_jt(&p.force, &mut s.tmp);
        s.Mgrad.copy_from_slice(&s.tmp);
        p.solve_m(&mut s.Mgrad);
        let mut cost = dense::dot(&s.tmp, &s.Mgrad);
        for i in 0..n {
            cost += p.R[i] * p.force[i] * p.force[i];
        }
        cost = cost * sc(0.5) + dense::dot(&p.force, &p.b);
        if cost > z {
            p.force.fill(z);
        }
    } else {
        // at qacc_smooth the Gauss term is exactly zero (a - a0 = 0): only s(J a0 - aref),
        // which is `b` when that was computed through the problem's rows (`jar_is_b`)
        if jar_is_b {
            s.jar.copy_from_slice(&p.b);
        } else {
            p.mul_j_aref(&d.qacc_smooth, &mut s.jar);
        }
        let c_sm = evaluate(&p.rows(), &s.jar, &mut s.ftmp, &mut s.stmp, None);
        // last, so that s.Ma, s.jar are those of the warm start when it is kept
        // M a and J a at a = qacc_warmstart depend on the position stage and on `a` only: kept
        // across steps that reuse the global problem while `a` is the same bit for bit (f64;
        // the finite-difference Jacobians restore the same warm start before every step)
        let a = &d.qacc_warmstart;
        let f64s = std::any::TypeId::of::<T>() == std::any::TypeId::of::<f64>();
        let hit = s.ws_valid
            && f64s
            && s.ws_qacc.len() == nv
            && s.ws_qacc
                .iter()
                .zip(a)
                .all(|(x, y)| re(*x).to_bits() == re(*y).to_bits());
        if hit {
            s.Ma.copy_from_slice(&s.ws_Ma);
        } else {
            p.mul_m(a, &mut s.Ma);
            p.mul_j(a, &mut s.ws_Ja);
            s.ws_valid = f64s;
            s.ws_qacc.clear();
            s.ws_qacc.extend_from_slice(a);
            s.ws_Ma.clear();
            s.ws_Ma.extend_from_slice(&s.Ma);
        }
        // as Problem::mul_j_aref: (J a) − aref
        for ((j, ja), r) in s.jar.iter_mut().zip(&s.ws_Ja).zip(&p.aref) {
            *j = *ja - *r;
        }
        let (c_ws, s_ws) = primal::total_cost_at(p, a, s);
        if c_ws <= c_sm {
            p.qacc.copy_from_slice(&d.qacc_warmstart);
            s.start_ws = true;
            s.start_s = Some(s_ws);
        }
    }
}

/// `*slot = v` for a `slot` that holds the empty default left by `std::mem::take` (empty
/// vectors, no allocation): nothing to drop, so the drop glue is skipped.
fn put_back<X>(slot: &mut X, v: X) {
    std::mem::forget(std::mem::replace(slot, v));
}

/// Real part of a scalar, for statistics.
pub(crate) fn re<T: Scalar>(x: T) -> f64 {
    x.to_subset().unwrap_or(f64::NAN)
}
