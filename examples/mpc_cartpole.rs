//! Cart-pole kept upright under random pushes by MPC: predictive sampling (32 rollouts × 100
//! steps per 10 ms control step, the benchmark of `../shared/notes/targets.md`; MuJoCo: 17.6 ms
//! per control step) on one thread and on all threads, and receding-horizon iLQR (transition FD
//! Jacobians, warm-started by shifting).
//!
//! Run: `cargo run --release --example mpc_cartpole [-- SECONDS]` (default 5 s of simulated
//! time). Prints a summary table: real-time factor (simulated / wall time), mean planning time
//! per control step, the largest pole angle after the first push and the final state.

use moreau_optim::ilqr::QuadraticCost;
use moreau_optim::mpc::{closed_loop, state_of, ClosedLoop, IlqrMpc, MpcOptions, Push};
use moreau_optim::progress::{bar, table};
use moreau_optim::sampling::{Gaussian, PredictiveSampling, SamplingOptions};
use moreau_optim::system::MoreauSystem;
use nalgebra::{DMatrix, DVector};

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

struct Row {
    name: String,
    run: ClosedLoop,
}

fn run() -> Result<(), String> {
    let secs: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().map_err(|_| format!("bad duration {s}")))
        .transpose()?
        .unwrap_or(5.0);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/models/cartpole_swingup.xml");
    let model = moreau::mjcf::load(path).map_err(|e| e.to_string())?;
    let dt = model.opt.timestep;
    let steps = (secs / dt).round() as usize;
    let pushes = pushes(&model, steps, 7);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
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
        let pb = bar(steps as u64, &label);
        let run = pool.install(|| {
            closed_loop(
                &model,
                &mut d,
                steps,
                1,
                &pushes,
                |d| {
                    ps.plan(d, &stage);
                    let mut u = vec![0.0; model.nu];
                    ps.action(d.time, &mut u);
                    Ok(u)
                },
                |_, d| {
                    pb.set_message(format!("θ {:+.3}", d.qpos[1]));
                    pb.inc(1)
                },
            )
        })?;
        pb.finish();
        rows.push(Row { name: label, run });
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
        let pb = bar(steps as u64, "iLQR MPC");
        let run = closed_loop(
            &model,
            &mut d,
            steps,
            1,
            &pushes,
            |d| Ok(mpc.step(&mut sys, &state_of(d), 1)?.as_slice().to_vec()),
            |_, d| {
                pb.set_message(format!("θ {:+.3}", d.qpos[1]));
                pb.inc(1)
            },
        )?;
        pb.finish();
        rows.push(Row {
            name: "iLQR MPC (H=50, 1 it)".into(),
            run,
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
                format!("{:.3}", r.run.mean_plan_ms()),
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
                "real-time factor",
                "ms / control step",
                "speed-up vs MuJoCo 17.6 ms",
                "max |θ| after push (deg)",
                "final x / θ (deg)",
            ],
            &table_rows
        )
    );
    println!(
        "(sampling: 32 rollouts × 100 steps per control step; iLQR: 50-step horizon, FD \
         transition Jacobians; the speed-up column applies to the sampling rows)"
    );
    Ok(())
}
