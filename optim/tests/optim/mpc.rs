//! MPC on the cart-pole under a push: receding-horizon iLQR and predictive sampling keep the
//! pole up, and each planner lowers its cost.

use moreau_optim::ilqr::{Dynamics, IlqrResult, QuadraticCost};
use moreau_optim::mpc::{closed_loop, state_of, IlqrMpc, MpcOptions, Push};
use moreau_optim::sampling::{PredictiveSampling, SamplingOptions};
use moreau_optim::system::MoreauSystem;
use nalgebra::{DMatrix, DVector};

fn model() -> moreau::Model {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../models/cartpole_swingup.xml"
    );
    moreau::load(path).expect("model loads")
}

const Q: [f64; 4] = [1.0, 10.0, 0.1, 0.1];

/// A hinge impulse of 2 N·m for one 10 ms step (≈ 1.6 rad/s on the pole).
fn push() -> Vec<Push> {
    vec![Push::Joint {
        step: 5,
        dof: 1,
        force: 2.0,
    }]
}

/// The cart-pole's iLQR MPC: 30-step horizon, one iteration per control step (five at the
/// first), unbounded.
fn cartpole_mpc(m: &moreau::Model) -> IlqrMpc {
    let cost = QuadraticCost {
        q: DMatrix::from_diagonal(&DVector::from_column_slice(&Q)),
        r: DMatrix::from_element(1, 1, 0.01),
        qf: DMatrix::from_diagonal(&DVector::from_column_slice(&Q)) * 10.0,
        xref: DVector::zeros(4),
        dt: m.opt.timestep,
    };
    IlqrMpc::new(
        1,
        cost,
        MpcOptions {
            horizon: 30,
            iter: 1,
            first_iter: 5,
            bounds: None,
        },
    )
}

#[test]
fn ilqr_mpc_keeps_pole_up_under_push() {
    let m = model();
    let mut sys = MoreauSystem::new(m.clone()).unwrap();
    let mut mpc = cartpole_mpc(&m);
    let mut d = moreau::Data::new(&m);
    d.qpos[1] = 0.1;
    let mut decreased = 0;
    let run = closed_loop(
        &m,
        &mut d,
        100,
        1,
        &push(),
        |d| {
            let u = mpc.step(&mut sys, &state_of(d), 1)?;
            let h = &mpc.last_history;
            if h.last().unwrap() < &h[0] {
                decreased += 1;
            }
            Ok(u.as_slice().to_vec())
        },
        |_, _| {},
    )
    .unwrap();
    let max = run.qpos.iter().map(|q| q[1].abs()).fold(0.0, f64::max);
    let last = run.qpos.last().unwrap();
    // stated bounds: the pole never leaves ±15°, ends within ±3° and the cart within 0.5 m
    assert!(max < 15f64.to_radians(), "max angle {max}");
    assert!(last[1].abs() < 3f64.to_radians(), "final angle {}", last[1]);
    assert!(last[0].abs() < 0.5, "final cart position {}", last[0]);
    assert!(
        decreased > 10,
        "iLQR lowered the cost in only {decreased} solves"
    );
}

#[test]
fn predictive_sampling_keeps_pole_up_under_push() {
    let m = model();
    let stage = |_: &moreau::Model, d: &moreau::Data| {
        let x = [d.qpos[0], d.qpos[1], d.qvel[0], d.qvel[1]];
        0.5 * (x.iter().zip(Q).map(|(v, w)| w * v * v).sum::<f64>() + 0.01 * d.ctrl[0].powi(2))
    };
    let opt = SamplingOptions {
        rollouts: 16,
        steps: 60,
        knots: 6,
        sigma: 2.0,
        ..Default::default()
    };
    let mut ps = PredictiveSampling::new(m.clone(), opt).unwrap();
    let mut d = moreau::Data::new(&m);
    d.qpos[1] = 0.1;
    let mut never_worse = true;
    let run = closed_loop(
        &m,
        &mut d,
        60,
        1,
        &push(),
        |d| {
            let best = ps.plan(d, &stage);
            // the nominal is candidate 0: the best is never worse than it
            never_worse &= best <= ps.costs()[0];
            let mut u = vec![0.0];
            ps.action(d.time, &mut u);
            Ok(u)
        },
        |_, _| {},
    )
    .unwrap();
    let max = run.qpos.iter().map(|q| q[1].abs()).fold(0.0, f64::max);
    assert!(never_worse);
    // stated bound: the pole stays within ±30° (sampling is coarser than iLQR)
    assert!(max < 30f64.to_radians(), "max angle {max}");
    // from a fixed (pushed) state, repeated planning lowers the plan's cost monotonically
    let mut d = moreau::Data::new(&m);
    d.qpos[1] = 0.2;
    d.qvel[1] = 1.0;
    let mut ps = PredictiveSampling::new(m.clone(), ps.opt.clone()).unwrap();
    let costs: Vec<f64> = (0..10).map(|_| ps.plan(&d, &stage)).collect();
    assert!(costs.windows(2).all(|w| w[1] <= w[0]), "{costs:?}");
    assert!(costs[9] < 0.9 * costs[0], "{costs:?}");
}

