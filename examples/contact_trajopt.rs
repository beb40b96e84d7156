//! Direct collocation through contact (seed 000, "Inverse dynamics and optimization"): the soft
//! contact model turns the contact forces into a function of `(q, v, a)`, so inverse dynamics
//! gives every force of a trajectory and no complementarity constraints are needed. Problem: a
//! ball pushed 0.2 m along the floor by an actuated finger, rolling without slipping
//! (`models/ball_push.xml`: MuJoCo's default solref/solimp, pyramidal cone, ball–floor condim
//! 3), initial guess from a constant-push rollout (`moreau_optim::problems::ball_push`, which
//! also says why not a sliding box).
//!
//! Run: `cargo run --release --example contact_trajopt [-- --horizon 60 --check --fd]`. The
//! inverse-dynamics Jacobians are analytic (`collocation::Analytic`, through the soft contact
//! forces); `--fd` selects centered finite differences (`problems::contact_provider`). Prints
//! iterations, time, cost, the largest unactuated force residual, the replay error (the engine
//! re-simulating the plan open loop and with a PD tracking feedback on the finger) and, with
//! `--check`, the largest difference between the collocation's residual Jacobian and central
//! finite differences of the residual at the initial guess and at the solution. Writes
//! `target/trajopt/ball_push.json` in the format of `moreau simulate`. Converges for horizons 30
//! and 60; 100 and more stall (see `ball_push`).

use moreau_optim::lm::{solve_lm, LevenbergMarquardt};
use moreau_optim::problems::{
    ball_push, contact_counts, contact_provider, max_diff, replay_tracking, trajectory_json,
};
use moreau_optim::progress::{cpu_ms_since, table, thread_cpu_ms};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("contact_trajopt: {e}");
        std::process::exit(1);
    }
}

fn jacobian_check(c: &moreau_optim::collocation::Collocation, z: &[f64], label: &str) {
    let ja = c.dense_jacobian(z);
    let jf = c.fd_jacobian(z, 1e-7);
    let dm = &ja - &jf;
    let diff = dm.amax();
    let mut entries: Vec<(f64, usize, usize)> = (0..dm.nrows())
        .flat_map(|i| (0..dm.ncols()).map(move |j| (i, j)))
        .map(|(i, j)| (dm[(i, j)].abs(), i, j))
        .collect();
    entries.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(e, i, j) in entries.iter().take(8) {
        if e > 1e-3 * ja.amax() {
            println!(
                "  row {i} col {j} (knot var {} dof {}): J {:.4e} fd {:.4e}",
                j / c.model.nv + 1,
                j % c.model.nv,
                ja[(i, j)],
                jf[(i, j)]
            );
        }
    }
    println!(
        "Jacobian check at {label}: max |J − J_fd| = {diff:.2e}, max |J| = {:.2e} ({} × {})",
        ja.amax(),
        ja.nrows(),
        ja.ncols()
    );
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut horizon = 60;
    if let Some(i) = args.iter().position(|a| a == "--horizon") {
        horizon = args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .ok_or("--horizon needs a positive integer")?;
    }
    let check = args.iter().any(|a| a == "--check");
    let fd = args.iter().any(|a| a == "--fd");
    let distance = 0.2;
    let p = ball_push(horizon, distance)?;
    if fd {
        p.collocation.set_jacobian_provider(contact_provider());
    }
    println!(
        "inverse-dynamics Jacobians by {}",
        p.collocation.provider_name()
    );
    if check {
        jacobian_check(&p.collocation, &p.z0, "the initial guess");
    }
    let e0 = p.collocation.evaluate(&p.z0);
    println!(
        "initial guess (rollout): cost {:.5}, max |unactuated τ| {:.1e} N",
        e0.cost(),
        e0.max_defect()
    );
    let max = 300;
    let (t0, c0) = (Instant::now(), thread_cpu_ms());
    let (c, res) = solve_lm(
        p.collocation,
        p.z0,
        LevenbergMarquardt::default(),
        max,
        |e| e,
    )
    .map_err(|e| e.to_string())?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let cpu = cpu_ms_since(c0);
    if check {
        jacobian_check(&c, &res.z, "the solution");
    }
    let plan: Vec<Vec<f64>> = (0..=c.horizon)
        .map(|t| c.config(&res.z, t).to_vec())
        .collect();
    let (qo, _) = replay_tracking(&c, &plan, &res.eval.v, &res.eval.u, 0.0, 0.0);
    let (qs, vs) = replay_tracking(&c, &plan, &res.eval.v, &res.eval.u, 400.0, 40.0);
    let err_open = max_diff(&qo, &plan);
    let err_pd = max_diff(&qs, &plan);
    let ncon = contact_counts(&c.model, &plan);
    let body = vec![vec![
        p.name.to_string(),
        if fd { "FD" } else { "analytic" }.into(),
        horizon.to_string(),
        res.iterations.to_string(),
        format!("{ms:.0}"),
        format!("{cpu:.0}"),
        format!("{:.5}", res.eval.cost()),
        format!("{:.1e}", res.eval.max_defect()),
        format!("{err_open:.1e}"),
        format!("{err_pd:.1e}"),
        format!("{:.4}", plan[c.horizon][0] - c.q0[0]),
        if res.converged { "yes" } else { "NO" }.into(),
    ]];
    println!(
        "\n{}",
        table(
            &[
                "problem",
                "Jacobians",
                "knots",
                "iterations",
                "time ms",
                "CPU ms",
                "cost",
                "max |unactuated τ| N",
                "replay err open loop m",
                "replay err PD m",
                "ball x travelled m",
                "converged",
            ],
            &body,
        )
    );
    std::fs::create_dir_all("target/trajopt").map_err(|e| e.to_string())?;
    let file = "target/trajopt/ball_push.json";
    let json = trajectory_json(
        c.model.opt.timestep,
        &qs,
        &vs,
        &res.eval.u,
        serde_json::json!({
            "plan_qpos": plan, "ncon": ncon, "cost_history": res.cost_history,
            "solver": "collocation GN/LM", "cost": res.eval.cost(),
        }),
    );
    std::fs::write(file, json.to_string()).map_err(|e| format!("{file}: {e}"))?;
    println!("wrote {file}");
    if !res.converged {
        return Err(format!("did not converge: {}", res.termination));
    }
    Ok(())
}
