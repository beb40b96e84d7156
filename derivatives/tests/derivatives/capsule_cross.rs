//! Analytic transition Jacobians where two capsules' segments cross (the planar leg of
//! `tests/reference/capsule_cross_cases.json` with its foot folded onto the torso): the contact's
//! distance is `|p2 − p1| − r1 − r2` with coincident closest points, which dual numbers cannot
//! differentiate (NaN before the collider differentiated it along the contact normal). Checked
//! finite and against centred finite differences, which are smooth there (in-plane motions
//! keep the segments crossing).

use moreau::{load_from_str, Data, Vfs};
use moreau_derivatives::{transition, TransitionOptions};
use serde_json::Value;

#[test]
fn crossing_capsules_analytic_matches_fd() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/reference/capsule_cross_cases.json"
    );
    let j: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut checked = 0;
    for c in j["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        if !name.starts_with("planar") {
            continue;
        }
        // only the crossing poses (normal out of the plane)
        let crossing = c["contacts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["frame"][1].as_f64().unwrap().abs() > 0.5);
        if !crossing {
            continue;
        }
        let m = load_from_str(c["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        let mut d: Data<f64> = Data::new(&m);
        for (q, v) in d.qpos.iter_mut().zip(c["qpos"].as_array().unwrap()) {
            *q = v.as_f64().unwrap();
        }
        let an = transition(
            &m,
            &mut d,
            &TransitionOptions::analytic().with_sensors(false),
        )
        .unwrap();
        assert!(an.A.iter().all(|x| x.is_finite()), "{name}: non-finite A");
        let fd = transition(&m, &mut d, &TransitionOptions::fd(1e-6, true)).unwrap();
        let scale = fd.A.abs().max().max(1.0);
        let err = (&an.A - &fd.A).abs().max() / scale;
        println!("{name}: analytic vs centred FD {err:.1e}");
        // centred FD truncation and round-off at eps 1e-6 on a stiff contact
        assert!(err < 1e-5, "{name}: {err:e}");
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} crossing poses");
}
