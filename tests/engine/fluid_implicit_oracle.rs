//! Fluid forces in the implicit integrators' `qDeriv` against MuJoCo 4.0.0
//! (tests/reference/fluid_implicit_cases.json, written by
//! tools/reference/gen_fluid_implicit_cases.py): 100-step implicit / implicitfast rollouts of
//! the fluid models (inertia box, ellipsoid, viscous only) to 1e-8, plus Euler as a control.
//! The models are compiled by moreau (`geom_fluid` included: tests/engine/fluid_compile.rs).

use moreau::{load_from_str, Data, Vfs};
use serde_json::Value;

const TOL: f64 = 1e-8;

fn fv(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn fluid_implicit_rollouts_match_mujoco() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/fluid_implicit_cases.json"
    );
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut worst = 0.0f64;
    for e in all.as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let m = load_from_str(e["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        assert_eq!(moreau::pipeline::forward_unsupported(&m), None, "{name}");
        let mut d = Data::<f64>::new(&m);
        d.qvel.copy_from_slice(&fv(&e["qvel0"]));
        for _ in 0..100 {
            moreau::step(&m, &mut d);
        }
        for (what, got, want) in [
            ("qpos", &d.qpos, fv(&e["qpos"])),
            ("qvel", &d.qvel, fv(&e["qvel"])),
        ] {
            for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                let err = (a - b).abs() / b.abs().max(1.0);
                worst = worst.max(err);
                assert!(
                    err <= TOL,
                    "{name}: {what}[{k}] = {a}, MuJoCo {b} (rel err {err:.2e})"
                );
            }
        }
    }
    println!("fluid implicit rollouts: worst {worst:.2e}");
}
