//! Cart-pole swing-up by iLQR on moreau's dynamics (the benchmark problem of
//! docs/optimization.md#swing-up: dt 0.01, 200 knots, start hanging, zero-control initial guess).
//!
//! Run: `cargo run --release -p moreau-optim --example swingup [-- OUT.json]`. Prints the cost per iteration, the
//! solve time, and writes the optimized trajectory in the JSON format of `moreau simulate`.

#[path = "common/page.rs"]
mod page;

use moreau_optim::ilqr::Dynamics;
use moreau_problems::swingup;
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("swingup: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/swingup.json".into());
    let p = swingup("cartpole")?;
    let (x0, dt) = (p.x0(), p.model.opt.timestep);
    let t0 = Instant::now();
    let (mut sys, res) = p.solve_ilqr(|k, c| println!("iter {k:3}  cost {c:.6}"))?;
    let secs = t0.elapsed().as_secs_f64();
    let last = res.xs.last().ok_or("empty trajectory")?;
    println!(
        "iLQR: {} iterations, final cost {:.6}, {:.1} ms, converged: {}",
        res.iterations,
        res.cost_history.last().copied().unwrap_or(f64::NAN),
        secs * 1e3,
        res.converged
    );
    println!(
        "final state: x = {:.4}, theta = {:.4}, xdot = {:.4}, thetadot = {:.4}",
        last[0], last[1], last[2], last[3]
    );

    // Re-simulate the optimized controls from scratch and write the trajectory.
    let nq = sys.model.nq;
    let mut x = x0.as_slice().to_vec();
    let mut next = vec![0.0; sys.nx()];
    let (mut time, mut qpos, mut qvel) =
        (vec![0.0], vec![x[..nq].to_vec()], vec![x[nq..].to_vec()]);
    for (t, u) in res.us.iter().enumerate() {
        sys.step(&x, u.as_slice(), &mut next)?;
        x.copy_from_slice(&next);
        time.push((t + 1) as f64 * dt);
        qpos.push(x[..nq].to_vec());
        qvel.push(x[nq..].to_vec());
    }
    let json = serde_json::json!({
        "time": time, "qpos": qpos, "qvel": qvel,
        "act": vec![Vec::<f64>::new(); p.horizon + 1],
        "ctrl": res.us.iter().map(|u| u.as_slice().to_vec()).collect::<Vec<_>>(),
        "cost_history": res.cost_history,
    });
    if let Some(dir) = std::path::Path::new(&out).parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&out, json.to_string()).map_err(|e| format!("{out}: {e}"))?;
    println!("wrote {out}");
    page::write(&sys.model, &out, &json, "cart-pole swing-up by iLQR")?;
    Ok(())
}
