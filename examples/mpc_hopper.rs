//! A contact task: the planar hopper leg (`models/hopper_leg.xml`, standing keyframe) kept
//! standing while moving forward (torso velocity target `VX`), under pushes on the torso, by MPC
//! through contact — predictive sampling (32 rollouts × 100 steps of 4 ms) and receding-horizon
//! iLQR (transition FD Jacobians through the contact solver) — against zero control. iLQR runs
//! twice: with the actuators' `ctrlrange` in its backward pass (box-QP, control-limited DDP;
//! `moreau_optim::ilqr`) and unconstrained with the plan clamped afterwards (the plan then
//! assumes torques the motors cannot give).
//!
//! A fourth row, "iLQR MPC forward", plans on a coarser model (10 ms steps, 80-step = 0.8 s
//! horizon) with a heavier forward-velocity weight (`hopper_ilqr_forward`).
//!
//! Run: `cargo run --release --example mpc_hopper [-- SECONDS [VX]] [--forward-only]` (default
//! 5 s, 0.3 m/s; `--forward-only` runs only the forward row; the environment variable
//! `HOPPER_FWD=plan_dt,horizon,w_vx,w_pitch,terminal,w_z` overrides its settings for sweeps);
//! `--features plot` also writes PNGs. Prints a summary table (real-time factor, planning time
//! per control step of 20 ms = 5 physics steps, lowest torso height, largest pitch, distance
//! travelled, largest |ctrl|) and writes each closed loop as `target/mpc/hopper_<name>.json`
//! (`moreau simulate`'s format plus `ctrl`; `moreau replay` re-runs it up to the first push).

#[cfg(feature = "plot")]
#[path = "common/plot.rs"]
#[allow(dead_code)]
mod plot;

use moreau_optim::ilqr::QuadraticCost;
use moreau_optim::mpc::{
    closed_loop, ctrl_bounds, state_of, ClosedLoop, IlqrMpc, MpcOptions, Push,
};
use moreau_optim::progress::{bar, table};
use moreau_optim::sampling::{PredictiveSampling, SamplingOptions};
use moreau_optim::system::MoreauSystem;
use nalgebra::{DMatrix, DVector};

fn main() {
    if let Err(e) = run() {
        eprintln!("mpc_hopper: {e}");
        std::process::exit(1);
    }
}

const SUBSTEPS: usize = 5;

struct Row {
    name: String,
    slug: &'static str,
    run: ClosedLoop,
    /// Planner cost before / after each solve (iLQR only).
    costs: Vec<(f64, f64)>,
}

/// The iLQR MPC of this example: cost on `x = (qpos, qvel)` around the standing pose with the
/// forward velocity target `vx`, a 50 × 4 ms horizon, one iteration per control step.
fn hopper_ilqr(m: &moreau::Model, q_stand: &[f64], vx: f64, bounded: bool) -> IlqrMpc {
    let nx = 2 * m.nv;
    let mut q = vec![0.0; nx];
    q[1] = 100.0; // torso height
    q[2] = 10.0; // pitch
    for qi in q.iter_mut().take(6).skip(3) {
        *qi = 1.0;
    }
    for qi in q.iter_mut().skip(6) {
        *qi = 0.01;
    }
    // forward velocity: a light weight (heavier ones make the 0.2 s horizon lean the torso
    // forward until it falls: 0.2 at 0.3 m/s falls within 5 s)
    q[6] = 0.1;
    let mut xref = DVector::zeros(nx);
    xref.rows_mut(0, 6).copy_from_slice(q_stand);
    xref[6] = vx;
    let cost = QuadraticCost {
        q: DMatrix::from_diagonal(&DVector::from_vec(q.clone())),
        r: DMatrix::identity(m.nu, m.nu) * 0.01,
        qf: DMatrix::from_diagonal(&DVector::from_vec(q)) * 0.1,
        xref,
        dt: m.opt.timestep,
    };
    IlqrMpc::new(
        m.nu,
        cost,
        MpcOptions {
            horizon: 50,
            iter: 1,
            first_iter: 5,
            bounds: bounded.then(|| ctrl_bounds(m)),
        },
    )
}

/// The forward-walking variant: the same state cost with a heavier forward-velocity weight
/// `wvx` and pitch weight `wpitch`, planned on a coarser model (`plan_dt`) over a longer
/// horizon (`horizon` planning steps), control-limited.
fn hopper_ilqr_forward(pm: &moreau::Model, q_stand: &[f64], vx: f64, f: &Forward) -> IlqrMpc {
    let mut mpc = hopper_ilqr(pm, q_stand, vx, true);
    mpc.cost.q[(6, 6)] = f.wvx;
    mpc.cost.q[(2, 2)] = f.wpitch;
    mpc.cost.q[(1, 1)] = f.wz;
    mpc.cost.qf = &mpc.cost.q * f.terminal;
    mpc.cost.dt = pm.opt.timestep;
    mpc.opt.horizon = f.horizon;
    IlqrMpc::new(pm.nu, mpc.cost, mpc.opt)
}

