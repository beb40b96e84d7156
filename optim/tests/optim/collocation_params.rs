//! Direct collocation with model parameters as decision variables: the private
//! model's recompiled constants, the full residual Jacobian (configurations + parameters)
//! against central differences (planar double pendulum, a 3D chain with a ball joint and all ten
//! inertial parameters of a body), analytic against finite-difference parameter columns, the
//! bordered (Schur complement) solve against a dense one, and estimation of a double pendulum's
//! link mass and joint damping from noisy positions (LM, re-simulated by the engine; L-BFGS
//! with the bordered preconditioner).

use moreau_optim::band::Bordered;
use moreau_optim::collocation::{Collocation, ParamJacobian, ParamSpec};
use moreau_optim::estimation::{self, Experiment};
use moreau_optim::lm::{solve_lbfgs, solve_lm, LbfgsOptions, LevenbergMarquardt};
use moreau_optim::sysid::{self, Param};
use nalgebra::{DMatrix, DVector};

use crate::common;

/// Initial dynamics penalty of the estimation problem.
const PENALTY: f64 = 100.0;

const XML: &str = include_str!("../../../models/double_pendulum_est.xml");

fn load(xml: &str) -> moreau::Model {
    moreau::load_from_str(xml, &moreau::Vfs::default()).expect("model")
}

/// A short problem at a non-trivial point: configurations off the recording, parameters off
/// the truth, multipliers non-zero.
fn perturbed(c: &Collocation, exp: &Experiment, init: &[f64]) -> Vec<f64> {
    {
        let mut lam = c.multipliers.borrow_mut();
        for (i, l) in lam.iter_mut().enumerate() {
            *l = 0.3 * (i as f64 * 0.9).cos();
        }
    }
    let z0 = exp.initial_guess(init);
    // configurations only: the parameters are already off the truth
    let nq = c.n_vars() - c.n_params();
    let x: Vec<f64> = (0..c.n_vars())
        .map(|i| {
            if i < nq {
                0.05 * ((i as f64) * 1.7).sin()
            } else {
                0.0
            }
        })
        .collect();
    c.retract(&z0, &x, 1.0)
}

/// Largest entry error relative to the largest entry of `b`, per column group.
fn rel_err(a: &DMatrix<f64>, b: &DMatrix<f64>, cols: std::ops::Range<usize>) -> f64 {
    let (mut e, mut s) = (0.0_f64, 0.0_f64);
    for j in cols {
        for i in 0..a.nrows() {
            e = e.max((a[(i, j)] - b[(i, j)]).abs());
            s = s.max(b[(i, j)].abs());
        }
    }
    e / s
}

#[test]
fn model_with_recomputes_the_compiled_constants() {
    // Mass of `lower` 0.8 → 1.1 scales its inertia by 1.1/0.8 (the COM is kept): the same as
    // compiling the edited MJCF.
    let base = load(XML);
    let lower = base.body_id("lower").expect("body");
    let s = 1.1 / 0.8;
    let edited = XML.replace(
        r#"mass="0.8" diaginertia="0.017 0.017 0.001""#,
        &format!(
            r#"mass="1.1" diaginertia="{} {} {}""#,
            0.017 * s,
            0.017 * s,
            0.001 * s
        ),
    );
    assert_ne!(edited, XML);
    let compiled = load(&edited);
    let m = sysid::model_with(&base, &[Param::Mass { body: lower }], &[1.1]).expect("set");
    let close = |a: &[f64], b: &[f64], what: &str| {
        for (x, y) in a.iter().zip(b) {
            assert!(
                (x - y).abs() <= 1e-12 * y.abs().max(1.0),
                "{what}: {a:?} vs {b:?}"
            );
        }
    };
    close(
        &m.body_subtreemass,
        &compiled.body_subtreemass,
        "subtreemass",
    );
    close(
        &m.dof_invweight0,
        &compiled.dof_invweight0,
        "dof_invweight0",
    );
    close(&m.dof_M0, &compiled.dof_M0, "dof_M0");
    let iw = |m: &moreau::Model| m.body_invweight0.concat();
    close(&iw(&m), &iw(&compiled), "body_invweight0");
    // the constants did change (sysid::set alone keeps them)
    let mut stale = base.clone();
    sysid::set(&mut stale, Param::Mass { body: lower }, 1.1).expect("set");
    assert!((stale.dof_invweight0[1] - m.dof_invweight0[1]).abs() > 1e-3);
    // refused values are errors, not panics
    assert!(sysid::model_with(&base, &[Param::Mass { body: lower }], &[-1.0]).is_err());
    assert!(sysid::model_with(&base, &[Param::Damping { dof: 7 }], &[0.1]).is_err());
}

