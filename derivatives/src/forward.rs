//! `∂qacc/∂x` of forward dynamics through soft contact by the implicit function theorem (IFT)
//! at the constraint solution (Computation "Reduced primal problem"), columns
//! `(q tangent, v, act, u)`: the core of the transition Jacobians ([`crate::transition`](mod@crate::transition),
//! [`crate::transition_rk4`]); the method is described in [`crate::transition`](mod@crate::transition).

#![allow(clippy::needless_range_loop)]

use crate::constraint::constraint_hessian_force;
use crate::dual::{lift, lift_into, seed};
use crate::inverse::neg_dfdv_into;
use crate::rows;
use crate::work::{Lin, Work as Workspace};
use moreau::model::Model;
use moreau::pipeline::{
    d_actuator_vel, d_tendon_actfrc_vel, factor_ld, fwd_acceleration, fwd_actuation, inverse_skip,
    Skip,
};
use moreau::Data;
use nalgebra::DMatrix;

/// True if the nonzeros of `a` and `b` (length nv) all lie on one dof chain (each is an
/// ancestor of the next): then `aᵀb + bᵀa` has M's tree sparsity.
fn on_chain(m: &Model, a: &[f64], b: &[f64]) -> bool {
    let mut cur: Option<usize> = None;
    for k in (0..m.nv).rev() {
        if a[k] == 0.0 && b[k] == 0.0 {
            continue;
        }
        if let Some(mut p) = cur {
            while p > k {
                match moreau::pipeline::dof_parent(m, p) {
                    Some(q) => p = q,
                    None => return false,
                }
            }
            if p != k {
                return false;
            }
        }
        cur = Some(k);
    }
    true
}

/// True if every pair of constraint rows coupled by `h` (`jd`: the rows expanded, `nefc × nv`)
/// acts on one dof chain.
///
/// Each row is checked once; the union of two rows on chains is on one chain exactly when the
/// deeper row's last nonzero dof ("leaf") has the other's leaf on its root path (dofs are
/// numbered parents first, so a row's leaf is its last nonzero). The rows of a contact with one
/// side on a dof-free body (the world, a static body) need no check: they act on the other
/// body's root path, and `h` couples them only with rows of the same contact.
fn rows_on_chains(
    m: &Model,
    d: &Data<f64>,
    jd: &[f64],
    h: &DMatrix<f64>,
    leaf: &mut Vec<Option<usize>>,
    single: &mut Vec<bool>,
) -> bool {
    let nv = m.nv;
    let one_body = |r: usize| {
        d.efc_type[r].is_contact()
            && d.contact[d.efc_id[r]]
                .geom
                .iter()
                .any(|&g| moreau::pipeline::body_last_dof(m, m.geom_bodyid[g]).is_none())
    };
    leaf.clear();
    single.clear();
    for r in 0..h.nrows() {
        let row = &jd[r * nv..(r + 1) * nv];
        let ob = one_body(r);
        if !ob && !on_chain(m, row, row) {
            return false;
        }
        single.push(ob);
        leaf.push(row.iter().rposition(|&x| x != 0.0));
    }
    (0..h.nrows()).all(|r| {
        (0..h.ncols()).all(|s| {
            if h[(r, s)] == 0.0 || (single[r] && r == s) {
                return true;
            }
            if single[r] && single[s] && d.efc_id[r] == d.efc_id[s] {
                return true;
            }
            let (Some(a), Some(b)) = (leaf[r], leaf[s]) else {
                return true;
            };
            let (hi, lo) = (a.max(b), a.min(b));
            let mut p = Some(hi);
            while let Some(q) = p.filter(|&q| q > lo) {
                p = moreau::pipeline::dof_parent(m, q);
            }
            p == Some(lo)
        })
    })
}

