//! The `moreau` command line (contract: docs/cli.md). Errors go to stderr with the
//! file involved and exit code 1 (2 for usage errors, from clap); user input never panics.

#![allow(clippy::needless_range_loop)]

use clap::{Parser, Subcommand, ValueEnum};
use moreau::data::{Warning, WarningStat, NWARNING};
use moreau::model::Integrator;
use moreau::pipeline::thread_cpu_us;
use moreau::{Data, Model};
use moreau_derivatives::{
    inverse, rne, transition, InverseOptions, Support, TransitionOptions, Workspace,
};
use moreau_optim::trajectory::{self, Trajectory};
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
        /// Also record each row's contacts under `contact` (per row a list of `geom1`, `geom2`,
        /// `dist`, `pos`, `frame`, `force`; for `moreau view`).
        #[arg(long)]
        contacts: bool,
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
        /// With --out: also record each row's contacts under `contact` (as simulate --contacts).
        #[arg(long)]
        contacts: bool,
    },
    /// Write one self-contained HTML page (three.js inside, works offline) that draws the
    /// model in 3-D and plays the trajectories overlaid: play/pause, time slider, speed, camera
    /// orbit, contact points and forces.
    View {
        /// The MJCF model (or a trajectory JSON whose `model` key names it).
        model: PathBuf,
        /// Trajectories written by simulate, replay or an optimizer (`qpos` rows, `time`;
        /// every other `*_qpos` key is overlaid too). None: the model at qpos0.
        traj: Vec<PathBuf>,
        /// The page to write.
        #[arg(long)]
        out: PathBuf,
        /// The page's title (default: the model file's name).
        #[arg(long)]
        title: Option<String>,
        /// Frames kept per simulated second (poses are interpolated between them).
        #[arg(long, default_value_t = 120.0)]
        max_fps: f64,
    },
    /// Write a state file (qpos, qvel, act, ctrl, qacc_warmstart, time): the model's qpos0 with
    /// zero velocity, or a keyframe. The format forward, inverse and derivatives read.
    State {
        model: PathBuf,
        /// Keyframe index (default: qpos0, zero velocity, zero controls).
        #[arg(long)]
        keyframe: Option<usize>,
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

/// `println!` that returns an error instead of panicking when stdout is closed (`| head`).
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($t)*).map_err(|e| format!("stdout: {e}"))?
    }};
}

/// A line on stderr; a closed stderr is ignored (there is nowhere left to report to).
fn note(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

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
            contacts,
            out,
        } => simulate(
            &model,
            steps,
            keyframe,
            ctrl.as_deref(),
            integrator.as_deref(),
            contacts,
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
            contacts,
        } => replay(ReplayArgs {
            traj: &traj,
            model: model.as_deref(),
            ctrl: ctrl.as_deref(),
            integ: integrator.as_deref(),
            out: out.as_deref(),
            plot: plot.as_deref(),
            tol,
            contacts,
        }),
        Cmd::View {
            model,
            traj,
            out,
            title,
            max_fps,
        } => view(&model, &traj, &out, title, max_fps),
        Cmd::State {
            model,
            keyframe,
            out,
        } => state_cmd(&model, keyframe, &out),
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
            note(&format!("moreau: error: {e}"));
            ExitCode::FAILURE
        }
    }
}

/// How many warnings of one kind a command prints before it only counts them.
const WARN_PRINT_LIMIT: u64 = 10;

/// The engine's warnings (`Data::warning`, MuJoCo's `mjData.warning`) over a command. Each
/// engine call starts from cleared counters ([`Warnings::arm`]), so the counters after the call
/// are that call's own (a reset clears them; the divergence checks record their warning after
/// resetting); [`Warnings::collect`] prints each new one on stderr in MuJoCo's wording, says
/// what happened to the state, and adds it to the totals.
#[derive(Default)]
struct Warnings {
    number: [u64; NWARNING],
    lastinfo: [i64; NWARNING],
    /// Divergence warnings that reset the state.
    resets: u64,
}

impl Warnings {
    /// Clears `d`'s counters before an engine call.
    fn arm(d: &mut Data<f64>) {
        d.warning = [WarningStat::default(); NWARNING];
    }