#[test]
fn full_jacobian_matches_finite_differences() {
    let exp = moreau_problems::double_pendulum(8, 1e-2, 1).expect("experiment");
    let upper = exp.model.body_id("upper").expect("body");
    let mut params = exp.params.clone();
    // and one first moment of the upper link (mc_x)
    params.push(Param::Inertial { body: upper, k: 1 });
    let init = [1.1, 0.2, 0.02, 0.01];
    let exp = Experiment { params, ..exp };
    let mut c = exp
        .collocation(&init, Some([0.0, 1.0]), 10.0, 1e3)
        .expect("problem");
    // a prior on the damping of the shoulder
    let mut specs = c.param_specs().to_vec();
    specs[1].prior = 4.0;
    c.set_params(specs).expect("params");
    let z = perturbed(&c, &exp, &init);
    let (eq, ep, epf) = jacobian_errors(&c, &z);
    eprintln!("config columns {eq:e}, parameter columns {ep:e}, analytic vs FD columns {epf:e}");
    assert_jacobian_errors(eq, ep, epf);
    // the bound on the mass is active at 1.1 > 1: its penalty row has slope √w_lim
    let an = c.dense_jacobian(&z);
    let np = c.n_params();
    let nq = c.n_vars() - np;
    let tail = an.nrows() - 2 * np;
    assert_eq!(an[(tail + 1, nq)], 1e3_f64.sqrt());
    assert_eq!(an[(tail + 2, nq + 1)], 2.0);
}

#[test]
fn inertial_regressor_on_a_3d_chain_matches_finite_differences() {
    // Hinges about different axes, a ball joint (quaternion configurations) and a slide, with
    // rotated inertia frames: all ten inertial parameters of the middle body, the masses of the
    // others, damping on a hinge and on the ball.
    let xml = r#"<mujoco model="chain3d">
      <option timestep="0.01" integrator="Euler"><flag contact="disable"/></option>
      <worldbody>
        <body name="a" pos="0 0 1">
          <joint type="hinge" axis="0 0 1" damping="0.1"/>
          <joint type="hinge" axis="1 0 0" damping="0.05"/>
          <inertial pos="0.1 0.02 -0.2" mass="1.2" fullinertia="0.03 0.025 0.015 0.002 -0.001 0.003"/>
          <body name="b" pos="0.1 0 -0.4" euler="0.3 0.2 0.1">
            <joint type="ball" damping="0.02"/>
            <inertial pos="0 0.05 -0.15" quat="0.9 0.1 0.3 0.2" mass="0.7" diaginertia="0.01 0.02 0.015"/>
            <body name="c" pos="0 0 -0.3">
              <joint type="slide" axis="0 1 1" damping="0.3"/>
              <inertial pos="0.02 0 0" mass="0.3" diaginertia="0.002 0.002 0.003"/>
            </body>
          </body>
        </body>
      </worldbody>
    </mujoco>"#;
    let model = load(xml);
    let (a, b, cb) = (
        model.body_id("a").expect("a"),
        model.body_id("b").expect("b"),
        model.body_id("c").expect("c"),
    );
    let mut params: Vec<Param> = (0..10).map(|k| Param::Inertial { body: b, k }).collect();
    params.extend([
        Param::Mass { body: a },
        Param::Mass { body: cb },
        Param::Damping { dof: 1 },
        Param::Damping { dof: 3 },
    ]);
    let init: Vec<f64> = params.iter().map(|&p| sysid::get(&model, p)).collect();
    let steps = 6;
    let mut q0 = model.qpos0.clone();
    q0[0] = 0.4;
    q0[1] = -0.3;
    q0[6] = 0.05;
    let v0 = vec![0.5, -0.4, 0.3, 0.2, -0.6, 0.1];
    let forces: Vec<Vec<f64>> = (0..steps)
        .map(|t| {
            (0..model.nv)
                .map(|i| 0.2 * ((t * 7 + i) as f64).sin())
                .collect()
        })
        .collect();
    let clean = estimation::simulate(&model, &q0, &v0, &forces);
    let exp = Experiment {
        model,
        params,
        names: vec![],
        truth: init.clone(),
        q0,
        v0,
        forces,
        observed: clean.clone(),
        clean,
        noise: 1e-2,
    };
    let c = exp.collocation(&init, None, 10.0, 0.0).expect("problem");
    let z = perturbed(&c, &exp, &init);
    let (eq, ep, epf) = jacobian_errors(&c, &z);
    eprintln!("3D chain: config columns {eq:e}, parameter columns {ep:e}, analytic vs FD {epf:e}");
    assert_jacobian_errors(eq, ep, epf);
}

