//! Franka Panda system identification on a logged trajectory: link masses (inertia scaled with
//! the mass), joint damping, armature and friction loss, by bounded Levenberg–Marquardt on the
//! simulation error of the joint position and velocity sensors
//! ([`moreau_optim::sysid::fit_rollout`], the residual `mujoco.sysid` minimizes by default).
//!
//! The log (`tools/robots/sysid_panda.py` writes it, and runs `mujoco.sysid` on the same data
//! and parameters) holds the initial state, the position targets and the noisy sensors. Any
//! model whose sensors are its `(qpos, qvel)` works: `tools/robots/sysid_contact.py` writes a
//! log of the Go1's foot (Menagerie) dropped and sliding on a floor, several trajectories
//! under `logs`, with contact parameters (kinds
//! `friction`, `solref_timeconst`, `solref_dampratio` of the geom named by `object`).
//!
//! Run: `python3 tools/robots/sysid_panda.py` (or directly `cargo run --release -p
//! moreau-optim --example sysid_panda -- LOG.json OUT.json [--fd] [--check]`; `--fd`: forward
//! differences of whole rollouts instead of forward sensitivities; `--check`: first compares
//! the two Jacobians at the start, column by column, and times each).

use moreau_optim::sysid::{self, Param, StateLog};
use serde_json::{json, Value};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("sysid_panda: {e}");
        std::process::exit(1);
    }
}

