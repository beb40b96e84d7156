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
//! is gathered into a [`Problem`] (its dofs and rows in MuJoCo's island order); the global
//! problem (the warm start's, and the one solved without islands or with one island holding
//! every dof and row in order) works on `Data`'s arrays in place, as MuJoCo's solver works on
//! `mjData` (`Problem::lend`: only M's layout and J's compressed rows are gathered). M stays
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
pub mod nnz;
pub mod noslip;
pub mod pgs;
mod primal;
mod problem;

use crate::constraint::cost::evaluate;
use crate::constraint::params;
use crate::data::scratch::{Problem, SolverScratch};
use crate::data::{Data, SolverLog, SolverStat, NISLAND};
use crate::math::{dense, sc, Scalar};
use crate::model::{disable, Model, SolverType};
use crate::solver::problem::re;

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
    solve_with(m, d, false, false, m.opt.noslip_iterations > 0);
}

/// [`solve`] without the noslip pass, whatever `noslip_iterations` says: the main solver's
/// solution (`qacc`, `efc_force`, `efc_state`), the point at which the noslip pass starts. The
/// analytic derivatives through noslip linearize the main solve there (`moreau-derivatives`).
pub fn solve_main<T: Scalar>(m: &Model, d: &mut Data<T>) {
    solve_with(m, d, false, false, false);
}

/// [`solve`] for a step that skipped the position stage (`mj_forwardSkip` with `skipstage >=
/// mjSTAGE_POS`, [`crate::forward::forward_skip`]): with `skip_pos` and
/// `d.solver_pos_valid`, the islands and the position-only part of the global problem
/// (`Problem::gather_pos`: M's block and factor, J, D, R, cones) left by the last solve are
/// reused, as MuJoCo 4.0.0 builds its islands once in `mj_fwdPosition`; only `aref`, `b`,
/// `qfrc_smooth`, `qacc_smooth` are gathered again. So is the problem of a single island that
/// does not hold every dof and row in order (`SolverScratch::island_kept`), and under Newton or
/// CG without noslip, after [`keep_for_skips`], the problems of several islands, each in its
/// own storage (`SolverScratch::iprob`), with the global problem of the warm start kept
/// beside it, and with either, PGS's B and AR, noslip's block
/// entries and Newton's factored Hessians by row states (`newton::hessian`). The caller is
/// trusted, as by `mj_forwardSkip`: the position-stage results in `d` must be those the last solve saw (the
/// position stage and [`Data::resize_efc`] clear `solver_pos_valid`). Unlike [`solve`] it
/// first computes `efc_b = J qacc_smooth − aref` ([`params::compute_b`]), through the problem's
/// compressed rows when it is the global one: the same sums (the zeros of a dense row only ever
/// add ±0 to a partial sum that starts at +0, which leaves it unchanged bit for bit while
/// `qacc_smooth` is finite), which the Newton/CG warm start then reuses as `J qacc_smooth −
/// aref`. The results are those of [`params::compute_b`] followed by [`solve`] bit for bit.
pub fn solve_skip<T: Scalar>(m: &Model, d: &mut Data<T>, skip_pos: bool) {
    solve_with(m, d, skip_pos, true, m.opt.noslip_iterations > 0);
}

/// Lets later solves of steps that skip the position stage ([`solve_skip`]) keep more than a
/// plain step reserves room for: the problem of a single island that is not the global one
/// (or of each of several islands under Newton or CG without noslip), with the global
/// problem of the warm start beside it (`SolverScratch::gprob`, made here), and Newton's factored Hessians by row states (`newton::hessian`). The finite-difference
/// Jacobians call it before their nominal step; the results are the same bit for bit either
/// way. Plain steps that skip the position stage (the sleep update's second pass) keep neither,
/// so stepping stays allocation-free.
pub fn keep_for_skips<T: Scalar>(d: &mut Data<T>) {
    let s = d.solver_scratch_mut();
    s.skip_keep = true;
    if s.gprob.is_none() {
        s.gprob = Some(Box::default());
    }
}