#[test]
fn jacobian_with_friction_loss_matches_finite_differences() {
    // Friction loss is a soft constraint row in MuJoCo: τ is piecewise linear in it, and at
    // knots with rows every parameter column is by differences (R ∝ invweight0 moves with
    // the mass).
    let xml = XML.replace(
        r#"name="elbow" type="hinge" axis="0 1 0" damping="0.05""#,
        r#"name="elbow" type="hinge" axis="0 1 0" damping="0.05" frictionloss="0.02""#,
    );
    assert_ne!(xml, XML);
    let exp = moreau_problems::double_pendulum(8, 1e-2, 1).expect("experiment");
    let model = load(&xml);
    let mut params = exp.params.clone();
    params.push(Param::FrictionLoss { dof: 1 });
    let exp = Experiment {
        model,
        params,
        ..exp
    };
    let init = [1.1, 0.2, 0.02, 0.03];
    let c = exp.collocation(&init, None, 10.0, 0.0).expect("problem");
    let z = perturbed(&c, &exp, &init);
    let np = c.n_params();
    let nq = c.n_vars() - np;
    let fd = c.fd_jacobian(&z, 1e-6);
    let an = c.dense_jacobian(&z);
    let (eq, ep) = (rel_err(&an, &fd, 0..nq), rel_err(&an, &fd, nq..nq + np));
    eprintln!("friction loss: config columns {eq:e}, parameter columns {ep:e}");
    // no kink of the friction rows' Huber force within ±1e-6 of this point; the parameter
    // columns are themselves differences (ε = 1e-6), compared with differences (1e-10 observed)
    assert!(eq < 1e-8, "configuration columns: {eq:e}");
    assert!(ep < 1e-8, "parameter columns: {ep:e}");
    // a zero initial friction loss has no row (no gradient): refused
    let mut c = c;
    let mut specs = c.param_specs().to_vec();
    specs[3].init = 0.0;
    assert!(c.set_params(specs).is_err());
}

#[test]
fn schur_solve_equals_dense_solve() {
    let exp = moreau_problems::double_pendulum(12, 1e-2, 2).expect("experiment");
    let init = [1.1, 0.2, 0.02];
    let c = exp
        .collocation(&init, Some([0.0, 1.05]), 10.0, 1e2)
        .expect("problem");
    let z = perturbed(&c, &exp, &init);
    let n = c.n_vars();
    let np = c.n_params();
    let (ev, blocks) = c.jacobian(&z);
    let mut h = Bordered::zeros(n - np, 3 * c.model.nv - 1, np);
    let mut g = vec![0.0; n];
    c.normal_equations_bordered(&ev, &blocks, &mut h, &mut g);
    // assembly: JᵀJ and Jᵀr of the dense Jacobian
    let j = c.dense_jacobian(&z);
    let r = DVector::from_vec(ev.r.clone());
    let hd = j.transpose() * &j;
    let gd = j.transpose() * &r;
    let hmax = hd.amax();
    for a in 0..n {
        assert!((g[a] - gd[a]).abs() <= 1e-12 * gd.amax(), "gradient {a}");
        for b in 0..n {
            assert!(
                (h.get(a, b) - hd[(a, b)]).abs() <= 1e-12 * hmax,
                "H({a}, {b})"
            );
        }
    }
    // the damped LM system, solved by the Schur complement and densely
    let lambda = 1e-3;
    for a in 0..n {
        h.add_diag(a, lambda);
    }
    let mut x = g.iter().map(|v| -v).collect::<Vec<_>>();
    assert!(h.cholesky());
    h.solve(&mut x);
    let a = hd + DMatrix::identity(n, n) * lambda;
    let xd = a.clone().cholesky().expect("SPD").solve(&(-gd));
    let err = (DVector::from_vec(x.clone()) - &xd).amax() / xd.amax();
    // the residual of the bordered solution in the dense system, relative to ‖A‖‖x‖
    let res =
        (&a * DVector::from_vec(x) - (-&(j.transpose() * &r))).amax() / (a.amax() * xd.amax());
    eprintln!("Schur vs dense: {err:e} (residual {res:e})");
    assert!(res < 1e-12, "residual {res:e}");
    // both are backward stable; the penalty system's condition number (dynamics rows ∝ w/h⁴
    // against λ = 1e-3) bounds their forward difference: 1e-10 observed, 1e-8 allowed
    assert!(err < 1e-8, "solutions differ by {err:e}");
}

