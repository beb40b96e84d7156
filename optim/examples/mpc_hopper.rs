//! A contact task: the planar hopper leg (`models/hopper_leg.xml`, standing keyframe) kept
//! standing while moving forward (torso velocity target `VX`), under pushes on the torso, by MPC
//! through contact — predictive sampling (32 rollouts × 100 steps of 4 ms) and receding-horizon
//! iLQR (transition FD Jacobians through the contact solver) — against zero control. iLQR runs
//! twice: with the actuators' `ctrlrange` in its backward pass (box-QP, control-limited DDP;
//! `moreau_optim::ilqr`) and unconstrained with the plan clamped afterwards (the plan then
//! assumes torques the motors cannot give). Setup in `examples/common/hopper_mpc.rs`.
//!
//! A fourth row, "iLQR MPC forward", plans on a coarser model with a heavier forward-velocity
//! weight (`hopper_mpc::forward_ilqr`, settings `hopper_mpc::Forward::example`).
//!
//! Run: `cargo run --release -p moreau-optim --example mpc_hopper [-- SECONDS [VX]] [--forward-only]
//! [--previous] [--robust]` (default 5 s, 0.3 m/s; `--forward-only` runs only the forward row;
//! `--previous` gives that row its former settings, FD Jacobians on 10 ms × 80 steps with
//! velocity weight 1; `--robust` runs only that row, over `hopper_mpc::variants` (A, B with
//! 1e-12 relative noise, FD Jacobians, pushes ±10%) and prints the spread; the environment
//! variable `HOPPER_FWD=plan_dt,horizon,w_vx,w_pitch,terminal,w_z,iter,analytic,w_joint[,tol]`
//! overrides its settings for sweeps); `--features plot` also writes PNGs. Prints a summary table (real-time factor,
//! planning time per control step of 20 ms = 5 physics steps, lowest torso height, largest
//! pitch, distance travelled, largest |ctrl|, fallbacks: control steps whose iLQR solve failed
//! and that applied the previous plan shifted, `IlqrMpc::fallbacks`) and writes each closed loop as
//! `target/mpc/hopper_<name>.json` (`moreau simulate`'s format plus `ctrl`; `moreau replay`
//! re-runs it up to the first push).

#[path = "common/page.rs"]
mod page;

#[cfg(feature = "plot")]
#[path = "common/plot.rs"]
#[allow(dead_code)]
mod plot;

#[path = "common/hopper_mpc.rs"]
mod hop;
#[path = "common/mpc_report.rs"]
mod report;

use hop::{Forward, SUBSTEPS};
use moreau_optim::mpc::{closed_loop, Push};
use moreau_optim::progress::table;
use moreau_optim::sampling::{PredictiveSampling, SamplingOptions};
use report::{with_bar, Row};

fn main() {
    if let Err(e) = run() {
        eprintln!("mpc_hopper: {e}");
        std::process::exit(1);
    }
}

fn forward_settings() -> Result<Forward, String> {
    if std::env::args().any(|a| a == "--previous") {
        return Ok(Forward::previous());
    }
    let Ok(v) = std::env::var("HOPPER_FWD") else {
        return Ok(Forward::example());
    };
    let f: Vec<f64> = v
        .split(',')
        .map(|x| {
            x.trim()
                .parse()
                .map_err(|_| format!("HOPPER_FWD: bad number {x}"))
        })
        .collect::<Result<_, _>>()?;
    if f.len() != 9 && f.len() != 10 {
        return Err(
            "HOPPER_FWD needs plan_dt,horizon,w_vx,w_pitch,terminal,w_z,iter,analytic,w_joint[,tol]"
                .into(),
        );
    }
    if !(f[0] > 0.0 && f[1] >= 1.0 && f[6] >= 1.0 && f.get(9).is_none_or(|t| *t >= 0.0)) {
        return Err("HOPPER_FWD: plan_dt > 0, horizon ≥ 1, iter ≥ 1 and tol ≥ 0 needed".into());
    }
    Ok(Forward {
        plan_dt: f[0],
        horizon: f[1] as usize,
        wvx: f[2],
        wpitch: f[3],
        terminal: f[4],
        wz: f[5],
        iter: f[6] as usize,
        analytic: f[7] != 0.0,
        wjoint: f[8],
        tol: f.get(9).copied().unwrap_or(0.0),
    })
}