/// Whether `M + JᵀHJ` at the (forwarded) state of `d` keeps M's tree sparsity, so
/// the transition Jacobians factor it in qM's layout without fill-in; otherwise (rows coupling
/// two branches, e.g. contacts between two free bodies) it takes a dense LᵀDL factor that keeps the zeros the coupling leaves.
pub fn hessian_tree_sparse(m: &Model, d: &Data<f64>) -> bool {
    if d.nefc == 0 {
        return true;
    }
    let nv = m.nv;
    let h = constraint_hessian_force(m, d).0;
    let mut jd = vec![0.0; d.nefc * nv];
    for r in 0..d.nefc {
        d.efc_J_row(r, nv).expand(&mut jd[r * nv..(r + 1) * nv]);
    }
    rows_on_chains(m, d, &jd, &h, &mut Vec::new(), &mut Vec::new())
}

impl Lin {
    /// `M + JᵀHJ` in qM's tree-sparse layout, factored by `factor_ld` into `ld`, `ldi`, and
    /// `−JᵀH diag(B) J` added to the velocity columns of `x` (`c` columns): when every pair of
    /// rows `H` couples acts on one dof chain (contacts with the world or within one branch),
    /// so `JᵀHJ` has M's sparsity and the factor no fill-in. False (nothing done) otherwise.
    fn hessian_tree(&mut self, m: &Model, d: &Data<f64>, h: &DMatrix<f64>, c: usize) -> bool {
        let (nv, n) = (m.nv, d.nefc);
        // every entry is written by the row expansions
        self.jd.resize(n * nv, 0.0);
        for r in 0..n {
            d.efc_J_row(r, nv)
                .expand(&mut self.jd[r * nv..(r + 1) * nv]);
        }
        let jd = &self.jd;
        if !rows_on_chains(m, d, jd, h, &mut self.leaf, &mut self.single) {
            return false;
        }
        self.ld.clear();
        self.ld.extend_from_slice(&d.qM[..m.nM]);
        self.solve.build(m);
        rows::add_jhj(
            m,
            d,
            h,
            jd,
            c,
            &mut self.ld,
            &mut self.x,
            &self.solve,
            &mut self.jd_nz,
            &mut self.jd_span,
        );
        self.ldi.resize(nv, 0.0);
        factor_ld(m, &mut self.ld, &mut self.ldi);
        true
    }
}

/// `∂g/∂q_i` (columns) into `dg` and, when asked, `∂M/∂q_i · x` (`x = qacc − a_int`) in
/// column `i` of `dmx` (zero otherwise); both overwritten. [`crate::inverse_pos`] (fluid forces
/// included), full dual passes only where [`crate::inverse_pos::covers`] does not.
fn q_pass(
    m: &Model,
    d: &Data<f64>,
    want_m: Option<&nalgebra::DVector<f64>>,
    w: &mut Workspace,
    dg: &mut DMatrix<f64>,
    dmx: &mut DMatrix<f64>,
) {
    let nv = m.nv;
    for x in [&mut *dg, &mut *dmx] {
        if x.shape() != (nv, nv) {
            *x = DMatrix::zeros(nv, nv);
        }
    }
    if crate::inverse_pos::covers(m) {
        let res = crate::inverse_pos::Output::Residual;
        match want_m {
            // ∂M/∂q · x from the residual's RNE sweep
            Some(x) => {
                crate::inverse_pos::d_pos_mass_into(m, d, res, Some((x.as_slice(), dmx)), w, dg)
            }
            None => {
                dmx.fill(0.0);
                crate::inverse_pos::d_pos_into(m, d, res, w, dg)
            }
        };
        return;
    }
    dmx.fill(0.0);
    let mut qm = vec![0.0; m.nM];
    let mut dd = lift(m, d);
    for i in 0..nv {
        if i > 0 {
            lift_into(d, &mut dd);
        }
        seed(m, &mut dd, i);
        inverse_skip(m, &mut dd, Skip::None, true);
        fwd_actuation(m, &mut dd);
        fwd_acceleration(m, &mut dd);
        for j in 0..nv {
            let g = dd.qfrc_inverse[j] - dd.qfrc_bias[j] + dd.qfrc_passive[j] - dd.qfrc_smooth[j];
            dg[(j, i)] = g.eps;
        }
        if let Some(x) = want_m {
            for (o, x) in qm.iter_mut().zip(&dd.qM) {
                *o = x.eps;
            }
            dmx.set_column(i, &(dense_m(m, &qm) * x));
        }
    }
}