/// The MPC's linearization (`moreau_derivatives` transition FD) agrees with central
/// differences of full steps.
#[test]
fn transition_fd_jacobians_match_generic_differences() {
    use moreau_optim::ilqr::Dynamics;
    let m = model();
    let mut sys = MoreauSystem::new(m).unwrap();
    let x = [0.1, 0.4, -0.3, 0.7];
    let u = [1.5];
    let (mut a1, mut b1) = (DMatrix::zeros(4, 4), DMatrix::zeros(4, 1));
    let (mut a2, mut b2) = (DMatrix::zeros(4, 4), DMatrix::zeros(4, 1));
    sys.jacobians(&x, &u, &mut a1, &mut b1).unwrap();
    sys.fd = None;
    sys.jacobians(&x, &u, &mut a2, &mut b2).unwrap();
    assert!((&a1 - &a2).amax() < 1e-6, "A: {a1} vs {a2}");
    assert!((&b1 - &b2).amax() < 1e-6, "B: {b1} vs {b2}");
}

/// The rollouts step with `PredictiveSampling::stepper`: a stepper wrapping the engine's step
/// is called `rollouts × steps` times and reproduces the default planner's costs bit for bit;
/// a stepper that doubles the step changes them.
#[test]
fn sampling_rollouts_use_the_stepper() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let m = model();
    let stage = |_: &moreau::Model, d: &moreau::Data| d.qpos[1].powi(2) + d.qvel[1].powi(2);
    let opt = SamplingOptions {
        rollouts: 6,
        steps: 20,
        knots: 3,
        sigma: 1.0,
        ..Default::default()
    };
    let mut d = moreau::Data::new(&m);
    d.qpos[1] = 0.3;
    let mut base = PredictiveSampling::new(m.clone(), opt.clone()).unwrap();
    base.plan(&d, &stage);
    let calls = Arc::new(AtomicUsize::new(0));
    let mut ps = PredictiveSampling::new(m.clone(), opt.clone()).unwrap();
    let c = calls.clone();
    ps.stepper = Arc::new(move |m: &moreau::Model, d: &mut moreau::Data| {
        c.fetch_add(1, Ordering::Relaxed);
        moreau::step(m, d);
    });
    ps.plan(&d, &stage);
    assert_eq!(calls.load(Ordering::Relaxed), opt.rollouts * opt.steps);
    assert_eq!(ps.costs(), base.costs());
    let mut twice = PredictiveSampling::new(m.clone(), opt).unwrap();
    twice.stepper = Arc::new(|m: &moreau::Model, d: &mut moreau::Data| {
        moreau::step(m, d);
        moreau::step(m, d);
    });
    twice.plan(&d, &stage);
    assert!(twice.costs()[0] != base.costs()[0]);
}

/// `closed_loop` records every physics step; without pushes, re-simulating the recorded
/// controls from the recorded initial state reproduces the trace exactly (the JSON written by
/// `ClosedLoop::trajectory_json` is what `moreau replay` re-runs).
#[test]
fn closed_loop_trace_replays_exactly() {
    let m = model();
    let mut d = moreau::Data::new(&m);
    d.qpos[1] = 0.2;
    let run = closed_loop(
        &m,
        &mut d,
        20,
        3,
        &[],
        |d| Ok(vec![(7.0 * d.time).sin()]),
        |_, _| {},
    )
    .unwrap();
    let tr = &run.trace;
    assert_eq!((tr.qpos.len(), tr.ctrl.len(), tr.time.len()), (61, 60, 61));
    // control-step samples are every third physics-step sample
    for (k, q) in run.qpos.iter().enumerate() {
        assert_eq!(q, &tr.qpos[3 * k]);
    }
    let (qs, vs) = moreau_problems::replay(&m, &tr.qpos[0], &tr.qvel[0], &tr.ctrl);
    assert_eq!(qs, tr.qpos);
    assert_eq!(vs, tr.qvel);
    let v = run.trajectory_json(serde_json::json!({ "controller": "test" }));
    assert_eq!(v["ctrl"].as_array().unwrap().len(), 60);
    assert_eq!(v["controller"], "test");
    // a controller returning the wrong number of controls is an error, not a panic
    let mut d = moreau::Data::new(&m);
    let e = closed_loop(&m, &mut d, 2, 1, &[], |_| Ok(vec![0.0; 3]), |_, _| {}).unwrap_err();
    assert!(e.contains("nu = 1"), "{e}");
}

