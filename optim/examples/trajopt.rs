//! Swing-up by direct collocation through inverse dynamics (block-banded Gauss–Newton/LM as an
//! argmin solver, and argmin's L-BFGS) against iLQR on the engine's step, on the problems of
//! docs/optimization.md#swing-up (cart-pole and acrobot; dt 0.01, 200 knots, start hanging).
//!
//! Run: `cargo run --release -p moreau-optim --example trajopt [-- cartpole|acrobot] [--lbfgs] [--fd]`
//! (`--features plot` also writes PNGs). The inverse-dynamics Jacobians are analytic
//! (`collocation::Analytic`); `--fd` selects centered finite differences for comparison. Writes `target/trajopt/<problem>.json` (the plan
//! replayed by the engine under the optimized controls, in the format of `moreau simulate`) and
//! prints a summary table. `--lbfgs` adds argmin's L-BFGS on the same objective, preconditioned
//! by the banded Cholesky factor of the Gauss–Newton matrix (see `lm::TangentObjective`).

#[path = "common/page.rs"]
mod page;

#[cfg(feature = "plot")]
#[path = "common/plot.rs"]
#[allow(dead_code)]
mod plot;

use moreau_optim::collocation::FiniteDifference;
use moreau_optim::ilqr::IlqrOptions;
use moreau_optim::lm::{solve_lbfgs, solve_lm, LbfgsOptions, LevenbergMarquardt};
use moreau_optim::progress::{table, timed_with_bar, ProgressObserver};
use moreau_optim::trajectory::Trajectory;
use moreau_problems::{replay, swingup, SWINGUP_PENALTY};

fn main() {
    if let Err(e) = run() {
        eprintln!("trajopt: {e}");
        std::process::exit(1);
    }
}

struct Row {
    problem: String,
    method: String,
    iters: u64,
    ms: f64,
    cpu: f64,
    cost: f64,
    defect: f64,
    replay: f64,
    ok: bool,
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let lbfgs = args.iter().any(|a| a == "--lbfgs");
    let fd = args.iter().any(|a| a == "--fd");
    let jac = if fd { "FD" } else { "analytic" };
    let names: Vec<&str> = match args.iter().find(|a| !a.starts_with("--")) {
        Some(n) => vec![n.as_str()],
        None => vec!["cartpole", "acrobot"],
    };
    let mut rows = vec![];
    std::fs::create_dir_all("target/trajopt").map_err(|e| e.to_string())?;
    for name in names {
        let p = swingup(name)?;
        let dt = p.model.opt.timestep;
        let nv = p.model.nv;

        // Direct collocation, Gauss–Newton/LM.
        let c = p.collocation(SWINGUP_PENALTY)?;
        if fd {
            c.set_jacobian_provider(Box::new(FiniteDifference::default()));
        }
        println!(
            "{name}: inverse-dynamics Jacobians by {}",
            c.provider_name()
        );
        let z0 = c.initial_guess();
        let max = 300;
        let (out, ms, cpu) = timed_with_bar(max, &format!("{name} LM"), |pb| {
            solve_lm(c, z0, LevenbergMarquardt::default(), max, |e| {
                e.add_observer(
                    ProgressObserver { bar: pb.clone() },
                    moreau_optim::argmin::core::observers::ObserverMode::Always,
                )
            })
        });
        let (c, res) = out.map_err(|e| e.to_string())?;
        let (qs, vs) = replay(&c.model, &c.q0, &c.v0, &res.eval.u);
        let plan: Vec<Vec<f64>> = (0..=c.horizon)
            .map(|t| c.config(&res.z, t).to_vec())
            .collect();
        let rerr = max_diff(&qs, &plan);
        rows.push(Row {
            problem: name.into(),
            method: format!("collocation GN/LM ({jac})"),
            iters: res.iterations,
            ms,
            cpu,
            cost: res.eval.cost(),
            defect: res.eval.max_defect(),
            replay: rerr,
            ok: res.converged,
        });
        let lm_history = res.cost_history.clone();
        let out = format!("target/trajopt/{name}.json");
        let json = Trajectory::sampled(dt, &qs, &vs, &res.eval.u).to_json(serde_json::json!({
            "plan_qpos": plan, "cost_history": res.cost_history,
            "solver": "collocation GN/LM", "cost": res.eval.cost(),
        }));
        std::fs::write(&out, json.to_string()).map_err(|e| format!("{out}: {e}"))?;
        println!("wrote {out}");
        page::write(
            &c.model,
            &out,
            &json,
            &format!("{name}: collocation plan, engine replay"),
        )?;

        // Same problem with argmin's L-BFGS.
        if lbfgs {
            let c = p.collocation(3.0)?;
            if fd {
                c.set_jacobian_provider(Box::new(FiniteDifference::default()));
            }
            let z0 = c.initial_guess();
            let max = 3000;
            let opts = LbfgsOptions {
                max_iters: max,
                ..LbfgsOptions::default()
            };
            let (r2, ms, cpu) = timed_with_bar(max, &format!("{name} L-BFGS"), |pb| {
                solve_lbfgs(&c, z0, &opts, |k, cost, _| {
                    pb.set_position(k);
                    pb.set_message(format!("cost {cost:.6}"));
                })
            });
            let r2 = r2.map_err(|e| e.to_string())?;
            let (qs2, _) = replay(&c.model, &c.q0, &c.v0, &r2.eval.u);
            let plan2: Vec<Vec<f64>> = (0..=c.horizon)
                .map(|t| c.config(&r2.z, t).to_vec())
                .collect();
            rows.push(Row {
                problem: name.into(),
                method: format!("collocation L-BFGS (argmin, {jac})"),
                iters: r2.iterations,
                ms,
                cpu,
                cost: r2.eval.cost(),
                defect: r2.eval.max_defect(),
                replay: max_diff(&qs2, &plan2),
                ok: r2.converged,
            });
        }

        // iLQR on the engine's step, same cost and initial guess.
        let (ri, ms, cpu) = timed_with_bar(
            IlqrOptions::default().max_iter as u64,
            &format!("{name} iLQR"),
            |pb| {
                p.solve_ilqr(|_, c| {
                    pb.inc(1);
                    pb.set_message(format!("cost {c:.6}"));
                })
            },
        );
        let (_, ri) = ri?;
        let us: Vec<Vec<f64>> = ri.us.iter().map(|u| u.as_slice().to_vec()).collect();
        let (qs3, _) = replay(&p.model, &p.q0, &vec![0.0; nv], &us);
        let plan3: Vec<Vec<f64>> = ri.xs.iter().map(|x| x.as_slice()[..nv].to_vec()).collect();
        rows.push(Row {
            problem: name.into(),
            method: "iLQR (engine step)".into(),
            iters: ri.iterations as u64,
            ms,
            cpu,
            cost: *ri.cost_history.last().unwrap_or(&f64::NAN),
            defect: 0.0,
            replay: max_diff(&qs3, &plan3),
            ok: ri.converged,
        });

        #[cfg(feature = "plot")]
        plots(name, dt, &plan, &lm_history, &ri.cost_history).map_err(|e| e.to_string())?;
        #[cfg(not(feature = "plot"))]
        let _ = lm_history;
    }
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.problem.clone(),
                r.method.clone(),
                r.iters.to_string(),
                format!("{:.1}", r.ms),
                format!("{:.1}", r.cpu),
                format!("{:.6}", r.cost),
                format!("{:.1e}", r.defect),
                format!("{:.1e}", r.replay),
                if r.ok { "yes" } else { "NO" }.into(),
            ]
        })
        .collect();
    println!(
        "\n{}",
        table(
            &[
                "problem",
                "method",
                "iterations",
                "time ms",
                "CPU ms",
                "cost",
                "max |unactuated τ|",
                "replay err",
                "converged",
            ],
            &body,
        )
    );
    if rows.iter().any(|r| !r.ok) {
        return Err("a solver did not converge".into());
    }
    Ok(())
}

