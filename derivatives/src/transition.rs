//! Forward dynamics and transition Jacobians through soft contact by the implicit function
//! theorem (IFT) at the constraint solution (Computation "Reduced primal problem").
//!
//! At the solution of the (converged) primal problem the optimality condition is
//! `g(a; x) = M a − qfrc_smooth − Jᵀ f(J a − aref) = qfrc_inverse(q, v, a) − qfrc_ext(x) = 0`
//! (`qfrc_ext = qfrc_applied + qfrc_actuator + Σ Jᵀ xfrc_applied`), so
//! `∂a/∂x = −(M + Jᵀ H[s] J)⁻¹ ∂g/∂x` with the Newton Hessian `M + Jᵀ H J`
//! ([`crate::inverse::dfda`]).
//! - `∂g/∂v`: analytic ([`crate::inverse::dfdv_rows`] minus `∂qfrc_actuator/∂v`);
//! - `∂g/∂(act, u)`: `−∂qfrc_actuator/∂(act, u)` by duals on the actuation stage alone
//!   (`fwd_actuation`, `nu + na` cheap passes over the actuators; position/velocity results
//!   fixed) — exact for every gain/bias/dynamics type and clamp;
//! - `∂g/∂q`: analytic smooth part and `∂M/∂q` ([`crate::rne`]), the constraint force
//!   analytic through the contact geometry ([`crate::constraint_pos`]: primitive-collider contacts,
//!   convex/mesh/height-field contacts through their differentiable re-evaluation
//!   (`moreau::collision::cvxdiff`), hinge/slide and fixed-tendon limits, friction loss, simple
//!   equalities), the rest (spatial-tendon springs, other transmissions, ball limits, ...) by a
//!   restricted dual pass — [`crate::inverse_pos::method`] says which; fluid forces in closed
//!   form (`crate::fluid::fluid_pos`); for tendon armature
//!   (not [`crate::inverse_pos::covers`]) by full dual passes, one position/velocity/inverse pass per
//!   tangent direction (no constraint solve). Implicitfast's `∂qDeriv/∂q · a_int` comes from
//!   [`crate::smooth_vel_pos`] (zero for joint and fixed-tendon moments, a
//!   kinematics/tendon/transmission dual pass otherwise), the fluid block's `∂/∂(q, v) · a_int`
//!   from `crate::fluid::fluid_pos` and `crate::fluid::fluid_qderiv_vel`. Connect/weld rows' `∂(J̇ v)/∂v` term:
//!   `crate::inverse::sub_jdot_vel`.
//!
//! Linear algebra: `M + JᵀHJ` factored once for all `2nv + na + nu` columns — in M's
//! tree-sparse layout (LᵀDL, no fill-in) when every constraint row `H` couples acts on one dof
//! chain ([`crate::forward::hessian_tree_sparse`]), else by a dense LᵀDL factor eliminating from the last dof up, which keeps the zeros of the uncoupled branches; the right-hand sides and
//! solutions are row-major `nv × (2nv + na + nu)` blocks (row gathers, AVX2 when present);
//! `M x` and (eulerdamp) `(M + h diag(damping))⁻¹` in M's tree-sparse layout; a reusable
//! [`Workspace`](crate::Workspace) keeps the `Data<Dual64>` and buffers.
//!
//! The step's chain rule for Euler (`He = M`, or `M + h diag(s(v))` with eulerdamp, `s` the
//! damping slope `b + 2 p0 |v| + 3 p1 v²`) and the implicit integrators (`He = M − h qDeriv` on
//! M's sparsity: symmetrized under implicitfast, with the exact gyroscopic block of childless
//! free bodies; the full `qDeriv` with RNE's velocity derivative under implicit, an LU; as
//! [`crate::step_matrix::he_offset`] builds it): `He a_int = M qacc`, so
//! `He ∂a_int = M ∂qacc + ∂M (qacc − a_int) − ∂(He − M) a_int`. The last term: eulerdamp
//! `h diag(s'(v) a_int)` in the velocity columns (analytic); implicitfast with joint/tendon
//! dampers of constant slope and velocity-independent gains `−h sym(∂qDeriv/∂q) a_int` from
//! [`crate::smooth_vel_pos`]; otherwise (polynomial damping, velocity-dependent gains, childless free
//! bodies, implicit) by [`crate::step_matrix::d_he_offset_vec`] (`Dual64` passes restricted to the
//! stages `He` reads, only along the directions that move it, forming `(He − M) a_int` without
//! `He`; free bodies' gyroscopic blocks and implicit's RNE velocity columns in closed form). Then
//! `v' = v + h a_int`; `q' = q ⊕ h v'` in closed form (`mjd_quatIntegrate` blocks,
//! [`crate::quat::quat_integrate_deriv`]) and `act'` (`advance_act`: `act + c act_dot`, zero
//! where the activation clamp is active). RK4: the chain rule over its four stages
//! ([`crate::transition_rk4`]), each stage's `∂qacc` by the IFT at that stage's state.
//! `∂(qfrc_actuator, act_dot)/∂(act, u)`: each actuator depends only on its own control and
//! activation, so two seeded passes suffice (per-column passes with `jnt_actfrcrange` clamps).
//!
//! The noslip post-pass: `∂qacc/∂x` of its converged friction forces, chained with the main
//! solve's (`crate::noslip`). Unsupported ([`Support::transition`](crate::support::Support::transition)): noslip with RK4 or
//! with rows outside the closed-form constraint `∂/∂q`, invdiscrete with integrators other than
//! Euler.
//! The sensor Jacobians `C`, `D` ([`crate::sensor`], from `∂qacc/∂x`) only when asked
//! ([`TransitionOptions::sensors`](crate::TransitionOptions::sensors)); otherwise they are left empty (`0 × n`).