    /// After an engine call that started at simulation time `time`, during `what` (e.g.
    /// `step 12`): prints and counts the call's warnings. An error if the call stopped at
    /// MuJoCo's fatal stack overflow (`Data::stack_overflow`), with MuJoCo's message.
    fn collect(&mut self, m: &Model, d: &Data<f64>, time: f64, what: &str) -> Res<()> {
        if let Some(e) = d.stack_overflow {
            return Err(format!("{what}: {e}"));
        }
        let autoreset = !m.opt.disabled(moreau::model::disable::AUTORESET);
        for w in Warning::ALL {
            let k = w as usize;
            let s = d.warning[k];
            if s.number == 0 {
                continue;
            }
            if self.number[k] < WARN_PRINT_LIMIT {
                note(&w.message(s.lastinfo, time));
                let then = match w {
                    _ if w.resets() && autoreset => {
                        "the state was reset (mj_resetData: qpos0, zero velocity, time 0)"
                    }
                    _ if w.resets() => "autoreset is disabled: the state was not reset",
                    Warning::BadCtrl => {
                        "every actuator input was zero in this evaluation (the state was not reset)"
                    }
                    Warning::ContactFull => {
                        "contacts beyond the capacity were dropped (the state was not reset)"
                    }
                    Warning::CnstrFull => {
                        "the constraint rows were dropped: the step went on without \
                         constraints (the state was not reset)"
                    }
                    _ => "the state was not reset",
                };
                note(&format!("moreau: {what}: {then}"));
                if self.number[k] + s.number >= WARN_PRINT_LIMIT {
                    note(&format!(
                        "moreau: further {w:?} warnings are counted, not printed"
                    ));
                }
            }
            self.number[k] += s.number;
            self.lastinfo[k] = s.lastinfo;
            if w.resets() && autoreset {
                self.resets += s.number;
            }
        }
        Ok(())
    }

    /// One stderr line with the totals, when more happened than was printed.
    fn summary(&self) {
        if self.number.iter().any(|&n| n > WARN_PRINT_LIMIT) {
            let parts: Vec<String> = Warning::ALL
                .iter()
                .filter(|w| self.number[**w as usize] > 0)
                .map(|w| {
                    let k = *w as usize;
                    format!("{w:?} ×{} (last info {})", self.number[k], self.lastinfo[k])
                })
                .collect();
            note(&format!(
                "moreau: warnings in total: {}; the state was reset {} times",
                parts.join(", "),
                self.resets
            ));
        }
    }

    /// The totals as `mjData.warning`: one `{lastinfo, number}` per `mjtWarning`.
    fn json(&self) -> Value {
        (0..NWARNING)
            .map(|k| json!({"lastinfo": self.lastinfo[k], "number": self.number[k]}))
            .collect()
    }

