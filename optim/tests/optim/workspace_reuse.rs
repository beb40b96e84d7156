//! The collocation storage a caller keeps across calls (`Evaluation`, the Jacobian blocks, the
//! banded normal matrix and gradient) and the analytic Jacobian provider, reused on problems
//! and models of other sizes, give exactly what fresh storage gives (they resize instead of
//! indexing out of bounds). Problems in turn: the cart-pole swing-up (nv 2, nu 1), the planar
//! hopper through contact (nv 4, nu 2), the cart-pole again. `MoreauSystem`'s analytic
//! linearization, which keeps its derivative workspace across knots, gives what a fresh one
//! gives.

use moreau::Data;
use moreau_optim::band::BandMatrix;
use moreau_optim::collocation::{Analytic, Collocation, Evaluation, InverseJacobian};
use moreau_problems::{hopper_hop, load_model, swingup, SWINGUP_PENALTY};
use nalgebra::DMatrix;

fn cartpole() -> Collocation {
    swingup("cartpole")
        .expect("problem")
        .collocation(SWINGUP_PENALTY)
        .expect("collocation")
}

fn hopper() -> Collocation {
    hopper_hop(40, 0.05, Box::new(Analytic::new()))
        .expect("problem")
        .collocation
}

/// Residuals, Jacobian blocks, normal matrix (lower band) and gradient at a perturbed guess.
fn evaluate(
    c: &Collocation,
    ev: &mut Evaluation,
    blocks: &mut Vec<moreau_optim::collocation::KnotJacobian>,
    h: &mut BandMatrix,
    g: &mut Vec<f64>,
) -> (Vec<f64>, Vec<DMatrix<f64>>, Vec<f64>, Vec<f64>) {
    let n = c.n_vars();
    let delta: Vec<f64> = (0..n).map(|i| 0.01 * (i as f64).sin()).collect();
    let z = c.retract(&c.initial_guess(), &delta, 1.0);
    c.evaluate_into(&z, ev);
    c.jacobian_into(&z, ev, blocks);
    g.resize(n, 0.0);
    c.normal_equations(ev, blocks, h, g);
    let band = (0..n)
        .flat_map(|i| (i.saturating_sub(h.bw)..=i).map(move |j| (i, j)))
        .map(|(i, j)| h.get(i, j))
        .collect();
    let mats = blocks.iter().map(|b| b.mat.clone()).collect();
    (ev.r.clone(), mats, band, g.clone())
}

#[test]
fn collocation_storage() {
    let mut ev = Evaluation::default();
    let mut blocks = vec![];
    let mut h = BandMatrix::zeros(0, 0);
    let mut g = vec![];
    for (name, c) in [
        ("cartpole", cartpole()),
        ("hopper", hopper()),
        ("cartpole", cartpole()),
    ] {
        let reused = evaluate(&c, &mut ev, &mut blocks, &mut h, &mut g);
        let fresh = evaluate(
            &c,
            &mut Evaluation::default(),
            &mut vec![],
            &mut BandMatrix::zeros(0, 0),
            &mut vec![],
        );
        assert!(!reused.0.is_empty() && reused.2.iter().any(|x| *x != 0.0));
        assert_eq!(reused, fresh, "{name}");
    }
}

#[test]
fn analytic_provider() {
    let cart = load_model("cartpole.xml").expect("model");
    let hop = load_model("hopper_hop.xml").expect("model");
    let mut fluid = cart.clone();
    fluid.opt.density = 1.2;
    let mut p = Analytic::new();
    for (name, m) in [
        ("cartpole", &cart),
        ("hopper", &hop),
        ("cartpole with fluid", &fluid),
        ("cartpole", &cart),
    ] {
        let nv = m.nv;
        let mut d = Data::new(m);
        let q = m.qpos0.clone();
        let v: Vec<f64> = (0..nv).map(|i| 0.3 - 0.1 * i as f64).collect();
        let a: Vec<f64> = (0..nv).map(|i| 1.0 + 0.5 * i as f64).collect();
        let run = |p: &mut Analytic, d: &mut Data| {
            let z = || DMatrix::zeros(nv, nv);
            let (mut dq, mut dv, mut da) = (z(), z(), z());
            p.jacobians(m, d, &q, &v, &a, &mut dq, &mut dv, &mut da);
            (dq, dv, da)
        };
        let reused = run(&mut p, &mut d);
        let mut f = Analytic::new();
        let fresh = run(&mut f, &mut Data::new(m));
        assert_eq!(reused, fresh, "{name}");
        // why the last call fell back, not an earlier model's reason
        assert_eq!(p.fallback(), f.fallback(), "{name}");
        assert_eq!(p.name(), f.name(), "{name}");
    }
}

