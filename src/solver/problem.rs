//! The per-island problem every solver works on ([`Problem`], gathered from `Data` by the
//! dispatcher in the parent module): M's block and its factor, J's rows, the rows' constants,
//! and the products with them; and the helpers the solvers share.

use crate::constraint::cost::Rows;
use crate::constraint::sparse::JRow;
use crate::data::scratch::{Problem, SolverScratch};
use crate::data::ConstraintState;
use crate::data::Data;
use crate::math::{dense, simd, Scalar};
use crate::model::Model;

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
    /// row-major); the entries above the diagonal are zeroed too (the whole matrix is cleared
    /// at once, not row by row: one short fill per row cost more than the fill itself).
    pub fn dense_m_lower(&self, out: &mut [T]) {
        let nv = self.nv;
        crate::math::zero_fill(&mut out[..nv * nv]);
        for i in 0..nv {
            // row i of the layout: i and its ancestors (smaller indices), columns in `Mcol`
            let a = self.Madr[i];
            let e = self.Madr.get(i + 1).copied().unwrap_or(self.Mcol.len());
            let row = &mut out[i * nv..i * nv + i + 1];
            for (&v, &j) in self.qM[a..e].iter().zip(&self.Mcol[a..e]) {
                row[j] = v;
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
    pub(super) fn gather(
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
    /// ([`super::solve_skip`]).
    pub(super) fn gather_pos(
        &mut self,
        m: &Model,
        d: &Data<T>,
        dofs: &[usize],
        rows: &[usize],
        efc2p: Option<(&[usize], usize)>,
    ) {
        self.gather_pos_with(m, d, dofs, rows, efc2p, false);
    }

    /// The position part of the global problem (every dof and row, in order) for a solve on
    /// `Data`'s arrays in place: the layout of M and J's compressed rows as
    /// [`Problem::gather_pos`] makes them, but none of the arrays [`Problem::lend`] swaps in.
    pub(super) fn gather_pos_global(
        &mut self,
        m: &Model,
        d: &Data<T>,
        dofs: &[usize],
        rows: &[usize],
    ) {
        self.gather_pos_with(m, d, dofs, rows, None, true);
    }

    /// Swaps `Data`'s arrays into the global problem for its solve, as MuJoCo's solver works
    /// on `mjData` in place: `qM`, `qLD`, `qLDiagInv`, `efc_type`, `efc_D`, `efc_R`,
    /// `efc_frictionloss`, `efc_cone`, `efc_aref`, `efc_b`, `qfrc_smooth`, `qacc_smooth`, and
    /// as the solution's storage `qacc`, `efc_force`, `efc_state`. The problem's own arrays are
    /// emptied first, so that `d` holds empty arrays until [`Problem::give_back`]. The problem's
    /// layout and J (from [`Problem::gather_pos_global`]) must be those of `d`'s position stage.
    pub(super) fn lend(&mut self, d: &mut Data<T>) {
        self.lent = true;
        self.clear_lent();
        self.swap_lent(d);
    }

    /// Returns the arrays of [`Problem::lend`] to `d`, the solution in `qacc`, `efc_force`,
    /// `efc_state`; the problem's own (empty) arrays come back.
    pub(super) fn give_back(&mut self, d: &mut Data<T>) {
        self.swap_lent(d);
    }

    /// Swaps the arrays [`Problem::lend`] lends with `d`'s.
    fn swap_lent(&mut self, d: &mut Data<T>) {
        use std::mem::swap;
        swap(&mut self.qM, &mut d.qM);
        swap(&mut self.qLD, &mut d.qLD);
        swap(&mut self.qLDiagInv, &mut d.qLDiagInv);
        swap(&mut self.ty, &mut d.efc_type);
        swap(&mut self.D, &mut d.efc_D);
        swap(&mut self.R, &mut d.efc_R);
        swap(&mut self.frictionloss, &mut d.efc_frictionloss);
        swap(&mut self.cone, &mut d.efc_cone);
        swap(&mut self.aref, &mut d.efc_aref);
        swap(&mut self.b, &mut d.efc_b);
        swap(&mut self.qfrc_smooth, &mut d.qfrc_smooth);
        swap(&mut self.qacc_smooth, &mut d.qacc_smooth);
        swap(&mut self.qacc, &mut d.qacc);
        swap(&mut self.force, &mut d.efc_force);
        swap(&mut self.state, &mut d.efc_state);
    }

    /// Empties the arrays [`Problem::lend`] swaps (capacities kept).
    fn clear_lent(&mut self) {
        self.qM.clear();
        self.qLD.clear();
        self.qLDiagInv.clear();
        self.ty.clear();
        self.D.clear();
        self.R.clear();
        self.frictionloss.clear();
        self.cone.clear();
        self.aref.clear();
        self.b.clear();
        self.qfrc_smooth.clear();
        self.qacc_smooth.clear();
        self.qacc.clear();
        self.force.clear();
        self.state.clear();
    }

    /// Exchanges the layout (`Madr`, `parentid`, `Mcol`) with the one set aside.
    fn swap_layout(&mut self) {
        std::mem::swap(&mut self.Madr, &mut self.alt_Madr);
        std::mem::swap(&mut self.parentid, &mut self.alt_parentid);
        std::mem::swap(&mut self.Mcol, &mut self.alt_Mcol);
    }

    /// [`Problem::gather_pos`]; with `lend` (the global problem: every dof and row in order)
    /// the arrays [`Problem::lend`] swaps in are left alone.
    fn gather_pos_with(
        &mut self,
        m: &Model,
        d: &Data<T>,
        dofs: &[usize],
        rows: &[usize],
        efc2p: Option<(&[usize], usize)>,
        lend: bool,
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
        debug_assert!(!lend || (nv == nvfull && nefc == d.nefc));
        if !lend {
            self.lent = false;
            self.qM.clear();
            self.qLD.clear();
            self.qLDiagInv.clear();
        }
        if nv == nvfull {
            // every dof in order: the global layout (kept from the last such gather)
            if self.whole && self.Madr == m.dof_Madr && self.parentid == m.dof_parentid {
                // kept from the last gather
            } else if self.alt_whole
                && self.alt_Madr == m.dof_Madr
                && self.alt_parentid == m.dof_parentid
            {
                // set aside by an island's gather since (`Mcol` follows from the other two)
                self.swap_layout();
                self.alt_whole = false;
                self.whole = true;
            } else {
                self.Madr.clear();
                self.Madr.extend_from_slice(&m.dof_Madr);
                self.parentid.clear();
                self.parentid.extend_from_slice(&m.dof_parentid);
                self.Mcol.clear();
                if m.dof_Mcol.len() == m.nM {
                    // the model's entry columns: the same list as the walk below (each dof,
                    // then its ancestors up to the root), copied in one slice
                    self.Mcol.extend_from_slice(&m.dof_Mcol);
                } else {
                    for a in 0..nv {
                        let mut j = a as i32;
                        while j >= 0 {
                            self.Mcol.push(j as usize);
                            j = self.parentid[j as usize];
                        }
                    }
                }
                self.whole = true;
            }
            if !lend {
                self.qM.extend_from_slice(&d.qM[..m.nM]);
                self.qLD.extend_from_slice(&d.qLD[..m.nM]);
                self.qLDiagInv.extend_from_slice(&d.qLDiagInv[..nv]);
            }
        } else {
            if self.whole {
                // the global layout, set aside for the next global gather
                self.swap_layout();
                self.alt_whole = true;
            }
            self.whole = false;
            self.Madr.clear();
            self.parentid.clear();
            self.Mcol.clear();
            // an island whose dofs are one run `d0..d0 + nv` (ascending whole trees, so every
            // ancestor of one of them is in the run): its rows of M and of M's factor are one
            // slice of the global ones, its layout the global one shifted by `d0`; the same
            // values as the loop below, copied in three slices instead of three pieces per dof
            // (ascending and distinct, the dofs are a run exactly when the last is `d0 + nv - 1`);
            // a single dof keeps the loop, which is cheaper for it (finger's hinge: 612 against
            // 742 instructions per gather)
            let d0 = dofs.first().copied().unwrap_or(0);
            let run = nv > 1 && dofs[nv - 1] + 1 - d0 == nv && m.dof_Mcol.len() == m.nM;
            if run {
                let m0 = m.dof_Madr[d0];
                let m1 = m.dof_Madr.get(d0 + nv).copied().unwrap_or(m.nM);
                self.qM.extend_from_slice(&d.qM[m0..m1]);
                self.qLD.extend_from_slice(&d.qLD[m0..m1]);
                self.qLDiagInv.extend_from_slice(&d.qLDiagInv[d0..d0 + nv]);
                self.Madr
                    .extend(m.dof_Madr[d0..d0 + nv].iter().map(|&a| a - m0));
                self.parentid
                    .extend(m.dof_parentid[d0..d0 + nv].iter().map(|&j| {
                        if j < 0 {
                            -1
                        } else {
                            j - d0 as i32
                        }
                    }));
                self.Mcol.extend(m.dof_Mcol[m0..m1].iter().map(|&c| c - d0));
            }
            for &da in if run { &[][..] } else { dofs } {
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
        self.sparse_model = d.efc_J_sparse;
        self.leaves_done = false;
        self.hpat.done = false;
        self.hcache_n = 0;
        self.hcache_next = 0;
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
            }
            // every column of a row at most 64 wide: its nonzeros from a bit mask
            let by_mask = masks && all;
            // every row in order as well (the global problem): all rows in one pass
            let batch = by_mask && efc2p.is_none() && nefc == d.nefc && {
                self.row_leaf.resize(nefc, 0);
                simd::compress_rows(
                    &d.efc_J[..nefc * nv],
                    nv,
                    &mut self.J,
                    &mut self.J_colind,
                    &mut self.J_rowadr[..nefc],
                    &mut self.J_rownnz[..nefc],
                    &self.anc,
                    &mut self.row_leaf,
                )
            };
            if !batch {
                self.row_leaf.clear();
            }
            let rows = if batch { &[][..] } else { rows };
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
            // the dofs one run `d0..d0 + nv` (every dof, or an island of ascending whole
            // trees): a row's kept columns, ascending, are one slice of its pattern, shifted by
            // `d0`; the same entries as the filter below, copied by slices
            let d0 = dofs.first().copied().unwrap_or(0);
            let run = nv > 0 && dofs[nv - 1] + 1 - d0 == nv;
            for (i, &r) in rows.iter().enumerate() {
                let row = d.efc_J_row(r, nvfull);
                let adr = self.J.len();
                let cols = row.cols.unwrap_or(&[]);
                debug_assert!(cols.windows(2).all(|w| w[0] < w[1]));
                if run {
                    let c0 = cols.partition_point(|&k| k < d0);
                    let c1 = c0 + cols[c0..].partition_point(|&k| k < d0 + nv);
                    if d0 == 0 {
                        self.J_colind.extend_from_slice(&cols[c0..c1]);
                    } else {
                        self.J_colind.extend(cols[c0..c1].iter().map(|&k| k - d0));
                    }
                    self.J.extend_from_slice(&row.vals[c0..c1]);
                } else {
                    for (&k, &v) in cols.iter().zip(row.vals) {
                        let pk = self.g2l[k];
                        if pk >= nv || dofs[pk] != k {
                            continue;
                        }
                        self.J_colind.push(pk);
                        self.J.push(v);
                    }
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
        if lend {
            return;
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
                // The cones whose first row is one of `rows`, in their global order: rows
                // and cones are both in increasing global row order (an island's rows keep
                // it, and a contact's cone is made with its rows), so each row's cone is
                // found by bisection, in time linear in the island, not in every cone.
                for &r in rows {
                    let k = d.efc_cone.partition_point(|c| c.adr < r);
                    if let Some(c) = d.efc_cone.get(k).filter(|c| c.adr == r) {
                        let mut c2 = *c;
                        c2.adr = map[r] - base;
                        self.cone.push(c2);
                    }
                }
            }
        }
    }

    /// The velocity- and control-dependent part of [`Problem::gather`] (same arguments as
    /// [`Problem::gather_pos`], which must have run for the same dofs and rows): `aref`, `b`,
    /// `qfrc_smooth`, `qacc_smooth`.
    pub(super) fn gather_vel(
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
    pub(super) fn resize_nv(&mut self, nv: usize) {
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
            &mut self.jtf,
        ] {
            v.resize(nv, z);
        }
        self.Hdinv.resize(nv, z);
        // only grown: every use slices it by its own lengths and writes (or zeroes) what it
        // reads (`newton::add_group`, `cone_rows`, `cone_dense_block`), so an island's solve
        // between two global ones leaves it as it is instead of shrinking and refilling it
        if self.rowbuf.len() < 6 * nv {
            self.rowbuf.resize(6 * nv, z);
        }
    }
}

/// Real part of a scalar, for statistics.
pub(crate) fn re<T: Scalar>(x: T) -> f64 {
    x.to_subset().unwrap_or(f64::NAN)
}
