//! Trees that start asleep (`sleep="init"`) and what a reset computes with the `sleep` flag,
//! against MuJoCo 4.0.0 (tests/reference/sleep_init.json, written by
//! tools/reference/gen_sleep_init.py).
//!
//! For each case the reset (`Data::new`, then `Data::reset` or `Data::reset_keyframe`, as
//! MuJoCo's `mj_makeData` then `mj_resetData` or `mj_resetDataKeyframe`) must give MuJoCo's
//! `tree_asleep`, `ncon`, `nefc`, `nisland`, contact geoms and warning text exactly, and its
//! fields within [`TOL`] relative to max(1, the field's largest magnitude in MuJoCo). Then the
//! recorded steps (a sphere dropped on a sleeping box, a push on a welded pair, a keyframe that
//! moved a sleeping box) must give `tree_asleep`, `ncon`, `nefc` exactly and the state,
//! accelerations and sensors within [`TOL`]. A second reset after the steps must give the
//! first reset's record again.

use crate::oracle_util;

use moreau::{load_from_str, Data, Model, Vfs};
use nalgebra::{Quaternion, Vector3, Vector6};
use oracle_util::{fv, iv, reference};
use serde_json::Value;

/// Converged contact solutions (docs/mujoco-behaviour.md: the solvers' tolerance).
const TOL: f64 = 1e-8;

