//! The swing-up benchmark of docs/optimization.md#swing-up against Crocoddyl's FDDP, measured in
//! the same run: cart-pole and acrobot, dt 0.01, 200 knots, start hanging, semi-implicit Euler,
//! cost Σ dt·[½ΔxᵀQΔx + ½R u²] + ½Δx_NᵀQfΔx_N, zero-control initial guess.
//!
//! Run: `cargo run --release -p moreau-optim --example peer_swingup [-- cartpole|acrobot] [--repeat N]
//! [--crocoddyl] [--fd] [--no-ilqr]`. Times moreau's direct collocation (GN/LM, analytic
//! inverse-dynamics Jacobians; `--fd`: finite differences) and iLQR (engine step; `--no-ilqr`
//! skips it) `N` times each (default 10; min and median wall time of the solve, single thread). With `--crocoddyl`
//! each repeat also runs one Crocoddyl FDDP solve by `python3 tools/bench/crocoddyl_swingup.py`
//! (needs `pip install crocoddyl==3.2.1 pin==4.0.0 libpinocchio==4.0.0 mujoco==4.0.0`) on the
//! same MJCF models, interleaved with moreau's solves, and prints the ratio moreau / Crocoddyl
//! for every moreau method that reaches Crocoddyl's optimum (relative cost difference ≤ 1e-4).
//! The cart-pole's Crocoddyl actuation is a Python class (see the script): its time includes
//! Python callbacks, so the acrobot is the like-for-like comparison.

use moreau_optim::collocation::FiniteDifference;
use moreau_optim::lm::{solve_lm, LevenbergMarquardt};
use moreau_optim::progress::{cpu_ms_since, table, thread_cpu_ms};
use moreau_problems::{swingup, SWINGUP_PENALTY};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("peer_swingup: {e}");
        std::process::exit(1);
    }
}

struct Timing {
    method: String,
    iters: u64,
    cost: f64,
    min_ms: f64,
    med_ms: f64,
    cpu_min: f64,
    cpu_med: f64,
}