    /// True if a divergence check fired (the result belongs to a reset or diverged state).
    fn diverged(&self) -> bool {
        Warning::ALL
            .iter()
            .any(|w| w.resets() && self.number[*w as usize] > 0)
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
        outln!("{k} {v}");
    }
    let o = &m.opt;
    let v3 = |a: [f64; 3]| format!("{:?} {:?} {:?}", a[0], a[1], a[2]);
    outln!("timestep {:?}", o.timestep);
    outln!("integrator {}", integrator_name(o.integrator));
    outln!("gravity {}", v3(o.gravity));
    outln!("wind {}", v3(o.wind));
    outln!("magnetic {}", v3(o.magnetic));
    outln!("density {:?}", o.density);
    outln!("viscosity {:?}", o.viscosity);
    outln!("impratio {:?}", o.impratio);
    outln!("tolerance {:?}", o.tolerance);
    outln!("ls_tolerance {:?}", o.ls_tolerance);
    outln!("iterations {}", o.iterations);
    outln!("ls_iterations {}", o.ls_iterations);
    outln!("cone {:?}", o.cone);
    outln!("solver {:?}", o.solver);
    outln!("jacobian {:?}", o.jacobian);
    outln!("disableflags {}", o.disableflags);
    outln!("enableflags {}", o.enableflags);
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
    let text = read_text(path)?;
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

/// Input files larger than this are refused (state, trajectory and control files).
const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Reads a text input file in chunks, so that an endless or binary source (`/dev/zero`,
/// `/dev/urandom`) is an error after at most [`MAX_INPUT_BYTES`] rather than a hang: a NUL
/// byte or invalid UTF-8 stops it at once. Pipes and process substitutions work.
fn read_text(path: &Path) -> Res<String> {
    use std::io::Read as _;
    let err = |e: &dyn std::fmt::Display| format!("{}: cannot read: {e}", path.display());
    let mut f = std::fs::File::open(path).map_err(|e| err(&e))?;
    if f.metadata().map_err(|e| err(&e))?.is_dir() {
        return Err(err(&"is a directory"));
    }
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    let mut valid = 0;
    loop {
        let n = match f.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(err(&e)),
        };
        if let Some(i) = chunk[..n].iter().position(|&b| b == 0) {
            return Err(err(&format!(
                "not a text file (NUL byte at offset {})",
                bytes.len() + i
            )));
        }
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > MAX_INPUT_BYTES {
            return Err(err(&format!("larger than {} MiB", MAX_INPUT_BYTES >> 20)));
        }
        // a chunk may end inside a multi-byte character: check from the last valid boundary
        match std::str::from_utf8(&bytes[valid..]) {
            Ok(_) => valid = bytes.len(),
            Err(e) if e.error_len().is_none() => valid += e.valid_up_to(),
            Err(_) => return Err(err(&"not UTF-8 text")),
        }
    }
    String::from_utf8(bytes).map_err(|_| err(&"not UTF-8 text"))
}

/// The path of the first `null` in `v` (serde_json writes non-finite numbers as `null`).
fn find_null(v: &Value, at: &mut String) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.iter().enumerate().any(|(i, x)| {
            let n = at.len();
            at.push_str(&format!("[{i}]"));
            let found = find_null(x, at);
            if !found {
                at.truncate(n);
            }
            found
        }),
        Value::Object(o) => o.iter().any(|(k, x)| {
            let n = at.len();
            at.push_str(&if n == 0 { k.clone() } else { format!(".{k}") });
            let found = find_null(x, at);
            if !found {
                at.truncate(n);
            }
            found
        }),
        _ => false,
    }
}

/// Writes `v` as JSON; a non-finite number (which JSON cannot hold) is an error naming it.
fn write_json(path: &Path, v: &Value) -> Res<()> {
    let mut at = String::new();
    if find_null(v, &mut at) {
        return Err(format!(
            "{}: not written: {at} is not a finite number",
            path.display()
        ));
    }
    let s = serde_json::to_string(v).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, s).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

fn simulate(
    path: &Path,
    steps: usize,
    keyframe: Option<usize>,
    ctrl: Option<&Path>,
    integ: Option<&str>,
    contacts: bool,
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
    trajectory_fits(steps, &m, &what)?;
    let mut applied = with_room(Some(steps), &what)?;
    let mut time = with_room(steps.checked_add(1), &what)?;
    let mut qpos = with_room(steps.checked_add(1), &what)?;
    let mut qvel = with_room(steps.checked_add(1), &what)?;
    let mut act = with_room(steps.checked_add(1), &what)?;
    let mut rec = ContactRecorder::new(&m, contacts);
    let mut record = |d: &Data<f64>| {
        time.push(d.time);
        qpos.push(d.qpos.clone());
        qvel.push(d.qvel.clone());
        act.push(d.act.clone());
    };
    record(&d);
    let mut warnings = Warnings::default();
    for s in 0..steps {
        match &ctrl {
            Some(c) => d.ctrl.copy_from_slice(&c[s]),
            None => d.ctrl.iter_mut().for_each(|x| *x = 0.0),
        }
        rec.record(&m, &d);
        applied.push(step_warned(&m, &mut d, &mut warnings, s)?);
        record(&d);
    }
    warnings.summary();
    rec.record(&m, &d);
    // `ctrl` (N rows), `model` and `warning` extend the contract so that `replay` can re-run
    // the file and a reader sees what the engine reported.
    let model_path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let traj = Trajectory {
        time,
        qpos,
        qvel,
        act,
        ctrl: applied,
    };
    let mut v =
        traj.to_json(json!({ "model": model_path.to_string_lossy(), "warning": warnings.json() }));
    rec.insert(&mut v);
    write_json(out, &v)
}