/// `--robust`: the forward row over [`hop::variants`] (Jacobian round-off, FD, pushes ±10%).
fn robust(fwd: &Forward, secs: f64, vx: f64) -> Result<(), String> {
    let model = hop::model()?;
    let mut rows = vec![];
    let (mut dist, mut minz, mut pitch) = (vec![], vec![], vec![]);
    for v in hop::variants() {
        let r = hop::run_forward(&model, fwd, vx, secs, &v, |_, _| {})?;
        dist.push(r.distance());
        minz.push(r.min_z());
        pitch.push(r.max_pitch().to_degrees());
        rows.push(vec![
            v.name.clone(),
            format!("{:+.4}", r.distance()),
            format!("{:+.4}", r.min_z()),
            format!("{:.2}", r.max_pitch().to_degrees()),
            format!("{:.2}", r.closed.mean_plan_ms()),
            r.closed.fallbacks.to_string(),
        ]);
    }
    let span = |x: &[f64]| {
        let lo = x.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{lo:+.4} … {hi:+.4}")
    };
    rows.push(vec![
        "spread".into(),
        span(&dist),
        span(&minz),
        span(&pitch),
        String::new(),
        String::new(),
    ]);
    println!("\nforward iLQR MPC {fwd:?}, {secs} s, target {vx} m/s:");
    print!(
        "{}",
        table(
            &[
                "variant",
                "distance x (m)",
                "min rootz",
                "max |pitch| (deg)",
                "ms / control step",
                "fallbacks"
            ],
            &rows
        )
    );
    Ok(())
}

fn run() -> Result<(), String> {
    let forward_only = std::env::args().any(|a| a == "--forward-only");
    let fwd = forward_settings()?;
    let mut args = std::env::args()
        .skip(1)
        .filter(|a| !a.ends_with(".png") && !a.starts_with("--"));
    let secs: f64 = args
        .next()
        .map(|s| s.parse().map_err(|_| format!("bad duration {s}")))
        .transpose()?
        .unwrap_or(5.0);
    let vx: f64 = args
        .next()
        .map(|s| s.parse().map_err(|_| format!("bad velocity {s}")))
        .transpose()?
        .unwrap_or(0.3);
    if std::env::args().any(|a| a == "--robust") {
        return robust(&fwd, secs, vx);
    }
    let model = hop::model()?;
    let q_stand = hop::initial(&model)?.qpos;
    let dt = model.opt.timestep * SUBSTEPS as f64;
    let steps = hop::control_steps(&model, secs);
    let pushes = hop::pushes(&model, steps)?;
    // stage cost: torso height and pitch at the standing pose, forward velocity, small joint
    // velocities and controls
    let qs = q_stand.clone();
    let stage = move |_: &moreau::Model, d: &moreau::Data| {
        let dz = d.qpos[1] - qs[1];
        let pitch = d.qpos[2] - qs[2];
        let joints: f64 = (3..6).map(|i| (d.qpos[i] - qs[i]).powi(2)).sum();
        let vel: f64 = d.qvel.iter().map(|v| v * v).sum();
        let ctrl: f64 = d.ctrl.iter().map(|u| u * u).sum();
        100.0 * dz * dz
            + 10.0 * pitch * pitch
            + joints
            + 0.01 * vel
            + 0.1 * (d.qvel[0] - vx).powi(2)
            + 0.01 * ctrl
    };
    let msg = |d: &moreau::Data| format!("z {:+.3} x {:+.2}", d.qpos[1], d.qpos[0]);
    let mut rows: Vec<Row> = vec![];

    if !forward_only {
        // zero control
        let mut d = hop::initial(&model)?;
        let run = closed_loop(
            &model,
            &mut d,
            steps,
            SUBSTEPS,
            &pushes,
            |_| Ok(vec![0.0; model.nu]),
            |_, _| {},
        )?;
        rows.push(Row {
            name: "zero control".into(),
            slug: "zero".into(),
            run,
            costs: vec![],
        });
        // predictive sampling, one thread
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(|e| e.to_string())?;
        let mut ps = PredictiveSampling::new(
            model.clone(),
            SamplingOptions {
                rollouts: 32,
                steps: 100,
                knots: 5,
                sigma: 0.2,
                ..Default::default()
            },
        )?;
        let mut d = hop::initial(&model)?;
        let run = with_bar(steps, "sampling x1", msg, |on_step| {
            pool.install(|| {
                closed_loop(
                    &model,
                    &mut d,
                    steps,
                    SUBSTEPS,
                    &pushes,
                    |d| Ok(ps.control(d, &stage).0),
                    on_step,
                )
            })
        })?;
        rows.push(Row {
            name: "sampling x1 (32×100)".into(),
            slug: "sampling".into(),
            run,
            costs: vec![],
        });
    }

    // receding-horizon iLQR: (name, slug, bar label, planning step, analytic Jacobians,
    // planner, clamp the applied control)
    let mut ilqr_rows = vec![];
    if !forward_only {
        // one physics step per stage, re-planned every control step
        for (bounded, name, slug, label) in [
            (true, "iLQR MPC, box-QP ctrlrange", "ilqr_box", "iLQR box"),
            (
                false,
                "iLQR MPC, clamped after",
                "ilqr_clamped",
                "iLQR clamp",
            ),
        ] {
            let mpc = hop::standing_ilqr(&model, &q_stand, vx, bounded);
            let dt = model.opt.timestep;
            ilqr_rows.push((name.to_string(), slug, label, dt, false, mpc, !bounded));
        }
    }
    // forward variant: coarser planning model, longer horizon, heavier velocity weight
    let mut pm = model.clone();
    pm.opt.timestep = fwd.plan_dt;
    let name = format!(
        "iLQR MPC forward ({:.0} ms × {}, w_vx {}, ≤ {} it, tol {:e}, {})",
        fwd.plan_dt * 1e3,
        fwd.horizon,
        fwd.wvx,
        fwd.iter,
        fwd.tol,
        if fwd.analytic { "analytic" } else { "FD" }
    );
    let mpc = hop::forward_ilqr(&pm, &q_stand, vx, &fwd);
    ilqr_rows.push((
        name,
        "ilqr_forward",
        "iLQR forward",
        fwd.plan_dt,
        fwd.analytic,
        mpc,
        false,
    ));
    for (name, slug, label, plan_dt, analytic, mpc, clamp) in ilqr_rows {
        let run = with_bar(steps, label, msg, |on_step| {
            hop::run_ilqr(
                &model, plan_dt, analytic, mpc, clamp, steps, &pushes, None, on_step,
            )
        });
        match run {
            Ok(r) => rows.push(Row {
                name,
                slug: slug.into(),
                run: r.closed,
                costs: r.costs,
            }),
            Err(e) => eprintln!("{name} failed: {e}"),
        }
    }

    let trows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let run = &r.run;
            let last = run.qpos.last().cloned().unwrap_or_default();
            let umax = run
                .ctrl
                .iter()
                .flatten()
                .map(|u| u.abs())
                .fold(0.0, f64::max);
            vec![
                r.name.clone(),
                format!("{:.2}", run.real_time_factor()),
                run.cpu_real_time_factor()
                    .map_or("-".into(), |f| format!("{f:.2}")),
                format!("{:.3}", run.mean_plan_ms()),
                format!("{:+.3}", run.min_qpos(1)),
                format!("{:.1}", run.max_abs_qpos(2).to_degrees()),
                format!("{:+.3}", run.displacement(0)),
                format!("{umax:.3}"),
                format!("{:+.3} / {:+.1}", last[1], last[2].to_degrees()),
                run.fallbacks.to_string(),
            ]
        })
        .collect();
    println!(
        "\nhopper_leg standing and moving forward (target {vx} m/s), {secs} s, {} pushes of \
         ±150 N for 4 ms on the torso, control every {:.0} ms (torso rootz at the standing pose \
         {:+.3}, ctrlrange ±1):",
        pushes.len(),
        dt * 1e3,
        q_stand[1]
    );
    print!(
        "{}",
        table(
            &[
                "controller",
                "real-time factor (wall)",
                "real-time factor (CPU)",
                "ms / control step",
                "min rootz",
                "max |pitch| (deg)",
                "distance x (m)",
                "max |ctrl|",
                "final rootz / pitch",
                "fallbacks",
            ],
            &trows
        )
    );
    let push_times: Vec<f64> = pushes
        .iter()
        .map(|p| match p {
            Push::Joint { step, .. } | Push::Body { step, .. } => *step as f64 * dt,
        })
        .collect();
    report::write_json(
        "hopper",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../models/hopper_leg.xml"),
        report::json_rows(&rows),
        &serde_json::json!({ "pushes_at_time": push_times }),
    )?;
    #[cfg(feature = "plot")]
    plots(&rows, dt).map_err(|e| e.to_string())?;
    #[cfg(not(feature = "plot"))]
    println!("(build with --features plot for PNGs of the trajectories and planner costs)");
    Ok(())
}

