//! MPC on a public robot: MuJoCo Menagerie's Unitree Go1 from the public zoo's cache (unchanged
//! `unitree_go1/scene.xml`; a missing cache fails with the fetch command), the setup of
//! `examples/mpc_go1.rs` (examples/common/go1_mpc.rs) over a short stretch with a short
//! horizon. Asserts what the example measures: the trunk stays up (lowest height above a stated
//! bound, home 0.27 m; no fall) and moves forward (target 0.5 m/s), and a lateral push does not
//! make it fall. No timing assertions.

#[path = "../../examples/common/go1_mpc.rs"]
#[allow(dead_code)]
mod go1;

use moreau_optim::sampling::Update;

fn settings() -> go1::Settings {
    go1::Settings {
        seconds: 1.5,
        horizon: 15,
        pushes: vec![(0.8, 100.0)],
        ..go1::Settings::example()
    }
}

fn check(planner: &str, r: &go1::Run, min_z: f64, min_distance: f64) {
    println!(
        "{planner}: distance {:.3} m, min z {:.3} m, max tilt {:.1} deg, falls {}, fallbacks {}",
        r.distance(),
        r.min_z(),
        r.max_tilt().to_degrees(),
        r.falls(go1::FALL_Z),
        r.fallbacks
    );
    assert_eq!(r.falls(go1::FALL_Z), 0, "{planner}: fell");
    assert!(r.min_z() > min_z, "{planner}: trunk fell to {}", r.min_z());
    assert!(
        r.distance() > min_distance,
        "{planner}: moved only {} m",
        r.distance()
    );
}

/// Zero offsets from the home targets (the position actuators hold the stance) neither fall
/// nor walk: the baseline against which the planners' distances mean something.
#[test]
fn home_targets_stand_still() {
    let m = go1::model().unwrap();
    let u0 = go1::home_ctrl(&m).unwrap();
    let s = go1::Settings {
        pushes: vec![],
        ..settings()
    };
    let r = go1::drive(&m, &s, |_| Ok((u0.clone(), 0.0)), |_, _| {}).unwrap();
    println!(
        "home targets: x {:+.4} m, min z {:.3}",
        r.distance(),
        r.min_z()
    );
    assert!(
        r.distance().abs() < 0.02,
        "standing moved {} m",
        r.distance()
    );
    assert!(r.min_z() > 0.2);
}

/// iLQR MPC with analytic transition Jacobians, ctrlrange box, warm start.
#[test]
fn ilqr_walks_forward_and_takes_a_push() {
    let m = go1::model().unwrap();
    let r = go1::run_ilqr(&m, &settings(), true, |_, _| {}).unwrap();
    check("iLQR", &r, 0.2, 0.2);
}

/// Predictive sampling (one thread) on the same cost and planning model.
#[test]
fn sampling_walks_forward_and_takes_a_push() {
    let m = go1::model().unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let r = pool
        .install(|| go1::run_sampling(&m, &settings(), Update::Best, |_, _| {}))
        .unwrap();
    check("sampling", &r, 0.2, 0.1);
}

/// What the Go1 MPC main job (iLQR, analytic Jacobians, the example's horizon of 25 planning
/// steps) allocates per control step (one plan with the MPC ring of forward results, then the
/// plant's 5 physics steps and the run's records), counted on the planning thread (the
/// system's default is serial): after the first control steps, which size the ring, the
/// iLQR workspaces and the records, the count per step stays the same to the end, so the ring
/// does not grow with the run. The counts are printed (docs/optimization.md quotes them).
#[test]
fn ilqr_control_step_allocations_do_not_grow() {
    use crate::alloc_counter::{allocations, bytes_allocated};
    let m = go1::model().unwrap();
    let s = go1::Settings {
        seconds: 0.4,
        pushes: vec![],
        ..go1::Settings::example()
    };
    let mut marks = vec![];
    let (a0, b0) = (allocations(), bytes_allocated());
    go1::run_ilqr(&m, &s, true, |_, _| {
        marks.push((allocations(), bytes_allocated()))
    })
    .unwrap();
    let per_step: Vec<(usize, usize)> = std::iter::once((a0, b0))
        .chain(marks.iter().copied())
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| (w[1].0 - w[0].0, w[1].1 - w[0].1))
        .collect();
    println!("allocations and bytes per control step: {per_step:?}");
    let n = per_step.len();
    assert!(n >= 30, "{n} control steps");
    // steady state: the second half allocates no more per step than the steps 5..15
    let early = per_step[5..15].iter().map(|x| x.0).max().unwrap();
    let late = per_step[n / 2..].iter().map(|x| x.0).max().unwrap();
    let early_b = per_step[5..15].iter().map(|x| x.1).max().unwrap();
    let late_b = per_step[n / 2..].iter().map(|x| x.1).max().unwrap();
    assert!(
        late <= early,
        "allocations per step grew from {early} to {late}"
    );
    // the run's records (`closed_loop`'s trace) grow by doubling: within 1%
    assert!(
        late_b <= early_b + early_b / 100,
        "bytes per step grew from {early_b} to {late_b}"
    );
}

