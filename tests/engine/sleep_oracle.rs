//! Sleeping trees and explicit pairs against MuJoCo 4.0.0 (tests/reference/sleep_cases.json,
//! written by tools/reference/gen_sleep_cases.py).
//!
//! Each rollout steps a sleep-enabled model from its reset state with MuJoCo's kicks and
//! controls; after every recorded step `tree_asleep`, `ncon` and `nefc` are equal and the state and the
//! derived fields are MuJoCo's within [`TOL`] (relative to max(1, the field's largest
//! magnitude in MuJoCo): a contact force of 380 N carries the solver's 1e-10): among them what a
//! sleeping tree keeps from the step it fell asleep in (its sensors, `cacc`, `cfrc_ext`,
//! `cfrc_int` and the subtree velocities while no awake sensor asks for them). The pairs case
//! checks that the explicit pairs come in MuJoCo's order (sorted by `pair_signature`) and
//! their contacts in that order.

use crate::oracle_util;

use moreau::{load_from_str, Data, Vfs};
use nalgebra::{Vector3, Vector6};
use oracle_util::{cmp, fv, iv, reference};
use serde_json::Value;

/// Converged contact solutions (docs/mujoco-behaviour.md: the solvers' tolerance).
const TOL: f64 = 1e-8;

fn flat6(v: &[Vector6<f64>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}

fn flat3(v: &[Vector3<f64>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}

fn field<'a>(d: &'a mut Data, name: &str) -> &'a mut [f64] {
    match name {
        "qpos" => &mut d.qpos,
        "qvel" => &mut d.qvel,
        other => panic!("kick on {other}"),
    }
}

#[test]
fn sleeping_trees_keep_mujocos_fields() {
    let e = reference("sleep_cases.json");
    let mut worst = 0.0f64;
    let mut kept = 0;
    for r in e["rollouts"].as_array().unwrap() {
        let name = r["name"].as_str().unwrap();
        let m = load_from_str(r["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        let mut d = Data::<f64>::new(&m);
        let kicks = r["kicks"].as_array().unwrap();
        let ctrl = r["ctrl"].as_array().unwrap();
        let mut asleep = 0;
        let steps = r["steps"].as_array().unwrap();
        let mut recorded = steps.iter().peekable();
        for (i, u) in ctrl.iter().enumerate() {
            for k in kicks
                .iter()
                .filter(|k| k["step"].as_u64() == Some(i as u64))
            {
                let start = k["start"].as_u64().unwrap() as usize;
                let v = fv(&k["values"]);
                field(&mut d, k["field"].as_str().unwrap())[start..start + v.len()]
                    .copy_from_slice(&v);
            }
            d.ctrl.copy_from_slice(&fv(u));
            moreau::step(&m, &mut d);
            let Some(want) = recorded.next_if(|s| s["step"].as_u64() == Some(i as u64)) else {
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
            let got: [(&str, Vec<f64>); 11] = [
                ("qpos", d.qpos.clone()),
                ("qvel", d.qvel.clone()),
                ("qacc", d.qacc.clone()),
                ("qacc_smooth", d.qacc_smooth.clone()),
                ("cvel", flat6(&d.cvel)),
                ("cacc", flat6(&d.cacc)),
                ("cfrc_ext", flat6(&d.cfrc_ext)),
                ("cfrc_int", flat6(&d.cfrc_int)),
                ("subtree_linvel", flat3(&d.subtree_linvel)),
                ("subtree_angmom", flat3(&d.subtree_angmom)),
                ("sensordata", d.sensordata.clone()),
            ];
            for (f, g) in &got {
                let w = fv(&want[*f]);
                assert_eq!(g.len(), w.len(), "{at}: {f} length");
                let scale = w.iter().fold(1.0f64, |s, x| s.max(x.abs()));
                for (k, (a, b)) in g.iter().zip(&w).enumerate() {
                    let e = (a - b).abs() / scale;
                    worst = worst.max(e);
                    assert!(e <= TOL, "{at}: {f}[{k}] = {a}, MuJoCo {b} (error {e:.2e})");
                }
            }
            if d.tree_asleep.iter().any(|&a| a >= 0) {
                asleep += 1;
                // the stack asleep keeps the lower box's contact-supported `cacc` (≈ 9.81 up;
                // recomputed without its contacts it would be 0)
                if name == "stack" && d.tree_asleep.iter().all(|&a| a >= 0) {
                    kept += usize::from(d.cacc[1][5] > 9.0);
                }
            }
        }
        assert!(recorded.next().is_none(), "{name}: recorded steps left");
        assert!(
            asleep >= 40,
            "{name}: {asleep} recorded steps with a sleeping tree"
        );
    }
    assert!(
        kept >= 20,
        "{kept} recorded steps with the stack's kept cacc"
    );
    println!("sleep rollouts: worst relative error {worst:.2e}");
}

#[test]
fn explicit_pairs_come_in_mujocos_order() {
    let e = reference("sleep_cases.json");
    let p = &e["pairs"];
    let m = load_from_str(p["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
    let us = |x: &[usize]| x.iter().map(|&v| v as i64).collect::<Vec<_>>();
    assert_eq!(us(&m.pair_geom1), iv(&p["pair_geom1"]));
    assert_eq!(us(&m.pair_geom2), iv(&p["pair_geom2"]));
    let mut worst = 0.0;
    cmp(
        "pair_margin",
        &m.pair_margin,
        &fv(&p["pair_margin"]),
        0.0,
        &mut worst,
    );
    let sig: Vec<i64> = (0..m.npair)
        .map(|k| {
            ((m.geom_bodyid[m.pair_geom1[k]] as i64) << 16) + m.geom_bodyid[m.pair_geom2[k]] as i64
        })
        .collect();
    assert_eq!(sig, iv(&p["pair_signature"]));
    let mut d = Data::<f64>::new(&m);
    moreau::forward(&m, &mut d);
    let geoms: Vec<Value> = d
        .contact
        .iter()
        .map(|c| serde_json::json!([c.geom[0], c.geom[1]]))
        .collect();
    assert_eq!(Value::Array(geoms), p["contact_geom"]);
    let dist: Vec<f64> = d.contact.iter().map(|c| c.dist).collect();
    cmp(
        "contact dist",
        &dist,
        &fv(&p["contact_dist"]),
        1e-12,
        &mut worst,
    );
}
