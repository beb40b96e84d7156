//! Direct collocation through contact (seed 000, "Inverse dynamics and optimization"): the soft
//! contact model turns the contact forces into a function of `(q, v, a)`, so inverse dynamics
//! gives every force of a trajectory and no complementarity constraints are needed. Two
//! problems: a planar hopper that must travel 0.5 m (lift-off, flight, landing) and a box pushed
//! 0.3 m across the floor by an actuated finger; both from the simple initial guesses of
//! `moreau_optim::problems::{hopper, box_push}`.
//!
//! Run: `cargo run --release --example contact_trajopt [-- hopper|box]`. Prints iterations,
//! time, cost, the largest unactuated force residual and the replay error (the engine
//! re-simulates the plan open loop, under the optimized controls alone, no feedback), and
//! writes `target/trajopt/<problem>.json` in the format of `moreau simulate`.

use moreau_optim::lm::{solve_lm, LevenbergMarquardt};
use moreau_optim::problems::{
    box_push, contact_counts, hopper, max_diff, replay, trajectory_json, ContactProblem,
};
use moreau_optim::progress::{bar, table, ProgressObserver};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("contact_trajopt: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = match args.iter().find(|a| !a.starts_with("--")) {
        Some(n) => vec![n.as_str()],
        None => vec!["hopper", "box"],
    };
    std::fs::create_dir_all("target/trajopt").map_err(|e| e.to_string())?;
    let mut body = vec![];
    let mut ok = true;
    for name in names {
        let p: ContactProblem = match name {
            "hopper" => hopper(100, 0.5)?,
            "box" => box_push(100, 0.3)?,
            _ => return Err(format!("unknown problem {name} (hopper or box)")),
        };
        let max = 300;
        let pb = bar(max, &format!("{} LM", p.name));
        let t0 = Instant::now();
        let (c, res) = solve_lm(
            p.collocation,
            p.z0,
            LevenbergMarquardt::default(),
            max,
            |e| {
                e.add_observer(
                    ProgressObserver { bar: pb.clone() },
                    moreau_optim::argmin::core::observers::ObserverMode::Always,
                )
            },
        )
        .map_err(|e| e.to_string())?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        pb.finish_and_clear();
        let plan: Vec<Vec<f64>> = (0..=c.horizon)
            .map(|t| c.config(&res.z, t).to_vec())
            .collect();
        let (qs, vs) = replay(&c.model, &c.q0, &c.v0, &res.eval.u);
        let rerr = max_diff(&qs, &plan);
        let ncon = contact_counts(&c.model, &plan);
        let flight = ncon.iter().filter(|&&n| n == 0).count();
        ok &= res.converged;
        body.push(vec![
            p.name.to_string(),
            res.iterations.to_string(),
            format!("{ms:.0}"),
            format!("{:.5}", res.eval.cost()),
            format!("{:.1e}", res.eval.max_defect()),
            format!("{rerr:.1e}"),
            format!("{:.3}", plan[c.horizon][0] - c.q0[0]),
            flight.to_string(),
            if res.converged { "yes" } else { "NO" }.into(),
        ]);
        let file = format!(
            "target/trajopt/{}.json",
            if name == "box" { "box_push" } else { "hopper" }
        );
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
        std::fs::write(&file, json.to_string()).map_err(|e| format!("{file}: {e}"))?;
        println!("wrote {file}");
    }
    println!(
        "\n{}",
        table(
            &[
                "problem",
                "iterations",
                "time ms",
                "cost",
                "max |unactuated τ|",
                "replay err (open loop)",
                "x travelled",
                "knots without contact",
                "converged",
            ],
            &body,
        )
    );
    if !ok {
        return Err("a problem did not converge".into());
    }
    Ok(())
}
