//! The collocation hot loop allocates nothing once its storage exists: the analytic
//! inverse-dynamics Jacobian provider (workspace reused; cart-pole with dof damping under
//! `invdiscrete`, so the eulerdamp chain rule runs too) and a whole Gauss–Newton step's
//! evaluation, Jacobian blocks and banded normal equations on the cart-pole swing-up
//! (counting global allocator; alone in its test binary).

use crate::alloc_counter;
use alloc_counter::allocations;
use moreau::model::enable;
use moreau::Data;
use moreau_optim::band::BandMatrix;
use moreau_optim::collocation::{Analytic, Evaluation, InverseJacobian};
use moreau_problems::{swingup, SWINGUP_PENALTY};
use nalgebra::DMatrix;

#[test]
fn analytic_provider_and_gauss_newton_step_do_not_allocate() {
    // the counter sees this thread's allocations
    let b = allocations();
    let probe = std::hint::black_box(vec![1.0_f64; 8]);
    assert!(allocations() > b);
    drop(probe);
    let path = format!("{}/../models/cartpole.xml", env!("CARGO_MANIFEST_DIR"));
    let mut m = moreau::load(&path).expect("model");
    m.opt.enableflags |= enable::INVDISCRETE;
    let mut d = Data::new(&m);
    let mut p = Analytic::new();
    let z = || DMatrix::zeros(m.nv, m.nv);
    let (mut dq, mut dv, mut da) = (z(), z(), z());
    let (q, v, a) = ([0.3, -0.7], [0.5, 1.5], [2.0, -1.0]);
    p.jacobians(&m, &mut d, &q, &v, &a, &mut dq, &mut dv, &mut da);
    let before = allocations();
    for _ in 0..3 {
        p.jacobians(&m, &mut d, &q, &v, &a, &mut dq, &mut dv, &mut da);
    }
    let n = allocations() - before;
    assert_eq!(n, 0, "analytic provider: {n} allocations");

    let c = swingup("cartpole")
        .expect("problem")
        .collocation(SWINGUP_PENALTY)
        .expect("collocation");
    let zs = c.retract(
        &c.initial_guess(),
        &(0..c.n_vars())
            .map(|i| 0.1 * (i as f64).sin())
            .collect::<Vec<_>>(),
        1.0,
    );
    let mut ev = Evaluation::default();
    let mut blocks = vec![];
    let mut h = BandMatrix::zeros(c.n_vars(), 3 * c.model.nv - 1);
    let mut g = vec![0.0; c.n_vars()];
    let step = |ev: &mut Evaluation, blocks: &mut Vec<_>, h: &mut BandMatrix, g: &mut [f64]| {
        c.evaluate_into(&zs, ev);
        c.jacobian_into(&zs, ev, blocks);
        c.normal_equations(ev, blocks, h, g);
    };
    step(&mut ev, &mut blocks, &mut h, &mut g);
    let r0 = ev.r.clone();
    let before = allocations();
    step(&mut ev, &mut blocks, &mut h, &mut g);
    let n = allocations() - before;
    assert_eq!(n, 0, "Gauss–Newton step: {n} allocations");
    assert_eq!(ev.r, r0, "storage reuse changes nothing");
}