fn stats(mut t: Vec<f64>) -> (f64, f64) {
    t.sort_by(f64::total_cmp);
    (t[0], t[t.len() / 2])
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 10usize;
    if let Some(i) = args.iter().position(|a| a == "--repeat") {
        repeat = args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .filter(|&n| n > 0)
            .ok_or("--repeat needs a positive integer")?;
    }
    let croc = args.iter().any(|a| a == "--crocoddyl");
    let fd = args.iter().any(|a| a == "--fd");
    let run_ilqr = !args.iter().any(|a| a == "--no-ilqr");
    let names: Vec<&str> = match args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--repeat"))
    {
        Some((_, n)) => vec![n.as_str()],
        None => vec!["cartpole", "acrobot"],
    };
    let mut body = vec![];
    for name in names {
        let p = swingup(name)?;

        // Interleaved: each repeat runs the collocation, iLQR and (with --crocoddyl) one
        // Crocoddyl solve, so that load changes on the machine hit all three alike.
        let (mut tc, mut ti, mut tp) = (vec![], vec![], vec![]);
        let (mut cc, mut ci, mut cp) = (vec![], vec![], vec![]);
        let (mut last_c, mut last_i, mut last_p) = (None, None, None);
        for _ in 0..repeat {
            // Direct collocation, GN/LM (same settings as the trajopt example).
            let c = p.collocation(SWINGUP_PENALTY)?;
            if fd {
                c.set_jacobian_provider(Box::new(FiniteDifference::default()));
            }
            let z0 = c.initial_guess();
            let (t0, c0) = (Instant::now(), thread_cpu_ms());
            let (_, res) = solve_lm(c, z0, LevenbergMarquardt::default(), 300, |e| e)
                .map_err(|e| e.to_string())?;
            tc.push(t0.elapsed().as_secs_f64() * 1e3);
            cc.push(cpu_ms_since(c0));
            if !res.converged {
                return Err(format!("{name}: collocation did not converge"));
            }
            last_c = Some(res);

            // iLQR on the engine's step (transition Jacobians by centered FD).
            if !run_ilqr {
                continue_croc(name, croc, &mut tp, &mut cp, &mut last_p)?;
                continue;
            }
            let (t0, c0) = (Instant::now(), thread_cpu_ms());
            let (_, ri) = p.solve_ilqr(|_, _| {})?;
            ti.push(t0.elapsed().as_secs_f64() * 1e3);
            ci.push(cpu_ms_since(c0));
            if !ri.converged {
                return Err(format!("{name}: iLQR did not converge"));
            }
            last_i = Some(ri);

            continue_croc(name, croc, &mut tp, &mut cp, &mut last_p)?;
        }
        let res = last_c.ok_or("no run")?;
        let (min_ms, med_ms) = stats(tc);
        let (cpu_min, cpu_med) = stats(cc);
        let mut rows = vec![Timing {
            method: format!("collocation GN/LM ({})", if fd { "FD" } else { "analytic" }),
            iters: res.iterations,
            cost: res.eval.cost(),
            min_ms,
            med_ms,
            cpu_min,
            cpu_med,
        }];
        if let Some(ri) = last_i {
            let (min_ms, med_ms) = stats(ti);
            let (cpu_min, cpu_med) = stats(ci);
            rows.push(Timing {
                method: "iLQR (engine step)".into(),
                iters: ri.iterations as u64,
                cost: *ri.cost_history.last().unwrap_or(&f64::NAN),
                min_ms,
                med_ms,
                cpu_min,
                cpu_med,
            });
        }
        let peer = match last_p {
            Some(c) => {
                let (min_ms, med_ms) = stats(tp);
                let (cpu_min, cpu_med) = stats(cp);
                Some(Peer {
                    min_ms,
                    med_ms,
                    cpu_min,
                    cpu_med,
                    ..c
                })
            }
            None => None,
        };
        for r in &rows {
            let ratio = |c: &Peer| {
                if (r.cost - c.cost).abs() <= 1e-4 * c.cost {
                    [
                        format!("{:.3} / {:.3}", r.min_ms / c.min_ms, r.med_ms / c.med_ms),
                        format!(
                            "{:.3} / {:.3}",
                            r.cpu_min / c.cpu_min,
                            r.cpu_med / c.cpu_med
                        ),
                    ]
                } else {
                    ["other optimum".into(), "other optimum".into()]
                }
            };
            let [rw, rc] = peer.as_ref().map_or(["-".into(), "-".into()], ratio);
            body.push(vec![
                name.to_string(),
                r.method.clone(),
                r.iters.to_string(),
                format!("{:.6}", r.cost),
                format!("{:.1} / {:.1}", r.min_ms, r.med_ms),
                format!("{:.1} / {:.1}", r.cpu_min, r.cpu_med),
                rw,
                rc,
            ]);
        }
        if let Some(c) = peer {
            body.push(vec![
                name.to_string(),
                format!("Crocoddyl 3.2.1 FDDP{}", c.note),
                c.iters.to_string(),
                format!("{:.6}", c.cost),
                format!("{:.1} / {:.1}", c.min_ms, c.med_ms),
                format!("{:.1} / {:.1}", c.cpu_min, c.cpu_med),
                "1".into(),
                "1".into(),
            ]);
        }
    }
    println!(
        "{}",
        table(
            &[
                "problem",
                "method",
                "iterations",
                "cost",
                "wall ms (min / median)",
                "CPU ms (min / median)",
                "ratio to Crocoddyl, wall",
                "ratio to Crocoddyl, CPU",
            ],
            &body,
        )
    );
    Ok(())
}

/// With `--crocoddyl`, one Crocoddyl solve into the timings.
fn continue_croc(
    name: &str,
    croc: bool,
    tp: &mut Vec<f64>,
    cp: &mut Vec<f64>,
    last: &mut Option<Peer>,
) -> Result<(), String> {
    if croc {
        let c = crocoddyl(name)?;
        tp.push(c.ms);
        cp.push(c.cpu_ms);
        *last = Some(c);
    }
    Ok(())
}

struct Peer {
    cost: f64,
    iters: u64,
    /// Wall and CPU time of the last solve.
    ms: f64,
    cpu_ms: f64,
    min_ms: f64,
    med_ms: f64,
    cpu_min: f64,
    cpu_med: f64,
    note: &'static str,
}

/// One Crocoddyl solve (the script's timer wraps `solve` only, not Python's start-up).
fn crocoddyl(name: &str) -> Result<Peer, String> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tools/bench/crocoddyl_swingup.py"
    );
    let out = std::process::Command::new("python3")
        .args([script, name, "--repeat", "1"])
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{script} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .last()
        .ok_or("crocoddyl script printed nothing")?;
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("crocoddyl output: {e}"))?;
    let f = |k: &str| {
        v.get(k)
            .and_then(|x| x.as_f64())
            .ok_or(format!("crocoddyl output lacks {k}"))
    };
    if f("dyn_err")? > 1e-9 {
        return Err(format!(
            "Pinocchio's dynamics differ from MuJoCo's by {}",
            f("dyn_err")?
        ));
    }
    Ok(Peer {
        cost: f("cost")?,
        iters: f("iterations")? as u64,
        ms: f("ms")?,
        cpu_ms: f("cpu_ms")?,
        min_ms: f("ms")?,
        med_ms: f("ms")?,
        cpu_min: f("cpu_ms")?,
        cpu_med: f("cpu_ms")?,
        note: if name == "cartpole" {
            " (Python actuation)"
        } else {
            ""
        },
    })
}
