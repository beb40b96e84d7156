//! Repeated analytic inverse Jacobians (`moreau_derivatives::inverse` with `InverseOptions::analytic()`) and forward-difference ones
//! (`FdWorkspace::inverse`, eps 1e-6, forward) at the model's reset state after `forward` (as
//! `moreau bench` times them), for timing and profiling (`valgrind --tool=callgrind
//! --dump-instr=no target/release/examples/inverse_profile models/eq_contact.xml 200 analytic`).
//! Arguments: MODEL N [analytic|fd|both]; prints µs per call of each (wall clock; run both in
//! one process to compare on a loaded machine).

use moreau::Data;
use moreau_derivatives::fd::FdWorkspace;
use moreau_derivatives::{inverse, InverseOptions};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).map_or("models/eq_contact.xml", |s| s.as_str());
    let n: usize = args.get(2).map_or(Ok(200), |s| s.parse())?;
    let which = args.get(3).map_or("both", |s| s.as_str());
    let m = moreau::load(path)?;
    let mut d = Data::new(&m);
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0)?;
    }
    moreau::forward(&m, &mut d);
    let d0 = d.clone();
    if which != "fd" {
        let t = Instant::now();
        for _ in 0..n {
            inverse(&m, &mut d, &InverseOptions::analytic())
                .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))?;
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!("inverse_analytic_us {us:.1} (nefc {}, nv {})", d.nefc, m.nv);
    }
    if which != "analytic" {
        let mut ws = FdWorkspace::new(&m);
        d.clone_from(&d0);
        let t = Instant::now();
        for _ in 0..n {
            ws.inverse(&m, &mut d, 1e-6, false, false);
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!("inverseFD_us {us:.1}");
    }
    Ok(())
}
