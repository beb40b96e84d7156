//! `∂qacc/∂x` through the noslip post-pass (`noslip_iterations > 0`; MuJoCo's Computation
//! chapter, "Solver": after the main solver, projected Gauss–Seidel on the friction forces of the
//! unregularized dual problem `½ fᵀ A f + fᵀ b`, `A = J M⁻¹ Jᵀ`, `b = J qacc_smooth − aref`, the
//! other forces fixed at the main solver's), by the implicit function theorem at the converged
//! noslip solution; docs/derivatives.md "Through the noslip post-pass" has the derivation.
//!
//! With the main solver's `(a⁰, f⁰)` and noslip's `(a, f)`: `M (a − a⁰) = Jᵀ Δ`, `Δ = f − f⁰`
//! on the friction rows (friction loss, pyramid edges, elliptic tangents). The noslip variables
//! `z` (`f = fixed(f⁰) + P z`): a friction-loss force strictly inside its box, a pyramid pair's
//! split `y` (`f = mid ± y`, `mid` the main solver's pair mean) strictly inside `|y| < mid`, an
//! elliptic contact's tangent forces (inside the ellipse, or on it with multiplier `λ`). Their
//! optimality `Pᵀ r = 0` (`r = J a − aref`; on the ellipse `P_Tᵀ r + λ D z = 0`,
//! `zᵀ D z = f_n²`, `D = diag(1/μ²)`), linearized together with
//!
//! `M (δa − δa⁰) = −∂M (a − a⁰) + ∂Jᵀ Δ + Jᵀ e + Jᵀ P δz`,
//!
//! `e = δ(fixed(f⁰)) − δf⁰` on the friction rows, `δf⁰ = −H⁰ (J δa⁰ + ∂r⁰) + f⁰ ρ ∂dist` the
//! main solve's force derivative (`H⁰` at `a⁰`, `δa⁰` its IFT derivative,
//! [`crate::forward`]), gives the KKT system `K (δz, δλ) = (−Pᵀ(J δa₁ + ∂r), f_n δf⁰_n)` with
//! `δa₁ = δa⁰ + M⁻¹ (−∂M (a − a⁰) + ∂Jᵀ Δ + Jᵀ e)`, `K = [S + λD, Dz; (Dz)ᵀ, 0]`,
//! `S = Pᵀ J M⁻¹ Jᵀ P`, solved by the pseudo-inverse (`S` is singular when friction rows are
//! redundant, e.g. several contacts of one body; `δa` is unique then), and
//! `δa = δa₁ + M⁻¹ Jᵀ P δz`.
//!
//! Per-row `∂jar/∂q` and `∂dist/∂q` come from [`crate::constraint_pos`] (recorded at `a⁰` and
//! at `a`), `∂Jᵀ Δ` from the same pass with `H = 0`, `∂M (a − a⁰)` from [`crate::rne`].

#![allow(clippy::needless_range_loop)]

use crate::constraint::constraint_hessian_force_into;
use crate::constraint_pos::add_constraint_pos_rows;
use crate::work::{NoslipVar as Var, NoslipWork, Work};
use moreau::data::ConstraintType;
use moreau::model::Model;
use moreau::pipeline::{efc_jar, factor_ld};
use moreau::Data;
use nalgebra::DMatrix;

/// MuJoCo's mjMINVAL (noslip's zero normal force).
const MINVAL: f64 = 1e-15;

/// Singular values of the KKT matrix below this fraction of the largest count as zero.
const RANK_TOL: f64 = 1e-8;

/// Relative margin under which an elliptic contact's friction is on its ellipse.
const ON_ELLIPSE: f64 = 1e-9;

/// Why the noslip derivative cannot be formed at a state (the rows' kinds are checked by
/// [`crate::Support::transition_at`] before).
pub(crate) const NOT_COVERED: &str = "noslip derivative: a contact pair's dual collider run does \
     not reproduce its contacts at this state, so the rows' closed-form position derivative is \
     unavailable (use finite differences)";

