//! Estimation by direct collocation (model parameters as decision variables): a double
//! pendulum (`models/double_pendulum_est.xml`) driven by known torques is recorded with noisy
//! joint angles; the lower link's mass and both joints' damping are unknown. The decision
//! variables are the trajectory `q₁ … q_T` and the three parameters; the task tracks the
//! observations (whitened by the noise level), the forces on both joints must equal the known
//! torques (augmented-Lagrangian residual), and `∂τ/∂p` is analytic (the inertial regressor and
//! `v + h a` for damping; `--fd` for finite differences). The normal equations are
//! block-banded with a 3-column border, solved by the Schur complement (`band::Bordered`).
//!
//! Run: `cargo run --release -p moreau-optim --example colparam [-- --steps 150 --noise 1e-3 --seed 7
//! --lbfgs --fd --trials 20]`. Prints recovered vs true parameters with their predicted
//! standard errors (`estimation::param_standard_errors`), the engine's re-simulation of the
//! recovered model under the recorded torques against the plan and the true trajectory, and
//! with `--trials K` the spread of the estimates over K noise seeds against the predicted
//! standard errors.

use moreau_optim::band::Bordered;
use moreau_optim::collocation::ParamJacobian;
use moreau_optim::estimation::{self, Experiment};
use moreau_optim::lm::{
    solve_lbfgs, solve_lm, CollocationResult, LbfgsOptions, LevenbergMarquardt,
};
use moreau_optim::progress::{bar, cpu_ms_since, table, thread_cpu_ms, ProgressObserver};
use nalgebra::{DMatrix, DVector};

/// Initial dynamics penalty (the LM solver grows it).
const PENALTY: f64 = 100.0;
/// L-BFGS's dynamics penalty (fixed: `solve_lbfgs` updates only the multipliers).
const LBFGS_PENALTY: f64 = 1e5;
/// Parameter range penalty weight (bounds `[1e-3, 10]` on all three).
const LIMITS: f64 = 1e4;
const INIT: [f64; 3] = [1.2, 0.3, 0.02];

fn main() {
    if let Err(e) = run() {
        eprintln!("colparam: {e}");
        std::process::exit(1);
    }
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> Result<T, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{name}: expected a value")),
    }
}

struct Solved {
    method: String,
    res: CollocationResult,
    cpu: f64,
}

