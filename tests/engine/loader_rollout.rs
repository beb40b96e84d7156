//! End-to-end check of the MJCF loader: every project model is compiled from `models/<name>.xml`
//! (not built from the reference JSON, unlike tests/engine/integrator_oracle.rs) and its 1000-step
//! rollouts are compared with MuJoCo 4.0.0's (`tests/reference/<name>.json`, "rollouts": every
//! integrator, plus Euler without eulerdamp), starting from the recorded `qpos0`/`qvel0`/`act0`.
//!
//! Error measure: `|a − b| / max(1, |b|)` on qpos, qvel, act and time after every step;
//! tolerance 1e-8.

use crate::common;

use common::rollout_start;

use moreau::model::Model;
use serde_json::Value;
use std::path::Path;

const TOL: f64 = 1e-8;

const MODELS: [&str; 9] = [
    "pendulum",
    "double_pendulum",
    "cartpole",
    "ball_pendulum",
    "free_body",
    "arm7",
    "tendon_springs",
    "zoo",
    "zoo2",
];

fn fv(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
        .unwrap_or_default()
}

/// Worst error of one rollout and where it happened.
fn rollout(m: &Model, ro: &Value) -> (f64, String) {
    let (m, mut d) = rollout_start(m, ro);
    let time = fv(&ro["time"]);
    let ctrl = ro["ctrl"].as_array().unwrap();
    let mut worst = (0.0f64, String::new());
    for s in 0..ctrl.len() {
        d.ctrl.copy_from_slice(&fv(&ctrl[s]));
        moreau::step(&m, &mut d);
        for (what, got, want) in [
            ("qpos", &d.qpos[..], fv(&ro["qpos"][s + 1])),
            ("qvel", &d.qvel[..], fv(&ro["qvel"][s + 1])),
            ("act", &d.act[..], fv(&ro["act"][s + 1])),
            ("time", &[d.time][..], vec![time[s + 1]]),
        ] {
            assert_eq!(got.len(), want.len(), "{what}: length");
            for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                let e = (a - b).abs() / b.abs().max(1.0);
                if e > worst.0 || e.is_nan() {
                    worst = (
                        if e.is_nan() { f64::INFINITY } else { e },
                        format!("step {} {what}[{i}]", s + 1),
                    );
                }
            }
        }
    }
    worst
}

#[test]
fn loaded_models_reproduce_mujoco_rollouts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for name in MODELS {
        let text = std::fs::read_to_string(root.join(format!("tests/reference/{name}.json")))
            .expect("reference file");
        let r: Value = serde_json::from_str(&text).expect("reference JSON");
        let m = moreau::load(root.join(format!("models/{name}.xml")))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Some(why) = moreau::pipeline::forward_unsupported(&m) {
            panic!("{name}: the pipeline cannot run it: {why}");
        }
        for (integ, ro) in r["rollouts"].as_object().unwrap() {
            let (err, at) = rollout(&m, ro);
            let line = format!("{name:16} {integ:18} {err:.1e} ({at})");
            if err.is_nan() || err > TOL {
                failures.push(line.clone());
            }
            report.push(line);
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "rollouts above {TOL:e}:\n{}",
        failures.join("\n")
    );
}