fn solve_with<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    skip_pos: bool,
    compute_b: bool,
    noslip: bool,
) {
    let nv = m.nv;
    let nefc = d.nefc;
    d.solver_niter = [0; NISLAND];
    let reuse = skip_pos && d.solver_pos_valid;
    if !reuse {
        island::island(m, d);
    }
    d.solver_pos_valid = true;
    let mut s = d.solver_scratch.take().unwrap_or_default();
    if nefc == 0 {
        if compute_b {
            params::compute_b(m, d);
        }
        d.qacc.copy_from_slice(&d.qacc_smooth);
        d.qfrc_constraint.fill(T::zero());
        s.island_kept = false;
        d.solver_scratch = Some(s);
        return;
    }
    if !reuse {
        s.ident_dof.clear();
        s.ident_dof.extend(0..nv);
        s.ident_efc.clear();
        s.ident_efc.extend(0..nefc);
    }
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
    let global = nisland == 0 || whole;
    // one island that is not the global problem (a robot in contact beside trees that touch
    // nothing): the last solve left its problem in `s.prob` (`island_kept`), with its B, AR
    // and noslip blocks; reused with the islands, the global problem kept beside it in `gprob`
    // with more islands (under a primal solver without noslip, whose per-island state is the
    // problem alone: PGS's B and AR and noslip's blocks are kept for one problem only) each is
    // gathered into its own storage when the problems may be kept (`skip_keep`), island 0's
    // in `prob`, the others' in `iprob`, and reused the same way
    let separate = nisland > 1 && s.skip_keep && m.opt.solver != SolverType::Pgs && !noslip;
    let kept = reuse
        && !global
        && (nisland == 1 || (separate && s.iprob.len() + 1 == nisland))
        && s.island_kept
        && s.skip_keep;
    let mut p = if kept {
        s.gprob.take().unwrap_or_default()
    } else {
        s.prob.take().unwrap_or_default()
    };

    // global problem and warm start
    if kept {
        if !(s.gprob_valid && p.nv == nv && p.nefc == nefc) {
            // B, AR and the noslip blocks belong to the kept island problem: not cleared
            p.gather_pos(m, d, &s.ident_dof, &s.ident_efc, None);
            s.ws_valid = false;
            s.gprob_valid = true;
        }
    } else if !(reuse && s.prob_global && global && p.nv == nv && p.nefc == nefc) {
        // the global problem (the warm start's, and the one solved when it is the only
        // island) works on `d`'s arrays in place (`Problem::lend` below): only M's layout and
        // J's rows are gathered
        p.gather_pos_global(m, d, &s.ident_dof, &s.ident_efc);
        s.ws_valid = false;
        s.b_valid = false;
        s.ar_valid = false;
    }
    if !reuse {
        s.gprob_valid = false;
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
    if kept {
        p.gather_vel(m, d, &s.ident_dof, &s.ident_efc, None);
    } else {
        p.lend(d);
    }
    s.start_ws = false;
    s.start_s = None;
    s.resize_nv(nv);
    s.resize(nefc, p.cone.len());
    let pgs = m.opt.solver == SolverType::Pgs;
    warmstart(m, d, &mut p, &mut s, pgs, b_rows);

    s.prob_global = global;
    // the problem solved below keeps its position part from the last solve: Newton may reuse
    // its factored Hessians (`newton::hessian`)
    s.hcache_on = s.skip_keep && reuse && (global || kept);
    let written = if global { 1 } else { nisland.min(NISLAND) };
    d.solver_nnz.begin(m, written, &mut s.nnz);
    if global {
        let (niter, primal) = run(m, &mut p, &mut s, d.solver.get_mut(0), noslip);
        d.solver_niter[0] = niter;
        let c = nnz::solver_nnz(m, d, &s.ident_dof, &s.ident_efc, primal, &mut s.nnz);
        d.solver_nnz.put(0, c, &s.nnz);
        // the solution is in `d`'s own qacc, efc_force, efc_state
        p.give_back(d);
    } else {
        if !kept {
            // the islands' gathers replace the global problem (and what was kept of its warm
            // start)
            s.ws_valid = false;
        }
        // start point of every island: the global warm start (in `d`'s own qacc and efc_force
        // when the problem worked on them)
        if kept {
            d.qacc.copy_from_slice(&p.qacc);
            d.efc_force.copy_from_slice(&p.force);
        } else {
            p.give_back(d);
        }
        for j in d.nidof..nv {
            let dof = d.map_idof2dof[j];
            d.qacc[dof] = d.qacc_smooth[dof];
        }
        // the kept island's problem; otherwise the islands are gathered into the global one's
        // storage
        let mut global_p = None;
        if kept {
            global_p = Some(p);
            p = s.prob.take().unwrap_or_default();
        }
        let mut others = std::mem::take(&mut s.iprob);
        if separate {
            others.resize_with(nisland - 1, Problem::default);
        }
        for k in 0..nisland {
            let p: &mut Problem<T> = if separate && k > 0 {
                &mut others[k - 1]
            } else {
                &mut p
            };
            let (a0, nvk) = (d.island_idofadr[k], d.island_nv[k]);
            let (r0, nek) = (d.island_iefcadr[k], d.island_nefc[k]);
            let (dofs, rows) = (&d.map_idof2dof[a0..a0 + nvk], &d.map_iefc2efc[r0..r0 + nek]);
            let efc2p = Some((&d.map_efc2iefc[..], r0));
            if kept {
                // position part, B, AR and noslip blocks as the last solve left them
                p.gather_vel(m, d, dofs, rows, efc2p);
            } else {
                p.gather(m, d, dofs, rows, efc2p);
                s.b_valid = false;
                s.ar_valid = false;
            }
            s.start_ws = false;
            s.start_s = None;
            for (a, &dof) in dofs.iter().enumerate() {
                p.qacc[a] = d.qacc[dof];
            }
            for (i, &r) in rows.iter().enumerate() {
                p.force[i] = d.efc_force[r];
            }
            s.resize_nv(nvk);
            s.resize(nek, p.cone.len());
            let (niter, primal) = run(m, p, &mut s, d.solver.get_mut(k), noslip);
            if k < NISLAND {
                d.solver_niter[k] = niter;
                let c = nnz::solver_nnz(m, d, dofs, rows, primal, &mut s.nnz);
                d.solver_nnz.put(k, c, &s.nnz);
            }
            for (a, &dof) in dofs.iter().enumerate() {
                d.qacc[dof] = p.qacc[a];
            }
            for (i, &r) in rows.iter().enumerate() {
                d.efc_force[r] = p.force[i];
                d.efc_state[r] = p.state[i];
            }
        }
        if let Some(g) = global_p {
            s.gprob = Some(g);
        }
        s.iprob = others;
    }
    // `s.prob` (below) holds the problem of a single island that is not the global one (with
    // `separate`: of island 0, the others' in `s.iprob`)
    s.island_kept = !global && (nisland == 1 || separate);
    // qfrc_constraint = J^T f: through the problem's compressed rows when it is the global one
    // (the same sums: the rows' zeros only ever added ±0); a primal solve's last gradient
    // formed it already, by the same product of the same forces
    let compressed = global && p.J_sparse && !d.efc_J_sparse;
    if compressed {
        if s.jtf_final {
            d.qfrc_constraint.copy_from_slice(&s.jtf[..nv]);
        } else {
            p.mul_jt(&d.efc_force, &mut d.qfrc_constraint);
        }
    }
    s.prob = Some(p);
    // the per-dof and per-row vectors stay at the last problem's sizes: every solve sizes them
    // before it reads them (above), and nothing outside the solver reads the per-dof ones
    d.solver_scratch = Some(s);
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

/// Runs the selected solver on `p`, then the noslip pass if `noslip` (`noslip_iterations > 0`
/// but for [`solve_main`]), their
/// statistics written from the first entry of `stats` on (see [`Data::solver`]); returns the
/// total iteration count and the selected solver's alone.
fn run<T: Scalar>(
    m: &Model,
    p: &mut Problem<T>,
    s: &mut SolverScratch<T>,
    stats: Option<&mut Vec<SolverStat>>,
    noslip: bool,
) -> (usize, usize) {
    let mut log = stats.map(SolverLog::new);
    let mut stats = log.as_mut();
    let niter = match m.opt.solver {
        SolverType::Newton => primal::solve(m, p, s, true, stats.as_deref_mut()),
        SolverType::Cg => primal::solve(m, p, s, false, stats.as_deref_mut()),
        SolverType::Pgs => pgs::solve(m, p, s, stats.as_deref_mut()),
    };
    // the primal solvers leave Jᵀf at their forces in `s.jtf`; PGS and noslip do not
    s.jtf_final = m.opt.solver != SolverType::Pgs && !noslip;
    if noslip {
        (niter + noslip::solve(m, p, s, stats), niter)
    } else {
        (niter, niter)
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
    p.qacc.copy_from_slice(&p.qacc_smooth);
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
            p.mul_j_aref(&p.qacc_smooth, &mut s.jar);
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
            // sized here, not by `resize`: an island's solve between two global warm starts
            // must not cut it
            s.ws_Ja.resize(n, z);
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
