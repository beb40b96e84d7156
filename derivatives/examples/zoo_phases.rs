//! The work of one row of the zoo table (`tools/bench/zoo_table.py`), in phases for callgrind:
//!
//!     zoo_phases MODEL STATE.json CTRL.csv K NFD
//!
//! From the state file (`qpos`, `qvel`, `act`, `ctrl`, `qacc_warmstart`, `time`: MuJoCo's state
//! after the warm-up steps, written by the script) each phase first makes one call outside the
//! measurement (warm-up: buffers sized, caches filled), then runs inside one function named
//! `zoo_phase_*`: `zoo_phase_step` K steps under the K rows of CTRL.csv, `zoo_phase_forward` K
//! `forward`s at the state, `zoo_phase_inverse` K `inverse`s at its `qacc`, `zoo_phase_fd` NFD FD
//! transitions (A, B; forward differences, eps 1e-6, as `mjd_transitionFD(m, d, 1e-6, 0, A, B,
//! NULL, NULL)`), `zoo_phase_analytic` NFD analytic transitions (A, B). The script runs it as
//! `valgrind --tool=callgrind --toggle-collect='*zoo_phase_*' --dump-after='*zoo_phase_*'`, so
//! each phase is one dump. Prints one line per phase skipped, with the reason.
//!
//! With `ZOO_PHASES_CPU=R` in the environment (not under callgrind) the step phase is also run
//! R more times from the state, each on the thread's CPU clock, and the fastest is printed as
//! `step_cpu_us: X` per step (`tools/bench/flops.py`: cycles per step).

use moreau::{Data, Model};
use moreau_derivatives::{Support, TransitionOptions, Workspace};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn load_state(m: &Model, path: &str) -> Res<Data<f64>> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let get = |k: &str, n: usize| -> Res<Vec<f64>> {
        let a = v[k].as_array().ok_or_else(|| format!("{path}: no '{k}'"))?;
        let x: Vec<f64> = a.iter().filter_map(|x| x.as_f64()).collect();
        if x.len() != n {
            return Err(format!("{path}: '{k}' has {} numbers, not {n}", x.len()).into());
        }
        Ok(x)
    };
    let mut d = Data::new(m);
    d.qpos = get("qpos", m.nq)?;
    d.qvel = get("qvel", m.nv)?;
    d.act = get("act", m.na)?;
    d.ctrl = get("ctrl", m.nu)?;
    d.qacc_warmstart = get("qacc_warmstart", m.nv)?;
    d.time = v["time"].as_f64().unwrap_or(0.0);
    Ok(d)
}

fn read_ctrl(path: &str, nu: usize) -> Res<Vec<Vec<f64>>> {
    let mut rows = Vec::new();
    for line in std::fs::read_to_string(path)?.lines() {
        let r: Vec<f64> = if nu == 0 {
            Vec::new()
        } else {
            line.split(',')
                .map(|s| s.trim().parse::<f64>())
                .collect::<Result<_, _>>()?
        };
        if r.len() != nu {
            return Err(format!("{path}: a row of {} numbers, not {nu}", r.len()).into());
        }
        rows.push(r);
    }
    Ok(rows)
}

#[inline(never)]
fn zoo_phase_step(m: &Model, d: &mut Data<f64>, ctrl: &[Vec<f64>]) {
    for c in ctrl {
        d.ctrl.copy_from_slice(c);
        moreau::step(m, d);
    }
}

#[inline(never)]
fn zoo_phase_forward(m: &Model, d: &mut Data<f64>, k: usize) {
    for _ in 0..k {
        moreau::forward(m, d);
    }
}

#[inline(never)]
fn zoo_phase_inverse(m: &Model, d: &mut Data<f64>, k: usize) {
    for _ in 0..k {
        moreau::inverse(m, d);
    }
}

#[inline(never)]
fn zoo_phase_fd(m: &Model, d: &mut Data<f64>, w: &mut Workspace, o: &TransitionOptions, k: usize) {
    for _ in 0..k {
        let _ = std::hint::black_box(w.transition(m, d, o).is_ok());
    }
}

// (a body of its own: identical functions would be folded into one symbol)
#[inline(never)]
fn zoo_phase_analytic(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut Workspace,
    o: &TransitionOptions,
    k: usize,
) {
    for _ in 0..k {
        let _ = std::hint::black_box(w.transition(m, d, o).map_or(0, |t| t.A.nrows()));
    }
}

fn main() -> Res<()> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 6 {
        return Err("usage: zoo_phases MODEL STATE.json CTRL.csv K NFD".into());
    }
    let m = moreau::load(&a[1])?;
    let s = load_state(&m, &a[2])?;
    let ctrl = read_ctrl(&a[3], m.nu)?;
    let k: usize = a[4].parse()?;
    let nfd: usize = a[5].parse()?;
    if ctrl.len() < k + 1 {
        return Err(format!("{}: {} rows, need K + 1 = {}", a[3], ctrl.len(), k + 1).into());
    }
    // step: one warm-up step under the first row, then K steps
    let mut d = s.clone();
    d.ctrl.copy_from_slice(&ctrl[0]);
    moreau::step(&m, &mut d);
    zoo_phase_step(&m, &mut d, &ctrl[1..k + 1]);
    println!("step: time {:.6} nefc {}", d.time, d.nefc);
    let repeat: usize = std::env::var("ZOO_PHASES_CPU")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(0);
    if repeat > 0 && k > 0 {
        let mut best = f64::INFINITY;
        for _ in 0..repeat {
            let mut d = s.clone();
            d.ctrl.copy_from_slice(&ctrl[0]);
            moreau::step(&m, &mut d);
            let t0 = moreau::pipeline::thread_cpu_us().ok_or("no thread CPU clock")?;
            zoo_phase_step(&m, &mut d, &ctrl[1..k + 1]);
            let t1 = moreau::pipeline::thread_cpu_us().ok_or("no thread CPU clock")?;
            best = best.min((t1 - t0) / k as f64);
        }
        println!("step_cpu_us: {best:.4}");
    }
    // forward at the state
    let mut d = s.clone();
    moreau::forward(&m, &mut d);
    zoo_phase_forward(&m, &mut d, k);
    println!("forward: nefc {}", d.nefc);
    // inverse at the forward solution's qacc
    match moreau::pipeline::inverse_unsupported(&m) {
        Some(why) => println!("inverse: not supported: {why}"),
        None => {
            moreau::inverse(&m, &mut d);
            zoo_phase_inverse(&m, &mut d, k);
        }
    }
    // FD transition
    let mut w = Workspace::default();
    let fd = TransitionOptions::fd(1e-6, false).with_sensors(false);
    let mut d = s.clone();
    moreau::forward(&m, &mut d);
    let _ = w.transition(&m, &mut d, &fd);
    zoo_phase_fd(&m, &mut d, &mut w, &fd, nfd);
    // analytic transition
    let an = TransitionOptions::analytic().with_sensors(false);
    match Support::transition(&m) {
        Support::Covered => {
            let mut w = Workspace::default();
            let mut d = s.clone();
            if let Err(e) = w.transition(&m, &mut d, &an) {
                println!("analytic: refused: {e}");
            } else {
                zoo_phase_analytic(&m, &mut d, &mut w, &an, nfd);
            }
        }
        why => println!("analytic: refused: {why}"),
    }
    Ok(())
}
