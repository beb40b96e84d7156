//! The `moreau` command line (contract: /work/shared/notes/cli.md). Errors go to stderr with the
//! file involved and exit code 1 (2 for usage errors, from clap); user input never panics.

#![allow(clippy::needless_range_loop)]

use clap::{Parser, Subcommand};
use moreau::model::Integrator;
use moreau::{forward, integrator, mjcf, Data, Model};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(name = "moreau", version, about = "MuJoCo's physics in Rust")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the model sizes (`name value`) and options.
    Inspect { model: PathBuf },
    /// Step the model and write time, qpos, qvel, act (N+1 rows, initial state first) as JSON.
    Simulate {
        model: PathBuf,
        #[arg(long)]
        steps: usize,
        /// Keyframe index to start from (default: qpos0, zero velocity).
        #[arg(long)]
        keyframe: Option<usize>,
        /// Controls: one CSV row per step, nu columns, no header (default: zeros).
        #[arg(long)]
        ctrl: Option<PathBuf>,
        /// Euler, implicit, implicitfast or RK4 (default: the model's).
        #[arg(long)]
        integrator: Option<String>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Forward dynamics at a state; writes qacc, forces, xpos, xquat, dense qM as JSON.
    Forward {
        model: PathBuf,
        #[arg(long)]
        state: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Microseconds per step and per forward (median over batches).
    Bench {
        model: PathBuf,
        /// Steps per batch.
        #[arg(long, default_value_t = 1000)]
        steps: usize,
        /// Number of batches.
        #[arg(long, default_value_t = 20)]
        batches: usize,
        /// Also run tools/reference/bench_mujoco.py and print the time ratios.
        #[arg(long)]
        compare_mujoco: bool,
    },
}

type Res<T> = Result<T, String>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Inspect { model } => inspect(&model),
        Cmd::Simulate {
            model,
            steps,
            keyframe,
            ctrl,
            integrator,
            out,
        } => simulate(
            &model,
            steps,
            keyframe,
            ctrl.as_deref(),
            integrator.as_deref(),
            &out,
        ),
        Cmd::Forward { model, state, out } => forward_cmd(&model, &state, &out),
        Cmd::Bench {
            model,
            steps,
            batches,
            compare_mujoco,
        } => bench(&model, steps, batches, compare_mujoco),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("moreau: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Loads and compiles an MJCF file; the error names file, line and column.
fn load(path: &Path) -> Res<Model> {
    mjcf::load(path).map_err(|e| e.to_string())
}

/// Refuses models the pipeline would compute wrongly.
fn supported(path: &Path, m: &Model) -> Res<()> {
    match forward::unsupported(m) {
        Some(why) => Err(format!("{}: uses {why}, not supported yet", path.display())),
        None => Ok(()),
    }
}

fn integrator_name(i: Integrator) -> &'static str {
    match i {
        Integrator::Euler => "Euler",
        Integrator::Rk4 => "RK4",
        Integrator::Implicit => "implicit",
        Integrator::ImplicitFast => "implicitfast",
    }
}

fn inspect(path: &Path) -> Res<()> {
    let m = load(path)?;
    let sizes = [
        ("nq", m.nq),
        ("nv", m.nv),
        ("nu", m.nu),
        ("na", m.na),
        ("nbody", m.nbody),
        ("njnt", m.njnt),
        ("ngeom", m.ngeom),
        ("nsite", m.nsite),
        ("ntendon", m.ntendon),
        ("neq", m.neq),
        ("nkey", m.nkey),
        ("nsensor", m.nsensor),
    ];
    for (k, v) in sizes {
        println!("{k} {v}");
    }
    let o = &m.opt;
    let v3 = |a: [f64; 3]| format!("{:?} {:?} {:?}", a[0], a[1], a[2]);
    println!("timestep {:?}", o.timestep);
    println!("integrator {}", integrator_name(o.integrator));
    println!("gravity {}", v3(o.gravity));
    println!("wind {}", v3(o.wind));
    println!("magnetic {}", v3(o.magnetic));
    println!("density {:?}", o.density);
    println!("viscosity {:?}", o.viscosity);
    println!("impratio {:?}", o.impratio);
    println!("tolerance {:?}", o.tolerance);
    println!("ls_tolerance {:?}", o.ls_tolerance);
    println!("iterations {}", o.iterations);
    println!("ls_iterations {}", o.ls_iterations);
    println!("cone {:?}", o.cone);
    println!("solver {:?}", o.solver);
    println!("jacobian {:?}", o.jacobian);
    println!("disableflags {}", o.disableflags);
    println!("enableflags {}", o.enableflags);
    Ok(())
}

fn parse_integrator(s: &str) -> Res<Integrator> {
    match s.to_ascii_lowercase().as_str() {
        "euler" => Ok(Integrator::Euler),
        "rk4" => Ok(Integrator::Rk4),
        "implicit" => Ok(Integrator::Implicit),
        "implicitfast" => Ok(Integrator::ImplicitFast),
        _ => Err(format!(
            "unknown integrator '{s}' (expected Euler, RK4, implicit or implicitfast)"
        )),
    }
}

/// Reads the control CSV: `steps` rows (extra rows are ignored) of `nu` numbers.
fn read_ctrl(path: &Path, nu: usize, steps: usize) -> Res<Vec<Vec<f64>>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut rows = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let row: Vec<f64> = line
            .split(',')
            .enumerate()
            .map(|(c, x)| {
                x.trim().parse::<f64>().map_err(|_| {
                    format!(
                        "{}:{}: column {}: '{}' is not a number",
                        path.display(),
                        ln + 1,
                        c + 1,
                        x.trim()
                    )
                })
            })
            .collect::<Res<_>>()?;
        if row.len() != nu {
            return Err(format!(
                "{}:{}: {} columns, the model has nu = {nu}",
                path.display(),
                ln + 1,
                row.len()
            ));
        }
        rows.push(row);
    }
    if nu > 0 && rows.len() < steps {
        return Err(format!(
            "{}: {} rows, need one per step ({steps})",
            path.display(),
            rows.len()
        ));
    }
    rows.resize(steps.max(rows.len()), vec![0.0; nu]);
    Ok(rows)
}