fn solve(exp: &Experiment, fd: bool, lbfgs: bool, label: &str) -> Result<Solved, String> {
    let penalty = if lbfgs { LBFGS_PENALTY } else { PENALTY };
    let c = exp.collocation(&INIT, Some([1e-3, 10.0]), penalty, LIMITS)?;
    if fd {
        c.set_param_jacobian(ParamJacobian::FiniteDifference);
    }
    let z0 = exp.initial_guess(&INIT);
    let c0 = thread_cpu_ms();
    if lbfgs {
        let opts = LbfgsOptions {
            max_iters: 5000,
            tol: 1e-7,
            ..LbfgsOptions::default()
        };
        let pb = bar(opts.max_iters, label);
        let res = solve_lbfgs(&c, z0, &opts, |k, cost, _| {
            pb.set_position(k);
            pb.set_message(format!("cost {cost:.6}"));
        })
        .map_err(|e| e.to_string())?;
        pb.finish_and_clear();
        Ok(Solved {
            method: "L-BFGS (bordered preconditioner)".into(),
            res,
            cpu: cpu_ms_since(c0),
        })
    } else {
        let max = 300;
        let pb = bar(max, label);
        let (_, res) = solve_lm(c, z0, LevenbergMarquardt::default(), max, |e| {
            e.add_observer(
                ProgressObserver { bar: pb.clone() },
                moreau_optim::argmin::core::observers::ObserverMode::Always,
            )
        })
        .map_err(|e| e.to_string())?;
        pb.finish_and_clear();
        Ok(Solved {
            method: format!(
                "GN/LM, Schur on the border ({} ∂τ/∂p)",
                if fd { "FD" } else { "analytic" }
            ),
            res,
            cpu: cpu_ms_since(c0),
        })
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let steps: usize = arg(&args, "--steps", 150)?;
    let noise: f64 = arg(&args, "--noise", 1e-3)?;
    let seed: u64 = arg(&args, "--seed", 7)?;
    let trials: usize = arg(&args, "--trials", 1)?;
    let fd = args.iter().any(|a| a == "--fd");
    let lbfgs = args.iter().any(|a| a == "--lbfgs");
    if steps < 2 || !(noise > 0.0 && noise.is_finite()) {
        return Err("need --steps ≥ 2 and a positive --noise".into());
    }
    let exp = moreau_problems::double_pendulum(steps, noise, seed)?;
    println!(
        "double pendulum, {steps} steps of {} s, known torques, angles observed with σ = {noise} rad",
        exp.model.opt.timestep
    );
    let mut runs = vec![solve(&exp, fd, false, "LM")?];
    if lbfgs {
        runs.push(solve(&exp, fd, true, "L-BFGS")?);
    }
    // the problem again, for the standard errors and the recovered model at the LM solution
    let c = exp.collocation(&INIT, Some([1e-3, 10.0]), PENALTY, LIMITS)?;
    let z = &runs[0].res.z;
    let se = estimation::param_standard_errors(&c, z)?;
    let mut rows = vec![];
    for (j, name) in exp.names.iter().enumerate() {
        let mut r = vec![
            name.to_string(),
            format!("{}", exp.truth[j]),
            format!("{}", INIT[j]),
        ];
        for s in &runs {
            let p = s.res.eval.params[j];
            r.push(format!("{p:.6} ({:+.2} σ)", (p - exp.truth[j]) / se[j]));
        }
        r.push(format!("{:.2e}", se[j]));
        rows.push(r);
    }
    let mut header = vec!["parameter", "true", "initial"];
    for s in &runs {
        header.push(if s.method.starts_with("L-BFGS") {
            "L-BFGS estimate"
        } else {
            "LM estimate"
        });
    }
    header.push("std. error σ");
    println!("{}", table(&header, &rows));

    let mut rows = vec![];
    for s in &runs {
        let m = c.model_at(&s.res.z)?;
        let sim = estimation::simulate(&m, &exp.q0, &exp.v0, &exp.forces);
        let (mut plan, mut truth) = (0.0_f64, 0.0_f64);
        for (t, q) in sim.iter().enumerate() {
            for ((a, b), y) in q.iter().zip(c.config(&s.res.z, t + 1)).zip(&exp.clean[t]) {
                plan = plan.max((a - b).abs());
                truth = truth.max((a - y).abs());
            }
        }
        let nobs = (steps * exp.model.nv) as f64;
        rows.push(vec![
            s.method.clone(),
            format!("{}", s.res.iterations),
            format!("{:.1}", s.cpu),
            format!("{:.3}", (2.0 * s.res.eval.task_cost / nobs).sqrt()),
            format!("{:.1e}", s.res.eval.max_defect()),
            format!("{plan:.1e}"),
            format!("{truth:.1e}"),
            if s.res.converged { "yes" } else { "no" }.into(),
        ]);
    }
    println!(
        "{}",
        table(
            &[
                "method",
                "iterations",
                "CPU ms",
                "whitened RMS(q − y)",
                "max |τ − f|",
                "re-sim vs plan (rad)",
                "re-sim vs truth (rad)",
                "converged",
            ],
            &rows,
        )
    );

    // The LM step's linear solve at the solution: bordered (banded Cholesky + Schur complement
    // on the 3 parameters) against a dense Cholesky of the same matrix, in the same run.
    {
        let (ev, blocks) = c.jacobian(z);
        let n = c.n_vars();
        let np = c.n_params();
        let mut h = Bordered::zeros(n - np, 3 * exp.model.nv - 1, np);
        let mut g = vec![0.0; n];
        c.normal_equations_bordered(&ev, &blocks, &mut h, &mut g);
        for i in 0..n {
            h.add_diag(i, 1e-3);
        }
        let dense = DMatrix::from_fn(n, n, |i, j| h.get(i, j));
        let rhs = DVector::from_column_slice(&g);
        let reps = 200;
        let (mut work, mut x) = (h.clone(), g.clone());
        let c0 = thread_cpu_ms();
        for _ in 0..reps {
            work.copy_from(&h);
            if !work.cholesky() {
                return Err("normal matrix not positive definite".into());
            }
            x.copy_from_slice(&g);
            work.solve(&mut x);
        }
        let tb = cpu_ms_since(c0) * 1e3 / reps as f64;
        let c0 = thread_cpu_ms();
        let mut xd = rhs.clone();
        for _ in 0..reps {
            let ch = dense
                .clone()
                .cholesky()
                .ok_or("normal matrix not positive definite")?;
            xd = ch.solve(&rhs);
        }
        let td = cpu_ms_since(c0) * 1e3 / reps as f64;
        let diff = (DVector::from_vec(x) - &xd).amax() / xd.amax();
        println!(
            "LM linear solve (n = {n}: {} banded + {np} border), CPU µs: bordered {tb:.1}, dense \
             Cholesky {td:.1} ({:.1}×); solutions agree to {diff:.1e}",
            n - np,
            td / tb
        );
    }

    if trials > 1 {
        // Monte Carlo over noise seeds: the spread of the estimates against the predicted σ
        let pb = bar(trials as u64, "trials");
        let np = exp.params.len();
        let mut errs = vec![vec![]; np];
        for k in 0..trials {
            let e = moreau_problems::double_pendulum(steps, noise, 1000 + k as u64)?;
            let s = solve(&e, fd, false, "")?;
            for (j, err) in errs.iter_mut().enumerate() {
                err.push(s.res.eval.params[j] - e.truth[j]);
            }
            pb.inc(1);
        }
        pb.finish_and_clear();
        let rows: Vec<Vec<String>> = exp
            .names
            .iter()
            .enumerate()
            .map(|(j, name)| {
                let n = errs[j].len() as f64;
                let mean = errs[j].iter().sum::<f64>() / n;
                let rms = (errs[j].iter().map(|e| e * e).sum::<f64>() / n).sqrt();
                vec![
                    name.to_string(),
                    format!("{mean:+.2e}"),
                    format!("{rms:.2e}"),
                    format!("{:.2e}", se[j]),
                ]
            })
            .collect();
        println!("{trials} noise seeds:");
        println!(
            "{}",
            table(
                &[
                    "parameter",
                    "mean error",
                    "RMS error",
                    "predicted σ (seed 7)"
                ],
                &rows
            )
        );
    }
    Ok(())
}