/// `MoreauSystem` broken on demand: NaN Jacobians while `nan_jacobians` is set (as the analytic
/// transition gave the hopper MPC at a self-contact, which made iLQR raise its regularization to
/// the maximum), NaN next states while `nan_steps` is set (a diverged rollout: a solve that
/// fails).
struct Broken {
    inner: MoreauSystem,
    nan_jacobians: bool,
    nan_steps: bool,
}

impl Dynamics for Broken {
    fn nx(&self) -> usize {
        self.inner.nx()
    }
    fn nu(&self) -> usize {
        self.inner.nu()
    }
    fn step(&mut self, x: &[f64], u: &[f64], xnext: &mut [f64]) -> Result<(), String> {
        self.inner.step(x, u, xnext)?;
        if self.nan_steps {
            xnext.fill(f64::NAN);
        }
        Ok(())
    }
    fn jacobians(
        &mut self,
        x: &[f64],
        u: &[f64],
        a: &mut DMatrix<f64>,
        b: &mut DMatrix<f64>,
    ) -> Result<(), String> {
        self.inner.jacobians(x, u, a, b)?;
        if self.nan_jacobians {
            a.fill(f64::NAN);
            b.fill(f64::NAN);
        }
        Ok(())
    }
}

/// Control steps of the cart-pole loops below, and the first one broken.
const STEPS: usize = 100;
const BROKEN_STEP: usize = 20;

/// What [`run_broken`] returns.
struct BrokenRun {
    run: Result<moreau_optim::mpc::ClosedLoop, String>,
    mpc: IlqrMpc,
    /// The control returned at each control step.
    ctrl: Vec<DVector<f64>>,
    /// The plan before [`BROKEN_STEP`] and the state measured there.
    before: Option<(IlqrResult, DVector<f64>)>,
}

/// The cart-pole MPC of [`ilqr_mpc_keeps_pole_up_under_push`] with its system [`Broken`] during
/// the control steps `broken` (`nan_steps` when `steps`, else `nan_jacobians`).
fn run_broken(
    broken: std::ops::Range<usize>,
    steps: bool,
    max_consecutive_failures: usize,
) -> BrokenRun {
    let m = model();
    let mut sys = Broken {
        inner: MoreauSystem::new(m.clone()).unwrap(),
        nan_jacobians: false,
        nan_steps: false,
    };
    let mut mpc = cartpole_mpc(&m);
    mpc.max_consecutive_failures = max_consecutive_failures;
    let mut d = moreau::Data::new(&m);
    d.qpos[1] = 0.1;
    let mut ctrl = vec![];
    let mut before = None;
    let run = closed_loop(
        &m,
        &mut d,
        STEPS,
        1,
        &push(),
        |d| {
            let k = ctrl.len();
            let on = broken.contains(&k);
            sys.nan_steps = on && steps;
            sys.nan_jacobians = on && !steps;
            let x = state_of(d);
            if k == BROKEN_STEP {
                before = mpc.plan.clone().map(|p| (p, x.clone()));
            }
            let u = mpc.step(&mut sys, &x, 1)?;
            ctrl.push(u.clone());
            Ok(u.as_slice().to_vec())
        },
        |_, _| {},
    );
    BrokenRun {
        run,
        mpc,
        ctrl,
        before,
    }
}

/// The pole-up bounds of [`ilqr_mpc_keeps_pole_up_under_push`].
fn assert_pole_up(run: &moreau_optim::mpc::ClosedLoop) {
    assert_eq!(run.qpos.len(), STEPS + 1);
    let max = run.qpos.iter().map(|q| q[1].abs()).fold(0.0, f64::max);
    let last = run.qpos.last().unwrap();
    assert!(max < 15f64.to_radians(), "max angle {max}");
    assert!(last[1].abs() < 3f64.to_radians(), "final angle {}", last[1]);
}

