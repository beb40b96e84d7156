//! The trajectory JSON format shared by `moreau simulate`, `moreau replay` and the optimizers'
//! examples (docs/cli.md): an object with `time` (`T + 1` numbers), `qpos`, `qvel`, `act`
//! (`T + 1` rows each, the initial state first; optimizers write `act` as empty rows for models
//! without activations), `ctrl` (`T` rows, the controls of each step), optionally `model` (the
//! MJCF file, relative paths from the trajectory's directory) and any further keys (`warning`,
//! `max_error`, an optimizer's report, ...). Keys are MuJoCo's field names.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// A trajectory: states at `T + 1` times and the `T` controls between them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trajectory {
    /// Simulation time of each state (may be empty when read from a file without `time`).
    pub time: Vec<f64>,
    /// `qpos` of each state (`nq` each).
    pub qpos: Vec<Vec<f64>>,
    /// `qvel` of each state (`nv` each).
    pub qvel: Vec<Vec<f64>>,
    /// `act` of each state (`na` each).
    pub act: Vec<Vec<f64>>,
    /// `ctrl` of each step (`nu` each; one row fewer than the states when complete).
    pub ctrl: Vec<Vec<f64>>,
}

impl Trajectory {
    /// A trajectory sampled every `dt` from time 0 with empty `act` rows (the optimizers'
    /// models have no activations).
    pub fn sampled(dt: f64, qpos: &[Vec<f64>], qvel: &[Vec<f64>], ctrl: &[Vec<f64>]) -> Self {
        Trajectory {
            time: (0..qpos.len()).map(|t| t as f64 * dt).collect(),
            qpos: qpos.to_vec(),
            qvel: qvel.to_vec(),
            act: vec![Vec::new(); qpos.len()],
            ctrl: ctrl.to_vec(),
        }
    }

    /// The JSON object (`time`, `qpos`, `qvel`, `act`, `ctrl`) with the keys of `extra` (an
    /// object; anything else adds nothing) added.
    pub fn to_json(&self, extra: Value) -> Value {
        let mut v = serde_json::json!({
            "time": self.time, "qpos": self.qpos, "qvel": self.qvel, "act": self.act,
            "ctrl": self.ctrl,
        });
        if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
            o.extend(e);
        }
        v
    }

    /// Reads the states of a trajectory object `o` (from `file`, named in errors) for a model
    /// with `nq`, `nv`, `na`: `qpos` and `qvel` required, `act` required unless `na = 0`, the
    /// same number of rows (at least one), `time` optional. `ctrl` is left empty: read it with
    /// [`rows`] (`nu` columns), since a caller may take the controls from elsewhere.
    pub fn read_states(
        o: &Map<String, Value>,
        file: &Path,
        nq: usize,
        nv: usize,
        na: usize,
    ) -> Result<Trajectory, String> {
        let need = |key: &str, n: usize| -> Result<Vec<Vec<f64>>, String> {
            rows(o, file, key, n)?.ok_or_else(|| format!("{}: missing '{key}'", file.display()))
        };
        let qpos = need("qpos", nq)?;
        let qvel = need("qvel", nv)?;
        // optimizers write `act` as empty rows for models without activations, or leave it out
        let act = match rows(o, file, "act", na)? {
            Some(a) => a,
            None if na == 0 => vec![vec![]; qpos.len()],
            None => return Err(format!("{}: missing 'act' (na = {na})", file.display())),
        };
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
        let time = match o.get("time") {
            Some(t) => {
                let t = t
                    .as_array()
                    .ok_or_else(|| format!("{}: 'time' must be an array", file.display()))?;
                t.iter()
                    .enumerate()
                    .map(|(i, x)| {
                        x.as_f64().ok_or_else(|| {
                            format!("{}: 'time'[{i}] is not a number", file.display())
                        })
                    })
                    .collect::<Result<Vec<f64>, String>>()?
            }
            None => vec![],
        };
        Ok(Trajectory {
            time,
            qpos,
            qvel,
            act,
            ctrl: Vec::new(),
        })
    }
}

/// Reads `key` of a trajectory object as rows of exactly `n` numbers (`None` if absent).
pub fn rows(
    o: &Map<String, Value>,
    file: &Path,
    key: &str,
    n: usize,
) -> Result<Option<Vec<Vec<f64>>>, String> {
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
        .collect::<Result<Vec<Vec<f64>>, String>>()
        .map(Some)
}

/// The model a trajectory object names under `model` (`None` without the key): relative paths
/// are taken from the file's directory when they do not exist from the working directory.
pub fn model_path(o: &Map<String, Value>, file: &Path) -> Result<Option<PathBuf>, String> {
    match o.get("model") {
        Some(Value::String(p)) => {
            let p = PathBuf::from(p);
            Ok(Some(match (p.is_relative(), file.parent()) {
                (true, Some(dir)) if !p.exists() => dir.join(p),
                _ => p,
            }))
        }
        Some(_) => Err(format!("{}: 'model' must be a string", file.display())),
        None => Ok(None),
    }
}
