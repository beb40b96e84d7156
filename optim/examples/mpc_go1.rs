//! MPC on a public robot: MuJoCo Menagerie's Unitree Go1 (the public zoo's
//! `unitree_go1/scene.xml`, unchanged) walks forward at 0.5 m/s for 10 s and is pushed sideways
//! twice (150 N on the trunk for one 10 ms control step at 3 s and 6 s), under a gait-free cost
//! (`examples/common/go1_mpc.rs`) and one of these planners on the same cost and 10 ms planning
//! model:
//!
//! - `ilqr`: receding-horizon iLQR, warm-started, box-constrained by `ctrlrange`, with moreau's
//!   analytic transition Jacobians;
//! - `fd`: the same iLQR on `mjd_transitionFD` Jacobians (moreau's implementation of MuJoCo's
//!   centered finite differences, checked against MuJoCo 4.0.0 on this robot by the zoo test);
//! - `ps`, `mppi`, `cem`: predictive sampling, MPPI and cross-entropy on one rollout engine
//!   (one thread).
//!
//! Run: `cargo run --release -p moreau-optim --features plot --example mpc_go1 [-- SECONDS [VX]]
//! [--planner ilqr,fd,ps,mppi,cem|all] [--horizon N] [--no-push]` (default: 10 s, 0.5 m/s,
//! `ilqr`). Fetches the public zoo on the first run (`tools/zoo/fetch.py`, Python 3 with pip).
//! Prints per planner the distance, forward-velocity tracking error, falls, lowest trunk
//! height, real-time factor on one core, planner time per iteration and fallbacks; writes
//! `target/mpc/go1_<planner>.json` (`moreau simulate`'s format plus `ctrl`; `moreau replay`
//! re-runs it up to the first push), a trajectory page beside it and, with `--features plot`,
//! `target/mpc/go1_trajectory.png`.

#[path = "common/page.rs"]
mod page;

#[cfg(feature = "plot")]
#[path = "common/plot.rs"]
#[allow(dead_code)]
mod plot;

#[path = "common/go1_mpc.rs"]
#[allow(dead_code)]
mod go1;
#[path = "common/mpc_report.rs"]
mod report;

use go1::{Run, Settings};
use moreau_optim::progress::table;
use moreau_optim::sampling::Update;
use report::with_bar;

fn main() {
    if let Err(e) = run() {
        eprintln!("mpc_go1: {e}");
        std::process::exit(1);
    }
}

/// `(slug, table name)` of every planner.
const PLANNERS: [(&str, &str); 5] = [
    ("ilqr", "iLQR, analytic Jacobians"),
    ("fd", "iLQR, mjd_transitionFD"),
    ("ps", "predictive sampling"),
    ("mppi", "MPPI"),
    ("cem", "cross-entropy"),
];

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut s = Settings::example();
    let mut planners = "ilqr".to_string();
    let mut pos = vec![];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--planner" => planners = it.next().ok_or("--planner needs a value")?.clone(),
            "--horizon" => {
                let v = it.next().ok_or("--horizon needs a value")?;
                s.horizon = v.parse().map_err(|_| format!("bad horizon {v}"))?;
            }
            "--no-push" => s.pushes.clear(),
            _ => pos.push(a.clone()),
        }
    }
    if let Some(v) = pos.first() {
        s.seconds = v.parse().map_err(|_| format!("bad duration {v}"))?;
    }
    if let Some(v) = pos.get(1) {
        s.vx = v.parse().map_err(|_| format!("bad velocity {v}"))?;
    }
    let chosen = report::chosen(&planners, &PLANNERS)?;
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = moreau_optim::zoo::fetch_if_missing(&repo, moreau_optim::zoo::GO1)?;
    let m = go1::model()?;
    let dt = go1::control_dt(&m);
    let steps = (s.seconds / dt).round() as usize;
    let msg = |d: &moreau::Data| format!("x {:+.2} z {:.3}", d.qpos[0], d.qpos[2]);
    // one core: the sampling planners' rollouts in a one-thread pool
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| e.to_string())?;
    let mut rows: Vec<(&str, &str, Run)> = vec![];
    for &(slug, name) in PLANNERS.iter().filter(|p| chosen.contains(&p.0)) {
        let r = with_bar(steps, slug, msg, |on_step| match slug {
            "ilqr" => go1::run_ilqr(&m, &s, true, on_step),
            "fd" => go1::run_ilqr(&m, &s, false, on_step),
            _ => {
                let update = match slug {
                    "ps" => Update::Best,
                    "mppi" => Update::Mppi { temperature: 0.1 },
                    _ => Update::CrossEntropy {
                        elites: 4,
                        min_sigma: 0.02,
                    },
                };
                pool.install(|| go1::run_sampling(&m, &s, update, on_step))
            }
        })?;
        rows.push((slug, name, r));
    }
    let trows: Vec<Vec<String>> = rows
        .iter()
        .map(|(_, name, r)| {
            vec![
                name.to_string(),
                format!("{:+.2}", r.distance()),
                format!("{:.3}", r.tracking_rms(s.vx, dt)),
                r.falls(go1::FALL_Z).to_string(),
                format!("{:.3}", r.min_z()),
                r.closed
                    .cpu_real_time_factor()
                    .map_or("-".into(), |f| format!("{f:.2}")),
                r.ms_per_iteration()
                    .map_or("-".into(), |t| format!("{t:.1}")),
                r.fallbacks.to_string(),
            ]
        })
        .collect();
    let pushes: Vec<String> = s
        .pushes
        .iter()
        .map(|(t, f)| format!("{f:+} N at {t} s"))
        .collect();
    println!(
        "\nGo1 (menagerie) walking forward at {} m/s for {} s, lateral pushes: {}; control \
         every {} ms, plan {} ms × {} steps:",
        s.vx,
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
                "distance (m)",
                "vx RMS err (m/s)",
                "falls",
                "min z (m)",
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
        "go1",
        &model,
        rows.iter()
            .map(|(slug, name, r)| (*name, *slug, &r.closed, serde_json::json!(r.planner_cost))),
        &serde_json::json!({
            "vx_target": s.vx,
            "pushes_y": s.pushes,
        }),
    )?;
    #[cfg(feature = "plot")]
    {
        plot::init_font();
        let out = "target/mpc/go1_trajectory.png";
        let runs: Vec<plot::Run> = rows
            .iter()
            .map(|(_, n, r)| {
                let mut run = report::closed_loop_run(&m, n, &r.closed);
                run.ctrl = None; // twelve actuators: in the JSON and the page
                run
            })
            .collect();
        plot::figure(
            out,
            1000,
            "Go1 MPC: trunk of the closed loops (pushes sideways marked by y)",
            &runs,
            dt,
            &[
                ("trunk x (m)", 0, 1.0),
                ("trunk height z (m)", 2, 1.0),
                ("trunk y (m)", 1, 1.0),
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
