//! The primal solver loop shared by Newton and CG (docs/mujoco-behaviour.md#newton): start point,
//! scale, certificates, exact line search, state/force updates, statistics and stopping rules.

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use crate::constraint::cost::{evaluate, line_eval, line_quad, Rows};
use crate::data::scratch::{Problem, SolverScratch};
use crate::data::{ConstraintState, ConstraintType};
use crate::data::{SolverLog, SolverStat};
use crate::math::dense;
use crate::math::{sc, Scalar};
use crate::model::Model;
use crate::solver::cg;
use crate::solver::newton;
use crate::solver::problem::re;

/// Total cost of problem `p` at `a` (Gauss term ½(Ma-τ)ᵀ(a-a₀) plus s(Ja - aref)) from
/// `s.Ma = M a` and `s.jar = J a − aref` (the caller's: the warm start keeps them across
/// skipped position stages); fills `s.ftmp` (forces), `s.stmp` (states), the cone Hessians
/// `s.cone_H`, and returns (total, s).
pub(crate) fn total_cost_at<T: Scalar>(
    p: &Problem<T>,
    a: &[T],
    s: &mut SolverScratch<T>,
) -> (T, T) {
    let c = evaluate(
        &p.rows(),
        &s.jar,
        &mut s.ftmp,
        &mut s.stmp,
        Some(&mut s.cone_H),
    );
    (gauss(&s.Ma, &p.qfrc_smooth, a, &p.qacc_smooth) + c, c)
}

fn gauss<T: Scalar>(ma: &[T], fs: &[T], a: &[T], a0: &[T]) -> T {
    let mut g = T::zero();
    for i in 0..a.len() {
        g += (ma[i] - fs[i]) * (a[i] - a0[i]);
    }
    g * sc(0.5)
}

/// A line-search point: step, phi = cost(step) - cost(0), first and second derivative.
#[derive(Clone, Copy, Debug)]
struct Pt<T> {
    alpha: T,
    phi: T,
    d1: T,
    d2: T,
}

struct Line<'a, T> {
    rows: Rows<'a, T>,
    jar: &'a [T],
    jv: &'a [T],
    quad: &'a [T],
    gauss: [T; 3],
    cost0: T,
    neval: usize,
    /// `T` is `f64`: second derivatives in (0, 1e-15] are kept (see [`Line::eval`]).
    exact_d2: bool,
}

impl<T: Scalar> Line<'_, T> {
    fn eval(&mut self, alpha: T) -> Pt<T> {
        self.neval += 1;
        let [v, d1, d2] = line_eval(&self.rows, self.jar, self.jv, self.quad, self.gauss, alpha);
        // the line's cost is convex: a second derivative that is not positive can only be
        // round-off and is replaced by mjMINVAL (1e-15); in f64 a small positive one is kept, as
        // MuJoCo does (a floor at 1e-15 shortens every Newton step of a flat line, e.g. a dof near
        // rest under dry friction, and took up to `ls_iterations` evaluations where MuJoCo takes
        // two). Dual numbers keep the floor: without it the dual parts of the derivative
        // references (the dual-number solve) moved by up to 4.5e-10 from the implicit ones.
        Pt {
            alpha,
            phi: v - self.cost0,
            d1,
            d2: if d2 > sc(1e-15) || (self.exact_d2 && d2 > T::zero()) {
                d2
            } else {
                sc(1e-15)
            },
        }
    }
    fn newton(&mut self, p: &Pt<T>) -> Pt<T> {
        self.eval(p.alpha - p.d1 / p.d2)
    }
}

/// Replaces bracket end `p` by the candidate with same-sign, smaller-magnitude derivative (the
/// last such in candidate order wins) and recomputes its Newton successor.
fn update_bracket<T: Scalar>(
    line: &mut Line<T>,
    p: &mut Pt<T>,
    cand: &[Pt<T>; 3],
    next: &mut Pt<T>,
) -> bool {
    let z = T::zero();
    let mut moved = false;
    for c in cand {
        if (p.d1 < z && c.d1 < z && p.d1 < c.d1) || (p.d1 > z && c.d1 > z && p.d1 > c.d1) {
            *p = *c;
            moved = true;
        }
    }
    if moved {
        *next = line.newton(p);
    }
    moved
}

