//! Direct collocation through contact (Computation "Inverse dynamics and optimization"): the soft
//! contact model turns the contact forces into a function of `(q, v, a)`, so inverse dynamics
//! gives every force of a trajectory and no complementarity constraints are needed. Problems
//! (`moreau_problems`):
//! - `ball` (default): a ball pushed 0.2 m along the floor by an actuated finger, rolling without
//!   slipping (`models/ball_push.xml`, MuJoCo's default solref/solimp), initial guess from a
//!   constant-push rollout (`ball_push`, which also says why a sliding box needs other contact
//!   parameters);
//! - `hopper`: a planar one-legged hopper hopping 0.15 m forward (`models/hopper_hop.xml`, foot
//!   contact made continuous at its creation by margin and solimp), initial guess from a
//!   hand-tuned hop controller's rollout (`hopper_hop`), Jacobians by `JumpSafeDifference`;
//! - `box`: a box pushed 0.2 m across the floor by a finger, sliding (`models/box_push.xml`, same
//!   contact parameters as the hopper), initial guess from a constant-push rollout (`box_push`).
//!
//! Run: `cargo run --release [--features plot] --example contact_trajopt [-- --problem
//! ball|hopper|box --horizon 60 --distance D --max-iters 300 --defect-tol N --model FILE
//! --fd | --jumpsafe --check --ilqr --warm-ilqr N --from-horizon K --soften K --continuation K
//! --restarts N]` (`--model`: a
//! variant of the problem's model, e.g. another cone; `--defect-tol` overrides the problem's;
//! `--ilqr` also solves the problem by iLQR through the engine's step; `--warm-ilqr N` starts
//! the collocation from iLQR's solution after at most N iterations instead of the problem's
//! guess; `--soften K` first solves with every contact softer by K, K/2, … > 1 (solref time
//! constant, solimp width and margin scaled; the iLQR warm start runs on the softest), each
//! stage warm-started from the last; `--continuation K` solves at `defect_tol`·K, ·K/10, …,
//! ·1 the same way; `--restarts N` adds N solves at `defect_tol` itself, each started again
//! from the last one's solution; `--from-horizon K` solves the problem at K knots first, from
//! iLQR's solution after `--warm-ilqr N` (default 300) iterations, and starts from that plan
//! held at its last knot). The inverse-dynamics Jacobians are analytic
//! (`collocation::Analytic`, through the soft contact forces); `--fd` selects plain centered
//! finite differences (`moreau_problems::contact_provider`), `--jumpsafe` the one-sided-at-jumps ones
//! (`JumpSafeDifference`, see `hopper_hop`). Prints iterations, time, CPU time, cost, the largest unactuated force
//! residual, the replay error (the engine re-simulating the plan open loop and with a PD
//! tracking feedback on the actuated joints), knots without contact and, with `--check`, the
//! largest difference between the collocation's residual Jacobian and central finite
//! differences of the residual at the initial guess and at the solution. Writes
//! `target/trajopt/<problem>.json` in the format of `moreau simulate` (accepted by `moreau
//! replay`: the engine's open-loop run under the planned controls; the plan under `plan_qpos`,
//! the PD-tracked run under `pd_tracking_qpos`) and, with `--features plot`,
//! `target/trajopt/<problem>_qpos.png`.

#[cfg(feature = "plot")]
#[path = "common/plot.rs"]
#[allow(dead_code)]
mod plot;

#[path = "common/page.rs"]
mod page;

use moreau_optim::collocation::Analytic;
use moreau_optim::collocation::InverseJacobian;
use moreau_optim::lm::{solve_lm, LevenbergMarquardt};
use moreau_optim::progress::{table, timed_with_bar, ProgressObserver};
use moreau_optim::trajectory::Trajectory;
use moreau_problems::{
    ball_push, box_push_on, contact_counts, contact_provider, hopper_hop_on, load_model, max_diff,
    model_path, replay_tracking, ContactProblem, JumpSafeDifference,
};

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

/// The same problem by iLQR through the engine's step (`MoreauSystem`, analytic transition
/// Jacobians), from the controls of the collocation's initial guess: iterations, wall and CPU
/// ms, and the collocation's cost and largest unactuated force of the rollout (a rollout
/// satisfies the dynamics up to the solver's tolerance).
fn ilqr_comparison(p: &ContactProblem, max_iter: usize) -> Result<(), String> {
    let c0 = moreau_optim::progress::thread_cpu_ms();
    let t0 = std::time::Instant::now();
    let (r, z) = p.solve_ilqr(max_iter)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let cpu = moreau_optim::progress::cpu_ms_since(c0);
    let ev = p.collocation.evaluate(&z);
    println!(
        "iLQR (engine step, analytic Jacobians): {} iterations, {ms:.0} ms, CPU {cpu:.0} ms, cost {:.5} (iLQR's own {:.5}), max |unactuated τ| {:.1e} N, converged {}",
        r.iterations,
        ev.cost(),
        r.cost_history.last().copied().unwrap_or(f64::NAN),
        ev.max_defect(),
        r.converged
    );
    Ok(())
}

