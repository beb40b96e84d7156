//! Helpers shared by the oracle tests that read MuJoCo 4.0.0 reference JSON for whole MJCF
//! models (islands, noslip, actuator damping, post-constraint forces).
#![allow(dead_code)]

pub mod scene;

use moreau::model::Model;
use moreau::Data;
use serde_json::Value;

pub fn root() -> &'static str {
    env!("CARGO_MANIFEST_DIR")
}

/// The committed reference file `tests/reference/{file}`.
pub fn reference(file: &str) -> Value {
    let p = format!("{}/tests/reference/{file}", root());
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

pub fn fv(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().flat_map(fv).collect(),
        Value::Null => vec![],
        _ => vec![v.as_f64().unwrap()],
    }
}

pub fn iv(v: &Value) -> Vec<i64> {
    match v.as_array() {
        Some(a) => a.iter().map(|x| x.as_i64().unwrap()).collect(),
        None => vec![v.as_i64().unwrap()],
    }
}

/// max |a − b| / max(1, |b|).
pub fn err(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / y.abs().max(1.0))
        .fold(
            0.0,
            |w, e| if e.is_nan() { f64::INFINITY } else { w.max(e) },
        )
}

/// max |a − b| / max |b|.
pub fn ferr(a: &[f64], b: &[f64]) -> f64 {
    let s = b.iter().fold(1e-300f64, |w, x| w.max(x.abs()));
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / s)
        .fold(
            0.0,
            |w, e| if e.is_nan() { f64::INFINITY } else { w.max(e) },
        )
}

/// Puts moreau's contacts into MuJoCo's order (same geoms, nearest point; the broadphase order
/// differs in some states, which only permutes rows) and re-runs the constraint stages. False
/// if the contact sets differ.
pub fn mujoco_contact_order(m: &Model, d: &mut Data, c: &Value) -> bool {
    let want = c["contacts"].as_array().unwrap();
    if want.len() != d.contact.len() {
        return false;
    }
    let mut used = vec![false; want.len()];
    let mut order = Vec::new();
    for w in want {
        let x = fv(w);
        let g = [x[0] as usize, x[1] as usize];
        let dist = |i: usize| {
            let p = d.contact[i].pos;
            (p[0] - x[2]).powi(2) + (p[1] - x[3]).powi(2) + (p[2] - x[4]).powi(2)
        };
        let best = (0..d.contact.len())
            .filter(|&i| !used[i] && d.contact[i].geom == g)
            .min_by(|&a, &b| dist(a).total_cmp(&dist(b)));
        let Some(i) = best else {
            return false;
        };
        used[i] = true;
        order.push(i);
    }
    if order.iter().enumerate().all(|(k, &i)| k == i) {
        return true;
    }
    let old = d.contact.clone();
    d.contact.clear();
    d.contact.extend(order.iter().map(|&i| old[i].clone()));
    moreau::pipeline::make_constraint(m, d);
    moreau::pipeline::reference_constraint(m, d);
    moreau::pipeline::fwd_constraint(m, d);
    true
}

pub fn model(name: &str) -> Model {
    moreau::load(format!("{}/models/{name}.xml", root())).unwrap()
}

/// Asserts `|got − want| / max(1, |want|) ≤ tol` entrywise and keeps the largest error in
/// `worst`.
pub fn cmp(what: &str, got: &[f64], want: &[f64], tol: f64, worst: &mut f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        let e = (a - b).abs() / b.abs().max(1.0);
        *worst = worst.max(e);
        assert!(
            e <= tol,
            "{what}[{k}] = {a}, MuJoCo {b} (rel err {e:.2e})\n got  {got:?}\n want {want:?}"
        );
    }
}

/// The case's inputs (`qpos`, `qvel`, `act`, `ctrl`, `qfrc_applied`, `qacc_warmstart`) into `d`.
pub fn set_inputs(d: &mut Data, c: &Value) {
    d.qpos.copy_from_slice(&fv(&c["qpos"]));
    d.qvel.copy_from_slice(&fv(&c["qvel"]));
    d.act.copy_from_slice(&fv(&c["act"]));
    d.ctrl.copy_from_slice(&fv(&c["ctrl"]));
    d.qfrc_applied.copy_from_slice(&fv(&c["qfrc_applied"]));
    d.qacc_warmstart.copy_from_slice(&fv(&c["qacc_warmstart"]));
}