#![allow(clippy::needless_range_loop)]

use crate::fd::TransitionJacobians;
use crate::forward::dense_m;
use crate::integrate::{integrate_rows, moving_acts};
use crate::rows;
use crate::work::{HeSolve, StepLin, Work as Workspace};
use moreau::model::{Integrator, Model};
use moreau::pipeline::{damping_slope, euler_damped, factor_ld};
use moreau::Data;
use nalgebra::DMatrix;

/// The error for a singular implicit(fast) `M − h qDeriv` (e.g. velocity feedback cancelling the
/// mass; MuJoCo warns and steps with a huge `qacc`).
const SINGULAR_HE: &str = "implicit(fast): M − h·qDeriv is singular";

/// `∂s_k/∂v_k` of the damping slope `s_k = b + 2 p0 |v| + 3 p1 v²` (`2 p0 sign(v) + 6 p1 v`,
/// with `|v|`'s derivative as the dual numbers take it, so the dual step agrees at `v = 0`).
fn slope_dv(m: &Model, v: f64, k: usize) -> f64 {
    let p = m.dof_damping_eff(k).1;
    let a = num_dual::Dual64::new(v, 1.0);
    let s = nalgebra::ComplexField::abs(a) * (2.0 * p[0]) + a * a * (3.0 * p[1]);
    s.eps
}

