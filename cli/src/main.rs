//! The `moreau` command line (contract: /work/shared/notes/cli.md). Errors go to stderr with the
//! file involved and exit code 1 (2 for usage errors, from clap); user input never panics.

#![allow(clippy::needless_range_loop)]

use clap::{Parser, Subcommand, ValueEnum};
use moreau::model::Integrator;
use moreau::pipeline::thread_cpu_us;
use moreau::{Data, Model};
use moreau_derivatives::{fd, inverse, rne, transition};
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
    /// Re-simulate a trajectory JSON (the `simulate` format plus `ctrl`, as written by
    /// `simulate` and the optimizers) from its first state under its controls; print the largest
    /// deviation from the recorded states per field.
    Replay {
        /// Trajectory: `qpos`, `qvel`, `act` (T+1 rows), `ctrl` (T rows; or `--ctrl`), `time`.
        traj: PathBuf,
        /// The MJCF model (default: the trajectory's `model` key).
        #[arg(long)]
        model: Option<PathBuf>,
        /// Controls as for simulate, when the trajectory has no `ctrl`.
        #[arg(long)]
        ctrl: Option<PathBuf>,
        /// Euler, implicit, implicitfast or RK4 (default: the model's).
        #[arg(long)]
        integrator: Option<String>,
        /// Write the re-simulated trajectory (simulate format, plus `ctrl` and `max_error`).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Write PNGs (recorded vs re-simulated qpos and qvel) into this directory (needs the
        /// `plot` feature).
        #[arg(long)]
        plot: Option<PathBuf>,
        /// Exit with an error when a deviation exceeds this.
        #[arg(long)]
        tol: Option<f64>,
    },
    /// Forward dynamics at a state; writes qacc, forces, xpos, xquat, dense qM as JSON.
    Forward {
        model: PathBuf,
        #[arg(long)]
        state: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Inverse dynamics at a state and qacc; writes qfrc_inverse and efc_force as JSON.
    Inverse {
        model: PathBuf,
        /// As for forward, plus `qacc`.
        #[arg(long)]
        state: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Jacobians at a state: transition (A, B, C, D as mjd_transitionFD) or inverse (DfDq, DfDv,
    /// DfDa, DsDq, DsDv, DsDa in mjd_inverseFD's transposed layout).
    Derivatives {
        model: PathBuf,
        /// As for forward (inverse: plus `qacc`, default the forward qacc).
        #[arg(long)]
        state: PathBuf,
        #[arg(long, value_enum)]
        kind: Kind,
        #[arg(long, value_enum, default_value_t = Method::Fd)]
        method: Method,
        /// Centered instead of forward differences.
        #[arg(long)]
        centered: bool,
        /// Finite-difference step.
        #[arg(long, default_value_t = 1e-6)]
        eps: f64,
        /// Inverse: subtract qfrc_actuator from the output (mjd_inverseFD's flg_actuation).
        #[arg(long)]
        actuation: bool,
        #[arg(long)]
        out: PathBuf,
    },
    /// Microseconds per step, forward, inverse and FD Jacobians (median over batches).
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
        /// Override the model's `<option jacobian>` (both engines): dense, sparse or auto.
        #[arg(long)]
        jacobian: Option<JacArg>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum JacArg {
    Dense,
    Sparse,
    Auto,
}

#[derive(Clone, Copy, ValueEnum)]
enum Kind {
    Transition,
    Inverse,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Method {
    Fd,
    Analytic,
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
        Cmd::Replay {
            traj,
            model,
            ctrl,
            integrator,
            out,
            plot,
            tol,
        } => replay(ReplayArgs {
            traj: &traj,
            model: model.as_deref(),
            ctrl: ctrl.as_deref(),
            integ: integrator.as_deref(),
            out: out.as_deref(),
            plot: plot.as_deref(),
            tol,
        }),
        Cmd::Forward { model, state, out } => forward_cmd(&model, &state, &out),
        Cmd::Inverse { model, state, out } => inverse_cmd(&model, &state, &out),
        Cmd::Derivatives {
            model,
            state,
            kind,
            method,
            centered,
            eps,
            actuation,
            out,
        } => derivatives_cmd(&model, &state, kind, method, centered, eps, actuation, &out),
        Cmd::Bench {
            model,
            steps,
            batches,
            compare_mujoco,
            jacobian,
        } => bench(&model, steps, batches, compare_mujoco, jacobian),
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
    moreau::load(path).map_err(|e| e.to_string())
}

/// Refuses models the pipeline would compute wrongly.
fn supported(path: &Path, m: &Model) -> Res<()> {
    match moreau::pipeline::forward_unsupported(m) {
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

/// An empty vector with room for `n` entries, or an error naming the option `what` when that
/// much memory cannot be had (`None`: the count overflowed) — instead of a capacity-overflow
/// panic or an allocation abort on a huge `--steps`/`--batches`.
fn with_room<T>(n: Option<usize>, what: &str) -> Res<Vec<T>> {
    let mut v = Vec::new();
    match n {
        Some(n) if v.try_reserve_exact(n).is_ok() => Ok(v),
        _ => Err(format!("{what}: too large (cannot allocate the results)")),
    }
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
    let what = format!("--steps {steps}");
    let mut applied = with_room(Some(steps), &what)?;
    let mut time = with_room(steps.checked_add(1), &what)?;
    let mut qpos = with_room(steps.checked_add(1), &what)?;
    let mut qvel = with_room(steps.checked_add(1), &what)?;
    let mut act = with_room(steps.checked_add(1), &what)?;
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
        applied.push(d.ctrl.clone());
        moreau::step(&m, &mut d);
        record(&d);
    }
    // `ctrl` (N rows) and `model` extend the contract so that `replay` can re-run the file.
    let model_path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    write_json(
        out,
        &json!({ "time": time, "qpos": qpos, "qvel": qvel, "act": act, "ctrl": applied,
                 "model": model_path.to_string_lossy() }),
    )
}

struct ReplayArgs<'a> {
    traj: &'a Path,
    model: Option<&'a Path>,
    ctrl: Option<&'a Path>,
    integ: Option<&'a str>,
    out: Option<&'a Path>,
    plot: Option<&'a Path>,
    tol: Option<f64>,
}

/// Reads `key` of a trajectory file as rows of exactly `n` numbers.
fn rows_of(o: &Map<String, Value>, file: &Path, key: &str, n: usize) -> Res<Option<Vec<Vec<f64>>>> {
    let Some(v) = o.get(key) else {
        return Ok(None);
    };
    let a = v
        .as_array()
        .ok_or_else(|| format!("{}: '{key}' must be an array of rows", file.display()))?;
    a.iter()
        .enumerate()
        .map(|(t, row)| {
            let r = row
                .as_array()
                .ok_or_else(|| format!("{}: '{key}'[{t}] must be an array", file.display()))?;
            if r.len() != n {
                return Err(format!(
                    "{}: '{key}'[{t}] has {} entries, the model needs {n}",
                    file.display(),
                    r.len()
                ));
            }
            r.iter()
                .enumerate()
                .map(|(i, x)| {
                    x.as_f64().ok_or_else(|| {
                        format!("{}: '{key}'[{t}][{i}] is not a number", file.display())
                    })
                })
                .collect()
        })
        .collect::<Res<Vec<Vec<f64>>>>()
        .map(Some)
}

/// Largest absolute difference between two row lists and the row where it occurs.
fn max_dev(a: &[Vec<f64>], b: &[Vec<f64>]) -> (f64, usize) {
    let mut best = (0.0, 0);
    for (t, (x, y)) in a.iter().zip(b).enumerate() {
        for (p, q) in x.iter().zip(y) {
            let e = (p - q).abs();
            if e > best.0 || e.is_nan() {
                best = (if e.is_nan() { f64::INFINITY } else { e }, t);
            }
        }
    }
    best
}

/// `moreau replay`: re-simulates a trajectory's controls from its first state.
fn replay(a: ReplayArgs) -> Res<()> {
    let file = a.traj;
    if let Some(tol) = a.tol.filter(|t| t.is_nan() || *t < 0.0) {
        return Err(format!("--tol {tol}: must be a number ≥ 0"));
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: invalid JSON: {e}", file.display()))?;
    let Value::Object(o) = v else {
        return Err(format!("{}: expected a JSON object", file.display()));
    };
    let model_path = match (a.model, o.get("model")) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(Value::String(p))) => {
            let p = PathBuf::from(p);
            match (p.is_relative(), file.parent()) {
                (true, Some(dir)) if !p.exists() => dir.join(p),
                _ => p,
            }
        }
        (None, Some(_)) => return Err(format!("{}: 'model' must be a string", file.display())),
        (None, None) => {
            return Err(format!(
                "{}: no 'model' key; pass the model with --model",
                file.display()
            ))
        }
    };
    let mut m = load(&model_path)?;
    supported(&model_path, &m)?;
    if let Some(s) = a.integ {
        m.opt.integrator = parse_integrator(s)?;
    }
    let need = |key: &str, n: usize| -> Res<Vec<Vec<f64>>> {
        rows_of(&o, file, key, n)?.ok_or_else(|| format!("{}: missing '{key}'", file.display()))
    };
    let qpos = need("qpos", m.nq)?;
    let qvel = need("qvel", m.nv)?;
    // optimizers write `act` as empty rows for models without activations
    let act = rows_of(&o, file, "act", m.na)?.unwrap_or_else(|| vec![vec![]; qpos.len()]);
    if qpos.is_empty() {
        return Err(format!("{}: 'qpos' has no rows", file.display()));
    }
    if qvel.len() != qpos.len() || act.len() != qpos.len() {
        return Err(format!(
            "{}: 'qpos', 'qvel', 'act' have {}, {}, {} rows (must be equal)",
            file.display(),
            qpos.len(),
            qvel.len(),
            act.len()
        ));
    }
    let steps = qpos.len() - 1;
    let ctrl = match (rows_of(&o, file, "ctrl", m.nu)?, a.ctrl) {
        (_, Some(csv)) => read_ctrl(csv, m.nu, steps)?,
        (Some(c), None) => c,
        (None, None) if m.nu == 0 => vec![vec![]; steps],
        (None, None) => {
            return Err(format!(
                "{}: no 'ctrl' and no --ctrl, the model has nu = {}",
                file.display(),
                m.nu
            ))
        }
    };
    if ctrl.len() < steps {
        return Err(format!(
            "{}: {} control rows for {steps} steps",
            file.display(),
            ctrl.len()
        ));
    }
    let time = match o.get("time") {
        Some(t) => {
            let t = t
                .as_array()
                .ok_or_else(|| format!("{}: 'time' must be an array", file.display()))?;
            t.iter()
                .enumerate()
                .map(|(i, x)| {
                    x.as_f64()
                        .ok_or_else(|| format!("{}: 'time'[{i}] is not a number", file.display()))
                })
                .collect::<Res<Vec<f64>>>()?
        }
        None => vec![],
    };
    let mut d = Data::<f64>::new(&m);
    d.qpos.copy_from_slice(&qpos[0]);
    d.qvel.copy_from_slice(&qvel[0]);
    d.act.copy_from_slice(&act[0]);
    if let Some(t0) = time.first() {
        d.time = *t0;
    }
    let (mut rt, mut rq, mut rv, mut ra) = (
        vec![d.time],
        vec![d.qpos.clone()],
        vec![d.qvel.clone()],
        vec![d.act.clone()],
    );
    for u in ctrl.iter().take(steps) {
        d.ctrl.copy_from_slice(u);
        moreau::step(&m, &mut d);
        rt.push(d.time);
        rq.push(d.qpos.clone());
        rv.push(d.qvel.clone());
        ra.push(d.act.clone());
    }
    let devs = [
        ("qpos", max_dev(&qpos, &rq)),
        ("qvel", max_dev(&qvel, &rv)),
        ("act", max_dev(&act, &ra)),
        (
            "time",
            max_dev(
                &time.iter().map(|t| vec![*t]).collect::<Vec<_>>(),
                &rt.iter().map(|t| vec![*t]).collect::<Vec<_>>(),
            ),
        ),
    ];
    println!("steps {steps}");
    for (k, (e, t)) in &devs {
        println!("{k} max_abs_error {e:e} at_step {t}");
    }
    if let Some(out) = a.out {
        let errs: Map<String, Value> = devs
            .iter()
            .map(|(k, (e, _))| (k.to_string(), json!(e)))
            .collect();
        write_json(
            out,
            &json!({ "time": rt, "qpos": rq, "qvel": rv, "act": ra,
                     "ctrl": &ctrl[..steps], "max_error": errs,
                     "model": model_path.to_string_lossy() }),
        )?;
    }
    if let Some(dir) = a.plot {
        plot_replay(dir, &time, &qpos, &rq, &qvel, &rv)?;
    }
    if let Some(tol) = a.tol {
        if let Some((k, (e, t))) = devs.iter().find(|(_, (e, _))| *e > tol) {
            return Err(format!(
                "{}: {k} deviates by {e:e} at step {t} (tolerance {tol:e})",
                file.display()
            ));
        }
    }
    Ok(())
}

#[cfg(not(feature = "plot"))]
fn plot_replay(
    _dir: &Path,
    _time: &[f64],
    _q: &[Vec<f64>],
    _rq: &[Vec<f64>],
    _v: &[Vec<f64>],
    _rv: &[Vec<f64>],
) -> Res<()> {
    Err(
        "--plot: this moreau was built without the `plot` feature (cargo build --features plot)"
            .into(),
    )
}

/// PNGs `replay_qpos.png`, `replay_qvel.png` in `dir`: recorded (solid) and re-simulated
/// (dashed markers) components over time.
#[cfg(feature = "plot")]
fn plot_replay(
    dir: &Path,
    time: &[f64],
    q: &[Vec<f64>],
    rq: &[Vec<f64>],
    v: &[Vec<f64>],
    rv: &[Vec<f64>],
) -> Res<()> {
    use plotters::prelude::*;
    use plotters::style::{register_font, FontStyle};
    let bytes: &'static [u8] = include_bytes!("../../assets/DejaVuSans.ttf");
    let _ = register_font("sans-serif", FontStyle::Normal, bytes);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let t: Vec<f64> = if time.len() == q.len() {
        time.to_vec()
    } else {
        (0..q.len()).map(|i| i as f64).collect()
    };
    for (name, rec, sim) in [("qpos", q, rq), ("qvel", v, rv)] {
        let path = dir.join(format!("replay_{name}.png"));
        let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let root = BitMapBackend::new(&path, (900, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let all = rec
            .iter()
            .chain(sim)
            .flatten()
            .copied()
            .filter(|x| x.is_finite());
        let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        let (lo, hi) = if lo < hi {
            (lo, hi)
        } else {
            (lo.min(0.0) - 1.0, hi.max(0.0) + 1.0)
        };
        let pad = 0.05 * (hi - lo);
        let (t0, t1) = (t[0], *t.last().unwrap_or(&t[0]));
        let mut ch = ChartBuilder::on(&root)
            .caption(
                format!("replay: {name} recorded (lines) vs re-simulated (dots)"),
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(t0..t1.max(t0 + 1e-9), (lo - pad)..(hi + pad))
            .map_err(|e| err(&e))?;
        ch.configure_mesh()
            .x_desc("time")
            .y_desc(name)
            .draw()
            .map_err(|e| err(&e))?;
        let ncomp = rec.first().map_or(0, |r| r.len());
        for i in 0..ncomp {
            let color = Palette99::pick(i).to_rgba();
            ch.draw_series(LineSeries::new(
                t.iter().zip(rec).map(|(t, r)| (*t, r[i])),
                color.stroke_width(2),
            ))
            .map_err(|e| err(&e))?
            .label(format!("{name}[{i}]"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            let every = (t.len() / 60).max(1);
            ch.draw_series(
                t.iter()
                    .zip(sim)
                    .step_by(every)
                    .map(|(t, r)| Circle::new((*t, r[i]), 3, color.filled())),
            )
            .map_err(|e| err(&e))?;
        }
        ch.configure_series_labels()
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
        println!("wrote {}", path.display());
    }
    Ok(())
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

/// Reads a state file (`qpos`, `qvel`, `act`, `ctrl`, optional `qfrc_applied`,
/// `qacc_warmstart`, `time`) into fresh data for `m`; returns the JSON object too.
fn read_state(m: &Model, state: &Path) -> Res<(Data<f64>, Map<String, Value>)> {
    let text = std::fs::read_to_string(state)
        .map_err(|e| format!("{}: cannot read: {e}", state.display()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: invalid JSON: {e}", state.display()))?;
    let s = match v {
        Value::Object(o) => o,
        _ => return Err(format!("{}: expected a JSON object", state.display())),
    };
    let mut d = Data::<f64>::new(m);
    let required = |key: &str, n: usize| -> Res<Vec<f64>> {
        vec_of(&s, state, key, n)?
            .ok_or_else(|| format!("{}: missing '{key}' ({n} numbers)", state.display()))
    };
    d.qpos = required("qpos", m.nq)?;
    d.qvel = required("qvel", m.nv)?;
    d.act = required("act", m.na)?;
    d.ctrl = required("ctrl", m.nu)?;
    if let Some(x) = vec_of(&s, state, "qfrc_applied", m.nv)? {
        d.qfrc_applied = x;
    }
    if let Some(x) = vec_of(&s, state, "qacc_warmstart", m.nv)? {
        d.qacc_warmstart = x;
    }
    if let Some(t) = s.get("time") {
        d.time = t
            .as_f64()
            .ok_or_else(|| format!("{}: 'time' is not a number", state.display()))?;
    }
    Ok((d, s))
}

fn forward_cmd(path: &Path, state: &Path, out: &Path) -> Res<()> {
    let m = load(path)?;
    supported(path, &m)?;
    let (mut d, _) = read_state(&m, state)?;
    moreau::forward(&m, &mut d);
    let nv = m.nv;
    let mut qm = vec![0.0; nv * nv];
    moreau::full_m(&m, &d.qM, &mut qm);
    let rows =
        |x: &[f64], n: usize| -> Vec<Vec<f64>> { x.chunks(n.max(1)).map(|c| c.to_vec()).collect() };
    let xpos: Vec<[f64; 3]> = d.xpos.iter().map(|p| [p[0], p[1], p[2]]).collect();
    let xquat: Vec<[f64; 4]> = d.xquat.iter().map(|q| [q.w, q.i, q.j, q.k]).collect();
    let contact: Vec<Value> = d
        .contact
        .iter()
        .map(|c| {
            let f = &c.frame;
            json!({
                "geom1": c.geom[0],
                "geom2": c.geom[1],
                "dist": c.dist,
                "pos": [c.pos[0], c.pos[1], c.pos[2]],
                "frame": (0..3).map(|r| [f[(r, 0)], f[(r, 1)], f[(r, 2)]]).collect::<Vec<_>>(),
                "dim": c.dim,
                "includemargin": c.includemargin,
                "friction": c.friction,
                "efc_address": c.efc_address,
            })
        })
        .collect();
    let nefc = d.nefc;
    let efc_type: Vec<i32> = d.efc_type[..nefc].iter().map(|t| *t as i32).collect();
    write_json(
        out,
        &json!({
            "contact": contact,
            "efc_type": efc_type,
            "efc_pos": &d.efc_pos[..nefc],
            "efc_R": &d.efc_R[..nefc],
            "efc_aref": &d.efc_aref[..nefc],
            "efc_force": &d.efc_force[..nefc],
            "qfrc_constraint": d.qfrc_constraint,
            "sensordata": d.sensordata,
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

/// Refuses inverse dynamics configurations moreau does not reproduce.
fn inverse_supported(path: &Path, m: &Model) -> Res<()> {
    supported(path, m)?;
    match moreau::pipeline::inverse_unsupported(m) {
        Some(why) => Err(format!("{}: uses {why}, not supported", path.display())),
        None => Ok(()),
    }
}

/// `mj_inverse` at the state and `qacc` of the state file.
fn inverse_cmd(path: &Path, state: &Path, out: &Path) -> Res<()> {
    let m = load(path)?;
    inverse_supported(path, &m)?;
    let (mut d, s) = read_state(&m, state)?;
    let qacc = vec_of(&s, state, "qacc", m.nv)?
        .ok_or_else(|| format!("{}: missing 'qacc' ({} numbers)", state.display(), m.nv))?;
    // the forward pass leaves the derived quantities MuJoCo's mj_inverse sees after mj_forward
    moreau::forward(&m, &mut d);
    d.qacc.copy_from_slice(&qacc);
    moreau::inverse(&m, &mut d);
    write_json(
        out,
        &json!({
            "qfrc_inverse": d.qfrc_inverse,
            "efc_force": d.efc_force[..d.nefc],
        }),
    )
}

/// A matrix as JSON rows (`nr` rows of `nc` numbers; `[]` rows when `nc == 0`).
fn mat_rows(a: &nalgebra::DMatrix<f64>) -> Vec<Vec<f64>> {
    (0..a.nrows())
        .map(|i| a.row(i).iter().copied().collect())
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn derivatives_cmd(
    path: &Path,
    state: &Path,
    kind: Kind,
    method: Method,
    centered: bool,
    eps: f64,
    actuation: bool,
    out: &Path,
) -> Res<()> {
    let m = load(path)?;
    supported(path, &m)?;
    if method == Method::Analytic {
        return derivatives_analytic(path, &m, state, kind, actuation, out);
    }
    if !(eps.is_finite() && eps > 0.0) {
        return Err(format!("--eps {eps}: must be a positive number"));
    }
    let (mut d, s) = read_state(&m, state)?;
    let mut ws = fd::FdWorkspace::new(&m);
    let v = match kind {
        Kind::Transition => {
            let t = ws.transition(&m, &mut d, eps, centered);
            json!({"A": mat_rows(&t.A), "B": mat_rows(&t.B), "C": mat_rows(&t.C),
                   "D": mat_rows(&t.D)})
        }
        Kind::Inverse => {
            inverse_supported(path, &m)?;
            moreau::forward(&m, &mut d);
            if let Some(q) = vec_of(&s, state, "qacc", m.nv)? {
                d.qacc.copy_from_slice(&q);
            }
            let j = ws.inverse(&m, &mut d, eps, actuation, centered);
            json!({"DfDq": mat_rows(&j.DfDq), "DfDv": mat_rows(&j.DfDv),
                   "DfDa": mat_rows(&j.DfDa), "DsDq": mat_rows(&j.DsDq),
                   "DsDv": mat_rows(&j.DsDv), "DsDa": mat_rows(&j.DsDa),
                   "DmDq": mat_rows(&j.DmDq)})
        }
    };
    write_json(out, &v)
}

/// `--method analytic`: transition A, B by the implicit function theorem at the constraint
/// solution, C, D from its `∂qacc` (derivatives/src/sensor.rs); inverse DfDa, DfDv, DfDq, DmDq
/// analytic (constraint and tendon terms of DfDq by a restricted dual pass; no inverse sensor
/// Jacobians). See derivatives/src/contact.rs, inverse.rs, rnea.rs and pos.rs.
fn derivatives_analytic(
    path: &Path,
    m: &Model,
    state: &Path,
    kind: Kind,
    actuation: bool,
    out: &Path,
) -> Res<()> {
    let (mut d, s) = read_state(m, state)?;
    let unsup = |e: &str| format!("{}: --method analytic does not support {e}", path.display());
    let v = match kind {
        Kind::Transition => {
            let mut w = transition::Workspace::default();
            let t = transition::transition_analytic_flg(m, &mut d, &mut w, true).map_err(unsup)?;
            json!({"A": mat_rows(&t.A), "B": mat_rows(&t.B), "C": mat_rows(&t.C),
                   "D": mat_rows(&t.D)})
        }
        Kind::Inverse => {
            inverse_supported(path, m)?;
            if actuation {
                return Err(unsup("--actuation"));
            }
            moreau::forward(m, &mut d);
            if let Some(q) = vec_of(&s, state, "qacc", m.nv)? {
                d.qacc.copy_from_slice(&q);
            }
            let (dq, dv, da, dm) = inverse::inverse_analytic(m, &mut d).map_err(unsup)?;
            json!({"DfDq": mat_rows(&dq), "DfDv": mat_rows(&dv), "DfDa": mat_rows(&da),
                   "DmDq": mat_rows(&dm)})
        }
    };
    write_json(out, &v)
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

fn bench(
    path: &Path,
    steps: usize,
    batches: usize,
    compare: bool,
    jacobian: Option<JacArg>,
) -> Res<()> {
    let mut m = load(path)?;
    let jac_name = jacobian.map(|j| match j {
        JacArg::Dense => "dense",
        JacArg::Sparse => "sparse",
        JacArg::Auto => "auto",
    });
    if let Some(j) = jacobian {
        m.opt.jacobian = match j {
            JacArg::Dense => moreau::model::JacobianType::Dense,
            JacArg::Sparse => moreau::model::JacobianType::Sparse,
            JacArg::Auto => moreau::model::JacobianType::Auto,
        };
    }
    let m = m;
    supported(path, &m)?;
    let (steps, batches) = (steps.max(1), batches.max(1));
    // every timing series keeps one number per batch
    with_room::<f64>(Some(batches), &format!("--batches {batches}"))?;
    let mut d = Data::<f64>::new(&m);
    reset(&m, &mut d);
    for _ in 0..steps.min(2000) {
        moreau::step(&m, &mut d);
    }
    let st = time_batches(&m, &mut d, steps, batches, moreau::step);
    let fw = time_batches(&m, &mut d, steps, batches, moreau::forward);
    let (step_us, fwd_us) = (median(st), median(fw));
    let name = path.display().to_string();
    println!(
        "{}",
        json!({"model": name, "integrator": integrator_name(m.opt.integrator),
               "batches": batches, "batch_size": steps,
               "sparse": moreau::pipeline::is_sparse(&m)})
    );
    println!("{}", json!({"step_us": step_us}));
    // the same on the thread's CPU clock (robust to a loaded machine)
    let step_cpu_us = median(
        (0..batches)
            .filter_map(|_| {
                reset(&m, &mut d);
                let c = thread_cpu_us()?;
                for _ in 0..steps {
                    moreau::step(&m, &mut d);
                }
                Some((thread_cpu_us()? - c) / steps as f64)
            })
            .collect(),
    );
    println!("{}", json!({"step_cpu_us": step_cpu_us}));
    println!("{}", json!({"forward_us": fwd_us}));
    // inverse at the forward solution of the reset state (as bench_mujoco.py)
    reset(&m, &mut d);
    moreau::forward(&m, &mut d);
    let qacc = d.qacc.clone();
    let inv: Vec<f64> = (0..batches)
        .map(|_| {
            reset(&m, &mut d);
            moreau::forward(&m, &mut d);
            d.qacc.copy_from_slice(&qacc);
            let t = Instant::now();
            for _ in 0..steps {
                moreau::inverse(&m, &mut d);
            }
            t.elapsed().as_secs_f64() * 1e6 / steps as f64
        })
        .collect();
    let inv_us = median(inv);
    println!("{}", json!({"inverse_us": inv_us}));
    // FD Jacobians (forward differences, eps 1e-6, no sensor Jacobians as bench_mujoco.py),
    // batches of 20 calls from the reset state after a forward
    let mut ws = fd::FdWorkspace::new(&m);
    ws.sensors = false;
    let fd_batches = (batches / 3).max(3);
    // a state with contacts: settle from the reset state until rows appear (at most 3000 steps)
    let mut dc = Data::<f64>::new(&m);
    reset(&m, &mut dc);
    for _ in 0..3000 {
        moreau::step(&m, &mut dc);
        if dc.nefc > 0 {
            break;
        }
    }
    let mut cpu_fd = Vec::new();
    let mut time_fd = |contact: bool,
                       f: &mut dyn FnMut(&mut fd::FdWorkspace, &mut Data<f64>)|
     -> (f64, Option<f64>) {
        cpu_fd.clear();
        let v: Vec<f64> = (0..fd_batches)
            .map(|_| {
                if contact {
                    d.clone_from(&dc);
                } else {
                    reset(&m, &mut d);
                }
                moreau::forward(&m, &mut d);
                let c = thread_cpu_us();
                let t = Instant::now();
                for _ in 0..20 {
                    f(&mut ws, &mut d);
                }
                if let (Some(a), Some(b)) = (c, thread_cpu_us()) {
                    cpu_fd.push((b - a) / 20.0);
                }
                t.elapsed().as_secs_f64() * 1e6 / 20.0
            })
            .collect();
        let cpu = (!cpu_fd.is_empty()).then(|| median(cpu_fd.clone()));
        (median(v), cpu)
    };
    let (tfd_us, tfd_cpu) = time_fd(false, &mut |ws, d| {
        ws.transition(&m, d, 1e-6, false);
    });
    let (ifd_us, ifd_cpu) = time_fd(false, &mut |ws, d| {
        ws.inverse(&m, d, 1e-6, false, false);
    });
    println!(
        "{}",
        json!({"transitionFD_us": tfd_us, "transitionFD_cpu_us": tfd_cpu})
    );
    println!(
        "{}",
        json!({"inverseFD_us": ifd_us, "inverseFD_cpu_us": ifd_cpu})
    );
    // analytic Jacobians (IFT through contact; A, B only), same batches
    let mut tac_wall = None;
    if transition::unsupported(&m).is_none() {
        let mut aw = transition::Workspace::default();
        let (ta_us, ta_cpu) = time_fd(false, &mut |_, d| {
            let _ = transition::transition_analytic_with(&m, d, &mut aw);
        });
        let (ia_us, ia_cpu) = time_fd(false, &mut |_, d| {
            let _ = inverse::inverse_analytic(&m, d);
        });
        println!(
            "{}",
            json!({"transition_analytic_us": ta_us, "transition_analytic_cpu_us": ta_cpu,
                              "ratio_transition_analytic_vs_FD": ta_us / tfd_us})
        );
        println!(
            "{}",
            json!({"inverse_analytic_us": ia_us, "inverse_analytic_cpu_us": ia_cpu,
                              "ratio_inverse_analytic_vs_FD": ia_us / ifd_us})
        );
        // the same at the settled state with contacts
        let (tfc_us, tfc_cpu) = time_fd(true, &mut |ws, d| {
            ws.transition(&m, d, 1e-6, false);
        });
        let mut aw = transition::Workspace::default();
        let (tac_us, tac_cpu) = time_fd(true, &mut |_, d| {
            let _ = transition::transition_analytic_with(&m, d, &mut aw);
        });
        tac_wall = Some((tac_us, tac_cpu));
        let ratio = match (tac_cpu, tfc_cpu) {
            (Some(a), Some(b)) => a / b,
            _ => tac_us / tfc_us,
        };
        println!(
            "{}",
            json!({"contact_state_nefc": dc.nefc,
                   "transitionFD_contact_us": tfc_us, "transitionFD_contact_cpu_us": tfc_cpu,
                   "transition_analytic_contact_us": tac_us,
                   "transition_analytic_contact_cpu_us": tac_cpu,
                   "ratio_transition_analytic_vs_FD_contact": ratio})
        );
    }
    // RNEA derivatives (Pinocchio's computeRNEADerivatives counterpart: kinematics, M,
    // ∂τ/∂q, ∂τ/∂v at a random-ish state, no contact), and the analytic inverse-dynamics
    // Jacobians with contacts disabled; compare with tools/bench/pinocchio_rnea.py
    if rne::unsupported(&m).is_none() {
        let nv = m.nv;
        let mut w = rne::Work::default();
        let mut dq = nalgebra::DMatrix::zeros(nv, nv);
        let mut dv = vec![0.0; nv * nv];
        let mut d2 = Data::<f64>::new(&m);
        reset(&m, &mut d2);
        let qacc: Vec<f64> = (0..nv).map(|i| ((i * 7 % 11) as f64 - 5.0) * 0.3).collect();
        for i in 0..nv {
            d2.qvel[i] = ((i * 5 % 13) as f64 - 6.0) * 0.2;
        }
        let n = steps.max(100);
        let mut cpu = Vec::new();
        let v: Vec<f64> = (0..batches)
            .map(|_| {
                let c = thread_cpu_us();
                let t = Instant::now();
                for _ in 0..n {
                    rne::rnea_derivatives(&m, &mut d2, &qacc, &mut w, &mut dq, &mut dv);
                }
                if let (Some(a), Some(b)) = (c, thread_cpu_us()) {
                    cpu.push((b - a) / n as f64);
                }
                t.elapsed().as_secs_f64() * 1e6 / n as f64
            })
            .collect();
        let cpu = (!cpu.is_empty()).then(|| median(cpu));
        println!(
            "{}",
            json!({"rnea_derivatives_us": median(v), "rnea_derivatives_cpu_us": cpu})
        );
        let mut mc = m.clone();
        mc.opt.disableflags |= moreau::model::disable::CONSTRAINT;
        if transition::unsupported(&mc).is_none() {
            let (ia_nc, ia_nc_cpu) = time_fd(false, &mut |_, d| {
                let _ = inverse::inverse_analytic(&mc, d);
            });
            println!(
                "{}",
                json!({"inverse_analytic_nocontact_us": ia_nc,
                       "inverse_analytic_nocontact_cpu_us": ia_nc_cpu})
            );
        }
    }
    if compare {
        let script = Path::new("tools/reference/bench_mujoco.py");
        if !script.exists() {
            return Err(format!(
                "{}: not found (run from the repository root)",
                script.display()
            ));
        }
        let mut cmd = std::process::Command::new("python3");
        cmd.arg(script).arg(path);
        if let Some(j) = jac_name {
            cmd.arg("--jacobian").arg(j);
        }
        let out = cmd
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
        if let (Some(i), Some(t)) = (mj("inverse_us"), mj("transitionFD_us")) {
            let ifd = mj("inverseFD_us");
            println!(
                "{}",
                json!({"mujoco_inverse_us": i, "mujoco_transitionFD_us": t,
                       "mujoco_inverseFD_us": ifd})
            );
            println!(
                "{}",
                json!({"ratio_inverse": inv_us / (i - overhead).max(1e-9),
                       "ratio_transitionFD": tfd_us / t,
                       "ratio_inverseFD": ifd.map(|x| ifd_us / x)})
            );
        }
        if let Some(t) = mj("transitionFD_contact_us") {
            // thread CPU time on both sides when available (robust to load), else wall time
            let tc = mj("transitionFD_contact_cpu_us");
            let ratio = tac_wall.map(|(w, c)| match (c, tc) {
                (Some(c), Some(tc)) => c / tc,
                _ => w / t,
            });
            println!(
                "{}",
                json!({"mujoco_transitionFD_contact_us": t,
                       "mujoco_transitionFD_contact_cpu_us": tc,
                       "mujoco_contact_state_nefc": r["contact_state_nefc"],
                       "ratio_transition_analytic_vs_mujoco_FD_contact": ratio})
            );
        }
        if let Some(c) = mj("step_cpu_us") {
            println!(
                "{}",
                json!({"mujoco_step_cpu_us": c, "ratio_step_cpu": step_cpu_us / c})
            );
        }
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