/// `--contacts`: per recorded row, the contacts and contact forces of `forward` at that state
/// (computed on a copy, so the trajectory is the same with and without recording; the last
/// row's controls are those of the last step).
struct ContactRecorder {
    scratch: Option<Data<f64>>,
    rows: Vec<Value>,
}

impl ContactRecorder {
    fn new(m: &Model, on: bool) -> Self {
        ContactRecorder {
            scratch: on.then(|| Data::new(m)),
            rows: Vec::new(),
        }
    }

    fn record(&mut self, m: &Model, d: &Data<f64>) {
        if let Some(s) = &mut self.scratch {
            s.clone_from(d);
            moreau::forward(m, s);
            self.rows.push(moreau_viewer::contacts_json(m, s));
        }
    }

    /// Adds the `contact` key when recording.
    fn insert(self, v: &mut Value) {
        if let (Some(_), Value::Object(o)) = (self.scratch, v) {
            o.insert("contact".into(), Value::Array(self.rows));
        }
    }
}

/// One `mj_step` with its warnings printed (as `step s`); returns the controls the engine
/// applied: `d.ctrl`, or zeros when the controls were bad (`BadCtrl`: MuJoCo then uses zero
/// for every actuator input, which zero controls reproduce exactly, and JSON has no NaN).
fn step_warned(m: &Model, d: &mut Data<f64>, warnings: &mut Warnings, s: usize) -> Res<Vec<f64>> {
    let t = d.time;
    Warnings::arm(d);
    let bad_ctrl = moreau::pipeline::bad_ctrl(m, &d.ctrl).is_some();
    let applied = if bad_ctrl {
        vec![0.0; d.ctrl.len()]
    } else {
        d.ctrl.clone()
    };
    moreau::step(m, d);
    warnings.collect(m, d, t, &format!("step {s}"))?;
    if bad_ctrl && warnings.number[Warning::BadCtrl as usize] <= WARN_PRINT_LIMIT {
        note(&format!(
            "moreau: step {s}: ctrl recorded as zeros, the actuator inputs the engine used"
        ));
    }
    Ok(applied)
}

/// Results larger than this are refused before any step is taken (`--steps` × the state size).
const MAX_TRAJECTORY_BYTES: usize = 4 << 30;

/// Refuses a trajectory of `steps` steps whose rows would exceed [`MAX_TRAJECTORY_BYTES`].
fn trajectory_fits(steps: usize, m: &Model, what: &str) -> Res<()> {
    let row = (m.nq + m.nv + m.na + m.nu + 1) * std::mem::size_of::<f64>();
    match steps.checked_add(1).and_then(|n| n.checked_mul(row)) {
        Some(b) if b <= MAX_TRAJECTORY_BYTES => Ok(()),
        _ => Err(format!(
            "{what}: the trajectory would exceed {} GiB ({row} bytes per step); use fewer steps",
            MAX_TRAJECTORY_BYTES >> 30
        )),
    }
}

