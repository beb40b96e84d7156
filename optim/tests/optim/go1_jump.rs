//! The Go1 jump of `examples/go1_jump.rs` (examples/common/go1_jump.rs) on MuJoCo Menagerie's
//! unchanged `unitree_go1/scene.xml` from the public zoo's cache (a missing cache fails with the
//! fetch command). These tests run the scripted crouch-and-launch rollouts (the default
//! profile and the one whose crouch keeps the lower calves off the floor), a few iterations of
//! iLQR through the engine's step from the default, the collocation from the knees-clear
//! one (from the default guess LM stalls: see docs/optimization.md), and the jump from a
//! standing guess (iLQR with the jump's requirements as augmented-Lagrangian constraints, then
//! collocation from its plan and multipliers). No timing assertions.

#[path = "../../examples/common/go1_jump.rs"]
#[allow(dead_code)]
mod jump;

use serde_json::Value;

const HORIZON: usize = 300;
/// iLQR's iterations from the standing guess.
const ILQR_ITERS: usize = 200;

/// The engine's rollout of the controls `u` from `home` and its summary, checked against
/// MuJoCo's rollout of the same script in `tests/reference/<name>` (written by
/// `tools/robots/go1_jump_replay.py --script [--knees-clear] --write`; its script named
/// `script`): the same flight knots and airborne count, the apex and the final configuration
/// to 1e-6.
fn rollout_as_in_mujoco(
    m: &moreau::Model,
    home: &[f64],
    u: &[Vec<f64>],
    name: &str,
    script: &str,
) -> (Vec<Vec<f64>>, jump::Summary) {
    let path = format!("{}/../tests/reference/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let r: Value = serde_json::from_str(&text).unwrap();
    let q = jump::rollout(m, home, u);
    let s = jump::summarize(m, &q);
    println!("engine: {s:?}");
    // the default script's reference predates the key
    assert_eq!(r["script"].as_str().unwrap_or("default"), script);
    assert_eq!(r["horizon"].as_u64(), Some(HORIZON as u64));
    assert_eq!(s.flight.0 as u64, r["flight"][0].as_u64().unwrap());
    assert_eq!(s.flight.1 as u64, r["flight"][1].as_u64().unwrap());
    assert_eq!(s.airborne as u64, r["airborne"].as_u64().unwrap());
    assert!((s.apex - r["apex"].as_f64().unwrap()).abs() < 1e-6);
    let qf = r["final_qpos"].as_array().unwrap();
    let worst = q[HORIZON]
        .iter()
        .zip(qf)
        .map(|(a, b)| (a - b.as_f64().unwrap()).abs())
        .fold(0.0, f64::max);
    assert!(
        worst < 1e-6,
        "final qpos differs from MuJoCo's by {worst:.3e}"
    );
    (q, s)
}

/// The engine's rollout of the scripted servo profile jumps: MuJoCo 4.0.0's rollout of the same
/// profile (`tools/robots/go1_jump_replay.py --script --write
/// tests/reference/go1_jump_script.json`) is off the ground for 71 knots from knot 118 and
/// lands within 3.3° of upright; the engine must give the same flight knots, apex and final
/// configuration (1e-6), and the jump asserted below.
#[test]
fn scripted_launch_jumps_as_in_mujoco() {
    let (m, home, home_ctrl) = jump::load().unwrap();
    let u = jump::Script::default().controls(&home_ctrl, HORIZON);
    let (_, s) = rollout_as_in_mujoco(&m, &home, &u, "go1_jump_script.json", "default");
    // all four feet off the ground for ≥ 60 knots (0.12 s), then back on the floor, upright
    // (tilt < 10°) and standing (trunk above 0.2 m; home 0.27 m)
    assert!(s.jumped(60, 10f64.to_radians(), 0.2), "{s:?}");
}

/// iLQR through the engine's step with the time-varying reference (trunk at 0.36 m over the
/// guess's flight, level, joints near home, home at rest at the end), 15 iterations from
/// the scripted guess: the cost decreases, the open-loop replay of the plan's controls follows
/// the plan, still jumps and lands upright, and rises above the guess.
#[test]
fn ilqr_from_the_scripted_launch_keeps_the_jump() {
    let (m, home, home_ctrl) = jump::load().unwrap();
    let u0 = jump::Script::default().controls(&home_ctrl, HORIZON);
    let guess = jump::summarize(&m, &jump::rollout(&m, &home, &u0));
    let goal = jump::Goal::over_flight(&home, &guess, 0.36);
    let plan = jump::solve_ilqr(&m, &goal, &home_ctrl, &u0, 15, |_, _| {}).unwrap();
    let costs = &plan.history;
    let replay = jump::rollout(&m, &home, &plan.u);
    let err = moreau_problems::max_diff(&replay, &plan.q);
    let s = jump::summarize(&m, &replay);
    println!("iLQR: costs {costs:?}; replay error {err:.3e}; {s:?}; guess {guess:?}");
    // iLQR's steps start the constraint solver cold (`MoreauSystem::step`), the replay warm:
    // both stop at the model's solver tolerance (1e-8), so they differ by ~1e-6 m (1.6e-6 after
    // 100 iterations, in MuJoCo's replay as in the engine's)
    assert!(
        err < 1e-4,
        "open-loop replay differs from the plan by {err:.3e}"
    );
    assert!(costs.windows(2).all(|w| w[1] <= w[0]) && costs[costs.len() - 1] < costs[0]);
    assert!(s.jumped(60, 10f64.to_radians(), 0.2), "{s:?}");
    assert!(
        s.apex > guess.apex,
        "apex {} ≤ guess {}",
        s.apex,
        guess.apex
    );
    let lo_hi = m.actuator_ctrlrange.iter();
    assert!(plan.u.iter().all(|u| u
        .iter()
        .zip(lo_hi.clone())
        .all(|(x, r)| r[0] <= *x && *x <= r[1])));
}

/// Why collocation stalls on the jump (docs/optimization.md) is not a Jacobian error: at every
/// knot of the scripted guess, the analytic inverse-dynamics Jacobians that the collocation
/// uses (`∂τ/∂q`, `∂τ/∂v`, `∂τ/∂a`) equal centered differences of the inverse dynamics to 1e-5
/// of their largest entry, at a step of 1e-6, or, at a knot within 1e-6 of a kink of the
/// contact forces (a constraint row's zone boundary, where differences at 1e-6 straddle it),
/// at 1e-8. The residual is inverse dynamics (no solver), so it carries no solver-tolerance
/// noise either; the stall is the forces' kinks and jumps (measured with `go1_jump --check`).
#[test]
fn collocation_jacobians_at_the_guess_are_derivatives() {
    let (m, home, home_ctrl) = jump::load().unwrap();
    let u = jump::Script::default().controls(&home_ctrl, HORIZON);
    let q = jump::rollout(&m, &home, &u);
    let goal = jump::Goal::over_flight(&home, &jump::summarize(&m, &q), 0.36);
    let c = jump::collocation(m, &goal, HORIZON).unwrap();
    let z: Vec<f64> = q[1..].iter().flatten().copied().collect();
    let errs = jump::knot_jacobian_errors(&c, &z);
    let max = |e: &[f64; 3]| e.iter().fold(0.0f64, |a, &b| a.max(b));
    let kinks: Vec<usize> = (0..errs.len())
        .filter(|&t| max(&errs[t].e6) > 1e-5)
        .collect();
    let contact_knots = errs.iter().filter(|e| e.ncon > 0).count();
    println!(
        "{} knots ({contact_knots} in contact); worst at step 1e-6 {:.2e}, at 1e-8 {:.2e}; \
         knots with a kink within 1e-6: {kinks:?}",
        errs.len(),
        errs.iter().map(|e| max(&e.e6)).fold(0.0, f64::max),
        errs.iter().map(|e| max(&e.e8)).fold(0.0, f64::max),
    );
    assert!(contact_knots > 150, "the guess stands, crouches and lands");
    for (
        t,
        jump::KnotCheck {
            e6,
            e8,
            ncon,
            states,
        },
    ) in errs.iter().enumerate()
    {
        assert!(
            max(e6).min(max(e8)) < 1e-5,
            "knot {t} ({ncon} contacts, {states:?}): {e6:?} at 1e-6, {e8:?} at 1e-8"
        );
    }
    assert!(kinks.len() < 10, "{kinks:?}");
}

/// A configuration away from `home` for the derivative checks: knot 150 of the scripted
/// rollout (in flight: legs bent, trunk tilted), turned by a fixed tangent displacement so that
/// no coordinate sits at a symmetric value.
fn generic_configuration(m: &moreau::Model, home: &[f64], home_ctrl: &[f64]) -> Vec<f64> {
    let u = jump::Script::default().controls(home_ctrl, 150);
    let mut q = jump::rollout(m, home, &u)[150].clone();
    let dir: Vec<f64> = (0..m.nv).map(|i| 0.1 * ((i as f64) * 1.3).sin()).collect();
    moreau::integrate_pos(m, &mut q, &dir, 1.0);
    q
}

/// The feet heights' Jacobian that iLQR's clearance term ([`jump::JumpCost`]) and the
/// collocation's clearance rows use ([`jump::feet_bottoms`]: the `z` row of `mj_jac` at each
/// foot sphere's centre) is the derivative of the kinematics: against forward-mode dual numbers
/// through the engine's kinematics (each tangent direction seeded by `mj_integratePos` with a
/// dual velocity) to 1e-13, and against centered differences of step 1e-6 to 1e-9 (their
/// truncation error, `eps²` times the third derivative, is ~1e-12 m per unit, their
/// round-off ~1e-10), at a configuration in flight.
#[test]
fn feet_jacobian_is_the_kinematics_derivative() {
    use num_dual::Dual64;
    let (m, home, home_ctrl) = jump::load().unwrap();
    let q = generic_configuration(&m, &home, &home_ctrl);
    let c = jump::Clearance::feet(&m, 0.03, 1e4).unwrap();
    let (nf, nv) = (c.geoms.len(), m.nv);
    let mut scratch = (moreau::Data::new(&m), Vec::new());
    let mut bottom = vec![0.0; nf];
    let mut jac = nalgebra::DMatrix::zeros(nf, nv);
    jump::feet_bottoms(&m, &mut scratch, &c.geoms, &q, &mut bottom, Some(&mut jac));
    // dual numbers: one kinematics pass per tangent direction
    let mut dd = moreau::Data::<Dual64>::new(&m);
    let mut dual = nalgebra::DMatrix::zeros(nf, nv);
    for j in 0..nv {
        for (a, b) in dd.qpos.iter_mut().zip(&q) {
            *a = Dual64::from(*b);
        }
        let mut t = vec![Dual64::from(0.0); nv];
        t[j] = Dual64::from(0.0).derivative();
        moreau::integrate_pos(&m, &mut dd.qpos, &t, Dual64::from(1.0));
        moreau::pipeline::kinematics(&m, &mut dd);
        for (k, &g) in c.geoms.iter().enumerate() {
            dual[(k, j)] = dd.geom_xpos[g][2].eps;
            assert_eq!(dd.geom_xpos[g][2].re - m.geom_size[g][0], bottom[k]);
        }
    }
    // centered differences
    let eps = 1e-6;
    let mut fd = nalgebra::DMatrix::zeros(nf, nv);
    let (mut bp, mut bm) = (vec![0.0; nf], vec![0.0; nf]);
    for j in 0..nv {
        let mut dir = vec![0.0; nv];
        dir[j] = 1.0;
        let mut qp = q.clone();
        moreau::integrate_pos(&m, &mut qp, &dir, eps);
        jump::feet_bottoms(&m, &mut scratch, &c.geoms, &qp, &mut bp, None);
        let mut qm = q.clone();
        moreau::integrate_pos(&m, &mut qm, &dir, -eps);
        jump::feet_bottoms(&m, &mut scratch, &c.geoms, &qm, &mut bm, None);
        for k in 0..nf {
            fd[(k, j)] = (bp[k] - bm[k]) / (2.0 * eps);
        }
    }
    let (ed, ef) = ((&jac - &dual).amax(), (&jac - &fd).amax());
    println!(
        "feet bottoms {bottom:?}; largest entry {:.3e}; |analytic − dual| {ed:.2e}, \
         |analytic − centered differences| {ef:.2e}",
        jac.amax()
    );
    assert!(jac.amax() > 0.1, "a Jacobian of moving feet: {jac}");
    // every foot moves with the trunk's height and with its own leg's joints only
    for k in 0..nf {
        assert!(
            (jac[(k, 2)] - 1.0).abs() < 1e-12,
            "foot {k}: ∂z/∂z {}",
            jac[(k, 2)]
        );
    }
    assert!(ed < 1e-13, "analytic against dual numbers: {ed:.3e}");
    assert!(ef < 1e-9, "analytic against centered differences: {ef:.3e}");
}

/// The collocation's task Jacobian of the jump ([`jump::Goal`] as a `Task`: the trunk and
/// joint tracking rows `√w (q ⊖ q*)`, the feet's clearance rows, the requirements' rows
/// `√ρ max(0, λ/ρ − g)`, the terminal `q ⊖ home` and `v` rows) is analytic; it equals centered differences (step 1e-6) of the task's residual at
/// a knot inside the window with every foot below the clearance height, at a knot outside it
/// and at the last knot, to 1e-8 of its largest entry (100, the clearance rows' `√1e4`).
#[test]
fn jump_task_jacobian_is_the_residual_derivative() {
    use moreau_optim::collocation::Task;
    let (m, home, home_ctrl) = jump::load().unwrap();
    let q = generic_configuration(&m, &home, &home_ctrl);
    let mut goal = jump::Goal::over_window(&home, (110, 200), 0.36);
    // a height above every foot of `q`, so that all four rows are active
    goal.clearance = Some(jump::Clearance::feet(&m, 0.5, 1e4).unwrap());
    // and requirements above the trunk and the feet at knot 150, with multipliers: their five
    // rows active
    let mut req = jump::Requirements::go1(&m, (0.5, 150), (0.5, (140, 160)), 1e-3, 1e4).unwrap();
    req.lambda.iter_mut().for_each(|l| *l = 10.0);
    goal.requirements = Some(req);
    let v: Vec<f64> = (0..m.nv).map(|i| ((i as f64) * 0.7).cos()).collect();
    let nv = m.nv;
    for t in [150, 50, HORIZON] {
        let k = goal.dim(t, HORIZON);
        let (mut jq, mut jv) = (
            nalgebra::DMatrix::zeros(k, nv),
            nalgebra::DMatrix::zeros(k, nv),
        );
        goal.jacobian(&m, t, HORIZON, &q, &v, &mut jq, &mut jv);
        let eps = 1e-6;
        let (mut fq, mut fv) = (
            nalgebra::DMatrix::zeros(k, nv),
            nalgebra::DMatrix::zeros(k, nv),
        );
        let (mut rp, mut rm) = (vec![0.0; k], vec![0.0; k]);
        for j in 0..nv {
            let mut dir = vec![0.0; nv];
            dir[j] = 1.0;
            let mut qp = q.clone();
            moreau::integrate_pos(&m, &mut qp, &dir, eps);
            goal.residual(&m, t, HORIZON, &qp, &v, &mut rp);
            let mut qm = q.clone();
            moreau::integrate_pos(&m, &mut qm, &dir, -eps);
            goal.residual(&m, t, HORIZON, &qm, &v, &mut rm);
            for i in 0..k {
                fq[(i, j)] = (rp[i] - rm[i]) / (2.0 * eps);
            }
            let mut vp = v.clone();
            vp[j] += eps;
            goal.residual(&m, t, HORIZON, &q, &vp, &mut rp);
            vp[j] -= 2.0 * eps;
            goal.residual(&m, t, HORIZON, &q, &vp, &mut rm);
            for i in 0..k {
                fv[(i, j)] = (rp[i] - rm[i]) / (2.0 * eps);
            }
        }
        let scale = fq.amax().max(fv.amax());
        let (eq, ev) = ((&jq - &fq).amax() / scale, (&jv - &fv).amax() / scale);
        println!(
            "knot {t}: {k} rows, largest entry {scale:.3e}; relative |∂q| {eq:.2e}, |∂v| {ev:.2e}"
        );
        assert!(eq < 1e-8 && ev < 1e-8, "knot {t}: {eq:.3e} {ev:.3e}");
    }
}

/// The guess whose crouch keeps the lower calves off the floor ([`jump::Script::knees_clear`]):
/// the engine's rollout is MuJoCo 4.0.0's (`tools/robots/go1_jump_replay.py --script
/// --knees-clear --write tests/reference/go1_jump_knees_clear.json`: the same flight knots and
/// apex, the final configuration to 1e-6), and before the flight only the four feet touch the
/// floor (no contact of any other geom at any knot).
#[test]
fn knees_clear_launch_touches_only_with_the_feet() {
    let (m, home, home_ctrl) = jump::load().unwrap();
    let u = jump::Script::knees_clear().controls(&home_ctrl, HORIZON);
    let (q, s) = rollout_as_in_mujoco(&m, &home, &u, "go1_jump_knees_clear.json", "knees_clear");
    let feet: Vec<usize> = ["FR", "FL", "RR", "RL"]
        .iter()
        .map(|n| m.geom_name.iter().position(|g| g == n).unwrap())
        .collect();
    let mut d = moreau::Data::new(&m);
    for (t, qt) in q.iter().enumerate() {
        d.qpos.copy_from_slice(qt);
        moreau::pipeline::fwd_position(&m, &mut d);
        for c in &d.contact {
            assert!(
                c.geom.iter().any(|g| feet.contains(g)),
                "knot {t}: contact of geoms {:?}",
                c.geom
            );
        }
    }
    assert!(s.jumped(60, 10f64.to_radians(), 0.2), "{s:?}");
}

/// Collocation on the unchanged model (impratio 100) from the knees-clear guess ends on its own
/// with the largest unactuated force below 1e-3 N, and the open-loop replay of its controls in
/// the engine follows the plan and jumps: ≥ 60 knots off the ground, landing upright (tilt <
/// 10°) and standing (trunk above 0.2 m), the apex at least 8 cm above `home`'s 0.27 m. LM ends
/// it as a stall, not converged: the scaled gradient is below `gtol` (1.9e-2), but the
/// Gauss–Newton step there raises the objective (gain ratio −8.7e4), so the plan is not a
/// certified first-order point (it was reported converged before LM checked the model).
#[test]
fn collocation_from_the_knees_clear_guess_jumps() {
    let (m, home, home_ctrl) = jump::load().unwrap();
    let u = jump::Script::knees_clear().controls(&home_ctrl, HORIZON);
    let q = jump::rollout(&m, &home, &u);
    let goal = jump::Goal::over_flight(&home, &jump::summarize(&m, &q), 0.36);
    let plan = jump::solve_collocation(
        &m,
        &goal,
        &q,
        &jump::CollocationSettings::default(),
        |_, _| {},
    )
    .unwrap();
    let (_, s) = check_collocation_plan(&m, &home, &plan, "collocation");
    assert!(s.apex > 0.35, "apex {}", s.apex);
}

/// The plan's back-off from the jump's requirements ([`jump::Requirements::margin`]) and the
/// violation the augmented-Lagrangian loop accepts ([`jump::AlSettings::tol`]): a plan within
/// `AL_TOL` of its bounds is `MARGIN − AL_TOL` above the requirements, which covers an
/// open-loop replay within that distance of the plan.
const MARGIN: f64 = 5e-4;
const AL_TOL: f64 = 1e-4;

/// The jump from a standing guess (docs/optimization.md, "From a standing guess"): the guess is
/// the engine's rollout with the servos held at `home` (no crouch, no flight), the task the
/// trunk tracking 0.36 m over knots 110..=200 and the jump's requirements as hard constraints
/// ([`jump::Requirements`]): the trunk at least 0.36 m up at knot 155 and every foot's bottom at
/// least 3 cm above the floor over knots 132..=178 (the window's middle half), each with the
/// back-off `MARGIN`. iLQR through the engine's step from the standing controls (200
/// iterations, the requirements as one-sided penalties `ρ = 1e4`) finds the jump; collocation
/// from iLQR's plan enforces them by an augmented-Lagrangian loop around LM and converges on the
/// unchanged model: the last inner solve certified by LM's model check, every requirement
/// violated by at most `AL_TOL`, the largest unactuated force below 1e-3 N. The open-loop
/// replay of its controls in the engine follows the plan within `MARGIN − AL_TOL` over the
/// knots of the requirements (and 1e-3 m everywhere) and jumps: all four feet off the ground for
/// ≥ 60 knots, back on the floor upright (tilt < 10°) and standing (trunk above 0.2 m), the apex
/// at least 0.36 m and every foot at least 3 cm above the floor over knots 132..=178.
#[test]
fn jump_from_standing_by_ilqr_then_collocation() {
    let (m, home, home_ctrl) = jump::load().unwrap();
    let u0 = vec![home_ctrl.clone(); HORIZON];
    let standing = jump::rollout(&m, &home, &u0);
    let s0 = jump::summarize(&m, &standing);
    assert_eq!(s0.flight.0, 0, "the standing guess never leaves the ground");
    let mut goal = jump::Goal::over_window(&home, (110, 200), 0.36);
    goal.requirements =
        Some(jump::Requirements::go1(&m, (0.36, 155), (0.03, (132, 178)), MARGIN, 1e4).unwrap());
    let al = jump::IlqrAl::default();
    let warm = jump::solve_ilqr_al(&m, &goal, &home_ctrl, &u0, ILQR_ITERS, &al, |_, _| {}).unwrap();
    let sw = jump::summarize(&m, &warm.q);
    println!(
        "iLQR from standing: {} iterations in {} rounds, cost {} → {}, requirements violated by \
         {:.3e} m; {sw:?}",
        warm.iterations, warm.rounds, warm.history[0], warm.cost, warm.violation
    );
    assert!(sw.jumped(60, 10f64.to_radians(), 0.2), "iLQR: {sw:?}");
    // the collocation starts from iLQR's plan and multipliers
    goal.requirements.as_mut().unwrap().lambda = warm.multipliers.clone();
    let settings = jump::CollocationSettings {
        al: jump::AlSettings {
            tol: AL_TOL,
            ..Default::default()
        },
        ..Default::default()
    };
    let plan = jump::solve_collocation(&m, &goal, &warm.q, &settings, |_, line| {
        println!("collocation: {line}")
    })
    .unwrap();
    let (replay, s) = check_collocation_plan(&m, &home, &plan, "collocation from iLQR's plan");
    println!(
        "requirements: {} rounds, largest violation {:.3e} m, ρ {:.0e}, multipliers: apex {:.4e}, \
         {} positive; LM certified {} (gain ratio {:.3} at step fraction {:.0e})",
        plan.rounds,
        plan.violation,
        plan.rho,
        plan.multipliers.last().unwrap(),
        plan.multipliers.iter().filter(|&&x| x > 0.0).count(),
        plan.certified,
        plan.model_ratio,
        plan.model_step
    );
    assert!(
        plan.converged && plan.certified,
        "not a certified first-order point: {}",
        plan.termination
    );
    assert!(plan.violation <= AL_TOL, "violation {:.3e}", plan.violation);
    // the plan meets the requirements with the margin (to `AL_TOL`); the replay follows it
    let req = goal.requirements.as_ref().unwrap();
    let near = moreau_problems::max_diff(&replay[..=178], &plan.q[..=178]);
    assert!(
        near <= MARGIN - AL_TOL,
        "replay differs from the plan by {near:.3e} up to knot 178"
    );
    assert!(
        req.values(&m, &plan.q).iter().all(|&g| g >= -AL_TOL),
        "the plan violates a requirement"
    );
    assert!(s.apex >= 0.36, "apex {:.4} m", s.apex);
    let mut scratch = (moreau::Data::new(&m), Vec::new());
    let mut bottom = vec![0.0; req.geoms.len()];
    for (t, q) in replay.iter().enumerate().take(178 + 1).skip(132) {
        jump::feet_bottoms(&m, &mut scratch, &req.geoms, q, &mut bottom, None);
        for (k, b) in bottom.iter().enumerate() {
            assert!(*b >= 0.03, "foot {k} at {b:.4} m at knot {t}");
        }
    }
}

/// The ballistic guess ([`jump::Ballistic`], derived from the standing rollout by kinematics)
/// is what it says: the standing rollout up to the push, the trunk at the arc's top (0.365 m)
/// at knot 155 and on the parabola `apex − g s²/2` from take-off to landing, the feet on their
/// standing spots (to 1e-9 m, the inverse kinematics' tolerance) before take-off and after
/// landing, every foot's bottom at least 3 cm + the back-off over knots 132..=178, so the guess
/// meets the jump's requirements (not its dynamics); a take-off after the apex knot is refused.
#[test]
fn ballistic_guess_from_standing_is_the_stated_trajectory() {
    let (m, home, home_ctrl) = jump::load().unwrap();
    let standing = jump::rollout(&m, &home, &vec![home_ctrl.clone(); HORIZON]);
    let b = jump::Ballistic::default();
    let feet = jump::Clearance::feet(&m, 0.0, 0.0).unwrap().geoms;
    let (q, crouch, push) = b.guess(&m, &standing, &feet).unwrap();
    assert_eq!(q.len(), HORIZON + 1);
    assert!(crouch <= push && push < b.takeoff);
    assert_eq!(q[..=crouch], standing[..=crouch]);
    let land = 2 * b.apex_knot - b.takeoff;
    let g = -m.opt.gravity[2];
    for (t, qt) in q.iter().enumerate().take(land + 1).skip(b.takeoff) {
        let s = (t as f64 - b.apex_knot as f64) * m.opt.timestep;
        assert!(
            (qt[2] - (b.apex - 0.5 * g * s * s)).abs() < 1e-15,
            "knot {t}"
        );
    }
    let spot = |qt: &[f64]| {
        let mut d = moreau::Data::new(&m);
        d.qpos.copy_from_slice(qt);
        moreau::pipeline::kinematics(&m, &mut d);
        feet.iter().map(|&f| d.geom_xpos[f]).collect::<Vec<_>>()
    };
    let spots = spot(&standing[crouch]);
    for t in (crouch..=b.takeoff).chain(land..=HORIZON) {
        for (p, p0) in spot(&q[t]).iter().zip(&spots) {
            assert!(
                (p - p0).amax() < 1e-9,
                "knot {t}: foot at {p:?}, spot {p0:?}"
            );
        }
    }
    let req = jump::Requirements::go1(&m, (0.36, 155), (0.03, (132, 178)), MARGIN, 1e4).unwrap();
    let gv = req.values(&m, &q);
    assert!(gv.iter().all(|&x| x >= 0.0), "{gv:?}");
    let late = jump::Ballistic { takeoff: 160, ..b };
    assert!(late.guess(&m, &standing, &feet).is_err());
}

/// The supported ballistic guess ([`jump::Ballistic::support`], still from the standing rollout
/// alone): the push's floor force tapers to zero at take-off, the stance feet sink to the depth
/// that carries it and roll instead of sliding, and in flight the whole robot's centre of mass
/// (not the trunk) flies the discrete ballistic arc. Checked: the prefix is the standing
/// rollout; the centre of mass's second difference is `−g h²` (and its x constant) at every
/// flight knot to 1e-9; the guess meets the requirements kinematically; and collocation's
/// inverse dynamics at the guess needs an unactuated force below a tenth of the plain guess's
/// and exceeds `forcerange` by less (the cheap check made before LM runs,
/// [`jump::guess_forces`]).
#[test]
fn supported_ballistic_guess_flies_its_centre_of_mass() {
    let (m, home, home_ctrl) = jump::load().unwrap();
    let standing = jump::rollout(&m, &home, &vec![home_ctrl.clone(); HORIZON]);
    let plain = jump::Ballistic::default();
    let b = jump::Ballistic {
        support: true,
        ..plain.clone()
    };
    let feet = jump::Clearance::feet(&m, 0.0, 0.0).unwrap().geoms;
    let (q, crouch, _) = b.guess(&m, &standing, &feet).unwrap();
    let (q0, _, _) = plain.guess(&m, &standing, &feet).unwrap();
    assert_eq!(q.len(), HORIZON + 1);
    assert_eq!(q[..=crouch], standing[..=crouch]);
    let land = 2 * b.apex_knot - b.takeoff;
    let mut d = moreau::Data::new(&m);
    let com: Vec<[f64; 3]> = q
        .iter()
        .map(|qt| {
            d.qpos.copy_from_slice(qt);
            moreau::pipeline::kinematics(&m, &mut d);
            moreau::pipeline::com_pos(&m, &mut d);
            let c = d.subtree_com[1];
            [c[0], c[1], c[2]]
        })
        .collect();
    let (h, g) = (m.opt.timestep, -m.opt.gravity[2]);
    for t in b.takeoff + 1..land {
        let dd = com[t + 1][2] - 2.0 * com[t][2] + com[t - 1][2];
        assert!((dd + g * h * h).abs() < 1e-9, "knot {t}: {dd:e}");
        assert!((com[t][0] - com[b.takeoff][0]).abs() < 1e-9, "knot {t}");
    }
    let req = jump::Requirements::go1(&m, (0.36, 155), (0.03, (132, 178)), MARGIN, 1e4).unwrap();
    assert!(req.values(&m, &q).iter().all(|&x| x >= 0.0));
    let c = jump::collocation(
        m.clone(),
        &jump::Goal::over_window(&home, (110, 200), 0.36),
        HORIZON,
    )
    .unwrap();
    let worst = |f: Vec<(f64, f64)>| {
        f.iter()
            .fold((0.0f64, 0.0f64), |a, x| (a.0.max(x.0), a.1.max(x.1)))
    };
    let (excess, defect) = worst(jump::guess_forces(&c, &q));
    let (excess0, defect0) = worst(jump::guess_forces(&c, &q0));
    println!(
        "guess forces: beyond forcerange {excess:.3} N·m (plain {excess0:.3}), unactuated \
         {defect:.3e} N (plain {defect0:.3e})"
    );
    assert!(defect < 0.1 * defect0 && excess < excess0);
}

/// The apex requirement over a window ([`jump::Requirements::apex_window`]) follows the trunk's
/// highest knot: on the standing rollout with the trunk raised along a parabola peaking at knot
/// 163 (an arc no fixed knot but 163 would see at its top), `select_apex` moves the apex row
/// from knot 155 to 163, the apex constraint's value is then the window's maximum height less
/// the bound (0.3610 − 0.3605), and the knot stays where it is on a second call; without a
/// window the knot does not move.
#[test]
fn apex_requirement_over_a_window_follows_the_highest_knot() {
    let (m, home, home_ctrl) = jump::load().unwrap();
    let mut qs = jump::rollout(&m, &home, &vec![home_ctrl.clone(); HORIZON]);
    for (t, q) in qs.iter_mut().enumerate() {
        let s = (t as f64 - 163.0) * 0.002;
        q[2] = 0.361 - 0.5 * 9.81 * s * s;
    }
    let mut req =
        jump::Requirements::go1(&m, (0.36, 155), (0.03, (132, 178)), MARGIN, 1e4).unwrap();
    let fixed = req.clone();
    assert!(!req.clone().select_apex(&qs), "no window: the knot stays");
    req.apex_window = Some((110, 200));
    assert!(req.select_apex(&qs), "the knot moves to the top");
    assert_eq!(req.apex_knot, 163);
    assert!(!req.select_apex(&qs), "and stays there");
    let g = req.values(&m, &qs);
    let top = qs[110..=200].iter().map(|q| q[2]).fold(f64::MIN, f64::max);
    let apex = *g.last().unwrap();
    assert!(
        (apex - (top - 0.36 - MARGIN)).abs() < 1e-15,
        "apex constraint {apex} against {}",
        top - 0.36 - MARGIN
    );
    assert!(apex > 0.0 && *fixed.values(&m, &qs).last().unwrap() < 0.0);
    // the feet's rows do not depend on the apex knot
    let n = g.len() - 1;
    assert_eq!(g[..n], fixed.values(&m, &qs)[..n]);
}

/// Collocation alone from the standing rollout with the same task (the trunk target and the feet's
/// clearance term): LM does not leave the guess, and it must not call that converged. The
/// scaled gradient there is below `gtol` (about 2e-2 against 0.03), but the Gauss–Newton model
/// it is measured in does not hold: every trial step at moderate damping is rejected, the
/// damping climbs to 1e13–1e15 and the accepted steps shrink to 1e-8 rad and below (the contact
/// forces' kinks under four feet at impratio 100). LM now checks the model at its undamped
/// step before it certifies a first-order point; here the check fails and the run ends as a
/// stall (formerly "converged" after 21 iterations at cost 3833.37, docs/optimization.md).
#[test]
fn collocation_alone_from_standing_is_not_reported_converged() {
    let (m, home, home_ctrl) = jump::load().unwrap();
    let u0 = vec![home_ctrl.clone(); HORIZON];
    let standing = jump::rollout(&m, &home, &u0);
    let mut goal = jump::Goal::over_window(&home, (110, 200), 0.36);
    goal.clearance = Some(jump::Clearance::feet(&m, 0.03, 1e4).unwrap());
    let plan = jump::solve_collocation(
        &m,
        &goal,
        &standing,
        &jump::CollocationSettings::default(),
        |_, _| {},
    )
    .unwrap();
    let s = jump::summarize(&m, &plan.q);
    println!(
        "collocation from standing: {} iterations, {}, cost {} (start {:?}), max |unactuated τ| \
         {:.2e}; {s:?}",
        plan.iterations,
        plan.termination,
        plan.cost,
        plan.history.first(),
        plan.defect
    );
    assert_eq!(s.flight.0, 0, "the plan stays on the ground: {s:?}");
    assert!(!plan.converged, "reported converged: {}", plan.termination);
    assert!(
        plan.termination.starts_with("stalled"),
        "{}",
        plan.termination
    );
}

/// What both collocation tests ask of a plan: LM ended on its own (converged, or stalled: on this
/// model the Gauss–Newton model fails within 1e-6 rad of every plan LM reaches, the contact
/// forces' kinks under the feet at impratio 100, so LM cannot certify a first-order point and
/// reports a stall; not the iteration limit) with the largest unactuated force at most 1e-3 N,
/// and the open-loop replay of its controls in the engine (from `home`) stays within 1e-3 of the
/// plan and jumps (≥ 60 knots off the ground, landing tilt < 10°, trunk above 0.2 m). Returns
/// the replay and its summary.
fn check_collocation_plan(
    m: &moreau::Model,
    home: &[f64],
    plan: &jump::Plan,
    label: &str,
) -> (Vec<Vec<f64>>, jump::Summary) {
    let replay = jump::rollout(m, home, &plan.u);
    let err = moreau_problems::max_diff(&replay, &plan.q);
    let s = jump::summarize(m, &replay);
    println!(
        "{label}: {} iterations, {}, cost {} (start {:?}), max |unactuated τ| {:.2e}; replay \
         error {err:.3e}; {s:?}",
        plan.iterations,
        plan.termination,
        plan.cost,
        plan.history.first(),
        plan.defect
    );
    assert!(
        plan.converged || plan.termination.starts_with("stalled"),
        "{label}: {}",
        plan.termination
    );
    assert!(
        plan.defect <= 1e-3,
        "{label}: unactuated force {:.2e} N",
        plan.defect
    );
    assert!(
        err < 1e-3,
        "{label}: open-loop replay differs from the plan by {err:.3e}"
    );
    assert!(s.jumped(60, 10f64.to_radians(), 0.2), "{label}: {s:?}");
    (replay, s)
}