/// `model` with every geom's contact softer by `factor`: the solref time constant, the solimp
/// width and the margin scaled by it (MuJoCo's "Solver parameters": a longer time constant and a
/// wider impedance ramp make the force smoother in the penetration).
fn softened(model: &moreau::Model, factor: f64) -> moreau::Model {
    let mut m = model.clone();
    if factor != 1.0 {
        for g in 0..m.ngeom {
            if m.geom_solref[g][0] > 0.0 {
                m.geom_solref[g][0] *= factor;
            }
            m.geom_solimp[g][2] *= factor;
            m.geom_margin[g] *= factor;
        }
    }
    m
}

/// The continuation factors `k`, `k/div`, `k/div²`, … above 1 (none without the flag).
fn factors(k: Option<f64>, flag: &str, div: f64) -> Result<Vec<f64>, String> {
    let k = k.unwrap_or(1.0);
    if !(k.is_finite() && k >= 1.0) {
        return Err(format!("{flag} needs a factor ≥ 1, got {k}"));
    }
    Ok(std::iter::successors(Some(k), |s| Some(s / div))
        .take_while(|s| *s > 1.0 + 1e-9)
        .collect())
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str) -> Result<Option<T>, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .map(Some)
            .ok_or_else(|| format!("{name} needs a value")),
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let problem: String = arg(&args, "--problem")?.unwrap_or_else(|| "ball".into());
    let horizon: usize = arg(&args, "--horizon")?.unwrap_or(60);
    let check = args.iter().any(|a| a == "--check");
    // A variant of the problem's model (a file name under models/, e.g. other contact settings).
    let model_arg: Option<String> = arg(&args, "--model")?;
    let model_file = model_arg.as_deref();
    // (problem, moved coordinate: qpos index and label, default distance)
    // PD gains of the tracking replay (the hopper's light leg needs lower ones at dt 0.01).
    let mut gains = (400.0, 40.0);
    // Jacobian provider: analytic unless `--fd` or `--jumpsafe`.
    let flag = |f: &str| args.iter().any(|a| a == f);
    let (fd, jumpsafe) = (flag("--fd"), flag("--jumpsafe"));
    let jacobians = || -> Box<dyn InverseJacobian> {
        if fd {
            contact_provider()
        } else if jumpsafe {
            Box::new(JumpSafeDifference::default())
        } else {
            Box::new(Analytic::new())
        }
    };
    let (idx, what, distance): (usize, &str, f64) = match problem.as_str() {
        "ball" => (0, "ball x", arg(&args, "--distance")?.unwrap_or(0.2)),
        "hopper" => {
            gains = (100.0, 5.0);
            (0, "torso x", arg(&args, "--distance")?.unwrap_or(0.15))
        }
        "box" => (0, "box x", arg(&args, "--distance")?.unwrap_or(0.2)),
        other => return Err(format!("unknown problem {other} (ball, hopper or box)")),
    };
    let build = |horizon: usize| -> Result<ContactProblem, String> {
        match problem.as_str() {
            "ball" => {
                let p = ball_push(horizon, distance)?;
                p.collocation.set_jacobian_provider(jacobians());
                Ok(p)
            }
            "hopper" => {
                let m = load_model(model_file.unwrap_or("hopper_hop.xml"))?;
                hopper_hop_on(m, horizon, distance, jacobians())
            }
            _ => {
                let m = load_model(model_file.unwrap_or("box_push.xml"))?;
                box_push_on(m, horizon, distance, jacobians())
            }
        }
    };
    let mut p = build(horizon)?;
    let file_name = p.name.replace(' ', "_");
    let model_file = model_file.unwrap_or(match problem.as_str() {
        "hopper" => "hopper_hop.xml",
        "box" => "box_push.xml",
        _ => "ball_push.xml",
    });
    let jac_name = p.collocation.provider_name();
    println!("inverse-dynamics Jacobians by {jac_name}");
    if check {
        jacobian_check(&p.collocation, &p.z0, "the initial guess");
    }
    // Continuation on the contact's softness: stages whose contacts are softer by factors K,
    // K/2, …, > 1 (every geom's solref time constant, solimp width and margin scaled), each
    // warm-started from the last; the iLQR warm start below runs on the softest.
    let soft = factors(arg(&args, "--soften")?, "--soften", 2.0)?;
    let model = p.collocation.model.clone();
    p.collocation.model = softened(&model, soft.first().copied().unwrap_or(1.0));
    let max: u64 = arg(&args, "--max-iters")?.unwrap_or(300);
    // Warm start: the guess replaced by iLQR's solution through the engine's step; with
    // `--from-horizon K`, iLQR and LM solve the problem at K knots first and its plan, held at
    // its last knot, is the guess.
    let warm = arg::<usize>(&args, "--warm-ilqr")?;
    let from = arg::<usize>(&args, "--from-horizon")?;
    let warm_start = |p: &mut ContactProblem, n: usize| -> Result<(), String> {
        let c0 = moreau_optim::progress::thread_cpu_ms();
        let r = p.warm_start_ilqr(n)?;
        let cpu = moreau_optim::progress::cpu_ms_since(c0);
        println!(
            "warm start: iLQR {} iterations, CPU {cpu:.0} ms, iLQR cost {:.5}, converged {}",
            r.iterations,
            r.cost_history.last().copied().unwrap_or(f64::NAN),
            r.converged
        );
        Ok(())
    };
    if let Some(k) = from {
        let mut short = build(k)?;
        short.collocation.model = p.collocation.model.clone();
        warm_start(&mut short, warm.unwrap_or(300))?;
        let mut lm = LevenbergMarquardt::default();
        lm.max_al_updates = max as usize;
        lm.defect_tol = short.defect_tol;
        lm.penalty_growth = short.penalty_growth;
        let c0 = moreau_optim::progress::thread_cpu_ms();
        let (_, r) =
            solve_lm(short.collocation, short.z0, lm, max, |e| e).map_err(|e| e.to_string())?;
        println!(
            "short horizon {k}: {} iterations, CPU {:.0} ms, cost {:.5}, max |unactuated τ| {:.1e} N, {}",
            r.iterations,
            moreau_optim::progress::cpu_ms_since(c0),
            r.eval.cost(),
            r.eval.max_defect(),
            r.termination
        );
        p.extend_guess(&r.z, &r.eval.u)?;
    } else if let Some(n) = warm {
        warm_start(&mut p, n)?;
    }
    let e0 = p.collocation.evaluate(&p.z0);
    println!(
        "{}: initial guess (rollout): cost {:.5}, max |unactuated τ| {:.1e} N",
        p.name,
        e0.cost(),
        e0.max_defect()
    );
    if flag("--ilqr") {
        ilqr_comparison(&p, max as usize)?;
    }
    let defect_tol = arg(&args, "--defect-tol")?.unwrap_or(p.defect_tol);
    // Continuation on the defect tolerance: stages at `defect_tol`·K, ·K/10, …, ·1, each
    // warm-started from the last stage's solution.
    let mut scales = factors(arg(&args, "--continuation")?, "--continuation", 10.0)?;
    scales.push(1.0);
    // Plain restarts: N more stages at the final tolerance, each from the last one's solution
    // (fresh damping and stall counter), the control for the defect continuation.
    let restarts: usize = arg(&args, "--restarts")?.unwrap_or(0);
    scales.extend(std::iter::repeat_n(1.0, restarts));
    // Stages: (contact softness, defect tolerance scale); softer contacts first, then the
    // defect continuation on the problem's own contact.
    let stages: Vec<(f64, f64)> = soft
        .iter()
        .map(|&s| (s, 1.0))
        .chain(scales.iter().map(|&d| (1.0, d)))
        .collect();
    let (mut c, mut z) = (p.collocation, p.z0);
    let (mut ms, mut cpu, mut iterations) = (0.0, 0.0, 0);
    let mut res = None;
    for (i, &(softness, scale)) in stages.iter().enumerate() {
        c.model = softened(&model, softness);
        let mut lm = LevenbergMarquardt::default();
        lm.max_al_updates = max as usize;
        lm.defect_tol = defect_tol * scale;
        lm.penalty_growth = p.penalty_growth;
        let (out, t, cp) = timed_with_bar(max, p.name, |pb| {
            solve_lm(c, z, lm, max, |e| {
                e.add_observer(
                    ProgressObserver { bar: pb.clone() },
                    moreau_optim::argmin::core::observers::ObserverMode::Always,
                )
            })
        });
        let (c1, r) = out.map_err(|e| e.to_string())?;
        if stages.len() > 1 {
            println!(
                "stage {i}: contact softness {softness}, defect_tol {:.1e} N: {} iterations, cost {:.5}, max |unactuated τ| {:.1e} N, {}, scaled gradient {:.1e}",
                defect_tol * scale,
                r.iterations,
                r.eval.cost(),
                r.eval.max_defect(),
                r.termination,
                r.optimality
            );
        }
        (ms, cpu, iterations) = (ms + t, cpu + cp, iterations + r.iterations);
        (c, z) = (c1, r.z.clone());
        res = Some(r);
    }
    let mut res = res.ok_or("no stage")?;
    res.iterations = iterations;
    if check {
        jacobian_check(&c, &res.z, "the solution");
    }
    let plan: Vec<Vec<f64>> = (0..=c.horizon)
        .map(|t| c.config(&res.z, t).to_vec())
        .collect();
    let (qo, vo) = replay_tracking(&c, &plan, &res.eval.v, &res.eval.u, 0.0, 0.0);
    #[cfg_attr(not(feature = "plot"), allow(unused_variables))]
    let (qs, vs) = replay_tracking(&c, &plan, &res.eval.v, &res.eval.u, gains.0, gains.1);
    let err_open = max_diff(&qo, &plan);
    let err_pd = max_diff(&qs, &plan);
    // First knot where the open-loop replay leaves the plan by more than 1 mm.
    let diverge = qo
        .iter()
        .zip(&plan)
        .position(|(a, b)| max_diff(std::slice::from_ref(a), std::slice::from_ref(b)) > 1e-3)
        .map_or("never".to_string(), |t| t.to_string());
    let ncon = contact_counts(&c.model, &plan);
    let free = ncon.iter().filter(|&&n| n == 0).count();
    let body = vec![vec![
        p.name.to_string(),
        jac_name.clone(),
        horizon.to_string(),
        res.iterations.to_string(),
        format!("{ms:.0}"),
        format!("{cpu:.0}"),
        format!("{:.5}", res.eval.cost()),
        format!("{:.1e}", res.eval.max_defect()),
        format!("{err_open:.1e}"),
        diverge,
        format!("{err_pd:.1e}"),
        free.to_string(),
        format!("{:.4} / {distance}", plan[c.horizon][idx] - c.q0[idx]),
        if res.converged { "yes" } else { "NO" }.into(),
        format!("{:.1e}", res.optimality),
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
                "open loop > 1 mm at knot",
                "replay err PD m",
                "knots without contact",
                &format!("{what} travelled / asked m"),
                "converged",
                "scaled gradient",
            ],
            &body,
        )
    );
    std::fs::create_dir_all("target/trajopt").map_err(|e| e.to_string())?;
    let file = format!("target/trajopt/{file_name}.json");
    // The engine's open-loop run under the planned controls (what `moreau replay` re-simulates),
    // the plan and the PD-tracked run as extra fields.
    let json = Trajectory::sampled(c.model.opt.timestep, &qo, &vo, &res.eval.u).to_json(
        serde_json::json!({
            "model": model_path(model_file),
            "plan_qpos": plan, "pd_tracking_qpos": qs, "ncon": ncon,
            "cost_history": res.cost_history, "defect_history": res.defect_history,
            "solver": "collocation GN/LM", "cost": res.eval.cost(),
        }),
    );
    std::fs::write(&file, json.to_string()).map_err(|e| format!("{file}: {e}"))?;
    println!("wrote {file}");
    page::write(
        &c.model,
        &file,
        &json,
        &format!("{}: engine open loop, plan, PD tracking", p.name),
    )?;
    #[cfg(feature = "plot")]
    {
        let path = format!("target/trajopt/{file_name}_qpos.png");
        let m = &c.model;
        let u = &res.eval.u;
        let force = |q: &[Vec<f64>], v: &[Vec<f64>]| Some(plot::contact_normal_force(m, q, v, u));
        let runs = [
            plot::Run {
                contact: force(&plan, &res.eval.v),
                ctrl: Some(u),
                ..plot::Run::new("plan", &plan)
            },
            plot::Run {
                contact: force(&qo, &vo),
                ctrl: Some(u),
                ..plot::Run::new("engine, open loop", &qo)
            },
            plot::Run {
                contact: force(&qs, &vs),
                ..plot::Run::new("engine, PD tracking", &qs)
            },
        ];
        let panels = plot::joint_panels(m);
        let panels: Vec<(&str, usize, f64)> = panels
            .iter()
            .map(|(l, i, s)| (l.as_str(), *i, *s))
            .collect();
        plot::init_font();
        plot::figure(
            &path,
            1000,
            &format!(
                "{}: collocation through contact, plan vs the engine's re-simulation",
                p.name
            ),
            &runs,
            m.opt.timestep,
            &panels,
            &m.actuator_name,
            plot::ctrl_unit(m),
        )
        .map_err(|e| e.to_string())?;
    }
    println!("termination: {}", res.termination);
    if !res.converged {
        return Err(format!("did not converge: {}", res.termination));
    }
    Ok(())
}
