//! Contact MPC that moves forward: `models/quadruped.xml` (free-floating torso, soft MuJoCo
//! contacts) walked forward by a gait-free cost (torso height and orientation at the stance,
//! forward-velocity target, small joint deviations and controls; `examples/common/
//! quadruped_mpc.rs`) with two planners on the same cost and planning model (10 ms steps):
//! receding-horizon iLQR (control-limited, transition Jacobians in the tangent space of the free
//! joint — analytic by the implicit function theorem, or `mjd_transitionFD` with `--fd`) and
//! predictive sampling (one thread).
//!
//! Run: `cargo run --release -p moreau-optim --features plot --example mpc_quadruped [-- SECONDS [VX]]
//! [--planner ilqr|sampling|both] [--fd] [--horizon N]` (default 4 s, 0.5 m/s, both, 30
//! planning steps). Prints per planner
//! the real-time factor (wall and CPU), planning time per 10 ms control step, forward distance,
//! mean speed, lowest torso height and largest tilt; writes `target/mpc/quadruped_<name>.json`
//! (`moreau simulate`'s format plus `ctrl`, replayable by `moreau replay`, no pushes) and with
//! `--features plot` `target/mpc/quadruped_trajectory.png`.

#[path = "common/page.rs"]
mod page;

#[cfg(feature = "plot")]
#[path = "common/plot.rs"]
#[allow(dead_code)]
mod plot;

#[path = "common/quadruped_mpc.rs"]
#[allow(dead_code)]
mod quad;
#[path = "common/mpc_report.rs"]
mod report;

use moreau_optim::progress::table;
use quad::{Run, Settings};
use report::with_bar;

fn main() {
    if let Err(e) = run() {
        eprintln!("mpc_quadruped: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut s = Settings::example();
    let mut planner = "both".to_string();
    let mut fd = false;
    let mut pos = vec![];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--planner" => planner = it.next().ok_or("--planner needs a value")?.clone(),
            "--fd" => fd = true,
            "--horizon" => {
                let v = it.next().ok_or("--horizon needs a value")?;
                s.horizon = v.parse().map_err(|_| format!("bad horizon {v}"))?;
            }
            _ if a.ends_with(".png") => {}
            _ => pos.push(a.clone()),
        }
    }
    if let Some(v) = pos.first() {
        s.seconds = v.parse().map_err(|_| format!("bad duration {v}"))?;
    }
    if let Some(v) = pos.get(1) {
        s.vx = v.parse().map_err(|_| format!("bad velocity {v}"))?;
    }
    let (do_ilqr, do_sampling) = match planner.as_str() {
        "ilqr" => (true, false),
        "sampling" => (false, true),
        "both" => (true, true),
        p => return Err(format!("unknown planner {p} (ilqr, sampling or both)")),
    };
    let m = quad::model()?;
    let z0 = quad::initial(&m)?.qpos[2];
    let steps = (s.seconds / (quad::SUBSTEPS as f64 * m.opt.timestep)).round() as usize;
    let msg = |d: &moreau::Data| format!("x {:+.2} z {:.3}", d.qpos[0], d.qpos[2]);
    let mut rows: Vec<(String, &'static str, Run)> = vec![];
    if do_ilqr {
        let name = if fd {
            "iLQR MPC (FD Jacobians)"
        } else {
            "iLQR MPC (analytic Jacobians)"
        };
        let r = with_bar(steps, "iLQR", msg, |on_step| {
            quad::run_ilqr(&m, &s, !fd, on_step)
        })?;
        rows.push((name.into(), "ilqr", r));
    }
    if do_sampling {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(|e| e.to_string())?;
        let r = with_bar(steps, "sampling", msg, |on_step| {
            pool.install(|| quad::run_sampling(&m, &s, on_step))
        })?;
        rows.push((
            format!("sampling x1 ({}×{})", s.rollouts, s.horizon),
            "sampling",
            r,
        ));
    }
    let trows: Vec<Vec<String>> = rows
        .iter()
        .map(|(name, _, r)| {
            vec![
                name.clone(),
                format!("{:.3}", r.closed.real_time_factor()),
                r.closed
                    .cpu_real_time_factor()
                    .map_or("-".into(), |f| format!("{f:.3}")),
                format!("{:.1}", r.closed.mean_plan_ms()),
                format!("{:+.3}", r.distance()),
                format!("{:.3}", r.distance() / r.closed.sim_time),
                format!("{:.3}", r.min_z()),
                format!("{:.1}", r.max_tilt().to_degrees()),
                r.closed.fallbacks.to_string(),
            ]
        })
        .collect();
    println!(
        "\nquadruped walking forward (target {} m/s), {} s, control every {} ms, planning model \
         {} ms × {} steps (stance torso height {z0:.3} m):",
        s.vx,
        s.seconds,
        quad::SUBSTEPS as f64 * m.opt.timestep * 1e3,
        s.plan_dt * 1e3,
        s.horizon
    );
    print!(
        "{}",
        table(
            &[
                "planner",
                "real-time factor (wall)",
                "real-time factor (CPU)",
                "ms / control step",
                "distance x (m)",
                "mean speed (m/s)",
                "min torso z (m)",
                "max tilt (deg)",
                "fallbacks",
            ],
            &trows
        )
    );
    report::write_json(
        "quadruped",
        "models/quadruped.xml",
        rows.iter().map(|(name, slug, r)| {
            (
                name.as_str(),
                *slug,
                &r.closed,
                serde_json::json!(r.planner_cost),
            )
        }),
        &serde_json::json!({}),
    )?;
    #[cfg(feature = "plot")]
    {
        plot::init_font();
        let path = "target/mpc/quadruped_trajectory.png";
        let runs: Vec<plot::Run> = rows
            .iter()
            .map(|(n, _, r)| {
                let mut run = report::closed_loop_run(&m, n, &r.closed);
                run.ctrl = None; // twelve actuators: too many panels to read
                run
            })
            .collect();
        plot::figure(
            path,
            1000,
            "quadruped MPC: closed loops (controls in the JSON and the page)",
            &runs,
            quad::SUBSTEPS as f64 * m.opt.timestep,
            &[
                ("torso x (m)", 0, 1.0),
                ("torso height z (m)", 2, 1.0),
                ("torso y (m)", 1, 1.0),
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
