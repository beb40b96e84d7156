//! Repeated analytic transition Jacobians at a contact state, for profiling
//! (`valgrind --tool=callgrind --dump-instr=no target/release/examples/transition_profile
//! models/humanoid.xml 200`). Prints the CPU time per call and the number of rows.

use moreau::{integrator::step, Data};
use moreau_derivatives::contact::{transition_analytic_with, Workspace};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).map_or("models/humanoid.xml", |s| s.as_str());
    let n: usize = args.get(2).map_or(Ok(200), |s| s.parse())?;
    let m = moreau::mjcf::load(path)?;
    let mut d = Data::new(&m);
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0)?;
    }
    // settle until constraint rows appear (as `moreau bench`)
    for _ in 0..3000 {
        step(&m, &mut d);
        if d.nefc > 0 {
            break;
        }
    }
    let d0 = d.clone();
    let mut w = Workspace::default();
    let t = Instant::now();
    for _ in 0..n {
        d.clone_from(&d0);
        transition_analytic_with(&m, &mut d, &mut w)?;
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
    println!(
        "nefc {} ncon {}: {us:.1} us per transition_analytic",
        d.nefc,
        d.contact.len()
    );
    Ok(())
}
