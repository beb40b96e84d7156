//! Cart-pole kept upright under random pushes by MPC: predictive sampling (32 rollouts × 100
//! steps per 10 ms control step, the benchmark of docs/optimization.md; MuJoCo: 17.6 ms
//! per control step) on one thread and on all threads, and receding-horizon iLQR (transition FD
//! Jacobians, warm-started by shifting).
//!
//! Run: `cargo run --release -p moreau-optim --example mpc_cartpole [-- SECONDS]` (default 5 s of simulated
//! time). Prints a summary table: real-time factor (simulated / wall time), mean planning time
//! per control step, the largest pole angle after the first push and the final state. Writes
//! each closed loop as `target/mpc/cartpole_<name>.json` (`moreau simulate`'s format plus
//! `ctrl`; `moreau replay` re-runs it up to the first push) and, with `--features plot`, PNGs of
//! the pole angle and of iLQR's planner cost per control step.

#[path = "common/page.rs"]
mod page;

#[cfg(feature = "plot")]
#[path = "common/plot.rs"]
#[allow(dead_code)]
mod plot;

#[path = "common/mpc_report.rs"]
mod report;

use moreau_optim::ilqr::QuadraticCost;
use moreau_optim::mpc::{closed_loop, IlqrMpc, MpcOptions, Push};
use moreau_optim::progress::table;
use moreau_optim::sampling::{Gaussian, PredictiveSampling, SamplingOptions};
use moreau_optim::system::MoreauSystem;
use nalgebra::{DMatrix, DVector};
use report::{with_bar, Row};

fn main() {
    if let Err(e) = run() {
        eprintln!("mpc_cartpole: {e}");
        std::process::exit(1);
    }
}

/// Stage weights on (x, θ, ẋ, θ̇) and the control.
const Q: [f64; 4] = [1.0, 10.0, 0.1, 0.1];
const R: f64 = 0.01;

fn pushes(m: &moreau::Model, steps: usize, seed: u64) -> Vec<Push> {
    let pole = m.body_id("pole").unwrap_or(2);
    let mut g = Gaussian::new(seed);
    let mut out = vec![];
    // one push per second, alternating hinge torque impulses and horizontal forces on the pole
    for (i, k) in (50..steps).step_by(100).enumerate() {
        let sign = if g.uniform() < 0.5 { -1.0 } else { 1.0 };
        let mag = 0.5 + 0.5 * g.uniform();
        out.push(if i % 2 == 0 {
            Push::Joint {
                step: k,
                dof: 1,
                force: sign * 2.0 * mag,
            }
        } else {
            Push::Body {
                step: k,
                body: pole,
                wrench: [sign * 8.0 * mag, 0.0, 0.0, 0.0, 0.0, 0.0],
            }
        });
    }
    out
}

