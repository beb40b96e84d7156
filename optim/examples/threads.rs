//! The thread speed-up of the optimizers' parallel parts at 1 and 2 threads (the shared
//! mechanism, `moreau_optim::threads`): predictive sampling's candidate rollouts, the columns
//! of one `mjd_transitionFD` (`FdWorkspace::transition_on`), iLQR's
//! per-knot transition Jacobians (finite differences and analytic), collocation's per-knot
//! inverse-dynamics Jacobians, the rollout fit's
//! Jacobian columns (with its serial Levenberg–Marquardt steps) and batch stepping.
//!
//! Wall time on a shared machine measures the load as much as the code, so the figures are
//! CPU times of the threads (Linux `/proc/self/task/*/schedstat`, nanoseconds on CPU), best
//! of `--repeat` runs: `T1` the calling thread's CPU time at one thread; at two threads `Ts`
//! the calling thread's (the serial part: the parallel part runs on the pool) and `Tw` the
//! busiest pool thread's. Amdahl's parallel fraction is `p = 1 − Ts/T1`, the speed-up on two
//! free cores `S = T1 / (Ts + Tw)` (its fraction `p_S = 2 (1 − 1/S)` is below `p` by the
//! imbalance and the pool's overhead), and `S_wall` the wall-time ratio on this machine as
//! loaded. Every run's result is checked bit-identical to the 1-thread one.
//!
//! `--model PATH` runs the rows that take any model (sampling, FD columns, iLQR knots, batch
//! stepping) on that model instead of the humanoid, from its keyframe 0 if it has one.
//! `--only TEXT` keeps the rows whose name contains TEXT; `--nthread N` makes one run of each
//! at N threads and no comparison: the form `tools/bench/threads_amdahl.py` runs under
//! `valgrind --tool=callgrind --separate-threads=yes --zero-before='*threads_measured*'` for
//! the parallel fraction by instructions (the calling thread's count at 2 threads is the serial
//! part). Each measurement makes enough runs of the workload for about 0.1 s of CPU at one
//! thread ("runs"); the times are per run.
//!
//! `cargo run --release -p moreau-optim --example threads -- [--repeat N] [--model PATH]
//! [--only TEXT] [--nthread N]`

use moreau::{Data, Model};
use moreau_derivatives::fd::{FdThreads, FdWorkspace};
use moreau_optim::batch::Batch;
use moreau_optim::ilqr::Dynamics;
use moreau_optim::sampling::{PredictiveSampling, SamplingOptions};
use moreau_optim::sysid::{self, fit_rollout_on};
use moreau_optim::system::MoreauSystem;
use moreau_optim::threads::Threads;
use moreau_problems::{ball_push, cartpole_sysid, contact_provider};
use nalgebra::{DMatrix, DVector};
use std::time::Instant;

fn model(name: &str) -> Model {
    let path = format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    moreau::load(&path).unwrap_or_else(|e| panic!("{path}: {e:?}"))
}

fn bits(xs: &[f64]) -> Vec<u64> {
    xs.iter().map(|v| v.to_bits()).collect()
}

/// Nanoseconds on CPU of every thread of the process, by thread id.
fn thread_cpu() -> Vec<(u64, u64)> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let e = e.ok()?;
        let tid = e.file_name().to_str()?.parse().ok()?;
        let s = std::fs::read_to_string(e.path().join("schedstat")).ok()?;
        Some((tid, s.split_whitespace().next()?.parse().ok()?))
    })
    .collect()
}

/// The calling thread's id.
fn own_tid() -> u64 {
    std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name()?.to_str()?.parse().ok())
        .unwrap_or(0)
}

/// The measured call, `reps` runs of the workload, every run's result in order (its own
/// symbol, for callgrind's `--zero-before`/`--dump-after`).
#[inline(never)]
fn threads_measured(run: &mut dyn FnMut() -> Vec<u64>, reps: usize) -> Vec<u64> {
    (0..reps).flat_map(|_| run()).collect()
}

