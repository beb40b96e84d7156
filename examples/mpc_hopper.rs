//! A contact task: the planar hopper leg (`models/hopper_leg.xml`, standing keyframe) kept
//! standing under pushes on the torso by MPC through contact — predictive sampling (32 rollouts
//! × 100 steps of 4 ms) and receding-horizon iLQR (transition FD Jacobians through the contact
//! solver) — against zero control.
//!
//! Run: `cargo run --release --example mpc_hopper [-- SECONDS]` (default 3 s). Prints a summary
//! table: real-time factor, planning time per control step (20 ms = 5 physics steps), the
//! lowest torso height and largest pitch.

use moreau_optim::ilqr::QuadraticCost;
use moreau_optim::mpc::{closed_loop, state_of, ClosedLoop, IlqrMpc, MpcOptions, Push};
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

fn run() -> Result<(), String> {
    let secs: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().map_err(|_| format!("bad duration {s}")))
        .transpose()?
        .unwrap_or(3.0);
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
    // stage cost: torso height and pitch at the standing pose, small joint velocities
    let qs = q_stand.clone();
    let stage = move |_: &moreau::Model, d: &moreau::Data| {
        let dz = d.qpos[1] - qs[1];
        let pitch = d.qpos[2] - qs[2];
        let joints: f64 = (3..6).map(|i| (d.qpos[i] - qs[i]).powi(2)).sum();
        let vel: f64 = d.qvel.iter().map(|v| v * v).sum();
        let ctrl: f64 = d.ctrl.iter().map(|u| u * u).sum();
        100.0 * dz * dz + 10.0 * pitch * pitch + joints + 0.01 * vel + 0.01 * ctrl
    };
    let mut rows: Vec<(String, ClosedLoop)> = vec![];

    // zero control
    {
        let mut d = fresh()?;
        let run = closed_loop(
            &model,
            &mut d,
            steps,
            SUBSTEPS,
            &pushes,
            |_| Ok(vec![0.0; 3]),
            |_, _| {},
        )?;
        rows.push(("zero control".into(), run));
    }
    // predictive sampling, one thread
    {
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
                    let mut u = vec![0.0; 3];
                    ps.action(d.time, &mut u);
                    Ok(u)
                },
                |_, d| {
                    pb.set_message(format!("z {:+.3}", d.qpos[1]));
                    pb.inc(1)
                },
            )
        })?;
        pb.finish();
        rows.push(("sampling x1 (32×100)".into(), run));
    }
    // receding-horizon iLQR (one physics step per stage, re-planned every control step)
    {
        let mut sys = MoreauSystem::new(model.clone())?;
        let nx = 2 * model.nv;
        let mut q = vec![0.0; nx];
        q[1] = 100.0;
        q[2] = 10.0;
        for qi in q.iter_mut().take(6).skip(3) {
            *qi = 1.0;
        }
        for qi in q.iter_mut().skip(6) {
            *qi = 0.01;
        }
        let mut xref = DVector::zeros(nx);
        xref.rows_mut(0, 6).copy_from_slice(&q_stand);
        let cost = QuadraticCost {
            q: DMatrix::from_diagonal(&DVector::from_vec(q.clone())),
            r: DMatrix::identity(3, 3) * 0.01,
            qf: DMatrix::from_diagonal(&DVector::from_vec(q)) * 0.1,
            xref,
            dt: model.opt.timestep,
        };
        let mut mpc = IlqrMpc::new(
            3,
            cost,
            MpcOptions {
                horizon: 50,
                iter: 1,
                first_iter: 5,
                bounds: Some((vec![-1.0; 3], vec![1.0; 3])),
            },
        );
        let mut d = fresh()?;
        let pb = bar(steps as u64, "iLQR MPC");
        let run = closed_loop(
            &model,
            &mut d,
            steps,
            SUBSTEPS,
            &pushes,
            |d| {
                Ok(mpc
                    .step(&mut sys, &state_of(d), SUBSTEPS)?
                    .as_slice()
                    .to_vec())
            },
            |_, d| {
                pb.set_message(format!("z {:+.3}", d.qpos[1]));
                pb.inc(1)
            },
        );
        pb.finish();
        match run {
            Ok(run) => rows.push(("iLQR MPC (H=50×4 ms, 1 it)".into(), run)),
            Err(e) => eprintln!("iLQR MPC failed: {e}"),
        }
    }

    let trows: Vec<Vec<String>> = rows
        .iter()
        .map(|(name, r)| {
            let zmin = r.qpos.iter().map(|q| q[1]).fold(f64::INFINITY, f64::min);
            let pmax = r.qpos.iter().map(|q| q[2].abs()).fold(0.0, f64::max);
            let last = r.qpos.last().cloned().unwrap_or_default();
            vec![
                name.clone(),
                format!("{:.2}", r.real_time_factor()),
                format!("{:.3}", r.mean_plan_ms()),
                format!("{zmin:+.3}"),
                format!("{:.1}", pmax.to_degrees()),
                format!("{:+.3} / {:+.1}", last[1], last[2].to_degrees()),
            ]
        })
        .collect();
    println!(
        "\nhopper_leg standing, {secs} s, {} pushes of ±150 N for 4 ms on the torso, control every \
         {:.0} ms (torso rootz at the standing pose {:+.3}):",
        pushes.len(),
        dt * 1e3,
        q_stand[1]
    );
    print!(
        "{}",
        table(
            &[
                "controller",
                "real-time factor",
                "ms / control step",
                "min rootz",
                "max |pitch| (deg)",
                "final rootz / pitch",
            ],
            &trows
        )
    );
    Ok(())
}
