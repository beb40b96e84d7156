//! Newton iterations of every perturbed step of a forward-difference transition Jacobian at the
//! contact state `moreau bench` uses (from keyframe 0, or the reset state, step until constraint
//! rows appear), in `mjd_transitionFD`'s order after the nominal step: controls, activations,
//! velocities, positions; each from the restored state and warm start. Compare with
//! `tools/bench/fd_niter_mujoco.py MODEL` (MuJoCo 4.0.0, same format).
//!
//!     cargo run --release --example fd_niter -- models/humanoid.xml

use moreau::{integrate_pos, Data};

fn main() -> Result<(), String> {
    let path = std::env::args().nth(1).ok_or("usage: fd_niter MODEL.xml")?;
    let m = moreau::load(&path).map_err(|e| e.to_string())?;
    let mut d = Data::<f64>::new(&m);
    if m.nkey > 0 && d.reset_keyframe(&m, 0).is_ok() {
        d.ctrl.iter_mut().for_each(|x| *x = 0.0);
    } else {
        d.reset(&m);
    }
    for _ in 0..3000 {
        moreau::step(&m, &mut d);
        if d.nefc > 0 {
            break;
        }
    }
    println!("time {} nefc {}", d.time, d.nefc);
    let d0 = d.clone();
    let eps = 1e-6;
    let mut out = Vec::new();
    let mut run = |name: String, pert: &dyn Fn(&mut Data<f64>)| {
        d.clone_from(&d0);
        pert(&mut d);
        moreau::step(&m, &mut d);
        let n: usize = d.solver_niter[..d.nisland.clamp(1, d.solver_niter.len())]
            .iter()
            .sum();
        out.push((name, n));
    };
    run("nominal".into(), &|_| {});
    for i in 0..m.nu {
        run(format!("u{i}"), &|d| d.ctrl[i] += eps);
    }
    for i in 0..m.na {
        run(format!("a{i}"), &|d| d.act[i] += eps);
    }
    for i in 0..m.nv {
        run(format!("v{i}"), &|d| d.qvel[i] += eps);
    }
    for i in 0..m.nv {
        run(format!("q{i}"), &|d| {
            let mut dq = vec![0.0; m.nv];
            dq[i] = eps;
            let mut q = d.qpos.clone();
            integrate_pos(&m, &mut q, &dq, 1.0);
            d.qpos.copy_from_slice(&q);
        });
    }
    let total: usize = out.iter().map(|x| x.1).sum();
    println!("total niter {total} n {}", out.len());
    let s: Vec<String> = out.iter().map(|(k, n)| format!("{k}:{n}")).collect();
    println!("{}", s.join(" "));
    Ok(())
}