/// `∂qfrc_actuator/∂(act, u)` (`nv × (na+nu)`) and `∂act_dot/∂(act, u)` (`na × (na+nu)`), by
/// duals over the actuation stage only (position/velocity results of `d` fixed).
/// `fa` is overwritten (resized if its shape differs).
fn actuation_jacobian(
    m: &Model,
    d: &Data<f64>,
    w: &mut Workspace,
    fa: &mut DMatrix<f64>,
) -> DMatrix<f64> {
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    crate::work::zeroed(fa, nv, na + nu);
    let mut ad = DMatrix::zeros(na, na + nu);
    if na + nu == 0 {
        return ad;
    }
    let dd = w.dual_of(m, d);
    crate::dual::lift_actuation_inputs(d, dd);
    // Each actuator's force and act_dot depend only on its own control and activation, so
    // two passes (all controls seeded, then all activations) give every column, unless a
    // joint- or tendon-level actuator force clamp mixes actuators or an actuator has several
    // activations.
    let separable = !m.jnt_actfrclimited.iter().any(|&x| x)
        && !m.tendon_actfrclimited.iter().any(|&x| x)
        && (0..nu).all(|i| m.actuator_actnum[i] <= 1);
    if separable {
        // the activation pass seeds nothing without activations
        for pass in 0..if na > 0 { 2 } else { 1 } {
            for i in 0..nu {
                match (pass, usize::try_from(m.actuator_actadr[i])) {
                    (0, _) => dd.ctrl[i].eps = 1.0,
                    (_, Ok(a)) if m.actuator_actnum[i] == 1 => dd.act[a].eps = 1.0,
                    _ => {}
                }
            }
            fwd_actuation(m, dd);
            for i in 0..nu {
                let adr = usize::try_from(m.actuator_actadr[i])
                    .ok()
                    .filter(|_| m.actuator_actnum[i] == 1);
                let col = match (pass, adr) {
                    (0, _) => na + i,
                    (_, Some(a)) => a,
                    _ => continue,
                };
                let df = dd.actuator_force[i].eps;
                if df != 0.0 {
                    // (the column is zero off the row's pattern: `0 · df` there)
                    for r in 0..nv {
                        fa[(r, col)] = 0.0 * df;
                    }
                    let (cols, mom) = d.moment_row(i);
                    for (&r, &x) in cols.iter().zip(mom) {
                        fa[(r, col)] = x * df;
                    }
                }
                if let Some(a) = adr {
                    ad[(a, col)] = dd.act_dot[a].eps;
                }
            }
            for x in dd.ctrl.iter_mut() {
                x.eps = 0.0;
            }
            for x in dd.act.iter_mut() {
                x.eps = 0.0;
            }
        }
        return ad;
    }
    for k in 0..na + nu {
        if k < na {
            dd.act[k].eps = 1.0;
        } else {
            dd.ctrl[k - na].eps = 1.0;
        }
        fwd_actuation(m, dd);
        for r in 0..nv {
            fa[(r, k)] = dd.qfrc_actuator[r].eps;
        }
        for r in 0..na {
            ad[(r, k)] = dd.act_dot[r].eps;
        }
        if k < na {
            dd.act[k].eps = 0.0;
        } else {
            dd.ctrl[k - na].eps = 0.0;
        }
    }
    ad
}

