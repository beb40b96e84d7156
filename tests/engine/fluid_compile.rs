//! MJCF `fluidshape` / `fluidcoef` compilation and `<compiler><lengthrange>` against MuJoCo
//! 4.0.0 (tests/reference/fluid_compile_cases.json, written by
//! tools/reference/gen_fluid_compile_cases.py).
//!
//! - `geom_fluid` of sphere / box / capsule (fromto) / ellipsoid / cylinder geoms with
//!   `fluidshape="ellipsoid"` from the default class or the geom, default / class / partial
//!   `fluidcoef`, and `fluidshape="none"` geoms (all zeros): 1e-13 relative (moreau evaluates
//!   the virtual mass / inertia with MuJoCo's own 15-point quadrature, which agrees with the
//!   exact integral only to ~6e-7).
//! - `qfrc_passive` / `qfrc_fluid` after `forward` at random states, with density only,
//!   viscosity only, and density 1000 + viscosity + wind: 1e-10 relative (to max(|x|, 1)), with
//!   MuJoCo's `geom_fluid` substituted and with the compiled one.
//! - a muscle whose length range needs MuJoCo's simulation-based estimate is reported by
//!   `moreau::pipeline::forward_unsupported`; one resolved by `uselimit` matches MuJoCo.

use moreau::{load_from_str, Data, Vfs};
use serde_json::Value;

const TOL_QFRC: f64 = 1e-10;

fn fv(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn cases() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/fluid_compile_cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn geom_fluid_matches_mujoco() {
    let all = cases();
    let mut worst = 0.0f64;
    for c in all["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let m = load_from_str(c["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        let want = c["geom_fluid"].as_array().unwrap();
        assert_eq!(m.geom_fluid.len(), want.len(), "{name}");
        for (g, (got, want)) in m.geom_fluid.iter().zip(want).enumerate() {
            for (k, (a, b)) in got.iter().zip(fv(want)).enumerate() {
                let err = (a - b).abs() / b.abs().max(1e-300);
                let err = if b == 0.0 { a.abs() } else { err };
                worst = worst.max(err);
                assert!(
                    err <= 1e-13,
                    "{name}: geom_fluid[{g}][{k}] = {a}, MuJoCo {b} (rel err {err:.2e})"
                );
            }
        }
    }
    eprintln!("geom_fluid worst relative error {worst:.2e}");
}

/// Worst relative error of `qfrc_passive` / `qfrc_fluid` over all cases and states, with the
/// compiled `geom_fluid` or (`mujoco_fluid`) MuJoCo's.
fn passive_worst(mujoco_fluid: bool, tol: f64) -> f64 {
    let all = cases();
    let mut worst = 0.0f64;
    for c in all["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let mut m = load_from_str(c["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        if mujoco_fluid {
            m.geom_fluid = c["geom_fluid"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| fv(f).try_into().unwrap())
                .collect();
        }
        assert_eq!(moreau::pipeline::forward_unsupported(&m), None, "{name}");
        let mut d = Data::<f64>::new(&m);
        for (s, st) in c["states"].as_array().unwrap().iter().enumerate() {
            d.qpos.copy_from_slice(&fv(&st["qpos"]));
            d.qvel.copy_from_slice(&fv(&st["qvel"]));
            moreau::forward(&m, &mut d);
            for (what, got, want) in [
                ("qfrc_passive", &d.qfrc_passive, fv(&st["qfrc_passive"])),
                ("qfrc_fluid", &d.qfrc_fluid, fv(&st["qfrc_fluid"])),
            ] {
                assert_eq!(got.len(), want.len());
                for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                    let err = (a - b).abs() / b.abs().max(1.0);
                    worst = worst.max(err);
                    assert!(
                        err <= tol,
                        "{name} state {s}: {what}[{k}] = {a}, MuJoCo {b} (rel err {err:.2e})"
                    );
                }
            }
        }
    }
    worst
}

#[test]
fn fluid_passive_forces_match_mujoco() {
    // MuJoCo's geom_fluid: isolates the force computation
    let w = passive_worst(true, 1e-10);
    eprintln!("fluid qfrc worst relative error with MuJoCo's geom_fluid {w:.2e}");
    // the compiled geom_fluid
    let w = passive_worst(false, TOL_QFRC);
    eprintln!("fluid qfrc worst relative error with compiled geom_fluid {w:.2e}");
}

#[test]
fn muscle_lengthrange_is_resolved() {
    let all = cases();
    let lr = &all["lengthrange"];
    let xml = lr["xml"].as_str().unwrap();
    // uselimit: copied from the limited joint, as MuJoCo does
    let m = load_from_str(xml, &Vfs::default()).unwrap();
    let want = fv(&lr["actuator_lengthrange"]);
    assert_eq!(m.actuator_lengthrange.len(), 1);
    for (a, b) in m.actuator_lengthrange[0].iter().zip(&want) {
        assert!((a - b).abs() <= 1e-12, "{a} vs MuJoCo {b}");
    }
    assert_eq!(moreau::pipeline::forward_unsupported(&m), None);

    // default options: estimated by simulation (compared with MuJoCo in tests/engine/camera_rangefinder_oracle.rs)
    let m = load_from_str(
        &xml.replace(r#"<lengthrange uselimit="true"/>"#, ""),
        &Vfs::default(),
    )
    .unwrap();
    let [lo, hi] = m.actuator_lengthrange[0];
    assert!(lo < hi, "simulated range ({lo}, {hi})");
    assert_eq!(moreau::pipeline::forward_unsupported(&m), None);

    // an explicit lengthrange is kept (useexisting), mode="none" selects nothing
    for (from, to) in [
        (
            r#"<muscle joint="j"/>"#,
            r#"<muscle joint="j" lengthrange="0.1 0.3"/>"#,
        ),
        (
            r#"<lengthrange uselimit="true"/>"#,
            r#"<lengthrange mode="none"/>"#,
        ),
    ] {
        let m = load_from_str(&xml.replace(from, to), &Vfs::default()).unwrap();
        assert_eq!(moreau::pipeline::forward_unsupported(&m), None);
    }
}