fn write_json(path: &Path, v: &Value) -> Res<()> {
    let s = serde_json::to_string(v).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, s).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

fn simulate(
    path: &Path,
    steps: usize,
    keyframe: Option<usize>,
    ctrl: Option<&Path>,
    integ: Option<&str>,
    out: &Path,
) -> Res<()> {
    let mut m = load(path)?;
    supported(path, &m)?;
    if let Some(s) = integ {
        m.opt.integrator = parse_integrator(s)?;
    }
    let ctrl = match ctrl {
        Some(p) => Some(read_ctrl(p, m.nu, steps)?),
        None => None,
    };
    let mut d = Data::<f64>::new(&m);
    if let Some(k) = keyframe {
        d.reset_keyframe(&m, k)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let mut time = Vec::with_capacity(steps + 1);
    let mut qpos = Vec::with_capacity(steps + 1);
    let mut qvel = Vec::with_capacity(steps + 1);
    let mut act = Vec::with_capacity(steps + 1);
    let mut record = |d: &Data<f64>| {
        time.push(d.time);
        qpos.push(d.qpos.clone());
        qvel.push(d.qvel.clone());
        act.push(d.act.clone());
    };
    record(&d);
    for s in 0..steps {
        match &ctrl {
            Some(c) => d.ctrl.copy_from_slice(&c[s]),
            None => d.ctrl.iter_mut().for_each(|x| *x = 0.0),
        }
        integrator::step(&m, &mut d);
        record(&d);
    }
    write_json(
        out,
        &json!({ "time": time, "qpos": qpos, "qvel": qvel, "act": act }),
    )
}

/// Reads `key` of the state file as a vector of exactly `n` numbers.
fn vec_of(state: &Map<String, Value>, file: &Path, key: &str, n: usize) -> Res<Option<Vec<f64>>> {
    let Some(v) = state.get(key) else {
        return Ok(None);
    };
    let a = v
        .as_array()
        .ok_or_else(|| format!("{}: '{key}' must be an array", file.display()))?;
    if a.len() != n {
        return Err(format!(
            "{}: '{key}' has {} entries, the model needs {n}",
            file.display(),
            a.len()
        ));
    }
    a.iter()
        .enumerate()
        .map(|(i, x)| {
            x.as_f64()
                .ok_or_else(|| format!("{}: '{key}'[{i}] is not a number", file.display()))
        })
        .collect::<Res<Vec<f64>>>()
        .map(Some)
}

fn forward_cmd(path: &Path, state: &Path, out: &Path) -> Res<()> {
    let m = load(path)?;
    supported(path, &m)?;
    let text = std::fs::read_to_string(state)
        .map_err(|e| format!("{}: cannot read: {e}", state.display()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: invalid JSON: {e}", state.display()))?;
    let s = v
        .as_object()
        .ok_or_else(|| format!("{}: expected a JSON object", state.display()))?;
    let mut d = Data::<f64>::new(&m);
    let required = |key: &str, n: usize| -> Res<Vec<f64>> {
        vec_of(s, state, key, n)?
            .ok_or_else(|| format!("{}: missing '{key}' ({n} numbers)", state.display()))
    };
    d.qpos = required("qpos", m.nq)?;
    d.qvel = required("qvel", m.nv)?;
    d.act = required("act", m.na)?;
    d.ctrl = required("ctrl", m.nu)?;
    if let Some(x) = vec_of(s, state, "qfrc_applied", m.nv)? {
        d.qfrc_applied = x;
    }
    if let Some(x) = vec_of(s, state, "qacc_warmstart", m.nv)? {
        d.qacc_warmstart = x;
    }
    if let Some(t) = s.get("time") {
        d.time = t
            .as_f64()
            .ok_or_else(|| format!("{}: 'time' is not a number", state.display()))?;
    }
    forward::forward(&m, &mut d);
    let nv = m.nv;
    let mut qm = vec![0.0; nv * nv];
    moreau::crb::full_m(&m, &d.qM, &mut qm);
    let rows =
        |x: &[f64], n: usize| -> Vec<Vec<f64>> { x.chunks(n.max(1)).map(|c| c.to_vec()).collect() };
    let xpos: Vec<[f64; 3]> = d.xpos.iter().map(|p| [p[0], p[1], p[2]]).collect();
    let xquat: Vec<[f64; 4]> = d.xquat.iter().map(|q| [q.w, q.i, q.j, q.k]).collect();
    write_json(
        out,
        &json!({
            "qacc": d.qacc,
            "qacc_smooth": d.qacc_smooth,
            "qfrc_bias": d.qfrc_bias,
            "qfrc_passive": d.qfrc_passive,
            "qfrc_actuator": d.qfrc_actuator,
            "qfrc_smooth": d.qfrc_smooth,
            "actuator_force": d.actuator_force,
            "act_dot": d.act_dot,
            "xpos": xpos,
            "xquat": xquat,
            "qM": if nv == 0 { Vec::new() } else { rows(&qm, nv) },
        }),
    )
}

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(|a, b| a.total_cmp(b));
    let n = x.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        x[n / 2]
    } else {
        0.5 * (x[n / 2 - 1] + x[n / 2])
    }
}

/// Times `f` in `batches` batches of `n` calls from a fresh reset state; µs per call.
fn time_batches(
    m: &Model,
    d: &mut Data<f64>,
    n: usize,
    batches: usize,
    f: impl Fn(&Model, &mut Data<f64>),
) -> Vec<f64> {
    (0..batches)
        .map(|_| {
            reset(m, d);
            let t = Instant::now();
            for _ in 0..n {
                f(m, d);
            }
            t.elapsed().as_secs_f64() * 1e6 / n as f64
        })
        .collect()
}

/// Keyframe 0 if there is one, else qpos0; zero controls (as bench_mujoco.py).
fn reset(m: &Model, d: &mut Data<f64>) {
    if m.nkey > 0 && d.reset_keyframe(m, 0).is_ok() {
        d.ctrl.iter_mut().for_each(|x| *x = 0.0);
    } else {
        d.reset(m);
    }
}

fn bench(path: &Path, steps: usize, batches: usize, compare: bool) -> Res<()> {
    let m = load(path)?;
    supported(path, &m)?;
    let (steps, batches) = (steps.max(1), batches.max(1));
    let mut d = Data::<f64>::new(&m);
    reset(&m, &mut d);
    for _ in 0..steps.min(2000) {
        integrator::step(&m, &mut d);
    }
    let st = time_batches(&m, &mut d, steps, batches, integrator::step);
    let fw = time_batches(&m, &mut d, steps, batches, forward::forward);
    let (step_us, fwd_us) = (median(st), median(fw));
    let name = path.display().to_string();
    println!(
        "{}",
        json!({"model": name, "integrator": integrator_name(m.opt.integrator),
               "batches": batches, "batch_size": steps})
    );
    println!("{}", json!({"step_us": step_us}));
    println!("{}", json!({"forward_us": fwd_us}));
    if compare {
        let script = Path::new("tools/reference/bench_mujoco.py");
        if !script.exists() {
            return Err(format!(
                "{}: not found (run from the repository root)",
                script.display()
            ));
        }
        let out = std::process::Command::new("python3")
            .arg(script)
            .arg(path)
            .output()
            .map_err(|e| format!("cannot run python3 {}: {e}", script.display()))?;
        if !out.status.success() {
            return Err(format!(
                "{} failed: {}",
                script.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let v: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("{}: unreadable output: {e}", script.display()))?;
        let r = v["models"]
            .as_object()
            .and_then(|o| o.values().next())
            .ok_or_else(|| format!("{}: no model in output", script.display()))?;
        let mj = |k: &str| r[k]["median"].as_f64().or_else(|| r[k].as_f64());
        let overhead = r["call_overhead_us"]
            .as_f64()
            .or_else(|| v["call_overhead_us"].as_f64())
            .or_else(|| v["machine"]["call_overhead_us"].as_f64())
            .unwrap_or(0.0);
        if let (Some(s), Some(f)) = (mj("step_us"), mj("forward_us")) {
            let rollout = mj("step_rollout_us");
            println!(
                "{}",
                json!({"mujoco_step_us": s, "mujoco_forward_us": f,
                       "mujoco_step_rollout_us": rollout, "mujoco_call_overhead_us": overhead})
            );
            println!(
                "{}",
                json!({"ratio_step": step_us / (s - overhead).max(1e-9),
                       "ratio_forward": fwd_us / (f - overhead).max(1e-9),
                       "ratio_step_vs_rollout": rollout.map(|r| step_us / r)})
            );
        }
    }
    Ok(())
}
