//! moreau's `step` with the sparse against the dense constraint Jacobian, interleaved in one
//! process so both see the same machine load: per round, 1000 steps from the keyframe in each
//! layout (wall time); prints the min and median µs/step of each and the median of the
//! per-round ratios sparse / dense. The two layouts give bit-identical trajectories
//! (tests/engine/sparse_oracle.rs), so both rounds do the same work.
//!
//!     cargo run --release --example sparse_speed -- models/humanoids.xml [rounds]

use moreau::model::JacobianType;
use moreau::Data;
use std::time::Instant;

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(f64::total_cmp);
    x[x.len() / 2]
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .ok_or("usage: sparse_speed MODEL.xml [rounds]")?;
    let rounds: usize = match args.get(2) {
        Some(r) => r.parse().map_err(|e| format!("rounds: {e}"))?,
        None => 30,
    };
    let base = moreau::load(path).map_err(|e| e.to_string())?;
    let layouts = [JacobianType::Sparse, JacobianType::Dense];
    let models: Vec<_> = layouts
        .iter()
        .map(|&j| {
            let mut m = base.clone();
            m.opt.jacobian = j;
            m
        })
        .collect();
    let mut datas: Vec<Data> = models.iter().map(Data::new).collect();
    let mut t = [Vec::new(), Vec::new()];
    let mut ratio = Vec::new();
    let nstep = 1000;
    for round in 0..=rounds {
        let mut us = [0.0; 2];
        for (k, (m, d)) in models.iter().zip(datas.iter_mut()).enumerate() {
            d.reset(m);
            if m.nkey > 0 {
                d.reset_keyframe(m, 0).map_err(|e| e.to_string())?;
            }
            let t0 = Instant::now();
            for _ in 0..nstep {
                moreau::step(m, d);
            }
            us[k] = t0.elapsed().as_secs_f64() * 1e6 / nstep as f64;
        }
        if round > 0 {
            // round 0 warms up (array sizes, caches)
            t[0].push(us[0]);
            t[1].push(us[1]);
            ratio.push(us[0] / us[1]);
        }
    }
    let min = |x: &[f64]| x.iter().copied().fold(f64::INFINITY, f64::min);
    println!("{path}: nv {}, {rounds} rounds of {nstep} steps", base.nv);
    for (k, name) in ["sparse", "dense"].iter().enumerate() {
        println!(
            "{name:6} min {:8.2} µs/step, median {:8.2}",
            min(&t[k]),
            median(t[k].clone())
        );
    }
    println!(
        "sparse / dense: median of per-round ratios {:.3}",
        median(ratio)
    );
    Ok(())
}