/// A system that counts the allocations of its inner system's steps and linearizations (on
/// the calling thread).
struct Counted<D> {
    inner: D,
    step_allocs: usize,
    jacobian_allocs: usize,
}

impl<D: moreau_optim::ilqr::Dynamics> moreau_optim::ilqr::Dynamics for Counted<D> {
    fn nx(&self) -> usize {
        self.inner.nx()
    }
    fn ndx(&self) -> usize {
        self.inner.ndx()
    }
    fn nu(&self) -> usize {
        self.inner.nu()
    }
    fn step(&mut self, x: &[f64], u: &[f64], xn: &mut [f64]) -> Result<(), String> {
        let a = crate::alloc_counter::allocations();
        let r = self.inner.step(x, u, xn);
        self.step_allocs += crate::alloc_counter::allocations() - a;
        r
    }
    fn diff(&self, x0: &[f64], x: &[f64], dx: &mut [f64]) {
        self.inner.diff(x0, x, dx)
    }
    fn integrate(&self, x0: &[f64], dx: &[f64], x: &mut [f64]) {
        self.inner.integrate(x0, dx, x)
    }
    fn jacobians_all(
        &mut self,
        xs: &[nalgebra::DVector<f64>],
        us: &[nalgebra::DVector<f64>],
        a: &mut [nalgebra::DMatrix<f64>],
        b: &mut [nalgebra::DMatrix<f64>],
    ) -> Result<(), String> {
        let c = crate::alloc_counter::allocations();
        let r = self.inner.jacobians_all(xs, us, a, b);
        self.jacobian_allocs += crate::alloc_counter::allocations() - c;
        r
    }
}

/// The planning step of the Go1 MPC main job (iLQR with analytic Jacobians, the example's
/// horizon of 25 planning steps, `ctrlrange` box, one iteration per control step after five in
/// the first; [`IlqrMpc::control_into`]), counted on this thread after the first control step,
/// which sizes the solver's workspace and the plan: the model's steps allocate nothing, and
/// the solver's own allocations are only nalgebra's large matrix products, which it hands to
/// `matrixmultiply` when every dimension exceeds 5 (its packing buffers: 9 such products per
/// stage and backward pass), so at most `9 × horizon` per iteration. The trajectory, gains,
/// Q-function, box QP, line search, warm start and plan shift reuse their buffers, and so do
/// the linearizations (the analytic transition Jacobians: `A`, `B`, the constraint Hessian and
/// force, the actuation Jacobian and the integrator's vectors live in the derivatives'
/// workspace), which allocate nothing (16 per knot before they did).
#[test]
fn ilqr_planning_step_allocates_only_in_large_products() {
    use crate::alloc_counter::allocations;
    use moreau_optim::mpc::{ctrl_bounds, IlqrMpc, MpcOptions};
    use moreau_optim::system::{ControlOffset, MoreauSystem};
    let m = go1::model().unwrap();
    let s = go1::Settings::example();
    let mut pm = m.clone();
    pm.opt.timestep = s.plan_dt;
    let home = go1::initial(&m).unwrap();
    let horizon_secs = s.horizon as f64 * s.plan_dt;
    let c = go1::cost(&pm, &home.qpos, s.vx, horizon_secs).unwrap();
    let sys = MoreauSystem::new(pm.clone()).unwrap().analytic().unwrap();
    let sys = ControlOffset::new(sys, go1::home_ctrl(&m).unwrap()).unwrap();
    let opt = MpcOptions {
        horizon: s.horizon,
        iter: s.iter,
        first_iter: s.first_iter,
        bounds: Some(sys.bounds(&ctrl_bounds(&pm))),
    };
    let mut sys = Counted {
        inner: sys,
        step_allocs: 0,
        jacobian_allocs: 0,
    };
    let mut mpc = IlqrMpc::new(pm.nu, c.quadratic(s.plan_dt), opt);
    let mut d = home;
    let shift = (go1::control_dt(&m) / s.plan_dt).round().max(1.0) as usize;
    let mut du = vec![0.0; pm.nu];
    let mut counts = vec![];
    for k in 0..30 {
        (sys.step_allocs, sys.jacobian_allocs) = (0, 0);
        let a0 = allocations();
        mpc.control_into(&mut sys, &d, shift, &mut du).unwrap();
        let total = allocations() - a0;
        let own = total - sys.step_allocs - sys.jacobian_allocs;
        let iterations = mpc.last_history.len() - 1;
        counts.push((own, sys.jacobian_allocs));
        if k > 0 {
            assert_eq!(
                sys.step_allocs, 0,
                "control step {k}: the model's steps allocated"
            );
            assert_eq!(
                sys.jacobian_allocs, 0,
                "control step {k}: the linearizations allocated"
            );
            assert!(
                own <= 9 * s.horizon * iterations,
                "control step {k}: the solver allocated {own} times in {iterations} iteration(s)"
            );
        }
        d.ctrl.copy_from_slice(&sys.inner.control(&du));
        for _ in 0..go1::SUBSTEPS {
            moreau::step(&m, &mut d);
        }
    }
    println!("(solver, linearizations) allocations per control step: {counts:?}");
}