/// `∂qacc/∂x` of forward dynamics by the IFT, columns `(q tangent, v, act, u)`
/// (`nv × (2nv+na+nu)`, as [`crate::dual::dual_forward_jacobian`]). Runs `forward` on `d`.
pub fn forward_analytic(m: &Model, d: &mut Data<f64>) -> Result<DMatrix<f64>, crate::Support> {
    crate::support::Support::transition(m).check()?;
    moreau::forward(m, d);
    crate::support::Support::transition_at(m, d).check()?;
    let mut w = Workspace::default();
    if forward_parts_noslip(m, d, None, &mut w).is_err() {
        return Err(crate::Support::NoslipRows);
    }
    Ok(DMatrix::from_row_slice(
        m.nv,
        2 * m.nv + m.na + m.nu,
        &w.lin.x,
    ))
}

/// `∂qacc/∂x` (`nv × (2nv+na+nu)`) and `∂act_dot/∂(act, u)` (`na × (na+nu)`) at the forwarded
/// state of `d` (one RK4 stage, [`crate::transition_rk4`]).
pub(crate) fn stage_jacobians(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut Workspace,
) -> (DMatrix<f64>, DMatrix<f64>) {
    let ad = forward_parts(m, d, None, w);
    let da = DMatrix::from_row_slice(m.nv, 2 * m.nv + m.na + m.nu, &w.lin.x);
    (da, ad)
}

/// `∂act_dot/∂(act,u)` and the q-pass with `d` already forwarded; `∂qacc/∂x` is left in
/// `w.lin.x` (`nv × (2nv+na+nu)` row-major).
pub(crate) fn forward_parts(
    m: &Model,
    d: &mut Data<f64>,
    want_m: Option<&nalgebra::DVector<f64>>,
    w: &mut Workspace,
) -> DMatrix<f64> {
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let c = 2 * nv + na + nu;
    let mut lin = std::mem::take(&mut w.lin);
    // every entry of x is written below
    lin.x.resize(nv * c, 0.0);
    lin.buf.resize(nv * nv, 0.0);
    // (H, f) into the last call's storage (`w.cons.spare`), handed to the constraint ∂/∂q
    let pre = (d.nefc > 0).then(|| {
        let (mut h, mut f) = w
            .cons
            .spare
            .take()
            .unwrap_or_else(|| (DMatrix::zeros(0, 0), Vec::new()));
        crate::constraint::constraint_hessian_force_into(m, d, &mut w.cons.hessian, &mut h, &mut f);
        (h, f)
    });
    // the actuation first (its dual pass lifts the workspace's dual Data from `d`, which the
    // constraint ∂/∂q's collider runs then read)
    let ad = actuation_jacobian(m, d, w, &mut lin.fa);
    // then ∂g/∂q: its RNE pass (crate::rne) leaves ∂qfrc_bias/∂qvel from the same composites
    // for the velocity columns below (neg_dfdv_into takes it)
    let had = pre.is_some();
    w.cons.pre = pre;
    w.bias_vel_want = true;
    q_pass(m, d, want_m, w, &mut lin.qdg, &mut lin.qdmx);
    w.bias_vel_want = false;
    // (H, f) back: the constraint ∂/∂q moves what it used into `w.cons.spare`
    let pre = if had {
        w.cons.pre.take().or_else(|| w.cons.spare.take())
    } else {
        None
    };
    // the velocity columns: −(∂(bias − passive)/∂v − ∂qfrc_actuator/∂v)
    neg_dfdv_into(m, d, w, &mut lin.buf);
    d_actuator_vel(m, d, &mut lin.buf);
    // the actuators of clamped tendons, which MuJoCo's qDeriv (d_actuator_vel) leaves out
    d_tendon_actfrc_vel(m, d, &mut lin.buf, &mut lin.rows2);
    for k in 0..nv {
        lin.x[k * c + nv..k * c + 2 * nv].copy_from_slice(&lin.buf[k * nv..(k + 1) * nv]);
    }
    // M + JᵀHJ (tree-sparse factor when it has M's sparsity, else dense) and −JᵀH B J into
    // the velocity columns
    lin.tree = match &pre {
        None => {
            lin.ld.clear();
            lin.ld.extend_from_slice(&d.qM[..m.nM]);
            lin.ldi.resize(nv, 0.0);
            factor_ld(m, &mut lin.ld, &mut lin.ldi);
            true
        }
        Some((h, _)) => lin.hessian_tree(m, d, h, c),
    };
    if let (false, Some((h, _))) = (lin.tree, &pre) {
        // rows coupling two branches: M + JᵀHJ dense (its lower triangle; `jd` holds the rows
        // expanded by `hessian_tree`), −JᵀH B J into the velocity columns, and the dense LᵀDL
        // factor, which keeps the zeros of the uncoupled branches (rows::ld_factor_dense)
        lin.ld.resize(nv * nv, 0.0);
        moreau::full_m(m, &d.qM, &mut lin.ld);
        rows::add_jhj_dense(
            nv,
            d,
            h,
            &lin.jd,
            c,
            &mut lin.ld,
            &mut lin.x,
            &mut lin.jd_nz,
            &mut lin.jd_span,
        );
        rows::ld_factor_dense(&mut lin.ld, nv, &mut lin.ldi, &mut lin.nz);
    }
    if let Some((h, _)) = &pre {
        // connect/weld rows: −Jᵀ H ∂(J̇ v)/∂v
        crate::inverse::sub_jdot_vel(m, d, h, w, &mut lin.x, c);
    }
    if let Some(x) = pre {
        w.cons.spare = Some(x);
    }
    // the rows of the column-major −qdg and fa (transposed in 4 × 4 tiles)
    rows::transpose_into(lin.qdg.as_slice(), nv, nv, nv, &mut lin.x, c, -1.0);
    if na + nu > 0 {
        rows::transpose_into(
            lin.fa.as_slice(),
            nv,
            na + nu,
            nv,
            &mut lin.x[2 * nv..],
            c,
            1.0,
        );
    }
    // (M + JᵀHJ) ∂qacc = −∂g: all columns at once (row blocks)
    if lin.tree {
        rows::ld_solve(m, &lin.ld, &lin.ldi, &mut lin.x, c, &mut lin.solve);
    } else {
        rows::ld_solve_dense(&lin.ld, nv, &lin.ldi, &mut lin.x, c, &mut lin.dense);
    }
    w.lin = lin;
    ad
}

