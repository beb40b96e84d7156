//! The collocation storage a caller keeps across calls (`Evaluation`, the Jacobian blocks, the
//! banded normal matrix and gradient) and the analytic Jacobian provider, reused on problems
//! and models of other sizes, give exactly what fresh storage gives (they resize instead of
//! indexing out of bounds). Problems in turn: the cart-pole swing-up (nv 2, nu 1), the planar
//! hopper through contact (nv 4, nu 2), the cart-pole again.

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