/// Analytic transition Jacobians of one step at the state of `d`, which must hold the results
/// of `moreau::forward` at that state (used as they are; `d`'s state is not advanced), in the
/// layout of [`TransitionJacobians`]; with `flg_sensor` also the sensor Jacobians `C`
/// (`nsensordata × (2nv+na)`) and `D` (`nsensordata × nu`) at the current state
/// ([`crate::sensor::sensor_jacobians`], as MuJoCo's `mjd_transitionFD` with non-NULL `C`,
/// `D`), else `C`, `D` are empty (`0 × n`). The caller has checked
/// [`Support::transition`](crate::support::Support::transition) (and, with `flg_sensor`,
/// [`Support::sensors`](crate::support::Support::sensors)); the entry point is
/// [`crate::transition()`].
#[allow(non_snake_case)]
pub(crate) fn forwarded(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut Workspace,
    flg_sensor: bool,
    reuse: Option<TransitionJacobians>,
) -> Result<TransitionJacobians, &'static str> {
    w.lin.clear_step();
    if m.opt.integrator == Integrator::Rk4 {
        return crate::transition_rk4::transition(m, d, w, flg_sensor);
    }
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let nx = 2 * nv + na;
    let h = m.opt.timestep;
    let fast = m.opt.integrator == Integrator::ImplicitFast;
    let implicit = fast || m.opt.integrator == Integrator::Implicit;
    // He depends on (q, v, act, u) beyond smooth_vel_pos's constant weights: ∂(He a_int)/∂x by
    // restricted dual passes (crate::step_matrix)
    let he_dual = crate::step_matrix::needs_dual(m);
    let damped = m.opt.integrator == Integrator::Euler && euler_damped(m);
    // the vectors below live in the workspace between calls
    let mut vecs = std::mem::take(&mut w.lin.vecs);
    // Euler: the damping slope s(v) of He = M + h diag(s) (polynomial damping included)
    let slope = &mut vecs.slope;
    slope.clear();
    if damped {
        slope.extend((0..nv).map(|i| damping_slope(m, d, i)));
    }
    // He = M + (He − M) dense (implicit integrators; crate::step_matrix::he_offset builds it as
    // the step does: sym(qDeriv) on M's sparsity, exact gyroscopic blocks, implicit's full
    // qDeriv), LU-factored (nothing to factor without dofs: nalgebra's solve panics on 0 × 0)
    let lu = (implicit && nv > 0).then(|| {
        let mut off = vec![0.0; nv * nv];
        crate::step_matrix::he_offset(m, d, &mut off);
        (dense_m(m, &d.qM) + DMatrix::from_row_slice(nv, nv, &off)).lu()
    });
    crate::work::sized(&mut vecs.qacc, nv);
    vecs.qacc.copy_from_slice(&d.qacc);
    let qacc = &vecs.qacc;
    let integrated = damped || implicit;
    // eulerdamp: the tree-sparse LᵀDL of He = M + h diag(s)
    let mut lin = std::mem::take(&mut w.lin);
    if damped {
        lin.he.clear();
        lin.he.extend_from_slice(&d.qM[..m.nM]);
        for i in 0..nv {
            lin.he[m.dof_Madr[i]] += h * slope[i];
        }
        lin.hei.resize(nv, 0.0);
        factor_ld(m, &mut lin.he, &mut lin.hei);
    }
    // M x, in M's sparse layout (all columns at once)
    let qm = if implicit { d.qM.clone() } else { Vec::new() };
    let m_mul = |x: &DMatrix<f64>| {
        let xt = x.transpose();
        let mut yt = DMatrix::zeros(x.ncols(), nv);
        rows::sparse_mul(m, &qm, xt.as_slice(), yt.as_mut_slice(), x.ncols());
        yt.transpose()
    };
    // a_int: eulerdamp a_int = qacc − h He⁻¹ diag(s) qacc; implicit(fast) He a_int = M qacc
    crate::work::sized(&mut vecs.aint, nv);
    if damped {
        let x = &mut vecs.x;
        x.clear();
        x.extend((0..nv).map(|i| -h * slope[i] * qacc[i]));
        moreau::pipeline::solve_ld(m, &lin.he, &lin.hei, x);
        for ((a, q), x) in vecs.aint.iter_mut().zip(qacc.iter()).zip(x.iter()) {
            *a = q + x;
        }
    } else if let Some(lu) = &lu {
        let x = m_mul(&DMatrix::from_column_slice(nv, 1, qacc.as_slice()));
        vecs.aint
            .copy_from_slice(lu.solve(&x).ok_or(SINGULAR_HE)?.as_slice());
    } else {
        vecs.aint.copy_from(qacc);
    }
    let aint = &vecs.aint;
    crate::work::sized(&mut vecs.diff, nv);
    for ((o, q), a) in vecs.diff.iter_mut().zip(qacc.iter()).zip(aint.iter()) {
        *o = q - a;
    }
    w.lin = lin;
    let ad = crate::forward::forward_parts_noslip(m, d, integrated.then_some(&vecs.diff), w)?;
    let c = nx + nu;
    let sensors = if flg_sensor {
        let da = DMatrix::from_row_slice(nv, c, &w.lin.x);
        Some(crate::sensor::sensor_jacobians(m, d, &da, w)?)
    } else {
        None
    };
    let mut lin = std::mem::take(&mut w.lin);
    // A (columns q tangent, v, act) and B (u): row i of the combined nx × c Jacobian, row-major
    // in lin.ab (every entry written), then copied out column by column; the v' rows
    // (v' = v + h a_int) are written straight from ∂a_int/∂x
    lin.ab.resize(nx * c, 0.0);
    // ∂a_int/∂x (row-major nv × c): eulerdamp into the v' rows of lin.ab, else into lin.x
    if damped {
        // He = M + h D, so He⁻¹ M = I − h He⁻¹ D and
        // ∂a_int = ∂qacc + He⁻¹ (∂M (qacc − a_int) − h D ∂qacc)
        // and, for polynomial damping, − h diag(s'(v) a_int) in the velocity columns
        lin.y.resize(nv * c, 0.0);
        // the column-major qdmx as the first nv columns of y's rows, then each row's
        // s x + qdmx (the same sum as s x first, qdmx added)
        rows::transpose_into(lin.qdmx.as_slice(), nv, nv, nv, &mut lin.y, c, 1.0);
        for k in 0..nv {
            let s = -h * slope[k];
            let (y, x) = (&mut lin.y[k * c..(k + 1) * c], &lin.x[k * c..(k + 1) * c]);
            let (yq, yr) = y.split_at_mut(nv);
            for (y, x) in yq.iter_mut().zip(&x[..nv]) {
                *y += s * *x;
            }
            for (y, x) in yr.iter_mut().zip(&x[nv..]) {
                *y = s * *x;
            }
            y[nv + k] -= h * slope_dv(m, d.qvel[k], k) * aint[k];
        }
        rows::ld_solve(m, &lin.he, &lin.hei, &mut lin.y, c, &mut lin.solve);
        let vrows = &mut lin.ab[nv * c..2 * nv * c];
        for (o, (x, y)) in vrows.iter_mut().zip(lin.x.iter().zip(&lin.y)) {
            *o = h * (*x + *y);
        }
    } else if let Some(lu) = &lu {
        // He ∂a_int = M ∂qacc + ∂M (qacc − a_int) + h sym(∂qDeriv) a_int
        let da = DMatrix::from_row_slice(nv, c, &lin.x);
        let mut rhs = m_mul(&da);
        let mut cm = lin.qdmx.clone();
        if he_dual {
            // − ∂((He − M) a_int)/∂x, every column
            let dp = crate::step_matrix::d_he_offset_vec(m, d, aint.as_slice(), w);
            rhs -= dp;
        } else {
            // implicitfast: h sym(∂qDeriv/∂q) a_int, the fluid block (which depends on q and v
            // through the bodies' velocities; symmetric per object and within M's pattern) by
            // crate::fluid's passes
            crate::smooth_vel_pos::add_dqderiv_vec(m, d, aint.as_slice(), h, w, &mut cm);
            crate::fluid::fluid_pos(m, d, None, Some((aint.as_slice(), h, &mut cm)));
            let mut v = rhs.columns_mut(nv, nv);
            crate::fluid::fluid_qderiv_vel(m, d, aint.as_slice(), h, &mut v);
        }
        let mut q = rhs.columns_mut(0, nv);
        q += cm;
        let dai = lu.solve(&rhs).ok_or(SINGULAR_HE)?;
        for k in 0..nv {
            for l in 0..c {
                lin.x[k * c + l] = dai[(k, l)];
            }
        }
    }
    if !damped {
        for (o, x) in lin.ab[nv * c..2 * nv * c].iter_mut().zip(&lin.x) {
            *o = h * *x;
        }
    }
    for i in 0..nv {
        lin.ab[(nv + i) * c + nv + i] += 1.0;
    }
    // dv: the v' rows (∂v'/∂x); ab: the q' rows, then all rows
    let (ab, rest) = lin.ab.split_at_mut(nv * c);
    let dv = &rest[..nv * c];
    // q' = q ⊕ h v' (mjd_quatIntegrate blocks for quaternions)
    let mut vnew = std::mem::take(&mut vecs.step_vnew);
    vnew.clear();
    vnew.extend((0..nv).map(|i| d.qvel[i] + h * aint[i]));
    integrate_rows(m, &vnew, dv, c, h, ab);
    let ab = &mut lin.ab;
    // act' (advance_act): columns (act, u) only (column 2nv + col of the combined row)
    ab[2 * nv * c..].fill(0.0);
    for (i, cf) in moving_acts(m, h, &d.act, &d.act_dot) {
        let row = &mut ab[(2 * nv + i) * c..(2 * nv + i + 1) * c];
        for col in 0..na + nu {
            let e = if col == i { 1.0 } else { 0.0 };
            row[2 * nv + col] = e + cf * ad[(i, col)];
        }
    }
    // A and B into the last call's matrices when their shapes fit
    let (mut a, mut b) = match reuse {
        Some(t) if t.A.shape() == (nx, nx) && t.B.shape() == (nx, nu) => (t.A, t.B),
        _ => (DMatrix::zeros(nx, nx), DMatrix::zeros(nx, nu)),
    };
    // column-major A and B: ab's rows transposed (in 4 × 4 tiles)
    rows::transpose_into(ab, c, nx, nx, a.as_mut_slice(), nx, 1.0);
    if nu > 0 {
        rows::transpose_into(&ab[nx..], c, nx, nu, b.as_mut_slice(), nx, 1.0);
    }
    let mut step_aint = std::mem::take(&mut vecs.step_aint);
    step_aint.clear();
    step_aint.extend_from_slice(aint.as_slice());
    lin.vecs = vecs;
    lin.step = Some(StepLin {
        aint: step_aint,
        vnew,
        he: match lu {
            Some(lu) => HeSolve::Lu(lu),
            None if damped => HeSolve::Damped,
            None => HeSolve::Mass,
        },
    });
    w.lin = lin;
    let (c, dm) = sensors.unwrap_or_else(|| (DMatrix::zeros(0, nx), DMatrix::zeros(0, nu)));
    Ok(TransitionJacobians {
        A: a,
        B: b,
        C: c,
        D: dm,
    })
}