fn matrix(v: &Value, key: &str) -> Result<Vec<Vec<f64>>, String> {
    v[key]
        .as_array()
        .ok_or(format!("log: no array '{key}'"))?
        .iter()
        .map(|row| {
            row.as_array()
                .ok_or(format!("log: '{key}' is not a matrix"))?
                .iter()
                .map(|x| x.as_f64().ok_or(format!("log: non-number in '{key}'")))
                .collect()
        })
        .collect()
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: sysid_panda LOG.json OUT.json [--fd] [--check]";
    let [log_path, out_path, flags @ ..] = args.as_slice() else {
        return Err(usage.into());
    };
    if flags.iter().any(|f| f != "--fd" && f != "--check") {
        return Err(usage.into());
    }
    let method = if flags.iter().any(|f| f == "--fd") {
        sysid::RolloutJacobian::FiniteDifference
    } else {
        sysid::RolloutJacobian::Sensitivity
    };
    let log: Value = serde_json::from_str(
        &std::fs::read_to_string(log_path).map_err(|e| format!("{log_path}: {e}"))?,
    )
    .map_err(|e| format!("{log_path}: {e}"))?;
    let model_path = log["model"].as_str().ok_or("log: no 'model'")?;
    let m = moreau::load(model_path).map_err(|e| format!("{model_path}: {e}"))?;
    let mut params = vec![];
    let mut start = vec![];
    let mut bounds = vec![];
    for p in log["params"].as_array().ok_or("log: no 'params'")? {
        let name = p["name"].as_str().ok_or("log: parameter without name")?;
        let kind = p["kind"].as_str().ok_or("log: parameter without kind")?;
        // the object: `object` if given, else the name up to its last `_`
        let obj = match p["object"].as_str() {
            Some(o) => o,
            None => name.rsplit_once('_').ok_or("log: parameter name")?.0,
        };
        let geom = || {
            m.geom_name
                .iter()
                .position(|g| g == obj)
                .ok_or(format!("no geom {obj}"))
        };
        let dof = || -> Result<usize, String> {
            let j = m.joint_id(obj).ok_or(format!("no joint {obj}"))?;
            Ok(m.jnt_dofadr[j])
        };
        params.push(match kind {
            "mass" => Param::Mass {
                body: m.body_id(obj).ok_or(format!("no body {obj}"))?,
            },
            "damping" => Param::Damping { dof: dof()? },
            "armature" => Param::Armature { dof: dof()? },
            "frictionloss" => Param::FrictionLoss { dof: dof()? },
            "friction" => Param::Friction { geom: geom()? },
            "solref_timeconst" => Param::SolrefTimeconst { geom: geom()? },
            "solref_dampratio" => Param::SolrefDampratio { geom: geom()? },
            _ => return Err(format!("unknown parameter kind {kind}")),
        });
        let num = |k: &str| p[k].as_f64().ok_or(format!("{name}: no '{k}'"));
        start.push(num("start")?);
        bounds.push([num("lo")?, num("hi")?]);
    }

    // one trajectory at the top level, or several under "logs" (one parameter vector for all)
    let logs = match log["logs"].as_array() {
        Some(list) => list.iter().map(state_log).collect::<Result<Vec<_>, _>>()?,
        None => vec![state_log(&log)?],
    };
    let data = &logs[0];
    if flags.iter().any(|f| f == "--check") {
        // one Jacobian at the start by each method: wall and CPU time (all threads)
        let mut jacs = vec![];
        for how in [
            method,
            sysid::RolloutJacobian::SensitivityFd,
            sysid::RolloutJacobian::FiniteDifference,
        ] {
            let (t, c) = (Instant::now(), process_cpu_s());
            let (_, jac) = sysid::rollout_jacobian(&m, &params, data, &start, &bounds, how)?;
            let cpu = c.zip(process_cpu_s()).map(|(a, b)| b - a);
            eprintln!(
                "jacobian {how:?}: {:.3} s wall, {cpu:.3?} s CPU",
                t.elapsed().as_secs_f64()
            );
            jacs.push(jac);
        }
        let (js, jf) = (&jacs[0], &jacs[2]);
        for (j, p) in params.iter().enumerate() {
            let e = (js.column(j) - jf.column(j)).amax() / jf.column(j).amax();
            eprintln!("{p:?}: {e:.3e} (max {:.3e})", jf.column(j).amax());
        }
    }
    let threads = moreau_optim::threads::Threads::new(0)?;
    let (t0, c0) = (Instant::now(), process_cpu_s());
    let fit = sysid::fit_rollout_logs_with(
        &threads,
        &m,
        &params,
        &logs,
        &start,
        &bounds,
        100,
        method,
        |k, c| eprintln!("moreau: iteration {k}: cost {c:.6e}"),
    )?;
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "moreau ({method:?} Jacobian): {} parameters, {} logs, {} steps: {} iterations, {} rollouts, {:.3} s",
        params.len(),
        logs.len(),
        logs.iter().map(|l| l.measured.len()).sum::<usize>(),
        fit.iterations,
        fit.rollouts,
        wall,
    );
    let out = json!({
        "estimate": fit.estimate,
        // null: not determined by the data (infinite interval)
        "half_width": fit.half_width.iter().map(|x| x.is_finite().then_some(*x)).collect::<Vec<_>>(),
        "iterations": fit.iterations,
        "rollouts": fit.rollouts,
        "cost_history": fit.cost_history,
        "wall_s": wall,
        // CPU time of all threads (null where /proc is not available)
        "cpu_s": c0.zip(process_cpu_s()).map(|(a, b)| b - a),
        "jacobian": format!("{method:?}"),
    });
    std::fs::write(out_path, out.to_string()).map_err(|e| format!("{out_path}: {e}"))?;
    Ok(())
}

/// One trajectory of the log: `qpos0`, `qvel0`, `ctrl` and the noisy `sensor_qpos`,
/// `sensor_qvel` (the state before each step).
fn state_log(v: &Value) -> Result<StateLog, String> {
    let vector = |key: &str| -> Result<Vec<f64>, String> {
        v[key]
            .as_array()
            .ok_or(format!("log: no array '{key}'"))?
            .iter()
            .map(|x| x.as_f64().ok_or(format!("log: non-number in '{key}'")))
            .collect()
    };
    let q_meas = matrix(v, "sensor_qpos")?;
    let v_meas = matrix(v, "sensor_qvel")?;
    let ctrl = matrix(v, "ctrl")?;
    if q_meas.len() != v_meas.len() || ctrl.len() < q_meas.len() {
        return Err("log: sensor and control lengths disagree".into());
    }
    Ok(StateLog {
        qpos0: vector("qpos0")?,
        qvel0: vector("qvel0")?,
        ctrl,
        measured: q_meas
            .iter()
            .zip(&v_meas)
            .map(|(q, v)| q.iter().chain(v).copied().collect())
            .collect(),
    })
}

/// CPU time of this process, all threads (user + system, from `/proc/self/stat`; Linux clock
/// ticks of 1/100 s).
fn process_cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // fields after the command name's closing parenthesis: state is field 3, utime 14, stime 15
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}