/// Relative error bound of the estimation tests: `k` standard errors plus the truncation of the
/// augmented-Lagrangian stop.
fn check_estimate(exp: &Experiment, c: &Collocation, z: &[f64], what: &str, k: f64) {
    let p = c.param_values(z);
    let se = estimation::param_standard_errors(c, z).expect("standard errors");
    for (j, name) in exp.names.iter().enumerate() {
        let e = p[j] - exp.truth[j];
        eprintln!(
            "{what}: {name}: {:.6} (true {}), error {e:.2e} = {:.2} standard errors ({:.2e})",
            p[j],
            exp.truth[j],
            e / se[j],
            se[j]
        );
        assert!(
            e.abs() <= k * se[j],
            "{what}: {name} {} vs {}: {:.1} standard errors",
            p[j],
            exp.truth[j],
            e / se[j]
        );
    }
}

#[test]
fn estimation_recovers_parameters_and_replays() {
    // σ = 1e-3 rad on 150 positions (1.5 s); start 40–300 % off
    let exp = moreau_problems::double_pendulum(150, 1e-3, 7).expect("experiment");
    let init = [1.2, 0.3, 0.02];
    let c = exp
        .collocation(&init, Some([1e-3, 10.0]), PENALTY, 1e4)
        .expect("problem");
    let z0 = exp.initial_guess(&init);
    let (c, res) = solve_lm(c, z0, LevenbergMarquardt::default(), 300, |e| e).expect("runs");
    eprintln!(
        "LM: {} iterations, {}, defect {:.1e}",
        res.iterations,
        res.termination,
        res.eval.max_defect()
    );
    assert!(res.converged, "{}", res.termination);
    assert!(res.eval.max_defect() <= 1e-8);
    // To first order the estimate is Gaussian about the truth with the covariance of
    // `estimation::param_standard_errors`: 4 standard errors (two-sided probability 6e-5 per
    // parameter; the fixed seed gives 0.1–1.4 σ).
    check_estimate(&exp, &c, &res.z, "LM", 4.0);
    // Observed positions are matched to the noise level: RMS of q − y ≈ σ.
    let nv = exp.model.nv;
    let rms = (2.0 * res.eval.task_cost / (exp.forces.len() * nv) as f64).sqrt();
    eprintln!("task RMS (whitened) {rms:.3}");
    assert!((0.8..1.2).contains(&rms), "whitened RMS {rms}");
    // The engine with the recovered parameters, from q₀, v₀ under the recorded forces, follows
    // the plan: the dynamics residual is ≤ 1e-8 N·m, which a stable damped pendulum carries
    // into ~h·T·|M⁻¹|·1e-8 ≈ 1e-8 rad over 1.5 s (|M⁻¹| ≲ 50 here); bound 1e-7.
    let mhat = c.model_at(&res.z).expect("model");
    let sim = estimation::simulate(&mhat, &exp.q0, &exp.v0, &exp.forces);
    let mut err = 0.0_f64;
    for (t, q) in sim.iter().enumerate() {
        for (a, b) in q.iter().zip(c.config(&res.z, t + 1)) {
            err = err.max((a - b).abs());
        }
    }
    eprintln!("re-simulation vs plan: {err:e} rad");
    assert!(err < 1e-7, "re-simulation differs from the plan by {err:e}");
    // and stays within the noise of the true trajectory
    let mut dev = 0.0_f64;
    for (q, y) in sim.iter().zip(&exp.clean) {
        for (a, b) in q.iter().zip(y) {
            dev = dev.max((a - b).abs());
        }
    }
    eprintln!("re-simulation vs true trajectory: {dev:e} rad");
    assert!(dev < exp.noise, "{dev:e}");
}