/// `MoreauSystem`'s analytic linearization keeps its derivative workspace across knots: on the
/// planar hopper through floor contact, knots with different contact sets in turn (and the first
/// again) give bit for bit the Jacobians of a fresh workspace (`moreau_derivatives::transition`
/// from a fresh `Data` with a zero warm start), serially and on two threads.
#[test]
fn analytic_system_workspace() {
    use moreau_derivatives::{transition, TransitionOptions};
    use moreau_optim::ilqr::Dynamics;
    use moreau_optim::system::MoreauSystem;
    use nalgebra::DVector;
    let m = load_model("hopper_hop.xml").expect("model");
    let (nq, nv, nu) = (m.nq, m.nv, m.nu);
    // knots along a rollout under alternating controls: airborne, touching down, pushing
    let mut d = Data::new(&m);
    let mut knots = vec![];
    for t in 0..120 {
        for (i, u) in d.ctrl.iter_mut().enumerate() {
            *u = 0.5 * ((0.1 * t as f64) + i as f64).sin();
        }
        if t % 20 == 0 {
            let x: Vec<f64> = d
                .qpos
                .iter()
                .chain(&d.qvel)
                .chain(&d.act)
                .copied()
                .collect();
            knots.push((x, d.ctrl.clone(), d.contact.len()));
        }
        moreau::step(&m, &mut d);
    }
    knots.push(knots[0].clone());
    let ncons: Vec<usize> = knots.iter().map(|k| k.2).collect();
    assert!(
        ncons.contains(&0) && ncons.iter().any(|&n| n > 0),
        "the knots should include airborne and touching states: {ncons:?}"
    );
    let fresh: Vec<(DMatrix<f64>, DMatrix<f64>)> = knots
        .iter()
        .map(|(x, u, _)| {
            let mut d = Data::new(&m);
            d.qpos.copy_from_slice(&x[..nq]);
            d.qvel.copy_from_slice(&x[nq..nq + nv]);
            d.act.copy_from_slice(&x[nq + nv..]);
            d.ctrl.copy_from_slice(u);
            let j = transition(
                &m,
                &mut d,
                &TransitionOptions::analytic().with_sensors(false),
            )
            .expect("transition");
            (j.A, j.B)
        })
        .collect();
    let ndx = 2 * nv + m.na;
    for nthread in [1, 2] {
        let mut sys = MoreauSystem::new(m.clone())
            .expect("system")
            .analytic()
            .expect("analytic");
        sys.set_threads(nthread).expect("threads");
        // one knot at a time, then all at once
        for ((x, u, _), (fa, fb)) in knots.iter().zip(&fresh) {
            let (mut a, mut b) = (DMatrix::zeros(ndx, ndx), DMatrix::zeros(ndx, nu));
            sys.jacobians(x, u, &mut a, &mut b).expect("jacobians");
            assert_eq!((&a, &b), (fa, fb), "knot by knot, {nthread} thread(s)");
        }
        let xs: Vec<DVector<f64>> = knots
            .iter()
            .map(|k| DVector::from_column_slice(&k.0))
            .collect();
        let us: Vec<DVector<f64>> = knots
            .iter()
            .map(|k| DVector::from_column_slice(&k.1))
            .collect();
        let mut a = vec![DMatrix::zeros(ndx, ndx); knots.len()];
        let mut b = vec![DMatrix::zeros(ndx, nu); knots.len()];
        sys.jacobians_all(&xs, &us, &mut a, &mut b)
            .expect("jacobians_all");
        for (t, (fa, fb)) in fresh.iter().enumerate() {
            assert_eq!(
                (&a[t], &b[t]),
                (fa, fb),
                "knot {t} of all, {nthread} thread(s)"
            );
        }
    }
}
