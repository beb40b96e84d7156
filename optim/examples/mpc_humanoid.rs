//! MPC on a public robot: the dm_control humanoid (the public zoo's `suite/humanoid.xml`,
//! unchanged: 21 torque motors, 27 dofs) stands, its feet set on the floor, and balances under
//! two lateral pushes on the torso, by receding-horizon iLQR (warm-started, box-constrained by
//! `ctrlrange`) on a quadratic cost around the standing pose (`examples/common/humanoid_mpc.rs`)
//! and a 10 ms planning model, with either Jacobian:
//!
//! - `ilqr`: moreau's analytic transition Jacobians;
//! - `fd`: `mjd_transitionFD` (moreau's implementation of MuJoCo's centered finite
//!   differences);
//! - `zero`: no planner, zero torques (the baseline: it falls).
//!
//! Run: `cargo run --release -p moreau-optim --features plot --example mpc_humanoid [--
//! SECONDS] [--planner ilqr,fd,zero|all] [--horizon N] [--push NEWTONS] [--no-push]` (default 5 s,
//! `ilqr`, pushes of 300 N for 50 ms at 1 s and 3 s). Fetches the public zoo on the first run
//! (`tools/zoo/fetch.py`, Python 3 with pip). Prints per planner the falls, the lowest torso
//! height, the largest tilt, the torso's horizontal drift, the real-time factor on one core,
//! the planner's CPU time per iteration and the fallbacks (control steps whose solve failed
//! and applied the previous plan); writes `target/mpc/humanoid_<planner>.json` (`moreau
//! replay` re-runs it up to the first push), a trajectory page beside it and, with `--features
//! plot`, `target/mpc/humanoid_trajectory.png`.

#[path = "common/page.rs"]
mod page;

#[cfg(feature = "plot")]
#[path = "common/plot.rs"]
#[allow(dead_code)]
mod plot;

#[path = "common/humanoid_mpc.rs"]
#[allow(dead_code)]
mod humanoid;
#[path = "common/mpc_report.rs"]
mod report;

use humanoid::{Run, Settings};
use moreau_optim::progress::table;
use report::with_bar;

fn main() {
    if let Err(e) = run() {
        eprintln!("mpc_humanoid: {e}");
        std::process::exit(1);
    }
}

/// `(slug, table name)` of every planner.
const PLANNERS: [(&str, &str); 3] = [
    ("ilqr", "iLQR, analytic Jacobians"),
    ("fd", "iLQR, mjd_transitionFD"),
    ("zero", "zero torques (baseline)"),
];

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut s = Settings::example();
    let mut planners = "ilqr".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value")).cloned();
        match a.as_str() {
            "--planner" => planners = value("--planner")?,
            "--horizon" => {
                let v = value("--horizon")?;
                s.horizon = v.parse().map_err(|_| format!("bad horizon {v}"))?;
            }
            "--push" => {
                let v = value("--push")?;
                let f: f64 = v.parse().map_err(|_| format!("bad push {v}"))?;
                for p in &mut s.pushes {
                    p.1 = f.copysign(p.1);
                }
            }
            "--no-push" => s.pushes.clear(),
            v => s.seconds = v.parse().map_err(|_| format!("bad duration {v}"))?,
        }
    }
    let chosen = report::chosen(&planners, &PLANNERS)?;
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = moreau_optim::zoo::fetch_if_missing(&repo, moreau_optim::zoo::HUMANOID)?;
    let m = humanoid::model()?;
    let dt = humanoid::control_dt(&m);
    let steps = (s.seconds / dt).round() as usize;
    let msg = |d: &moreau::Data| format!("y {:+.2} z {:.3}", d.qpos[1], d.qpos[2]);
    let z0 = humanoid::initial(&m)?.qpos[2];
    let mut rows: Vec<(&str, &str, Run)> = vec![];
    for &(slug, name) in PLANNERS.iter().filter(|p| chosen.contains(&p.0)) {
        let r = with_bar(steps, slug, msg, |on_step| match slug {
            "zero" => humanoid::run_zero(&m, &s, on_step),
            _ => humanoid::run_ilqr(&m, &s, slug == "ilqr", on_step),
        })?;
        rows.push((slug, name, r));
    }
    let trows: Vec<Vec<String>> = rows
        .iter()
        .map(|(_, name, r)| {
            vec![
                name.to_string(),
                r.falls(humanoid::FALL_Z).to_string(),
                format!("{:.3}", r.min_z()),
                format!("{:.1}", r.max_tilt().to_degrees()),
                format!("{:.3}", humanoid::drift(r)),
                r.closed
                    .cpu_real_time_factor()
                    .map_or("-".into(), |f| format!("{f:.3}")),
                r.ms_per_iteration()
                    .map_or("-".into(), |t| format!("{t:.1}")),
                r.fallbacks.to_string(),
            ]
        })
        .collect();
    let pushes: Vec<String> = s
        .pushes
        .iter()
        .zip(humanoid::impulses(&m, &s))
        .map(|((t, f, dur), j)| format!("{f:+} N for {dur} s at {t} s ({j:+.1} N·s)"))
        .collect();
    println!(
        "\ndm_control humanoid standing for {} s (torso at {z0:.3} m), lateral pushes: {}; \
         control every {} ms, plan {} ms × {} steps:",
        s.seconds,
        if pushes.is_empty() {
            "none".into()
        } else {
            pushes.join(", ")
        },
        dt * 1e3,
        s.plan_dt * 1e3,
        s.horizon
    );
    print!(
        "{}",
        table(
            &[
                "planner",
                "falls",
                "min z (m)",
                "max tilt (deg)",
                "max drift (m)",
                "RTF 1 core",
                "CPU ms/iter",
                "fallbacks",
            ],
            &trows
        )
    );
    let model = path.to_string_lossy().into_owned();
    report::write_json_for(
        &m,
        "humanoid",
        &model,
        rows.iter()
            .map(|(slug, name, r)| (*name, *slug, &r.closed, serde_json::json!(r.planner_cost))),
        &serde_json::json!({ "pushes_y": s.pushes }),
    )?;
    #[cfg(feature = "plot")]
    {
        plot::init_font();
        let out = "target/mpc/humanoid_trajectory.png";
        let runs: Vec<plot::Run> = rows
            .iter()
            .map(|(_, n, r)| {
                let mut run = report::closed_loop_run(&m, n, &r.closed);
                run.ctrl = None; // 21 actuators: in the JSON and the page
                run
            })
            .collect();
        plot::figure(
            out,
            1000,
            "dm_control humanoid MPC: torso of the closed loops (pushes along y)",
            &runs,
            dt,
            &[
                ("torso height z (m)", 2, 1.0),
                ("torso y (m)", 1, 1.0),
                ("torso x (m)", 0, 1.0),
            ],
            &[],
            "",
        )
        .map_err(|e| e.to_string())?;
    }
    #[cfg(not(feature = "plot"))]
    println!("(build with --features plot for a PNG of the trajectories)");
    Ok(())
}