fn run() -> Result<(), String> {
    let secs: f64 = std::env::args()
        .skip(1)
        .find(|a| !a.ends_with(".png"))
        .map(|s| s.parse().map_err(|_| format!("bad duration {s}")))
        .transpose()?
        .unwrap_or(5.0);
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../models/cartpole_swingup.xml"
    );
    let model = moreau::load(path).map_err(|e| e.to_string())?;
    let dt = model.opt.timestep;
    let steps = (secs / dt).round() as usize;
    let pushes = pushes(&model, steps, 7);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let msg = |d: &moreau::Data| format!("θ {:+.3}", d.qpos[1]);
    let mut rows = vec![];

    let stage = |_: &moreau::Model, d: &moreau::Data| {
        let x = [d.qpos[0], d.qpos[1], d.qvel[0], d.qvel[1]];
        0.5 * (x.iter().zip(Q).map(|(v, w)| w * v * v).sum::<f64>() + R * d.ctrl[0] * d.ctrl[0])
    };

    // Predictive sampling on 1 and on all threads.
    for nthreads in [1, threads] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(nthreads)
            .build()
            .map_err(|e| e.to_string())?;
        let opt = SamplingOptions {
            rollouts: 32,
            steps: 100,
            knots: 10,
            sigma: 2.0,
            ..Default::default()
        };
        let mut ps = PredictiveSampling::new(model.clone(), opt)?;
        let mut d = moreau::Data::new(&model);
        let label = format!("sampling x{nthreads}");
        let run = with_bar(steps, &label, msg, |on_step| {
            pool.install(|| {
                closed_loop(
                    &model,
                    &mut d,
                    steps,
                    1,
                    &pushes,
                    |d| Ok(ps.control(d, &stage).0),
                    on_step,
                )
            })
        })?;
        rows.push(Row {
            slug: format!("sampling_x{nthreads}"),
            name: label,
            run,
            costs: vec![],
        });
    }

    // Receding-horizon iLQR, 0.5 s horizon, 1 iteration per control step.
    {
        let mut sys = MoreauSystem::new(model.clone())?;
        let cost = QuadraticCost {
            q: DMatrix::from_diagonal(&DVector::from_column_slice(&Q)),
            r: DMatrix::from_element(1, 1, R),
            qf: DMatrix::from_diagonal(&DVector::from_column_slice(&Q)) * 10.0,
            xref: DVector::zeros(4),
            dt,
        };
        let mut mpc = IlqrMpc::new(
            1,
            cost,
            MpcOptions {
                horizon: 50,
                iter: 1,
                first_iter: 10,
                bounds: None,
            },
        );
        let mut d = moreau::Data::new(&model);
        let mut costs = vec![];
        let run = with_bar(steps, "iLQR MPC", msg, |on_step| {
            closed_loop(
                &model,
                &mut d,
                steps,
                1,
                &pushes,
                |d| {
                    let u = mpc.control(&mut sys, d, 1)?;
                    costs.push(mpc.last_costs());
                    Ok(u)
                },
                on_step,
            )
        })?;
        let run = moreau_optim::mpc::ClosedLoop {
            fallbacks: mpc.fallbacks,
            ..run
        };
        rows.push(Row {
            name: "iLQR MPC (H=50, 1 it)".into(),
            slug: "ilqr".into(),
            run,
            costs,
        });
    }

    let first = pushes.first().map_or(0, |p| match p {
        Push::Joint { step, .. } | Push::Body { step, .. } => *step,
    });
    let table_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let max_theta = r.run.qpos[first..]
                .iter()
                .map(|q| q[1].abs())
                .fold(0.0, f64::max);
            let last = r.run.qpos.last().cloned().unwrap_or_default();
            vec![
                r.name.clone(),
                format!("{:.2}", r.run.real_time_factor()),
                r.run
                    .cpu_real_time_factor()
                    .map_or("-".into(), |f| format!("{f:.2}")),
                format!("{:.3}", r.run.mean_plan_ms()),
                r.run.cpu.map_or("-".into(), |c| {
                    format!("{:.3}", 1e3 * c / r.run.plan_secs.len().max(1) as f64)
                }),
                format!("{:.1}", 17.6 / r.run.mean_plan_ms()),
                format!("{:.3}", max_theta.to_degrees()),
                format!("{:+.3} / {:+.3}", last[0], last[1].to_degrees()),
            ]
        })
        .collect();
    println!(
        "\ncart-pole balance, {secs} s simulated, {} pushes, dt {dt}, control every step:",
        pushes.len()
    );
    print!(
        "{}",
        table(
            &[
                "planner",
                "real-time factor (wall)",
                "real-time factor (CPU, all threads)",
                "wall ms / control step",
                "CPU ms / control step",
                "speed-up vs MuJoCo 17.6 ms (wall)",
                "max |θ| after push (deg)",
                "final x / θ (deg)",
            ],
            &table_rows
        )
    );
    println!(
        "(sampling: 32 rollouts × 100 steps per control step; iLQR: 50-step horizon, FD \
         transition Jacobians; the speed-up column applies to the sampling rows; CPU: process \
         user + system time over the loop, plant included, 10 ms resolution)"
    );
    report::write_json(
        "cartpole",
        path,
        report::json_rows(&rows),
        &serde_json::json!({}),
    )?;
    #[cfg(feature = "plot")]
    plots(&rows, dt).map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(feature = "plot")]
fn plots(rows: &[Row], dt: f64) -> Result<(), Box<dyn std::error::Error>> {
    plot::init_font();
    let path = "target/mpc/cartpole_trajectory.png";
    let m = moreau::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../models/cartpole_swingup.xml"
    ))?;
    let runs: Vec<plot::Run> = rows
        .iter()
        .map(|r| report::closed_loop_run(&m, &r.name, &r.run))
        .collect();
    plot::figure(
        path,
        1000,
        "cart-pole MPC: closed loops",
        &runs,
        dt,
        &[
            ("pole angle (deg)", 1, 180.0 / std::f64::consts::PI),
            ("cart x (m)", 0, 1.0),
        ],
        &m.actuator_name,
        plot::ctrl_unit(&m),
    )?;
    let tmax = dt * rows.iter().map(|r| r.run.qpos.len()).max().unwrap_or(1) as f64;
    let costs: Vec<(f64, f64)> = rows.iter().flat_map(|r| r.costs.clone()).collect();
    report::cost_chart(
        "target/mpc/cartpole_cost.png",
        "iLQR MPC: planner cost before / after each solve",
        "horizon cost",
        dt,
        tmax,
        &[
            ("before".into(), costs.iter().map(|c| c.0).collect()),
            ("after".into(), costs.iter().map(|c| c.1).collect()),
        ],
    )
}