/// Dense `M` (`nv × nv`) from `qm` in qM's layout.
pub(crate) fn dense_m(m: &Model, qm: &[f64]) -> DMatrix<f64> {
    let nv = m.nv;
    let mut b = vec![0.0; nv * nv];
    moreau::full_m(m, qm, &mut b);
    DMatrix::from_row_slice(nv, nv, &b)
}

/// [`forward_parts`] through the noslip pass: with `noslip_iterations > 0` and
/// constraint rows, the main solve is re-run on a copy of `d` (`moreau::pipeline::solve_main`,
/// the same solution bit for bit as the step's), linearized there, and corrected to noslip's
/// solution in `d` (`crate::noslip`); otherwise [`forward_parts`] itself. `∂qacc/∂x` is left in
/// `w.lin.x`.
pub(crate) fn forward_parts_noslip(
    m: &Model,
    d: &mut Data<f64>,
    want_m: Option<&nalgebra::DVector<f64>>,
    w: &mut Workspace,
) -> Result<DMatrix<f64>, &'static str> {
    if m.opt.noslip_iterations == 0 || d.nefc == 0 {
        return Ok(forward_parts(m, d, want_m, w));
    }
    let mut ns = std::mem::take(&mut w.noslip);
    let mut d0 = match ns.d0.take() {
        Some(mut x) => {
            x.clone_from(d);
            x
        }
        None => d.clone(),
    };
    moreau::pipeline::solve_main(m, &mut d0);
    let ad = forward_parts(m, &mut d0, want_m, w);
    let r = crate::noslip::correct(m, d, &d0, w, &mut ns);
    ns.d0 = Some(d0);
    w.noslip = ns;
    r.map(|_| ad)
}