/// A failed solve (here a diverged rollout) does not stop the closed loop: the control step
/// applies the previous plan shifted by one step (its feedback control `u₁ + K₁ (x ⊖ x₁)`),
/// counts one fallback, and the next step solves again; the pole stays up. With
/// `max_consecutive_failures = 1` the same failure aborts the loop.
#[test]
fn ilqr_mpc_falls_back_on_a_failed_solve() {
    let r = run_broken(BROKEN_STEP..BROKEN_STEP + 1, true, 10);
    let run = r.run.expect("the closed loop survives one failed solve");
    assert_pole_up(&run);
    assert_eq!(r.mpc.fallbacks, 1);
    assert_eq!(r.mpc.consecutive_failures, 0, "the next solves succeeded");
    let why = r.mpc.last_failure.as_deref().unwrap_or("");
    assert!(why.contains("non-finite"), "failure: {why}");
    // the applied control is the shifted plan's feedback control at the measured state
    let (p, x) = r.before.expect("a plan existed before the broken step");
    let expected = &p.us[1] + &p.gains[1] * (&x - &p.xs[1]);
    let u = &r.ctrl[BROKEN_STEP];
    assert!(
        (u - &expected).amax() <= 1e-12 * expected.amax().max(1.0),
        "applied {u} vs the shifted plan's {expected}"
    );

    let old = run_broken(BROKEN_STEP..BROKEN_STEP + 1, true, 1);
    let e = old
        .run
        .expect_err("max_consecutive_failures = 1 aborts at the first failure");
    assert!(e.contains("non-finite"), "{e}");
    assert_eq!(old.ctrl.len(), BROKEN_STEP);
}

/// Only `max_consecutive_failures` failed solves in a row abort the loop, with an error naming
/// the count and the cause; one fewer is ridden out on the shifted plan.
#[test]
fn ilqr_mpc_aborts_after_consecutive_failures() {
    let k = moreau_optim::mpc::DEFAULT_MAX_CONSECUTIVE_FAILURES;
    let r = run_broken(BROKEN_STEP..STEPS, true, k);
    let e = r.run.expect_err("the loop gives up");
    assert!(
        e.contains(&format!("{k} consecutive failed solves")) && e.contains("non-finite"),
        "{e}"
    );
    assert_eq!(r.mpc.fallbacks, k);
    assert_eq!(r.ctrl.len(), BROKEN_STEP + k - 1);
    let r = run_broken(BROKEN_STEP..BROKEN_STEP + k - 1, true, k);
    assert_pole_up(&r.run.expect("k − 1 failures in a row are ridden out"));
    assert_eq!(r.mpc.fallbacks, k - 1);
    assert_eq!(r.mpc.consecutive_failures, 0);
}

/// Non-finite Jacobians (the hopper MPC's "regularization exceeded its maximum") are redone by
/// central differences: the solve succeeds, no fallback, every stage of that step's one
/// linearization counted, and the control matches the unbroken loop's to the differences'
/// accuracy (FD transition Jacobians against central differences of the step, both ~1e-8).
#[test]
fn ilqr_mpc_linearizes_nan_jacobians_by_differences() {
    let r = run_broken(BROKEN_STEP..BROKEN_STEP + 1, false, 1);
    let run = r.run.expect("no failed solve");
    assert_pole_up(&run);
    assert_eq!(r.mpc.fallbacks, 0);
    assert_eq!(r.mpc.jacobian_fallbacks, r.mpc.opt.horizon);
    let clean = run_broken(0..0, false, 1);
    clean.run.expect("clean loop");
    assert_eq!(clean.mpc.jacobian_fallbacks, 0);
    let (u, v) = (&r.ctrl[BROKEN_STEP], &clean.ctrl[BROKEN_STEP]);
    assert!((u - v).amax() < 1e-6 * v.amax().max(1.0), "{u} vs {v}");
}

/// Bad input is an error at once, not a fallback.
#[test]
fn ilqr_mpc_refuses_bad_input_at_once() {
    let m = model();
    let mut sys = MoreauSystem::new(m.clone()).unwrap();
    let mut mpc = cartpole_mpc(&m);
    let e = mpc
        .step(&mut sys, &DVector::zeros(3), 1)
        .expect_err("wrong state length");
    assert!(e.contains("dimension mismatch"), "{e}");
    assert_eq!(mpc.fallbacks, 0);
}