/// `∂x'/∂θ` (`(2nv + na) × P`, rows as `A`'s) of the step last linearized by [`forwarded`], for
/// `P` parameters `θ` that enter the step through the forward dynamics' optimality condition
/// `g(qacc; θ) = 0` and the integrator's `He(θ) a_int = M(θ) qacc`: `force` (`nv × P`) holds
/// `−∂g/∂θ` at fixed state and `qacc` (constraint force at its fixed active set), `he_rhs`
/// (`nv × P`) `∂M/∂θ (qacc − a_int) − ∂(He − M)/∂θ a_int`. By the implicit function theorem
/// `∂qacc = (M + JᵀHJ)⁻¹ force` with the step's factor, then `He ∂a_int = M ∂qacc + he_rhs`,
/// `∂v' = h ∂a_int`, `∂q' = ∂(q ⊕ h v')/∂v' · ∂v'` (tangent), `∂act' = 0`: one back-substitution per
/// parameter, no simulated step.
pub(crate) fn params(
    m: &Model,
    d: &Data<f64>,
    w: &mut Workspace,
    force: &DMatrix<f64>,
    he_rhs: &DMatrix<f64>,
) -> Result<DMatrix<f64>, &'static str> {
    let (nv, na) = (m.nv, m.na);
    let p = force.ncols();
    if force.nrows() != nv || he_rhs.shape() != (nv, p) {
        return Err("parameter columns: force and he_rhs must both be nv × P");
    }
    if m.opt.noslip_iterations > 0 {
        return Err("parameter columns are not derived through the noslip post-pass");
    }
    let lin = &mut w.lin;
    let step = lin
        .step
        .as_ref()
        .ok_or("parameter columns need the analytic Euler or implicit(fast) transition first")?;
    let h = m.opt.timestep;
    // ∂qacc = (M + JᵀHJ)⁻¹ force, row-major nv × P
    let mut x: Vec<f64> = (0..nv * p).map(|i| force[(i / p, i % p)]).collect();
    if lin.tree {
        rows::ld_solve(m, &lin.ld, &lin.ldi, &mut x, p, &mut lin.solve);
    } else {
        rows::ld_solve_dense(&lin.ld, nv, &lin.ldi, &mut x, p, &mut lin.dense);
    }
    let dq = DMatrix::from_row_slice(nv, p, &x);
    let da = match &step.he {
        HeSolve::Mass if he_rhs.iter().all(|&v| v == 0.0) => dq,
        he => {
            let rhs = dense_m(m, &d.qM) * &dq + he_rhs;
            match he {
                HeSolve::Lu(lu) => lu.solve(&rhs).ok_or(SINGULAR_HE)?,
                HeSolve::Damped => {
                    let mut out = rhs;
                    for mut col in out.column_iter_mut() {
                        moreau::pipeline::solve_ld(m, &lin.he, &lin.hei, col.as_mut_slice());
                    }
                    out
                }
                HeSolve::Mass => dense_m(m, &d.qM).lu().solve(&rhs).ok_or("M is singular")?,
            }
        }
    };
    let mut out = DMatrix::zeros(2 * nv + na, p);
    // ∂v' = h ∂a_int; ∂q' through q ⊕ h v' (tangent rows)
    for k in 0..nv {
        for j in 0..p {
            out[(nv + k, j)] = h * da[(k, j)];
        }
    }
    for jn in 0..m.njnt {
        let a = m.jnt_dofadr[jn];
        let (nlin, rot) = match m.jnt_type[jn] {
            moreau::model::JointType::Free => (3, Some(a + 3)),
            moreau::model::JointType::Ball => (0, Some(a)),
            _ => (1, None),
        };
        for i in a..a + nlin {
            for j in 0..p {
                out[(i, j)] = h * out[(nv + i, j)];
            }
        }
        if let Some(r) = rot {
            let wr = nalgebra::Vector3::new(step.vnew[r], step.vnew[r + 1], step.vnew[r + 2]);
            let (_, dvel, _) = crate::quat::quat_integrate_deriv(&wr, h);
            for j in 0..p {
                let dv = nalgebra::Vector3::new(
                    out[(nv + r, j)],
                    out[(nv + r + 1, j)],
                    out[(nv + r + 2, j)],
                );
                let dqr = dvel * dv * h;
                for e in 0..3 {
                    out[(r + e, j)] = dqr[e];
                }
            }
        }
    }
    Ok(out)
}
