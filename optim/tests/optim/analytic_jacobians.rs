//! The collocation's analytic inverse-dynamics Jacobian provider (`collocation::Analytic`) on
//! the models collocation runs on (`invdiscrete`, Euler): equal to the exact dual-number
//! Jacobians of `qfrc_inverse` (through `mj_discreteAcc`'s implicit damping) to 1e-10 and to
//! centered finite differences to their accuracy, at random states of cartpole (dof damping,
//! so the eulerdamp chain rule is exercised), acrobot, hopper_leg and ball_push (contacts);
//! the collocation residual Jacobian built from it agrees with finite differences of the
//! residual; unsupported models fall back to finite differences and say so.
//!
//! Errors are `max |a − b| / max(1, max |b|)`.

use moreau::model::enable;
use moreau::{integrate_pos, Data, Model};
use moreau_derivatives::dual::dual_inverse_jacobian;
use moreau_optim::collocation::{Analytic, FiniteDifference, InverseJacobian};
use moreau_problems::swingup;
use nalgebra::DMatrix;

fn err(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    assert_eq!(a.shape(), b.shape());
    (a - b).amax() / b.amax().max(1.0)
}

/// The model as `Collocation::new` uses it (`invdiscrete` on).
fn model(name: &str) -> Model {
    let p = format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    let mut m = moreau::load(&p).expect("model loads");
    m.opt.enableflags |= enable::INVDISCRETE;
    m
}

/// Random `(q, v, a)`: `settle` steps from the keyframe (or `qpos0`) under a small constant
/// control (contacts form), then position, velocity and acceleration perturbations.
fn states(m: &Model, settle: usize, n: usize) -> Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let mut s: u64 = 0x6d6f7265;
    let mut rnd = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut d = Data::new(m);
    if m.nkey > 0 {
        d.reset_keyframe(m, 0).expect("keyframe");
    }
    for u in d.ctrl.iter_mut() {
        *u = 0.1;
    }
    for _ in 0..settle {
        moreau::step(m, &mut d);
    }
    (0..n)
        .map(|_| {
            let mut q = d.qpos.clone();
            let dq: Vec<f64> = (0..m.nv).map(|_| 0.01 * rnd()).collect();
            integrate_pos(m, &mut q, &dq, 1.0);
            let v = d.qvel.iter().map(|x| x + 0.2 * rnd()).collect();
            let a = (0..m.nv).map(|_| 2.0 * rnd()).collect();
            (q, v, a)
        })
        .collect()
}

fn provider_matrices(
    p: &mut dyn InverseJacobian,
    m: &Model,
    q: &[f64],
    v: &[f64],
    a: &[f64],
) -> [DMatrix<f64>; 3] {
    let nv = m.nv;
    let mut d = Data::new(m);
    let mut out = [
        DMatrix::zeros(nv, nv),
        DMatrix::zeros(nv, nv),
        DMatrix::zeros(nv, nv),
    ];
    let [dq, dv, da] = &mut out;
    p.jacobians(m, &mut d, q, v, a, dq, dv, da);
    out
}