#[cfg(feature = "plot")]
fn plots(rows: &[Row], dt: f64) -> Result<(), Box<dyn std::error::Error>> {
    plot::init_font();
    let m = moreau::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../models/hopper_leg.xml"
    ))?;
    let runs: Vec<plot::Run> = rows
        .iter()
        .map(|r| report::closed_loop_run(&m, &r.name, &r.run))
        .collect();
    plot::figure(
        "target/mpc/hopper_trajectory.png",
        1000,
        "hopper leg MPC through contact: closed loops",
        &runs,
        dt,
        &[
            ("torso height rootz (m)", 1, 1.0),
            ("pitch (deg)", 2, 180.0 / std::f64::consts::PI),
            ("rootx (m)", 0, 1.0),
        ],
        &m.actuator_name,
        plot::ctrl_unit(&m),
    )?;
    let tmax = dt * rows.iter().map(|r| r.run.qpos.len()).max().unwrap_or(1) as f64;
    let series: Vec<(String, Vec<f64>)> = rows
        .iter()
        .filter(|r| !r.costs.is_empty())
        .map(|r| (r.name.clone(), r.costs.iter().map(|c| c.1).collect()))
        .collect();
    report::cost_chart(
        "target/mpc/hopper_cost.png",
        "iLQR MPC: planner cost per control step",
        "horizon cost after the solve",
        dt,
        tmax,
        &series,
    )
}