struct ReplayArgs<'a> {
    traj: &'a Path,
    model: Option<&'a Path>,
    ctrl: Option<&'a Path>,
    integ: Option<&'a str>,
    out: Option<&'a Path>,
    plot: Option<&'a Path>,
    tol: Option<f64>,
    contacts: bool,
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
    let text = read_text(file)?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: invalid JSON: {e}", file.display()))?;
    let Value::Object(o) = v else {
        return Err(format!("{}: expected a JSON object", file.display()));
    };
    let model_path = match (a.model, trajectory::model_path(&o, file)?) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(p)) => p,
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
    let Trajectory {
        time,
        qpos,
        qvel,
        act,
        ..
    } = Trajectory::read_states(&o, file, m.nq, m.nv, m.na)?;
    let steps = qpos.len() - 1;
    let ctrl = match (trajectory::rows(&o, file, "ctrl", m.nu)?, a.ctrl) {
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
    let mut d = Data::<f64>::new(&m);
    d.qpos.copy_from_slice(&qpos[0]);
    d.qvel.copy_from_slice(&qvel[0]);
    d.act.copy_from_slice(&act[0]);
    if let Some(t0) = time.first() {
        d.time = *t0;
    }
    // the re-simulated trajectory
    let mut r = Trajectory {
        time: vec![d.time],
        qpos: vec![d.qpos.clone()],
        qvel: vec![d.qvel.clone()],
        act: vec![d.act.clone()],
        ctrl: Vec::with_capacity(steps),
    };
    let mut rec = ContactRecorder::new(&m, a.contacts && a.out.is_some());
    let mut warnings = Warnings::default();
    for (s, u) in ctrl.iter().take(steps).enumerate() {
        d.ctrl.copy_from_slice(u);
        rec.record(&m, &d);
        r.ctrl.push(step_warned(&m, &mut d, &mut warnings, s)?);
        r.time.push(d.time);
        r.qpos.push(d.qpos.clone());
        r.qvel.push(d.qvel.clone());
        r.act.push(d.act.clone());
    }
    let devs = [
        ("qpos", max_dev(&qpos, &r.qpos)),
        ("qvel", max_dev(&qvel, &r.qvel)),
        ("act", max_dev(&act, &r.act)),
        (
            "time",
            max_dev(
                &time.iter().map(|t| vec![*t]).collect::<Vec<_>>(),
                &r.time.iter().map(|t| vec![*t]).collect::<Vec<_>>(),
            ),
        ),
    ];
    warnings.summary();
    outln!("steps {steps}");
    for (k, (e, t)) in &devs {
        outln!("{k} max_abs_error {e:e} at_step {t}");
    }
    if let Some(out) = a.out {
        let errs: Map<String, Value> = devs
            .iter()
            .map(|(k, (e, _))| (k.to_string(), json!(e)))
            .collect();
        rec.record(&m, &d);
        let mut v = r.to_json(json!({ "max_error": errs,
            "model": model_path.to_string_lossy(), "warning": warnings.json() }));
        rec.insert(&mut v);
        write_json(out, &v)?;
    }
    if let Some(dir) = a.plot {
        plot_replay(dir, &time, &qpos, &r.qpos, &qvel, &r.qvel)?;
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

/// Reads a JSON file as an object.
fn read_object(file: &Path) -> Res<Map<String, Value>> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
    match serde_json::from_str(&text) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(format!("{}: expected a JSON object", file.display())),
        Err(e) => Err(format!("{}: invalid JSON: {e}", file.display())),
    }
}

/// The model a trajectory file names under `model` ([`trajectory::model_path`]).
fn model_of(o: &Map<String, Value>, file: &Path) -> Res<PathBuf> {
    trajectory::model_path(o, file)?.ok_or_else(|| {
        format!(
            "{}: no 'model' key; give the model file first",
            file.display()
        )
    })
}