/// The calling thread's CPU seconds by its own clock (`CLOCK_THREAD_CPUTIME_ID`, which counts
/// the running slice; schedstat lags it by up to a scheduler tick while the thread runs).
fn caller_cpu() -> f64 {
    moreau::pipeline::thread_cpu_us().map_or(0.0, |us| us * 1e-6)
}

/// One measured run: (wall s, caller CPU s, busiest other thread's CPU s).
fn measure(run: &mut dyn FnMut() -> Vec<u64>, reps: usize) -> ((f64, f64, f64), Vec<u64>) {
    let me = own_tid();
    let before = thread_cpu();
    let c0 = caller_cpu();
    let t = Instant::now();
    let out = threads_measured(run, reps);
    let wall = t.elapsed().as_secs_f64();
    let c1 = caller_cpu();
    let after = thread_cpu();
    let delta = |tid: u64, ns: u64| {
        let b = before.iter().find(|(t, _)| *t == tid).map_or(0, |x| x.1);
        ns.saturating_sub(b) as f64 * 1e-9
    };
    let caller = c1 - c0;
    let worker = after
        .iter()
        .filter(|(t, _)| *t != me)
        .map(|&(t, ns)| delta(t, ns))
        .fold(0.0, f64::max);
    ((wall, caller, worker), out)
}

/// The best of `repeat` runs of the workload set up by `setup(nthread)` (the set-up, pools
/// included, is not timed), and every run's result (a planner's runs go on from each other).
fn best<'a>(
    repeat: usize,
    nthread: usize,
    reps: usize,
    setup: &dyn Fn(usize) -> Box<dyn FnMut() -> Vec<u64> + 'a>,
) -> ((f64, f64, f64), Vec<Vec<u64>>) {
    let mut run = setup(nthread);
    let mut best = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    let mut out = Vec::new();
    for _ in 0..repeat {
        let ((w, c, k), r) = measure(&mut *run, reps);
        best.0 = best.0.min(w);
        if c + k < best.1 + best.2 {
            (best.1, best.2) = (c, k);
        }
        out.push(r);
    }
    (best, out)
}

/// The model's start: `qpos0`, or with `key` keyframe 0 if it has one; `qvel[0] = v0`.
fn initial_state(m: &Model, key: bool, v0: f64) -> Data {
    let mut d = Data::new(m);
    if key && m.nkey > 0 {
        let _ = d.reset_keyframe(m, 0);
    }
    if m.nv > 0 {
        d.qvel[0] = v0;
    }
    d
}