/// With the analytic Jacobians on one thread, `MoreauSystem` steps on a ring of `Data` that
/// keeps each step's forward results for the linearization. The public `MoreauSystem::data`
/// must still be, after every step, the `Data` that `moreau::step` leaves: compared bit for bit
/// (state, time, warm start, the step's accelerations, contacts and constraint forces) with a
/// plain `Data` stepped from the same state, controls and zero warm start, on the hopper
/// (contacts, actuators) before the ring exists and through two rounds on it; and the ring's
/// Jacobians equal those of a fresh system that has no ring.
#[test]
fn public_data_after_a_ring_step_is_the_stepped_data() {
    use moreau::Data;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/hopper_hop.xml");
    let m = moreau::load(path).expect("model loads");
    let mut sys = MoreauSystem::new(m.clone()).unwrap().analytic().unwrap();
    let (nx, nu, ndx, n) = (sys.nx(), sys.nu(), sys.ndx(), 12);
    let mut x0 = DVector::zeros(nx);
    x0.rows_mut(0, m.nq).copy_from_slice(&m.qpos0);
    let us: Vec<DVector<f64>> = (0..n)
        .map(|t| DVector::from_fn(nu, |k, _| 0.3 * ((t + k) as f64 * 0.7).sin()))
        .collect();
    let bits = |a: &[f64], b: &[f64]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    };
    let mut plain = Data::new(&m);
    let mut contacts = 0;
    let mut roll = |sys: &mut MoreauSystem, round: usize| -> Vec<DVector<f64>> {
        let mut xs = vec![x0.clone()];
        for t in 0..n {
            let mut xn = DVector::zeros(nx);
            let time = sys.data.time;
            sys.step(xs[t].as_slice(), us[t].as_slice(), xn.as_mut_slice())
                .unwrap();
            plain.qpos.copy_from_slice(&xs[t].as_slice()[..m.nq]);
            plain
                .qvel
                .copy_from_slice(&xs[t].as_slice()[m.nq..m.nq + m.nv]);
            plain.act.copy_from_slice(&xs[t].as_slice()[m.nq + m.nv..]);
            plain.ctrl.copy_from_slice(us[t].as_slice());
            plain.qacc_warmstart.iter_mut().for_each(|a| *a = 0.0);
            plain.time = time;
            moreau::step(&m, &mut plain);
            let d = &sys.data;
            let what = format!("round {round}, step {t}");
            assert!(bits(&d.qpos, &plain.qpos), "qpos, {what}");
            assert!(bits(&d.qvel, &plain.qvel), "qvel, {what}");
            assert!(bits(&d.act, &plain.act), "act, {what}");
            assert!(bits(&d.ctrl, &plain.ctrl), "ctrl, {what}");
            assert!(bits(&[d.time], &[plain.time]), "time, {what}");
            assert!(bits(&d.qacc, &plain.qacc), "qacc, {what}");
            assert!(
                bits(&d.qacc_warmstart, &plain.qacc_warmstart),
                "warm start, {what}"
            );
            assert_eq!(d.contact.len(), plain.contact.len(), "{what}");
            assert_eq!(d.nefc, plain.nefc, "{what}");
            assert!(
                bits(&d.efc_force[..d.nefc], &plain.efc_force[..plain.nefc]),
                "efc_force, {what}"
            );
            let mut xg = vec![0.0; nx];
            sys.get_state(&mut xg);
            assert!(bits(&xg, xn.as_slice()), "get_state, {what}");
            contacts += d.contact.len();
            xs.push(xn);
        }
        xs
    };
    let jac = |sys: &mut MoreauSystem, xs: &[DVector<f64>]| {
        let mut a = vec![DMatrix::zeros(ndx, ndx); n];
        let mut b = vec![DMatrix::zeros(ndx, nu); n];
        sys.jacobians_all(&xs[..n], &us, &mut a, &mut b).unwrap();
        (a, b)
    };
    let xs = roll(&mut sys, 0);
    jac(&mut sys, &xs); // makes the ring
    let xs1 = roll(&mut sys, 1);
    let (a1, b1) = jac(&mut sys, &xs1); // from the ring's forward results
    let xs2 = roll(&mut sys, 2);
    assert!(contacts > 0, "the hopper touches the floor");
    let mut fresh = MoreauSystem::new(m.clone()).unwrap().analytic().unwrap();
    for t in 0..n {
        assert!(bits(xs1[t].as_slice(), xs2[t].as_slice()));
        let (mut a, mut b) = (DMatrix::zeros(ndx, ndx), DMatrix::zeros(ndx, nu));
        fresh
            .jacobians(xs1[t].as_slice(), us[t].as_slice(), &mut a, &mut b)
            .unwrap();
        assert!(bits(a.as_slice(), a1[t].as_slice()), "A at knot {t}");
        assert!(bits(b.as_slice(), b1[t].as_slice()), "B at knot {t}");
    }
}