fn max_diff(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()))
        .fold(0.0, f64::max)
}

#[cfg(feature = "plot")]
fn plots(
    name: &str,
    dt: f64,
    plan: &[Vec<f64>],
    lm: &[f64],
    ilqr: &[f64],
) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    plot::init_font();
    let path = format!("target/trajopt/{name}_trajectory.png");
    let root = BitMapBackend::new(&path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let lo = plan.iter().flatten().cloned().fold(f64::INFINITY, f64::min);
    let hi = plan
        .iter()
        .flatten()
        .cloned()
        .fold(f64::NEG_INFINITY, f64::max);
    let mut ch = ChartBuilder::on(&root)
        .caption(format!("{name} swing-up (collocation)"), ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..dt * (plan.len() - 1) as f64, (lo - 0.2)..(hi + 0.2))?;
    ch.configure_mesh()
        .x_desc("time (s)")
        .y_desc("qpos")
        .draw()?;
    for i in 0..plan[0].len() {
        let color = Palette99::pick(i).to_rgba();
        ch.draw_series(LineSeries::new(
            plan.iter().enumerate().map(|(t, q)| (t as f64 * dt, q[i])),
            color.stroke_width(2),
        ))?
        .label(format!("q[{i}]"))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    ch.configure_series_labels().border_style(BLACK).draw()?;
    root.present()?;
    println!("wrote {path}");

    let path = format!("target/trajopt/{name}_cost.png");
    let root = BitMapBackend::new(&path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let n = lm.len().max(ilqr.len()) as f64;
    let all = lm.iter().chain(ilqr).cloned();
    let (lo, hi) = all.fold((f64::INFINITY, 0.0f64), |(a, b), c| (a.min(c), b.max(c)));
    let mut ch = ChartBuilder::on(&root)
        .caption(format!("{name}: cost per iteration"), ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..n, (lo * 0.8..hi * 1.2).log_scale())?;
    ch.configure_mesh()
        .x_desc("iteration")
        .y_desc("cost")
        .draw()?;
    ch.draw_series(LineSeries::new(
        lm.iter().enumerate().map(|(i, c)| (i as f64, *c)),
        RED.stroke_width(2),
    ))?
    .label("collocation GN/LM")
    .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    ch.draw_series(LineSeries::new(
        ilqr.iter().enumerate().map(|(i, c)| (i as f64, *c)),
        BLUE.stroke_width(2),
    ))?
    .label("iLQR")
    .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    ch.configure_series_labels().border_style(BLACK).draw()?;
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