/// Knots of a trajectory (the humanoid's falls onto the floor) under deterministic controls.
fn humanoid_knots(m: &Model, key: bool, n: usize) -> (Vec<DVector<f64>>, Vec<DVector<f64>>) {
    let mut d = initial_state(m, key, 0.4);
    let state = |d: &Data| {
        DVector::from_iterator(
            m.nq + m.nv + m.na,
            d.qpos.iter().chain(&d.qvel).chain(&d.act).copied(),
        )
    };
    let (mut xs, mut us) = (Vec::new(), Vec::new());
    for t in 0..n {
        xs.push(state(&d));
        let u = DVector::from_fn(m.nu, |i, _| {
            let r = m.actuator_ctrlrange[i];
            let u = (0.37 * (t * m.nu + i) as f64).sin() * 0.4;
            if m.actuator_ctrllimited[i] {
                u.clamp(r[0], r[1])
            } else {
                u
            }
        });
        d.ctrl.copy_from_slice(u.as_slice());
        for _ in 0..4 {
            moreau::step(m, &mut d);
        }
        us.push(u);
    }
    xs.push(state(&d));
    (xs, us)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let repeat = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse::<usize>().map_err(|e| format!("--repeat: {e}")))
        .transpose()?
        .unwrap_or(3)
        .max(1);
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .map(|i| args.get(i + 1).cloned().ok_or(format!("{name}: a value")))
            .transpose()
    };
    let only = arg("--only")?;
    let single = arg("--nthread")?
        .map(|s| s.parse::<usize>().map_err(|e| format!("--nthread: {e}")))
        .transpose()?;
    let (humanoid, label) = match arg("--model")? {
        Some(path) => {
            let m = moreau::load(&path).map_err(|e| format!("{path}: {e}"))?;
            let name = std::path::Path::new(&path)
                .components()
                .rev()
                .take(2)
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>();
            (m, format!("{}/{}", name[1..].join("/"), name[0]))
        }
        None => (model("humanoid"), "humanoid".to_string()),
    };
    // the default humanoid from qpos0 (as before --model); other models from keyframe 0
    let key = label != "humanoid";
    let (xs, us) = humanoid_knots(&humanoid, key, 32);

    let sampling = |nthread: usize| -> Box<dyn FnMut() -> Vec<u64> + '_> {
        let opt = SamplingOptions {
            rollouts: 32,
            steps: 100,
            knots: 10,
            seed: 5,
            ..Default::default()
        };
        let mut ps = PredictiveSampling::new(humanoid.clone(), opt).unwrap();
        ps.set_threads(nthread).unwrap();
        let d = initial_state(&humanoid, key, 0.5);
        let z = 2.min(humanoid.nq.saturating_sub(1));
        Box::new(move || {
            ps.plan(&d, &|_: &Model, d: &Data| d.qpos[z].powi(2));
            bits(ps.costs())
        })
    };
    let knots = |analytic: bool| {
        let (m, xs, us) = (&humanoid, &xs, &us);
        move |nthread: usize| -> Box<dyn FnMut() -> Vec<u64> + '_> {
            let mut s = MoreauSystem::new(m.clone()).unwrap();
            if analytic {
                s = s.analytic().unwrap();
            }
            s.set_threads(nthread).unwrap();
            let (ndx, nu) = (s.ndx(), s.nu());
            let mut a = vec![DMatrix::zeros(ndx, ndx); us.len()];
            let mut b = vec![DMatrix::zeros(ndx, nu); us.len()];
            Box::new(move || {
                s.jacobians_all(xs, us, &mut a, &mut b).unwrap();
                a.iter()
                    .chain(&b)
                    .flat_map(|m| bits(m.as_slice()))
                    .collect()
            })
        }
    };
    let p = cartpole_sysid()?;
    let log = p.rollout_log(vec![0.0, 0.4], vec![0.0, 0.0], 2000);
    let start: Vec<f64> = p
        .params
        .iter()
        .map(|q| sysid::get(&p.nominal, *q))
        .collect();
    let bounds = vec![[0.0, 10.0]; start.len()];
    let fit = |nthread: usize| -> Box<dyn FnMut() -> Vec<u64> + '_> {
        let threads = Threads::new(nthread).unwrap();
        let (p, log, start, bounds) = (&p, &log, &start, &bounds);
        Box::new(move || {
            let f = fit_rollout_on(
                &threads,
                &p.nominal,
                &p.params,
                log,
                start,
                bounds,
                3,
                |_, _| {},
            )
            .unwrap();
            bits(&f.estimate)
        })
    };
    let collocation = |fd: bool| {
        move |nthread: usize| -> Box<dyn FnMut() -> Vec<u64>> {
            let p = ball_push(60, 0.3).unwrap();
            let mut c = p.collocation;
            if fd {
                c.set_jacobian_provider(contact_provider());
            }
            c.set_threads(nthread).unwrap();
            let z = p.z0;
            let ev = c.evaluate(&z);
            let mut blocks = Vec::new();
            Box::new(move || {
                c.jacobian_into(&z, &ev, &mut blocks);
                blocks.iter().flat_map(|b| bits(b.mat.as_slice())).collect()
            })
        }
    };
    let fd_columns = |nthread: usize| -> Box<dyn FnMut() -> Vec<u64> + '_> {
        let m = &humanoid;
        let mut d = initial_state(m, key, 0.4);
        // at contact (where the model has any within 2000 steps)
        for _ in 0..2000 {
            if !d.contact.is_empty() {
                break;
            }
            moreau::step(m, &mut d);
        }
        let mut ws = FdWorkspace::new(m);
        let mut pool = FdThreads::new(nthread).unwrap();
        Box::new(move || {
            let j = ws.transition_on(&mut pool, m, &mut d, 1e-6, true);
            [&j.A, &j.B, &j.C, &j.D]
                .iter()
                .flat_map(|x| bits(x.as_slice()))
                .collect()
        })
    };
    let batch = |nthread: usize| -> Box<dyn FnMut() -> Vec<u64> + '_> {
        let mut b = Batch::new(humanoid.clone(), 64, nthread, false).unwrap();
        let rows = b.state().to_vec();
        let (off, _) = b.component(moreau::state_bits::QVEL).unwrap();
        Box::new(move || {
            b.state_mut().copy_from_slice(&rows);
            for i in 0..64 {
                b.row_mut(i)[off] = 0.01 * i as f64;
            }
            b.step(None, 100).unwrap();
            bits(b.state())
        })
    };

    println!(
        "{:<46} {:>5} {:>8} {:>8} {:>8} {:>6} {:>6} {:>6} {:>7}",
        "workload (CPU s per run)", "runs", "T1", "Ts", "Tw", "p", "S", "p_S", "S_wall"
    );
    let (fd, analytic) = (knots(false), knots(true));
    let (col_fd, col_analytic) = (collocation(true), collocation(false));
    type Setup<'a> = &'a dyn Fn(usize) -> Box<dyn FnMut() -> Vec<u64> + 'a>;
    let names = [
        format!("sampling: {label}, 32 candidates x 100 steps"),
        format!("FD transition columns: {label} at contact"),
        format!("iLQR knots: {label}, 32 FD (centered)"),
        format!("iLQR knots: {label}, 32 analytic"),
        "collocation knots: ball push, 60 FD".to_string(),
        "collocation knots: ball push, 60 analytic".to_string(),
        "rollout fit: cart-pole, 6 params, 3 LM iters".to_string(),
        format!("Batch::step: {label}, 64 sims x 100 steps"),
    ];
    let setups: [Setup<'_>; 8] = [
        &sampling,
        &fd_columns,
        &fd,
        &analytic,
        &col_fd,
        &col_analytic,
        &fit,
        &batch,
    ];
    // the fixed problems (ball push, cart-pole) only for the default model
    let fixed = label != "humanoid";
    let rows: Vec<(&str, Setup<'_>)> = names
        .iter()
        .zip(setups)
        .filter(|(n, _)| !(fixed && (n.contains("ball push") || n.contains("cart-pole"))))
        .filter(|(n, _)| only.as_ref().is_none_or(|o| n.contains(o.as_str())))
        .map(|(n, s)| (n.as_str(), s))
        .collect();
    for (name, setup) in rows {
        if let Some(n) = single {
            let ((w, c, k), _) = best(1, n, 1, setup);
            println!(
                "{name:<46} {n} threads: caller {c:.4} s, busiest other {k:.4} s, wall {w:.4} s"
            );
            continue;
        }
        // enough runs per measurement for about 0.1 s of CPU at one thread
        let once = {
            let mut run = setup(1);
            let c = caller_cpu();
            run();
            caller_cpu() - c
        };
        let reps = ((0.1 / once.max(1e-6)).ceil() as usize).clamp(1, 1000);
        let ((w1, t1, _), r1) = best(repeat, 1, reps, setup);
        let ((w2, ts, tw), r2) = best(repeat, 2, reps, setup);
        assert_eq!(r1, r2, "{name}: 2 threads changed the result");
        let (t1, ts, tw) = (t1 / reps as f64, ts / reps as f64, tw / reps as f64);
        let p = 1.0 - ts / t1;
        let s = t1 / (ts + tw);
        let ps = 2.0 * (1.0 - 1.0 / s);
        println!(
            "{name:<46} {reps:>5} {t1:>8.5} {ts:>8.5} {tw:>8.5} {p:>6.3} {s:>6.3} {ps:>6.3} {:>7.3}",
            w1 / w2
        );
    }
    Ok(())
}
