//! The inverse dynamics with sleeping trees, against MuJoCo 4.0.0
//! (tests/reference/inverse_sleep.json, written by tools/reference/gen_inverse_sleep.py).
//!
//! A damped pendulum and a box asleep from the reset (`sleep="init"`) beside a swinging
//! pendulum, under Euler, implicitfast and implicit, with and without `invdiscrete`: after the
//! recorded steps (and with a first pendulum that falls asleep by itself under implicitfast
//! and implicit with `invdiscrete`) `inverse` is given a `qacc` on every dof (the sleeping
//! ones too; and with the sleeping pendulum's `qpos`, `qvel` or `qfrc_applied` changed first,
//! which wakes it as in `forward`) and must
//! give MuJoCo's `tree_asleep` exactly and its `qfrc_inverse`, `sensordata` and `qDeriv`
//! within [`TOL`] of each field's scale. What the oracle shows: Euler's discrete conversion
//! counts the sleeping pendulum's damping (every dof's, as without the flag); implicitfast
//! and implicit recompute `qDeriv` for awake dofs only and convert a sleeping dof with the
//! entries it kept (0 for a tree asleep since the reset: the sleeping pendulum's
//! `qfrc_inverse` is then the continuous one; its damping for the pendulum that fell asleep);
//! the sensors of sleeping trees keep their values. The previous code recomputed a sleeping
//! dof's `qDeriv` (−3 where MuJoCo keeps 0).

use crate::oracle_util;

use moreau::{inverse, load_from_str, step, Data, Vfs};
use oracle_util::{fv, iv, reference};

/// Smooth dynamics, no contact solve (docs: 1e-10 for smooth quantities).
const TOL: f64 = 1e-10;

fn check(at: &str, f: &str, got: &[f64], want: &[f64], worst: &mut f64) {
    assert_eq!(got.len(), want.len(), "{at}: {f} length");
    let scale = want.iter().fold(1.0f64, |s, x| s.max(x.abs()));
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        let e = (a - b).abs() / scale;
        *worst = worst.max(e);
        assert!(e <= TOL, "{at}: {f}[{k}] = {a}, MuJoCo {b} (error {e:.2e})");
    }
}

#[test]
fn inverse_with_sleeping_trees_as_mujocos() {
    let e = reference("inverse_sleep.json");
    let mut worst = 0.0f64;
    for c in e.as_array().unwrap() {
        let at = c["name"].as_str().unwrap();
        let m = load_from_str(c["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        let mut d = Data::<f64>::new(&m);
        for _ in 0..c["steps"].as_u64().unwrap() {
            step(&m, &mut d);
        }
        let qacc = fv(&c["qacc"]);
        d.qacc.copy_from_slice(&qacc);
        if let Some(k) = c["kick"].as_array() {
            // a changed qpos, qvel or qfrc_applied of the sleeping pendulum: the inverse wakes it
            let (i, x) = (k[1].as_u64().unwrap() as usize, k[2].as_f64().unwrap());
            match k[0].as_str().unwrap() {
                "qpos" => d.qpos[i] += x,
                "qvel" => d.qvel[i] += x,
                "qfrc_applied" => d.qfrc_applied[i] += x,
                other => panic!("{at}: no kick field {other}"),
            }
        }
        inverse(&m, &mut d);
        assert_eq!(d.qacc, qacc, "{at}: qacc restored");
        let ta: Vec<i64> = d.tree_asleep.iter().map(|&x| x as i64).collect();
        assert_eq!(ta, iv(&c["tree_asleep"]), "{at}: tree_asleep");
        check(
            at,
            "qfrc_inverse",
            &d.qfrc_inverse,
            &fv(&c["qfrc_inverse"]),
            &mut worst,
        );
        check(
            at,
            "sensordata",
            &d.sensordata,
            &fv(&c["sensordata"]),
            &mut worst,
        );
        check(at, "qDeriv", &d.qDeriv, &fv(&c["qDeriv"]), &mut worst);
    }
    println!("inverse with sleeping trees: worst relative error {worst:.2e}");
}