/// Settings of [`hopper_ilqr_forward`].
struct Forward {
    plan_dt: f64,
    horizon: usize,
    wvx: f64,
    wpitch: f64,
    terminal: f64,
    wz: f64,
}

fn run() -> Result<(), String> {
    let forward_only = std::env::args().any(|a| a == "--forward-only");
    let fwd_env: Vec<f64> = std::env::var("HOPPER_FWD")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_default();
    let fwd = if fwd_env.len() == 6 {
        Forward {
            plan_dt: fwd_env[0],
            horizon: fwd_env[1] as usize,
            wvx: fwd_env[2],
            wpitch: fwd_env[3],
            terminal: fwd_env[4],
            wz: fwd_env[5],
        }
    } else {
        // chosen by a sweep (5 s, 0.3 m/s, pushes on): heavier velocity weights (1.5-3),
        // faster targets (0.6 m/s) or a 50-step horizon move it 0.6-1.3 m but crouch or fall
        // (rootz −0.5…−0.9); w_vx 1 on 80 steps moves it 0.18 m standing
        Forward {
            plan_dt: 0.01,
            horizon: 80,
            wvx: 1.0,
            wpitch: 10.0,
            terminal: 0.1,
            wz: 100.0,
        }
    };
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
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/models/hopper_leg.xml");
    let model = moreau::mjcf::load(path).map_err(|e| e.to_string())?;
    let key = model.key_id("stand").ok_or("no stand keyframe")?;
    // A fresh Data per run: cloning a Data drops its contact buffer's capacity (moreau keeps
    // the contact limit in `Vec::capacity`), and the clone then finds no contacts.
    let fresh = || -> Result<moreau::Data, String> {
        let mut d = moreau::Data::new(&model);
        d.reset_keyframe(&model, key)?;
        d.qvel.iter_mut().for_each(|v| *v = 0.0);
        Ok(d)
    };
    let d0 = fresh()?;
    let q_stand = d0.qpos.clone();
    let dt = model.opt.timestep * SUBSTEPS as f64;
    let steps = (secs / dt).round() as usize;
    let torso = model.body_id("torso").ok_or("no torso")?;
    let pushes: Vec<Push> = (25..steps)
        .step_by(50)
        .enumerate()
        .map(|(i, k)| Push::Body {
            step: k,
            body: torso,
            wrench: [
                if i % 2 == 0 { 150.0 } else { -150.0 },
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
        })
        .collect();
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
    let mut rows: Vec<Row> = vec![];

    // zero control
    if !forward_only {
        let mut d = fresh()?;
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
            slug: "zero",
            run,
            costs: vec![],
        });
    }
    // predictive sampling, one thread
    if !forward_only {
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
        let mut d = fresh()?;
        let pb = bar(steps as u64, "sampling x1");
        let run = pool.install(|| {
            closed_loop(
                &model,
                &mut d,
                steps,
                SUBSTEPS,
                &pushes,
                |d| {
                    ps.plan(d, &stage);
                    let mut u = vec![0.0; model.nu];
                    ps.action(d.time, &mut u);
                    Ok(u)
                },
                |_, d| {
                    pb.set_message(format!("z {:+.3} x {:+.2}", d.qpos[1], d.qpos[0]));
                    pb.inc(1)
                },
            )
        })?;
        pb.finish();
        rows.push(Row {
            name: "sampling x1 (32×100)".into(),
            slug: "sampling",
            run,
            costs: vec![],
        });
    }
    // receding-horizon iLQR (one physics step per stage, re-planned every control step)
    for (bounded, name, slug) in [
        (true, "iLQR MPC, box-QP ctrlrange", "ilqr_box"),
        (false, "iLQR MPC, clamped after", "ilqr_clamped"),
    ] {
        if forward_only {
            continue;
        }
        let mut sys = MoreauSystem::new(model.clone())?;
        let mut mpc = hopper_ilqr(&model, &q_stand, vx, bounded);
        // the unconstrained planner's controls are clamped only when applied
        let (lo, hi) = ctrl_bounds(&model);
        let mut costs = vec![];
        let mut d = fresh()?;
        let pb = bar(
            steps as u64,
            if bounded { "iLQR box" } else { "iLQR clamp" },
        );
        let run = closed_loop(
            &model,
            &mut d,
            steps,
            SUBSTEPS,
            &pushes,
            |d| {
                let u = mpc.step(&mut sys, &state_of(d), SUBSTEPS)?;
                let h = &mpc.last_history;
                costs.push((h[0], h[h.len() - 1]));
                Ok((0..u.len()).map(|i| u[i].clamp(lo[i], hi[i])).collect())
            },
            |_, d| {
                pb.set_message(format!("z {:+.3} x {:+.2}", d.qpos[1], d.qpos[0]));
                pb.inc(1)
            },
        );
        pb.finish();
        match run {
            Ok(run) => rows.push(Row {
                name: name.into(),
                slug,
                run,
                costs,
            }),
            Err(e) => eprintln!("{name} failed: {e}"),
        }
    }

    // forward variant: coarser planning model, longer horizon, heavier velocity weight
    {
        let mut pm = model.clone();
        pm.opt.timestep = fwd.plan_dt;
        let shift = ((dt / fwd.plan_dt).round() as usize).max(1);
        let mut sys = MoreauSystem::new(pm.clone())?;
        let mut mpc = hopper_ilqr_forward(&pm, &q_stand, vx, &fwd);
        let mut costs = vec![];
        let mut d = fresh()?;
        let pb = bar(steps as u64, "iLQR forward");
        let name = format!(
            "iLQR MPC forward ({:.0} ms × {}, w_vx {})",
            fwd.plan_dt * 1e3,
            fwd.horizon,
            fwd.wvx
        );
        let run = closed_loop(
            &model,
            &mut d,
            steps,
            SUBSTEPS,
            &pushes,
            |d| {
                let u = mpc.step(&mut sys, &state_of(d), shift)?;
                let h = &mpc.last_history;
                costs.push((h[0], h[h.len() - 1]));
                Ok(u.as_slice().to_vec())
            },
            |_, d| {
                pb.set_message(format!("z {:+.3} x {:+.2}", d.qpos[1], d.qpos[0]));
                pb.inc(1)
            },
        );
        pb.finish();
        match run {
            Ok(run) => rows.push(Row {
                name,
                slug: "ilqr_forward",
                run,
                costs,
            }),
            Err(e) => eprintln!("iLQR forward failed: {e}"),
        }
    }

    let trows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let run = &r.run;
            let zmin = run.qpos.iter().map(|q| q[1]).fold(f64::INFINITY, f64::min);
            let pmax = run.qpos.iter().map(|q| q[2].abs()).fold(0.0, f64::max);
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
                format!("{zmin:+.3}"),
                format!("{:.1}", pmax.to_degrees()),
                format!("{:+.3}", last[0] - run.qpos[0][0]),
                format!("{umax:.3}"),
                format!("{:+.3} / {:+.1}", last[1], last[2].to_degrees()),
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
            ],
            &trows
        )
    );

    std::fs::create_dir_all("target/mpc").map_err(|e| format!("target/mpc: {e}"))?;
    for r in &rows {
        let out = format!("target/mpc/hopper_{}.json", r.slug);
        let json = r.run.trajectory_json(serde_json::json!({
            "model": path,
            "controller": r.name,
            "planner_cost": r.costs.iter().map(|c| [c.0, c.1]).collect::<Vec<_>>(),
            "pushes_at_time": pushes.iter().map(|p| match p {
                Push::Joint { step, .. } | Push::Body { step, .. } => *step as f64 * dt,
            }).collect::<Vec<_>>(),
        }));
        std::fs::write(&out, json.to_string()).map_err(|e| format!("{out}: {e}"))?;
        println!("wrote {out}");
    }
    #[cfg(feature = "plot")]
    plots(&rows, dt).map_err(|e| e.to_string())?;
    #[cfg(not(feature = "plot"))]
    println!("(build with --features plot for PNGs of the trajectories and planner costs)");
    Ok(())
}