/// The rows' `∂jar/∂q` at `a` (`ns.djar`) and at `a⁰` (`ns.djar0`), `∂dist/∂q` (`ns.ddist`),
/// all `nefc × nv` column-major, and `−∂(Jᵀ Δ)/∂q` (`ns.djt`, `Δ` in `ns.delta`) by one `Dual64`
/// pass per tangent direction over the position stages the rows read (kinematics, COM,
/// tendons, collision, constraint assembly and reference): where a contact pair's dual collider
/// run does not reproduce the closed form's contacts ([`crate::constraint_pos`] declines). False
/// if a pass's rows do not match `d`'s.
fn dual_rows(m: &Model, d: &Data<f64>, d0: &Data<f64>, w: &mut Work, ns: &mut NoslipWork) -> bool {
    use moreau::pipeline::{
        collision, com_pos, kinematics, make_constraint, reference_constraint, tendon,
    };
    let (nv, n) = (m.nv, d.nefc);
    for x in [&mut ns.djar, &mut ns.djar0, &mut ns.ddist] {
        x.clear();
        x.resize(n * nv, 0.0);
    }
    crate::work::zeroed(&mut ns.djt, nv, nv);
    let dd = w.dual_data(m);
    for j in 0..nv {
        crate::dual::lift_into(d, dd);
        crate::dual::seed(m, dd, j);
        kinematics(m, dd);
        com_pos(m, dd);
        tendon(m, dd);
        collision(m, dd);
        make_constraint(m, dd);
        reference_constraint(m, dd);
        if dd.nefc != n {
            return false;
        }
        for r in 0..n {
            if dd.efc_type[r] != d.efc_type[r] || dd.efc_id[r] != d.efc_id[r] {
                return false;
            }
            let row = dd.efc_J_row(r, nv);
            let (mut ja, mut ja0) = (0.0, 0.0);
            let dl = ns.delta[r];
            for (k, v) in row.vals.iter().enumerate() {
                let col = row.cols.map_or(k, |c| c[k]);
                let e = v.eps;
                ja += e * d.qacc[col];
                ja0 += e * d0.qacc[col];
                if dl != 0.0 {
                    ns.djt[(col, j)] -= e * dl;
                }
            }
            let aref = dd.efc_aref[r].eps;
            ns.djar[j * n + r] = ja - aref;
            ns.djar0[j * n + r] = ja0 - aref;
            ns.ddist[j * n + r] = dd.efc_pos[r].eps;
        }
    }
    true
}