/// Indices as `i64` (to compare with [`iv`]).
pub fn us(x: &[usize]) -> Vec<i64> {
    x.iter().map(|&v| v as i64).collect()
}

/// Sets `m.opt.cone` and `m.opt.solver` from the case's `cone` (`"elliptic"`, else pyramidal)
/// and `solver` (`"Newton"`, `"CG"`, else PGS); returns the solver's name.
pub fn set_cone_solver<'a>(m: &mut Model, c: &'a Value) -> &'a str {
    use moreau::model::{Cone, SolverType};
    m.opt.cone = match c["cone"].as_str().unwrap() {
        "elliptic" => Cone::Elliptic,
        _ => Cone::Pyramidal,
    };
    let solver = c["solver"].as_str().unwrap();
    m.opt.solver = match solver {
        "Newton" => SolverType::Newton,
        "CG" => SolverType::Cg,
        _ => SolverType::Pgs,
    };
    solver
}

/// Steps `d` through the recorded rollout `ro` (`ctrl` of each of its `nstep` steps, applied
/// when the model has actuators) and returns the largest [`err`] of `qpos` and `qvel` at the
/// recorded `steps` against `ro["qpos"]`, `ro["qvel"]`, and the step where it occurred.
/// `after_step(k, d)` runs after step `k`.
#[allow(clippy::needless_range_loop)] // k is the step number, compared with the recorded steps
pub fn track_rollout(
    m: &Model,
    d: &mut Data,
    ro: &Value,
    mut after_step: impl FnMut(usize, &Data),
) -> (f64, usize) {
    let ctrl = ro["ctrl"].as_array().unwrap();
    let steps: Vec<usize> = fv(&ro["steps"]).iter().map(|&x| x as usize).collect();
    let nstep = ro["nstep"].as_u64().unwrap() as usize;
    let (mut worst, mut at, mut rec) = (0.0f64, 0, 0);
    for k in 0..=nstep {
        if rec < steps.len() && steps[rec] == k {
            let e = err(&d.qpos, &fv(&ro["qpos"][rec])).max(err(&d.qvel, &fv(&ro["qvel"][rec])));
            if e > worst {
                (worst, at) = (e, k);
            }
            rec += 1;
        }
        if k == nstep {
            break;
        }
        if m.nu > 0 {
            d.ctrl.copy_from_slice(&fv(&ctrl[k]));
        }
        moreau::step(m, d);
        after_step(k, d);
    }
    (worst, at)
}

/// `"<model> [<label>] <cone> <solver>"`: the name of an oracle case in messages.
pub fn case_tag(c: &Value) -> String {
    format!(
        "{} [{}] {} {}",
        c["model"].as_str().unwrap(),
        c["label"].as_str().unwrap(),
        c["cone"].as_str().unwrap(),
        c["solver"].as_str().unwrap()
    )
}

/// `forward` at the case's inputs ([`set_inputs`]) with the contacts in MuJoCo's order
/// ([`mujoco_contact_order`]); `None`, with `"<tag>: contact sets differ"` pushed to
/// `failures`, when the contact sets differ.
pub fn forward_case(m: &Model, c: &Value, tag: &str, failures: &mut Vec<String>) -> Option<Data> {
    let mut d = Data::new(m);
    set_inputs(&mut d, c);
    moreau::forward(m, &mut d);
    if mujoco_contact_order(m, &mut d, c) {
        Some(d)
    } else {
        failures.push(format!("{tag}: contact sets differ"));
        None
    }
}

/// [`forward_case`], then `None`, with `"<tag>: constraint rows differ"` pushed to
/// `failures`, when the rows' types differ from the case's `efc_type`.
pub fn forward_case_rows(
    m: &Model,
    c: &Value,
    tag: &str,
    failures: &mut Vec<String>,
) -> Option<Data> {
    let d = forward_case(m, c, tag, failures)?;
    let ty: Vec<i64> = d.efc_type.iter().map(|t| *t as i64).collect();
    if ty != iv(&c["efc_type"]) {
        failures.push(format!("{tag}: constraint rows differ"));
        return None;
    }
    Some(d)
}

/// [`cmp`] of each `(field, got)` against the case's `case[field]`, labelled `"<label> <field>"`.
pub fn cmp_case(label: &str, case: &Value, fields: &[(&str, &[f64])], tol: f64, worst: &mut f64) {
    for (field, got) in fields {
        cmp(
            &format!("{label} {field}"),
            got,
            &fv(&case[*field]),
            tol,
            worst,
        );
    }
}