#[test]
fn lbfgs_with_parameters() {
    // The preconditioned tangent objective's gradient (bordered factor) matches central
    // differences of its cost, parameters included.
    let exp = moreau_problems::double_pendulum(10, 1e-2, 3).expect("experiment");
    let init = [1.1, 0.2, 0.02];
    let c = exp
        .collocation(&init, Some([1e-3, 10.0]), 10.0, 1e2)
        .expect("problem");
    let zref = perturbed(&c, &exp, &init);
    common::check_tangent_gradient(&c, &zref, 1e-7);
    // L-BFGS (penalty fixed at the value LM grows to) reaches LM's estimate on a 40-step
    // recording, to a tenth of a standard error.
    let exp = moreau_problems::double_pendulum(40, 1e-3, 4).expect("experiment");
    let init = [1.2, 0.3, 0.02];
    let c = exp
        .collocation(&init, Some([1e-3, 10.0]), PENALTY, 1e4)
        .expect("problem");
    let (c, lm) = solve_lm(
        c,
        exp.initial_guess(&init),
        LevenbergMarquardt::default(),
        300,
        |e| e,
    )
    .expect("runs");
    assert!(lm.converged, "{}", lm.termination);
    let c2 = exp
        .collocation(&init, Some([1e-3, 10.0]), 1e3 * PENALTY, 1e4)
        .expect("problem");
    let opts = LbfgsOptions {
        tol: 1e-7,
        ..LbfgsOptions::default()
    };
    let r2 = solve_lbfgs(&c2, exp.initial_guess(&init), &opts, |_, _, _| {}).expect("runs");
    eprintln!(
        "L-BFGS: {} iterations, {}, defect {:.1e}",
        r2.iterations,
        r2.termination,
        r2.eval.max_defect()
    );
    assert!(r2.converged, "{}", r2.termination);
    let se = estimation::param_standard_errors(&c, &lm.z).expect("se");
    for (j, s) in se.iter().enumerate() {
        let d = r2.eval.params[j] - lm.eval.params[j];
        eprintln!("parameter {j}: L-BFGS − LM = {d:e} ({:.3} σ)", d / s);
        assert!(d.abs() < 0.1 * s, "L-BFGS vs LM, parameter {j}: {d:e}");
    }
}

#[test]
fn bad_parameter_input_is_an_error() {
    let exp = moreau_problems::double_pendulum(4, 1e-2, 1).expect("experiment");
    let mut c = exp
        .collocation(&[1.0, 0.1, 0.1], None, 1.0, 0.0)
        .expect("problem");
    let lower = exp.model.body_id("lower").expect("body");
    let bad = [
        vec![ParamSpec::new(Param::Mass { body: 99 }, 1.0)],
        vec![ParamSpec::new(Param::Mass { body: lower }, -1.0)],
        vec![ParamSpec::new(Param::Damping { dof: 0 }, f64::NAN)],
        vec![
            ParamSpec::new(Param::Mass { body: lower }, 1.0),
            ParamSpec::new(Param::Inertial { body: lower, k: 0 }, 1.0),
        ],
        vec![ParamSpec {
            bounds: Some([1.0, 0.0]),
            ..ParamSpec::new(Param::Damping { dof: 0 }, 0.1)
        }],
    ];
    for specs in bad {
        assert!(c.set_params(specs.clone()).is_err(), "{specs:?}");
    }
    assert!(c.set_applied_forces(&[vec![0.0; 2]]).is_err());
    use moreau_optim::collocation::PositionTracking;
    assert!(PositionTracking::new(&exp.model, vec![Some(vec![0.0; 3])], vec![1.0; 2]).is_err());
    assert!(PositionTracking::new(&exp.model, vec![None], vec![1.0; 3]).is_err());
    assert!(PositionTracking::new(&exp.model, vec![None], vec![-1.0; 2]).is_err());
    // a step to a negative mass evaluates to a non-finite objective (the solvers reject it)
    let mut z = exp.initial_guess(&[1.0, 0.1, 0.1]);
    let np = z.len() - 3;
    z[np] = -0.5;
    assert!(c.objective(&z).is_nan());
    assert!(c.param_error().is_some());
}

/// Relative errors of the analytic Jacobian against central differences (configuration and
/// parameter columns) and of the analytic parameter columns against the FD parameter provider
/// (which stays selected).
fn jacobian_errors(c: &Collocation, z: &[f64]) -> (f64, f64, f64) {
    let np = c.n_params();
    let nq = c.n_vars() - np;
    let fd = c.fd_jacobian(z, 1e-6);
    let an = c.dense_jacobian(z);
    c.set_param_jacobian(ParamJacobian::FiniteDifference);
    let an_fd = c.dense_jacobian(z);
    (
        rel_err(&an, &fd, 0..nq),
        rel_err(&an, &fd, nq..nq + np),
        rel_err(&an, &an_fd, nq..nq + np),
    )
}

fn assert_jacobian_errors(eq: f64, ep: f64, epf: f64) {
    // Central differences with ε = 1e-6: truncation O(ε²) and round-off O(1e-16/ε) relative to
    // the largest entry; 1e-10 observed.
    assert!(eq < 1e-8, "configuration columns: {eq:e}");
    assert!(ep < 1e-8, "parameter columns: {ep:e}");
    // τ is linear in these parameters: the FD provider (ε = 1e-6·max(|p|, 1)) agrees to its
    // round-off (1e-10 observed)
    assert!(
        epf < 2e-9,
        "analytic vs finite-difference parameter columns: {epf:e}"
    );
}