/// Exact line search along the direction whose projections are `jv` (= J s) with Gauss
/// coefficients `gauss` (docs/mujoco-behaviour.md#newton steps 1-4). Returns (alpha, evaluations,
/// |phi'| at alpha).
fn line_search<T: Scalar>(line: &mut Line<T>, gtol: T, cap: usize) -> (T, T) {
    let z = T::zero();
    // p0 sets the reference of phi (its cost), so phi(0) = 0
    let mut p0 = line.eval(z);
    line.cost0 = p0.phi;
    p0.phi = z;
    // 1. one Newton step
    let mut p1 = line.newton(&p0);
    if p1.d1.abs() < gtol && p1.phi <= z {
        return (p1.alpha, p1.d1);
    }
    // 2. one-sided Newton steps until the derivative changes sign
    let dir = if p1.d1 < z { T::one() } else { -T::one() };
    let mut p2 = p0;
    while p1.d1 * dir <= -gtol && line.neval < cap {
        p2 = p1;
        p1 = line.newton(&p1);
        if p1.d1.abs() < gtol && p1.phi < z {
            return (p1.alpha, p1.d1);
        }
    }
    if line.neval >= cap {
        return (p1.alpha, p1.d1);
    }
    // 3. bracketed search on [p1, p2]
    let mut p1next = line.newton(&p1);
    let mut p2next = p1;
    while line.neval < cap {
        let pmid = line.eval((p1.alpha + p2.alpha) * sc(0.5));
        let cand = [p1next, p2next, pmid];
        let mut best: Option<Pt<T>> = None;
        for c in &cand {
            if c.d1.abs() < gtol && best.is_none_or(|b| c.phi < b.phi) {
                best = Some(*c);
            }
        }
        if let Some(b) = best {
            return (b.alpha, b.d1);
        }
        let b1 = update_bracket(line, &mut p1, &cand, &mut p1next);
        let b2 = update_bracket(line, &mut p2, &cand, &mut p2next);
        if !b1 && !b2 {
            return (pmid.alpha, pmid.d1);
        }
    }
    // 4. evaluation cap: the better bracket end if it improves
    let best = if p1.phi < p2.phi { p1 } else { p2 };
    if best.phi < z {
        (best.alpha, best.d1)
    } else {
        (z, p0.d1)
    }
}

fn norm<T: Scalar>(x: &[T]) -> T {
    dense::dot(x, x).sqrt()
}

/// Gradient g = Ma - τ - Jᵀf into `s.grad`, with Jᵀf in `s.jtf`. Every change of the forces
/// is followed by this call, so at the end of [`solve`] `s.jtf` is Jᵀf at its result.
fn gradient<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    p.mul_jt(&p.force, &mut s.jtf);
    for i in 0..p.nv {
        s.grad[i] = s.Ma[i] - p.qfrc_smooth[i] - s.jtf[i];
    }
}