fn check(name: &str, settle: usize) {
    let m = model(name);
    let mut an = Analytic::new();
    let mut fd = FiniteDifference::new(1e-6, 1e-6, true);
    let mut any_contact = false;
    for (q, v, a) in states(&m, settle, 3) {
        let [aq, av, aa] = provider_matrices(&mut an, &m, &q, &v, &a);
        assert_eq!(an.name(), "analytic", "{name}: no fallback");
        // dual reference (MuJoCo's transposed layout: transpose to rows = outputs)
        let mut d = Data::new(&m);
        d.qpos.copy_from_slice(&q);
        d.qvel.copy_from_slice(&v);
        d.qacc.copy_from_slice(&a);
        moreau::pipeline::fwd_position(&m, &mut d);
        any_contact |= d.nefc > 0;
        let (rq, rv, ra, _) = dual_inverse_jacobian(&m, &d);
        let e = [
            err(&aq, &rq.transpose()),
            err(&av, &rv.transpose()),
            err(&aa, &ra.transpose()),
        ];
        let [fq, fv, fa] = provider_matrices(&mut fd, &m, &q, &v, &a);
        let ef = [err(&aq, &fq), err(&av, &fv), err(&aa, &fa)];
        eprintln!(
            "{name}: nefc {}, analytic vs dual {:.1e} {:.1e} {:.1e}, vs FD {:.1e} {:.1e} {:.1e}",
            d.nefc, e[0], e[1], e[2], ef[0], ef[1], ef[2]
        );
        for x in e {
            assert!(x < 1e-10, "{name}: analytic vs dual (q, v, a) {e:?}");
        }
        // Centered differences, step 1e-6: truncation ~1e-12·|τ'''|, round-off ~1e-10·|τ|/1e-6;
        // contact rows with |J a − aref| below K·eps can straddle a kink (see
        // moreau-derivatives' tests/analytic.rs), hence the looser bound with contacts.
        let tol = if d.nefc > 0 { 1e-4 } else { 1e-6 };
        for x in ef {
            assert!(x < tol, "{name}: analytic vs FD (q, v, a) {ef:?}");
        }
    }
    if settle > 0 {
        assert!(any_contact, "{name}: no contact state tested");
    }
}

#[test]
fn analytic_matches_duals_and_fd() {
    check("cartpole", 0);
    check("acrobot", 0);
    check("hopper_leg", 100);
    check("ball_push", 100);
}

/// The collocation residual Jacobian (knot blocks from the analytic provider) against central
/// differences of the residual vector on the cart-pole swing-up, at the stationary initial
/// guess perturbed to a generic trajectory. Step 1e-6 on residuals of size ~1e4/h²: measured
/// ~1e-9 relative to the largest entry; a wrong block would show at O(1e-2) or more.
#[test]
fn collocation_jacobian_with_analytic_provider() {
    let p = swingup("cartpole").expect("problem");
    let mut sp = p;
    sp.horizon = 20;
    let c = sp.collocation(3.0).expect("collocation");
    assert_eq!(c.provider_name(), "analytic");
    let z0 = c.initial_guess();
    let delta: Vec<f64> = (0..c.n_vars()).map(|i| 0.1 * (i as f64).sin()).collect();
    let z = c.retract(&z0, &delta, 1.0);
    let ja = c.dense_jacobian(&z);
    let jf = c.fd_jacobian(&z, 1e-6);
    let e = (&ja - &jf).amax() / ja.amax();
    eprintln!(
        "cart-pole collocation Jacobian vs FD: {e:.1e} (max |J| {:.1e})",
        ja.amax()
    );
    assert!(e < 1e-7, "{e:e}");
}

/// `invdiscrete` with RK4 is outside the analytic coverage (MuJoCo 4.0.0 refuses it): the
/// provider falls back to centered finite differences (same matrices as `FiniteDifference` with
/// its steps) and its name says why.
#[test]
fn unsupported_model_falls_back_to_fd() {
    let mut m = model("cartpole");
    m.opt.integrator = moreau::model::Integrator::Rk4;
    assert!(Analytic::supports(&m).is_err());
    let (q, v, a) = states(&m, 0, 1).remove(0);
    let mut an = Analytic::new();
    let am = provider_matrices(&mut an, &m, &q, &v, &a);
    assert!(
        an.name()
            .contains("analytic unsupported: invdiscrete with the RK4 integrator"),
        "{}",
        an.name()
    );
    assert_eq!(
        an.fallback(),
        Some("invdiscrete with the RK4 integrator (a fatal error in MuJoCo)")
    );
    let mut fd = FiniteDifference::new(1e-6, 1e-6, true);
    let fm = provider_matrices(&mut fd, &m, &q, &v, &a);
    for (x, y) in am.iter().zip(&fm) {
        assert_eq!(x, y);
    }
}