/// Replaces `w.lin.x` (`∂a⁰/∂x` of the main solve at `d0`, row-major `nv × c`) with `∂a/∂x`
/// through the noslip pass whose result `d` holds (`d0`: the same state, main solve only).
pub(crate) fn correct(
    m: &Model,
    d: &Data<f64>,
    d0: &Data<f64>,
    w: &mut Work,
    ns: &mut NoslipWork,
) -> Result<(), &'static str> {
    let (nv, n) = (m.nv, d.nefc);
    let c = 2 * nv + m.na + m.nu;
    if n == 0 {
        return Ok(());
    }
    if d0.nefc != n {
        return Err("noslip derivative: the main solve's rows differ");
    }
    // main solve: H⁰, f⁰ at a⁰, and the rows' ∂jar⁰/∂q, ∂dist/∂q
    let mut cons = std::mem::take(&mut w.cons);
    constraint_hessian_force_into(m, d0, &mut cons.hessian, &mut ns.h0, &mut ns.f0);
    ns.delta.clear();
    ns.delta.extend((0..n).map(|r| d.efc_force[r] - ns.f0[r]));
    cons.pre = Some((std::mem::take(&mut ns.h0), std::mem::take(&mut ns.f0)));
    cons.rec = true;
    crate::work::zeroed(&mut ns.djt, nv, nv);
    let ok0 = add_constraint_pos_rows(m, d0, w, &mut cons, &mut ns.djt);
    if let Some((h, f)) = cons.spare.take().or(cons.pre.take()) {
        ns.h0 = h;
        ns.f0 = f;
    }
    std::mem::swap(&mut ns.djar0, &mut cons.rec_djar);
    std::mem::swap(&mut ns.ddist, &mut cons.rec_dr);
    // at noslip's solution: ∂jar/∂q at a, and −∂(Jᵀ Δ)/∂q alone (H = 0, no impedance term)
    let mut ok = ok0;
    if ok {
        crate::work::zeroed(&mut ns.hz, n, n);
        cons.pre = Some((std::mem::take(&mut ns.hz), std::mem::take(&mut ns.delta)));
        cons.no_rho = true;
        crate::work::zeroed(&mut ns.djt, nv, nv);
        ok = add_constraint_pos_rows(m, d, w, &mut cons, &mut ns.djt);
        if let Some((h, f)) = cons.spare.take().or(cons.pre.take()) {
            ns.hz = h;
            ns.delta = f;
        }
        std::mem::swap(&mut ns.djar, &mut cons.rec_djar);
    }
    cons.rec = false;
    cons.no_rho = false;
    cons.pre = None;
    w.cons = cons;
    if !ok && !dual_rows(m, d, d0, w, ns) {
        return Err(NOT_COVERED);
    }
    // J dense, M's factor
    ns.jd.resize(n * nv, 0.0);
    for r in 0..n {
        d.efc_J_row(r, nv).expand(&mut ns.jd[r * nv..(r + 1) * nv]);
    }
    ns.mld.clear();
    ns.mld.extend_from_slice(&d.qM[..m.nM]);
    ns.mldi.resize(nv, 0.0);
    factor_ld(m, &mut ns.mld, &mut ns.mldi);
    // ∂M/∂q (a − a⁰)
    ns.tmp.clear();
    ns.tmp.extend((0..nv).map(|k| d.qacc[k] - d0.qacc[k]));
    crate::work::zeroed(&mut ns.dm, nv, nv);
    crate::rne::d_mass_vec_pos(m, d, &ns.tmp, w, &mut ns.dm);
    let da0 = &w.lin.x;
    // δf⁰ = −H⁰ (J δa⁰ + ∂r⁰) + f⁰ ρ ∂dist (n × c row-major); ∂r⁰/∂v = B J
    ns.df0.clear();
    ns.df0.resize(n * c, 0.0);
    ns.tmp.clear();
    ns.tmp.resize(n * c, 0.0);
    // tmp = J δa⁰ + ∂r⁰
    for r in 0..n {
        let row = &mut ns.tmp[r * c..(r + 1) * c];
        let jr = &ns.jd[r * nv..(r + 1) * nv];
        for (k, &jk) in jr.iter().enumerate() {
            if jk != 0.0 {
                for (o, x) in row.iter_mut().zip(&da0[k * c..(k + 1) * c]) {
                    *o += jk * x;
                }
            }
        }
        for j in 0..nv {
            row[j] += ns.djar0[j * n + r];
        }
        let b = d.efc_KBIP[r][1];
        for (o, jk) in row[nv..2 * nv].iter_mut().zip(jr) {
            *o += b * jk;
        }
    }
    for r in 0..n {
        let [_, _, imp, dimp] = d0.efc_KBIP[r];
        let rho = dimp / (imp * (1.0 - imp));
        let fr = ns.f0[r] * rho;
        let out = &mut ns.df0[r * c..(r + 1) * c];
        if fr != 0.0 && rho.is_finite() {
            for j in 0..nv {
                out[j] = fr * ns.ddist[j * n + r];
            }
        }
        for s in 0..n {
            let hs = ns.h0[(r, s)];
            if hs != 0.0 {
                for (o, x) in out.iter_mut().zip(&ns.tmp[s * c..(s + 1) * c]) {
                    *o -= hs * x;
                }
            }
        }
    }
    // the noslip variables and e = δ(fixed part) − δf⁰ on the friction rows
    ns.vars.clear();
    ns.cones.clear();
    ns.e.clear();
    ns.e.resize(n * c, 0.0);
    let f = &d.efc_force;
    let neg = |e: &mut [f64], df0: &[f64], r: usize| {
        for (o, x) in e[r * c..(r + 1) * c]
            .iter_mut()
            .zip(&df0[r * c..(r + 1) * c])
        {
            *o -= x;
        }
    };
    let mut i = 0;
    let mut ci = 0;
    while i < n {
        match d.efc_type[i] {
            ConstraintType::FrictionDof | ConstraintType::FrictionTendon => {
                neg(&mut ns.e, &ns.df0, i);
                if f[i].abs() < d.efc_frictionloss[i] {
                    ns.vars.push(Var {
                        p: i,
                        m: usize::MAX,
                    });
                }
                i += 1;
            }
            ty @ (ConstraintType::ContactPyramidal | ConstraintType::ContactElliptic) => {
                while d.efc_cone[ci].adr != i {
                    ci += 1;
                }
                let cone = d.efc_cone[ci];
                if ty == ConstraintType::ContactPyramidal {
                    let mut j = i;
                    while j < i + cone.nrow {
                        neg(&mut ns.e, &ns.df0, j);
                        neg(&mut ns.e, &ns.df0, j + 1);
                        // δ of the fixed part: mid on both (free), 2 mid on the loaded edge
                        // (clamped), from δmid = (δf⁰_j + δf⁰_{j+1}) / 2
                        let (wj, wk) = if f[j] != 0.0 && f[j + 1] != 0.0 {
                            ns.vars.push(Var { p: j, m: j + 1 });
                            (0.5, 0.5)
                        } else if f[j + 1] == 0.0 && f[j] != 0.0 {
                            (1.0, 0.0)
                        } else if f[j] == 0.0 && f[j + 1] != 0.0 {
                            (0.0, 1.0)
                        } else {
                            (0.0, 0.0)
                        };
                        for col in 0..c {
                            let s = ns.df0[j * c + col] + ns.df0[(j + 1) * c + col];
                            ns.e[j * c + col] += wj * s;
                            ns.e[(j + 1) * c + col] += wk * s;
                        }
                        j += 2;
                    }
                } else {
                    let m1 = cone.dim - 1;
                    for q in 0..m1 {
                        neg(&mut ns.e, &ns.df0, i + 1 + q);
                    }
                    let fnorm = f[i];
                    if fnorm >= MINVAL {
                        let v0 = ns.vars.len();
                        for q in 0..m1 {
                            ns.vars.push(Var {
                                p: i + 1 + q,
                                m: usize::MAX,
                            });
                        }
                        let mut el = 0.0;
                        for q in 0..m1 {
                            el += (f[i + 1 + q] / cone.friction[q]).powi(2);
                        }
                        if el >= fnorm * fnorm * (1.0 - ON_ELLIPSE) {
                            // on the ellipse: (first variable, count, normal row, λ later)
                            ns.cones.push((v0, m1, i, 0.0));
                        }
                    }
                }
                i += cone.nrow;
            }
            _ => i += 1,
        }
    }
    // Y = −∂M (a − a⁰) + ∂Jᵀ Δ + Jᵀ e (row-major nv × c); djt holds −∂(JᵀΔ)/∂q column-major
    ns.y.clear();
    ns.y.resize(nv * c, 0.0);
    for k in 0..nv {
        for j in 0..nv {
            ns.y[k * c + j] = -ns.dm[(k, j)] - ns.djt[(k, j)];
        }
    }
    for r in 0..n {
        let er = &ns.e[r * c..(r + 1) * c];
        if er.iter().all(|&x| x == 0.0) {
            continue;
        }
        for k in 0..nv {
            let jk = ns.jd[r * nv + k];
            if jk != 0.0 {
                for (o, x) in ns.y[k * c..(k + 1) * c].iter_mut().zip(er) {
                    *o += jk * x;
                }
            }
        }
    }
    // δa₁ = δa⁰ + M⁻¹ Y (into y)
    crate::rows::ld_solve(m, &ns.mld, &ns.mldi, &mut ns.y, c, &mut w.lin.solve);
    for (o, x) in ns.y.iter_mut().zip(&w.lin.x) {
        *o += x;
    }
    let nz = ns.vars.len();
    if nz == 0 {
        w.lin.x.copy_from_slice(&ns.y);
        return Ok(());
    }
    // G = Pᵀ J (nz × nv), M⁻¹ Gᵀ (nv × nz row-major)
    ns.g.clear();
    ns.g.resize(nz * nv, 0.0);
    for (v, var) in ns.vars.iter().enumerate() {
        for k in 0..nv {
            ns.g[v * nv + k] = var.diff(|r| ns.jd[r * nv + k]);
        }
    }
    ns.mg.clear();
    ns.mg.resize(nv * nz, 0.0);
    for v in 0..nz {
        for k in 0..nv {
            ns.mg[k * nz + v] = ns.g[v * nv + k];
        }
    }
    crate::rows::ld_solve(m, &ns.mld, &ns.mldi, &mut ns.mg, nz, &mut w.lin.solve);
    // residual r = J a − aref at noslip's solution (λ of the cones on their ellipse)
    ns.jar.clear();
    ns.jar.resize(n, 0.0);
    efc_jar(nv, d, &mut ns.jar);
    let nb = ns.cones.len();
    let nk = nz + nb;
    let mut kmat = DMatrix::<f64>::zeros(nk, nk);
    for a in 0..nz {
        for b in 0..nz {
            let mut s = 0.0;
            for k in 0..nv {
                s += ns.g[a * nv + k] * ns.mg[k * nz + b];
            }
            kmat[(a, b)] = s;
        }
    }
    for (bi, cone) in ns.cones.iter_mut().enumerate() {
        let (v0, m1, _, _) = *cone;
        let ci = d.efc_cone.iter().position(|x| x.adr == cone.2).unwrap_or(0);
        let fr = d.efc_cone[ci].friction;
        let mut num = 0.0;
        let mut den = 0.0;
        for q in 0..m1 {
            let var = ns.vars[v0 + q];
            let dz = f[var.p] / (fr[q] * fr[q]);
            num += var.dot(&ns.jar) * dz;
            den += dz * dz;
        }
        let lam = if den > 0.0 { -num / den } else { 0.0 };
        cone.3 = lam;
        for q in 0..m1 {
            let var = ns.vars[v0 + q];
            let dq = 1.0 / (fr[q] * fr[q]);
            kmat[(v0 + q, v0 + q)] += lam * dq;
            let dz = f[var.p] * dq;
            kmat[(v0 + q, nz + bi)] = dz;
            kmat[(nz + bi, v0 + q)] = dz;
        }
    }
    // right-hand sides: −Pᵀ (J δa₁ + ∂r) (∂r/∂q recorded at a; ∂r/∂v = B J), f_n δf⁰_n
    let mut rhs = DMatrix::<f64>::zeros(nk, c);
    for (v, var) in ns.vars.iter().enumerate() {
        for col in 0..c {
            let mut s = 0.0;
            for k in 0..nv {
                let gk = ns.g[v * nv + k];
                if gk != 0.0 {
                    s += gk * ns.y[k * c + col];
                }
            }
            rhs[(v, col)] = -s;
        }
        for j in 0..nv {
            rhs[(v, j)] -= var.diff(|r| ns.djar[j * n + r]);
        }
        for k in 0..nv {
            rhs[(v, nv + k)] -= var.diff(|r| d.efc_KBIP[r][1] * ns.jd[r * nv + k]);
        }
    }
    for (bi, &(_, _, nr, _)) in ns.cones.iter().enumerate() {
        let fnorm = f[nr];
        for col in 0..c {
            rhs[(nz + bi, col)] = fnorm * ns.df0[nr * c + col];
        }
    }
    let svd = kmat.svd(true, true);
    let smax = svd.singular_values.max();
    // singular values below 1e-8 of the largest are treated as zero: friction rows that are
    // redundant up to round-off (four coplanar corners of a box: the tangential forces span only
    // the in-plane motion), along which the sweeps do not converge either
    let sol = svd
        .solve(&rhs, smax * RANK_TOL)
        .map_err(|_| "noslip derivative: the KKT system's solve failed")?;
    // δa = δa₁ + M⁻¹ Gᵀ δz
    for k in 0..nv {
        let out = &mut w.lin.x[k * c..(k + 1) * c];
        out.copy_from_slice(&ns.y[k * c..(k + 1) * c]);
        for v in 0..nz {
            let mg = ns.mg[k * nz + v];
            if mg != 0.0 {
                for col in 0..c {
                    out[col] += mg * sol[(v, col)];
                }
            }
        }
    }
    Ok(())
}