/// Newton (`newton = true`) or CG solve of problem `p` from the start point `p.qacc`; returns
/// the iteration count and appends the statistics to `stats` (at most [`NSOLVER`]).
pub(super) fn solve<T: Scalar>(
    m: &Model,
    p: &mut Problem<T>,
    s: &mut SolverScratch<T>,
    newton: bool,
    mut stats: Option<&mut SolverLog<'_>>,
) -> usize {
    let nv = p.nv;
    let nefc = p.nefc;
    let tol: T = sc(m.opt.tolerance);
    let half: T = sc(0.5);
    let scale = T::one() / p.trace_m();
    if newton {
        p.leaves();
    }

    let mut a = std::mem::take(&mut p.qacc);
    let start = std::mem::take(&mut s.start_ws);
    let sval = if let (true, Some(sval)) = (start, s.start_s.take()) {
        // the warm start's evaluation at this point (`total_cost`): forces, states and cone
        // Hessians are those of `evaluate` here
        p.force.copy_from_slice(&s.ftmp[..nefc]);
        p.state.copy_from_slice(&s.stmp[..nefc]);
        sval
    } else {
        if !start {
            p.mul_m(&a, &mut s.Ma);
            p.mul_j_aref(&a, &mut s.jar);
        }
        let (rows, force, state) = p.rows_force_state();
        evaluate(&rows, &s.jar, force, state, Some(&mut s.cone_H))
    };
    // the Gauss term at the current point (the line search's value at alpha = 0)
    let mut gcur = gauss(&s.Ma, &p.qfrc_smooth, &a, &p.qacc_smooth);
    let mut cost = gcur + sval;
    gradient(p, s);

    let mut done = false;
    let flg_grad = scale * norm(&s.grad) < tol;
    s.Mgrad.copy_from_slice(&s.grad);
    if !newton {
        p.solve_m(&mut s.Mgrad);
    } else if flg_grad {
        // Newton needs M⁻¹ only for this test (which needs flg_grad): the sparse factor of
        // the smooth stage
        p.solve_m(&mut s.Mgrad);
    }
    // CG stops before its first iteration on the decrement alone, whatever the gradient's norm
    // (MuJoCo 4.0.0, measured: an island that starts at its warm start with a scaled gradient
    // norm of 1.1e-5 and a decrement of 1.9e-10 takes no iteration); Newton needs both
    if (flg_grad || !newton) && half * scale * dense::dot(&s.grad, &s.Mgrad) < tol {
        done = true;
    } else if newton {
        newton::hessian(p, s);
        s.Mgrad.copy_from_slice(&s.grad);
        newton::solve_h(p, s);
        if flg_grad && half * scale * dense::dot(&s.grad, &s.Mgrad) < tol {
            done = true;
        }
    }
    for i in 0..nv {
        s.search[i] = -s.Mgrad[i];
    }

    let mut iter = 0;
    while !done && iter < m.opt.iterations {
        // line search along s.search
        p.mul_m(&s.search, &mut s.Ms);
        p.mul_j(&s.search, &mut s.jv);
        let snorm = norm(&s.search);
        if snorm < sc(1e-15) {
            break;
        }
        let mut g1 = T::zero();
        let mut g2 = T::zero();
        for i in 0..nv {
            g1 += s.search[i] * (s.Ma[i] - p.qfrc_smooth[i]);
            g2 += s.search[i] * s.Ms[i];
        }
        let g0 = gcur;
        line_quad(&p.rows(), &s.jar, &s.jv, &mut s.quad);
        let mut line = Line {
            rows: p.rows(),
            jar: &s.jar,
            jv: &s.jv,
            quad: &s.quad,
            gauss: [g0, g1, half * g2],
            cost0: T::zero(),
            neval: 0,
            exact_d2: std::any::TypeId::of::<T>() == std::any::TypeId::of::<f64>(),
        };
        let gtol = tol * sc(m.opt.ls_tolerance) * snorm / scale;
        let (alpha, slope) = line_search(&mut line, gtol, m.opt.ls_iterations);
        let neval = line.neval;
        if alpha == T::zero() {
            break;
        }

        // move
        for i in 0..nv {
            a[i] += alpha * s.search[i];
            s.Ma[i] += alpha * s.Ms[i];
        }
        for i in 0..nefc {
            s.jar[i] += alpha * s.jv[i];
        }
        let oldcost = cost;
        s.state_old.copy_from_slice(&p.state);
        let (rows, force, state) = p.rows_force_state();
        let sval = evaluate(&rows, &s.jar, force, state, Some(&mut s.cone_H));
        gcur = gauss(&s.Ma, &p.qfrc_smooth, &a, &p.qacc_smooth);
        cost = gcur + sval;
        s.grad_old.copy_from_slice(&s.grad);
        s.Mgrad_old.copy_from_slice(&s.Mgrad);
        gradient(p, s);

        let mut nchange = 0;
        let mut nactive = 0;
        let mut nupdate = 0;
        for i in 0..nefc {
            let (o, n) = (s.state_old[i], p.state[i]);
            nchange += (o != n) as usize;
            nactive += (n != ConstraintState::Satisfied) as usize;
            nupdate +=
                ((o == ConstraintState::Quadratic) != (n == ConstraintState::Quadratic)) as usize;
        }
        let mut decrement = T::zero();
        if newton {
            for c in &p.cone {
                if p.ty[c.adr] == ConstraintType::ContactElliptic
                    && p.state[c.adr] == ConstraintState::Cone
                {
                    nupdate += c.dim;
                }
            }
            newton::update_hessian(p, s, nupdate);
            s.Mgrad.copy_from_slice(&s.grad);
            newton::solve_h(p, s);
            decrement = half * scale * dense::dot(&s.grad, &s.Mgrad);
            for i in 0..nv {
                s.search[i] = -s.Mgrad[i];
            }
        } else {
            nupdate = 0;
            cg::direction(p, s);
        }
        let improvement = scale * (oldcost - cost);
        let gradnorm = scale * norm(&s.grad);
        iter += 1;
        if let Some(st) = stats.as_deref_mut() {
            st.push(SolverStat {
                improvement: re(improvement),
                gradient: re(gradnorm),
                lineslope: re(slope.abs() * scale / snorm),
                nactive,
                nchange,
                neval,
                nupdate,
            });
        }
        let z = T::zero();
        let stop = if newton {
            (improvement > z && improvement < tol) || gradnorm < tol || decrement < tol
        } else {
            improvement < tol || gradnorm < tol
        };
        if stop {
            break;
        }
    }
    p.qacc = a;
    iter
}