/// `moreau view`: the HTML page of a model and its trajectories.
fn view(
    model: &Path,
    trajs: &[PathBuf],
    out: &Path,
    title: Option<String>,
    max_fps: f64,
) -> Res<()> {
    if max_fps.is_nan() || max_fps < 0.0 {
        return Err(format!("--max-fps {max_fps}: must be a number ≥ 0"));
    }
    let mut files: Vec<PathBuf> = trajs.to_vec();
    let model_path = if model
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        files.insert(0, model.to_path_buf());
        model_of(&read_object(model)?, model)?
    } else {
        model.to_path_buf()
    };
    let m = load(&model_path)?;
    let mut all = Vec::new();
    for f in &files {
        let o = read_object(f)?;
        let name = f.file_stem().map_or_else(
            || f.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let t = moreau_viewer::from_json(&m, &Value::Object(o), &name)
            .map_err(|e| format!("{}: {e}", f.display()))?;
        all.extend(t);
    }
    let title = title.unwrap_or_else(|| {
        model_path
            .file_stem()
            .map_or_else(|| "moreau".into(), |s| s.to_string_lossy().into_owned())
    });
    let opts = moreau_viewer::Options {
        title: Some(title),
        max_fps,
    };
    let html = moreau_viewer::page(&m, &all, &opts)
        .map_err(|e| format!("{}: {e}", model_path.display()))?;
    std::fs::write(out, html).map_err(|e| format!("{}: cannot write: {e}", out.display()))?;
    println!("wrote {}", out.display());
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
        outln!("wrote {}", path.display());
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

/// `moreau state`: the state file of qpos0 (zero velocity, activations and controls) or of a
/// keyframe (`mj_resetDataKeyframe`): `qpos`, `qvel`, `act`, `ctrl`, `qacc_warmstart` (zero
/// after a reset), `time`, the keys [`read_state`] takes.
fn state_cmd(path: &Path, keyframe: Option<usize>, out: &Path) -> Res<()> {
    let m = load(path)?;
    let mut d = Data::<f64>::new(&m);
    if let Some(k) = keyframe {
        d.reset_keyframe(&m, k)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let v = json!({ "qpos": d.qpos, "qvel": d.qvel, "act": d.act, "ctrl": d.ctrl,
                    "qacc_warmstart": d.qacc_warmstart, "time": d.time });
    write_json(out, &v)
}

/// Reads a state file (`qpos`, `qvel`, `act`, `ctrl`, optional `qfrc_applied`,
/// `qacc_warmstart`, `time`) into fresh data for `m`; returns the JSON object too.
fn read_state(m: &Model, state: &Path) -> Res<(Data<f64>, Map<String, Value>)> {
    let text = read_text(state)?;
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
    // mj_step's checks around mj_forward: a diverged state is reset, as MuJoCo's step does,
    // and reported; the output then belongs to the reset state
    let mut warnings = Warnings::default();
    let t = d.time;
    Warnings::arm(&mut d);
    moreau::pipeline::check_pos(&m, &mut d);
    moreau::pipeline::check_vel(&m, &mut d);
    moreau::forward(&m, &mut d);
    moreau::pipeline::check_acc(&m, &mut d);
    warnings.collect(&m, &d, t, "forward")?;
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
            "warning": warnings.json(),
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
    stable_state(&m, &mut d, state, Some(&qacc))?;
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

/// Refuses a state that `mj_step`'s divergence checks would reset (NaN, ±inf or |x| > 1e10 in
/// `qpos`, `qvel`, or the given `qacc`): a single evaluation at a reset state answers another
/// question. The error carries MuJoCo's warning text.
fn stable_state(m: &Model, d: &mut Data<f64>, state: &Path, qacc: Option<&[f64]>) -> Res<()> {
    let bad = |v: &[f64]| v.iter().position(|&x| moreau::pipeline::is_bad(x));
    let found = [
        (Warning::BadQpos, bad(&d.qpos)),
        (Warning::BadQvel, bad(&d.qvel)),
        (Warning::BadQacc, qacc.and_then(bad)),
    ];
    match found.into_iter().find(|(_, i)| i.is_some()) {
        Some((w, Some(i))) => Err(format!(
            "{}: {} Time = {:.4}. (nothing computed at an unstable state)",
            state.display(),
            w.text(i as i64),
            d.time
        )),
        _ => {
            let _ = m;
            Ok(())
        }
    }
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
    let qacc = match kind {
        Kind::Inverse => vec_of(&s, state, "qacc", m.nv)?,
        Kind::Transition => None,
    };
    stable_state(&m, &mut d, state, qacc.as_deref())?;
    let mut ws = Workspace::default();
    // the perturbed evaluations run mj_step's checks: a warning there means a perturbed state
    // diverged (was reset), and its differences are meaningless
    let mut warnings = Warnings::default();
    let t0 = d.time;
    Warnings::arm(&mut d);
    let v = match kind {
        Kind::Transition => {
            let t = ws
                .transition(&m, &mut d, &TransitionOptions::fd(eps, centered))
                .map_err(|e| e.to_string())?;
            json!({"A": mat_rows(&t.A), "B": mat_rows(&t.B), "C": mat_rows(&t.C),
                   "D": mat_rows(&t.D)})
        }
        Kind::Inverse => {
            inverse_supported(path, &m)?;
            moreau::forward(&m, &mut d);
            if let Some(q) = &qacc {
                d.qacc.copy_from_slice(q);
            }
            let j = ws
                .inverse(&m, &mut d, &InverseOptions::fd(eps, actuation, centered))
                .map_err(|e| e.to_string())?;
            json!({"DfDq": mat_rows(&j.DfDq), "DfDv": mat_rows(&j.DfDv),
                   "DfDa": mat_rows(&j.DfDa), "DsDq": mat_rows(&j.DsDq),
                   "DsDv": mat_rows(&j.DsDv), "DsDa": mat_rows(&j.DsDa),
                   "DmDq": mat_rows(&j.DmDq)})
        }
    };
    warnings.collect(&m, &d, t0, "finite differences")?;
    if warnings.diverged() {
        return Err(format!(
            "--eps {eps:e}: a perturbed state diverged and was reset (warnings above); the \
             differences would be meaningless: use a smaller --eps"
        ));
    }
    write_json(out, &v)
}

/// `--method analytic`: transition A, B by the implicit function theorem at the constraint
/// solution, C, D from its `∂qacc` (derivatives/src/sensor.rs); inverse DfDa, DfDv, DfDq, DmDq
/// analytic (constraint and tendon terms of DfDq by a restricted dual pass; no inverse sensor
/// Jacobians). See derivatives/src/transition.rs, inverse.rs, rne.rs and inverse_pos.rs.
fn derivatives_analytic(
    path: &Path,
    m: &Model,
    state: &Path,
    kind: Kind,
    actuation: bool,
    out: &Path,
) -> Res<()> {
    let (mut d, s) = read_state(m, state)?;
    let qacc = match kind {
        Kind::Inverse => vec_of(&s, state, "qacc", m.nv)?,
        Kind::Transition => None,
    };
    stable_state(m, &mut d, state, qacc.as_deref())?;
    let unsup = |e: &dyn std::fmt::Display| {
        format!("{}: --method analytic does not support {e}", path.display())
    };
    let v = match kind {
        Kind::Transition => {
            let t = transition(m, &mut d, &TransitionOptions::analytic()).map_err(|e| unsup(&e))?;
            json!({"A": mat_rows(&t.A), "B": mat_rows(&t.B), "C": mat_rows(&t.C),
                   "D": mat_rows(&t.D)})
        }
        Kind::Inverse => {
            inverse_supported(path, m)?;
            if actuation {
                return Err(unsup(&"--actuation"));
            }
            moreau::forward(m, &mut d);
            if let Some(q) = &qacc {
                d.qacc.copy_from_slice(q);
            }
            let j = inverse(m, &mut d, &InverseOptions::analytic()).map_err(|e| unsup(&e))?;
            json!({"DfDq": mat_rows(&j.DfDq), "DfDv": mat_rows(&j.DfDv),
                   "DfDa": mat_rows(&j.DfDa), "DmDq": mat_rows(&j.DmDq)})
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
    outln!(
        "{}",
        json!({"model": name, "integrator": integrator_name(m.opt.integrator),
               "batches": batches, "batch_size": steps,
               "sparse": moreau::pipeline::is_sparse(&m)})
    );
    outln!("{}", json!({"step_us": step_us}));
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
    outln!("{}", json!({"step_cpu_us": step_cpu_us}));
    outln!("{}", json!({"forward_us": fwd_us}));
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
    outln!("{}", json!({"inverse_us": inv_us}));
    // FD Jacobians (forward differences, eps 1e-6, no sensor Jacobians as bench_mujoco.py),
    // batches of 20 calls from the reset state after a forward
    let mut ws = Workspace::default();
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
    let mut time_fd =
        |contact: bool, f: &mut dyn FnMut(&mut Workspace, &mut Data<f64>)| -> (f64, Option<f64>) {
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
    let fd = TransitionOptions::fd(1e-6, false).with_sensors(false);
    let (tfd_us, tfd_cpu) = time_fd(false, &mut |ws, d| {
        let _ = ws.transition(&m, d, &fd);
    });
    let (ifd_us, ifd_cpu) = time_fd(false, &mut |ws, d| {
        let opts = InverseOptions::fd(1e-6, false, false).with_sensors(false);
        let _ = ws.inverse(&m, d, &opts);
    });
    outln!(
        "{}",
        json!({"transitionFD_us": tfd_us, "transitionFD_cpu_us": tfd_cpu})
    );
    outln!(
        "{}",
        json!({"inverseFD_us": ifd_us, "inverseFD_cpu_us": ifd_cpu})
    );
    // analytic Jacobians (IFT through contact; A, B only), same batches
    let mut tac_wall = None;
    let analytic = TransitionOptions::analytic().with_sensors(false);
    if Support::transition(&m).is_covered() {
        let mut aw = Workspace::default();
        let (ta_us, ta_cpu) = time_fd(false, &mut |_, d| {
            let _ = aw.transition(&m, d, &analytic);
        });
        let (ia_us, ia_cpu) = time_fd(false, &mut |_, d| {
            let _ = inverse(&m, d, &InverseOptions::analytic());
        });
        outln!(
            "{}",
            json!({"transition_analytic_us": ta_us, "transition_analytic_cpu_us": ta_cpu,
                              "ratio_transition_analytic_vs_FD": ta_us / tfd_us})
        );
        outln!(
            "{}",
            json!({"inverse_analytic_us": ia_us, "inverse_analytic_cpu_us": ia_cpu,
                              "ratio_inverse_analytic_vs_FD": ia_us / ifd_us})
        );
        // the same at the settled state with contacts
        let (tfc_us, tfc_cpu) = time_fd(true, &mut |ws, d| {
            let _ = ws.transition(&m, d, &fd);
        });
        let mut aw = Workspace::default();
        let (tac_us, tac_cpu) = time_fd(true, &mut |_, d| {
            let _ = aw.transition(&m, d, &analytic);
        });
        tac_wall = Some((tac_us, tac_cpu));
        let ratio = match (tac_cpu, tfc_cpu) {
            (Some(a), Some(b)) => a / b,
            _ => tac_us / tfc_us,
        };
        outln!(
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
    if Support::smooth_pos(&m).is_covered() {
        let nv = m.nv;
        let mut w = moreau_derivatives::Work::default();
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
        outln!(
            "{}",
            json!({"rnea_derivatives_us": median(v), "rnea_derivatives_cpu_us": cpu})
        );
        let mut mc = m.clone();
        mc.opt.disableflags |= moreau::model::disable::CONSTRAINT;
        if Support::transition(&mc).is_covered() {
            let (ia_nc, ia_nc_cpu) = time_fd(false, &mut |_, d| {
                let _ = inverse(&mc, d, &InverseOptions::analytic());
            });
            outln!(
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
            outln!(
                "{}",
                json!({"mujoco_inverse_us": i, "mujoco_transitionFD_us": t,
                       "mujoco_inverseFD_us": ifd})
            );
            outln!(
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
            outln!(
                "{}",
                json!({"mujoco_transitionFD_contact_us": t,
                       "mujoco_transitionFD_contact_cpu_us": tc,
                       "mujoco_contact_state_nefc": r["contact_state_nefc"],
                       "ratio_transition_analytic_vs_mujoco_FD_contact": ratio})
            );
        }
        if let Some(c) = mj("step_cpu_us") {
            outln!(
                "{}",
                json!({"mujoco_step_cpu_us": c, "ratio_step_cpu": step_cpu_us / c})
            );
        }
        if let (Some(s), Some(f)) = (mj("step_us"), mj("forward_us")) {
            let rollout = mj("step_rollout_us");
            outln!(
                "{}",
                json!({"mujoco_step_us": s, "mujoco_forward_us": f,
                       "mujoco_step_rollout_us": rollout, "mujoco_call_overhead_us": overhead})
            );
            outln!(
                "{}",
                json!({"ratio_step": step_us / (s - overhead).max(1e-9),
                       "ratio_forward": fwd_us / (f - overhead).max(1e-9),
                       "ratio_step_vs_rollout": rollout.map(|r| step_us / r)})
            );
        }
    }
    Ok(())
}