fn flat3(v: &[Vector3<f64>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}

fn flat6(v: &[Vector6<f64>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}

fn flatq(v: &[Quaternion<f64>]) -> Vec<f64> {
    v.iter().flat_map(|q| [q.w, q.i, q.j, q.k]).collect()
}

/// Each field of `names` within [`TOL`] of `want`'s, relative to the field's scale.
fn compare(at: &str, d: &Data, want: &Value, names: &[&str], worst: &mut f64) {
    for &f in names {
        let got = match f {
            "qpos" => d.qpos.clone(),
            "qvel" => d.qvel.clone(),
            "qacc" => d.qacc.clone(),
            "qacc_smooth" => d.qacc_smooth.clone(),
            "qfrc_smooth" => d.qfrc_smooth.clone(),
            "qfrc_constraint" => d.qfrc_constraint.clone(),
            "qfrc_bias" => d.qfrc_bias.clone(),
            "xpos" => flat3(&d.xpos),
            "xquat" => flatq(&d.xquat),
            "subtree_com" => flat3(&d.subtree_com),
            "cacc" => flat6(&d.cacc),
            "cfrc_ext" => flat6(&d.cfrc_ext),
            "ten_length" => d.ten_length.clone(),
            "sensordata" => d.sensordata.clone(),
            other => panic!("no field {other}"),
        };
        let w = fv(&want[f]);
        assert_eq!(got.len(), w.len(), "{at}: {f} length");
        let scale = w.iter().fold(1.0f64, |s, x| s.max(x.abs()));
        for (k, (a, b)) in got.iter().zip(&w).enumerate() {
            let e = (a - b).abs() / scale;
            *worst = worst.max(e);
            assert!(e <= TOL, "{at}: {f}[{k}] = {a}, MuJoCo {b} (error {e:.2e})");
        }
    }
}

const RESET_FIELDS: [&str; 14] = [
    "qpos",
    "qvel",
    "qacc",
    "qacc_smooth",
    "qfrc_smooth",
    "qfrc_constraint",
    "qfrc_bias",
    "xpos",
    "xquat",
    "subtree_com",
    "cacc",
    "cfrc_ext",
    "ten_length",
    "sensordata",
];

/// What a reset computes without `sleep="init"` trees (the kinematics; MuJoCo's reset also
/// zeroes every other field, moreau's keeps their last values).
const KINEMATIC_FIELDS: [&str; 6] = ["qpos", "qvel", "xpos", "xquat", "subtree_com", "ten_length"];

/// Resets `d` as the case says (keyframe or not) and checks it against the case's record
/// (`fields`).
fn check_reset(name: &str, m: &Model, d: &mut Data, c: &Value, fields: &[&str], worst: &mut f64) {
    let r = &c["reset"];
    let key = c["key"].as_i64().unwrap();
    let warning = if key >= 0 {
        let w = moreau::reset_data(m, d);
        d.reset_keyframe(m, key as usize).unwrap();
        w
    } else {
        moreau::reset_data(m, d)
    };
    let at = format!("{name} reset");
    let ta: Vec<i64> = d.tree_asleep.iter().map(|&x| x as i64).collect();
    assert_eq!(ta, iv(&r["tree_asleep"]), "{at}: tree_asleep");
    assert_eq!(
        d.contact.len() as i64,
        r["ncon"].as_i64().unwrap(),
        "{at}: ncon"
    );
    assert_eq!(d.nefc as i64, r["nefc"].as_i64().unwrap(), "{at}: nefc");
    assert_eq!(
        d.nisland as i64,
        r["nisland"].as_i64().unwrap(),
        "{at}: nisland"
    );
    let geoms: Vec<Value> = d
        .contact
        .iter()
        .map(|c| serde_json::json!([c.geom[0], c.geom[1]]))
        .collect();
    assert_eq!(
        Value::Array(geoms),
        r["contact_geom"],
        "{at}: contact geoms"
    );
    let want: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(
        warning.as_deref().into_iter().collect::<Vec<_>>(),
        want,
        "{at}: warning"
    );
    compare(&at, d, r, fields, worst);
}

#[test]
fn init_trees_sleep_from_the_reset_as_mujocos() {
    let e = reference("sleep_init.json");
    let mut worst = 0.0f64;
    let (mut slept, mut woke, mut warned) = (0, 0, 0);
    for c in e["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let m = load_from_str(c["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        let mut d = Data::<f64>::new(&m);
        check_reset(name, &m, &mut d, c, &RESET_FIELDS, &mut worst);
        slept += d.tree_asleep.iter().filter(|&&a| a >= 0).count();
        warned += c["reset"]["warnings"].as_array().unwrap().len();
        let kicks = c["kicks"].as_array().unwrap();
        let steps = c["steps"].as_array().unwrap();
        let mut recorded = steps.iter().peekable();
        for i in 0..c["nstep"].as_u64().unwrap() {
            for k in kicks.iter().filter(|k| k["step"].as_u64() == Some(i)) {
                let start = k["start"].as_u64().unwrap() as usize;
                let v = fv(&k["values"]);
                let f = match k["field"].as_str().unwrap() {
                    "qpos" => &mut d.qpos,
                    "qvel" => &mut d.qvel,
                    other => panic!("kick on {other}"),
                };
                f[start..start + v.len()].copy_from_slice(&v);
            }
            let before = d.tree_asleep.clone();
            moreau::step(&m, &mut d);
            woke += (0..before.len())
                .filter(|&t| before[t] >= 0 && d.tree_asleep[t] < 0)
                .count();
            let Some(want) = recorded.next_if(|s| s["step"].as_u64() == Some(i)) else {
                continue;
            };
            let at = format!("{name} step {i}");
            let ta: Vec<i64> = d.tree_asleep.iter().map(|&x| x as i64).collect();
            assert_eq!(ta, iv(&want["tree_asleep"]), "{at}: tree_asleep");
            assert_eq!(
                d.contact.len() as i64,
                want["ncon"].as_i64().unwrap(),
                "{at}: ncon"
            );
            assert_eq!(d.nefc as i64, want["nefc"].as_i64().unwrap(), "{at}: nefc");
            compare(
                &at,
                &d,
                want,
                &["qpos", "qvel", "qacc", "qacc_smooth", "sensordata"],
                &mut worst,
            );
        }
        assert!(recorded.next().is_none(), "{name}: recorded steps left");
        // a reset after stepping gives the same state again (with `sleep="init"` trees every
        // field, as the reset's forward pass recomputes them)
        let fields: &[&str] = if moreau::init_trees(&m) > 0 {
            &RESET_FIELDS
        } else {
            &KINEMATIC_FIELDS
        };
        check_reset(
            &format!("{name} (again)"),
            &m,
            &mut d,
            c,
            fields,
            &mut worst,
        );
    }
    // the cases exercise what they are for: trees asleep from the reset, trees woken by a
    // touch, a push or a keyframe, and MuJoCo's warning
    assert!(slept >= 6, "{slept} trees asleep after the resets");
    assert!(woke >= 3, "{woke} trees woken");
    assert_eq!(warned, 2);
    println!("sleep init: worst relative error {worst:.2e}");
}

/// `Data::new` is `mj_makeData`: the same `sleep="init"` pass as a reset.
#[test]
fn new_data_sleeps_the_init_trees() {
    let e = reference("sleep_init.json");
    for c in e["cases"].as_array().unwrap() {
        if c["key"].as_i64() != Some(-1) {
            continue;
        }
        let m = load_from_str(c["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        let d = Data::<f64>::new(&m);
        let ta: Vec<i64> = d.tree_asleep.iter().map(|&x| x as i64).collect();
        assert_eq!(ta, iv(&c["reset"]["tree_asleep"]), "{}", c["name"]);
        let mut worst = 0.0;
        compare(
            c["name"].as_str().unwrap(),
            &d,
            &c["reset"],
            &RESET_FIELDS,
            &mut worst,
        );
    }
}
