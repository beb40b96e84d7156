//! Repeated analytic transition Jacobians at a contact state, for profiling
//! (`valgrind --tool=callgrind --dump-instr=no target/release/examples/transition_profile
//! models/humanoid.xml 200`). Prints the CPU time per call and the number of rows. A third
//! argument `forwarded` times the analytic Jacobians with `TransitionOptions::forwarded` (the state's `forward` done once,
//! outside the loop) instead. The calls reuse one `Data` (as `moreau bench` times them: `forward`
//! rewrites everything the analytic Jacobians read from the state and warm start, which
//! the calls leave unchanged); a fourth argument `clone` restores `d` by `clone_from` before
//! every call instead (the clone drops
//! `d`'s scratch capacity, so each call also reallocates the solver scratch).
//! `--integrator euler|implicit|implicitfast|rk4` (anywhere on the line) switches the loaded
//! model's integrator (as the tests do), for the per-integrator instruction counts of
//! `tools/bench/instructions.sh --integrator`. `--offtree` (anywhere on the line) steps on
//! until `M + JᵀHJ` leaves the tree's sparsity (contacts between two branches, e.g. a limb on
//! the torso), so the calls take the dense factorization (`forward::hessian_tree_sparse`).

use moreau::model::Integrator;
use moreau::{step, Data};
use moreau_derivatives::{TransitionOptions, Workspace};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().collect();
    let integrator = match args.iter().position(|a| a == "--integrator") {
        Some(i) => {
            let v = args.get(i + 1).ok_or("--integrator needs a value")?.clone();
            args.drain(i..i + 2);
            Some(match v.as_str() {
                "euler" => Integrator::Euler,
                "implicit" => Integrator::Implicit,
                "implicitfast" => Integrator::ImplicitFast,
                "rk4" => Integrator::Rk4,
                _ => return Err(format!("unknown integrator {v:?}").into()),
            })
        }
        None => None,
    };
    let offtree = match args.iter().position(|a| a == "--offtree") {
        Some(i) => {
            args.remove(i);
            true
        }
        None => false,
    };
    let path = args.get(1).map_or("models/humanoid.xml", |s| s.as_str());
    let n: usize = args.get(2).map_or(Ok(200), |s| s.parse())?;
    let forwarded = args.get(3).is_some_and(|s| s == "forwarded");
    let restore = args.get(4).is_some_and(|s| s == "clone");
    let mut m = moreau::load(path)?;
    if let Some(i) = integrator {
        m.opt.integrator = i;
    }
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
    if offtree {
        let mut k = 0;
        loop {
            moreau::forward(&m, &mut d);
            if !moreau_derivatives::forward::hessian_tree_sparse(&m, &d) {
                break;
            }
            if k == 20000 {
                return Err("--offtree: M + JᵀHJ kept the tree's sparsity for 20000 steps".into());
            }
            step(&m, &mut d);
            k += 1;
        }
        println!("--offtree: {k} more steps (time {:.3})", d.time);
    }
    if forwarded {
        moreau::forward(&m, &mut d);
    }
    let d0 = d.clone();
    let mut w = Workspace::default();
    let t = Instant::now();
    let opts = TransitionOptions::analytic().with_sensors(false);
    let opts = if forwarded { opts.forwarded() } else { opts };
    // the first call's Jacobians are kept and the last call's compared with them in the
    // workspace, so the calls in between copy nothing (the per-call count of
    // tools/bench/instructions.sh is the Jacobians' work alone)
    let mut first = None;
    let mut same = true;
    for i in 0..n {
        if restore {
            d.clone_from(&d0);
        }
        let j = w.transition(&m, &mut d, &opts)?;
        if i == 0 {
            first = Some((j.A.clone(), j.B.clone()));
        } else if i + 1 == n {
            // every call computes the same Jacobians (the state is not advanced)
            same = first.as_ref().is_some_and(|(a, b)| *a == j.A && *b == j.B);
        }
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
    println!(
        "nefc {} ncon {}: {us:.1} us per analytic transition call{}; repeated calls identical: {same}",
        d.nefc,
        d.contact.len(),
        if forwarded { " (forwarded)" } else { "" }
    );
    Ok(())
}