#[cfg(feature = "plot")]
fn plots(rows: &[Row], dt: f64) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    plot::init_font();
    let path = "target/mpc/hopper_trajectory.png";
    let runs: Vec<(&str, &[Vec<f64>])> = rows
        .iter()
        .map(|r| (r.name.as_str(), r.run.qpos.as_slice()))
        .collect();
    plot::qpos_panels(
        path,
        (1000, 900),
        &runs,
        dt,
        &[
            ("torso height rootz (m)", 1, 1.0),
            ("pitch (deg)", 2, 180.0 / std::f64::consts::PI),
            ("rootx (m)", 0, 1.0),
        ],
    )?;
    let tmax = dt * rows.iter().map(|r| r.run.qpos.len()).max().unwrap_or(1) as f64;

    let path = "target/mpc/hopper_cost.png";
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let all = rows
        .iter()
        .flat_map(|r| r.costs.iter().flat_map(|c| [c.0, c.1]))
        .filter(|c| *c > 0.0 && c.is_finite());
    let (lo, hi) = all.fold((f64::INFINITY, 0.0f64), |(a, b), c| (a.min(c), b.max(c)));
    if lo.is_finite() && hi > lo {
        let mut ch = ChartBuilder::on(&root)
            .caption(
                "iLQR MPC: planner cost per control step",
                ("sans-serif", 22),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..tmax, (lo * 0.8..hi * 1.2).log_scale())?;
        ch.configure_mesh()
            .x_desc("time (s)")
            .y_desc("horizon cost after the solve")
            .draw()?;
        for (i, r) in rows.iter().enumerate().filter(|(_, r)| !r.costs.is_empty()) {
            let color = Palette99::pick(i).to_rgba();
            ch.draw_series(LineSeries::new(
                r.costs
                    .iter()
                    .enumerate()
                    .map(|(t, c)| (t as f64 * dt, c.1)),
                color.stroke_width(2),
            ))?
            .label(r.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        ch.configure_series_labels().border_style(BLACK).draw()?;
    }
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
