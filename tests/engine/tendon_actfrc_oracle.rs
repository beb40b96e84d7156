//! The tendon `actuatorfrcrange` clamp against MuJoCo 4.0.0 (tests/reference/
//! tendon_actfrc_cases.json, written by tools/reference/gen_tendon_actfrc_cases.py): the
//! compiled `tendon_actfrclimited` / `tendon_actfrcrange` (the "auto" rule and the refused
//! ranges), and per state with the fixed and spatial tendons' totals below, inside and above
//! their ranges `actuator_force`, `qfrc_actuator`, `qacc` and the implicitfast `qDeriv` of one
//! step (the actuators of a clamped tendon are left out of it).

use crate::oracle_util;

use moreau::{load_from_str, Data, Vfs};
use oracle_util::{cmp, cmp_case, fv, reference};

const TOL: f64 = 1e-12;

#[test]
fn tendon_actfrcrange_matches_mujoco() {
    let e = reference("tendon_actfrc_cases.json");
    let m = load_from_str(e["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
    let want: Vec<bool> = e["tendon_actfrclimited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_bool().unwrap())
        .collect();
    assert_eq!(m.tendon_actfrclimited, want);
    let range: Vec<f64> = m.tendon_actfrcrange.iter().flatten().copied().collect();
    let mut worst = 0.0f64;
    cmp(
        "tendon_actfrcrange",
        &range,
        &fv(&e["tendon_actfrcrange"]),
        0.0,
        &mut worst,
    );
    let (mut clamped, mut free) = (0, 0);
    for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
        let name = &format!("case {k}");
        let mut d = Data::<f64>::new(&m);
        d.qpos.copy_from_slice(&fv(&c["qpos"]));
        d.qvel.copy_from_slice(&fv(&c["qvel"]));
        d.act.copy_from_slice(&fv(&c["act"]));
        d.ctrl.copy_from_slice(&fv(&c["ctrl"]));
        moreau::forward(&m, &mut d);
        cmp_case(
            name,
            c,
            &[
                ("actuator_force", &d.actuator_force),
                ("qfrc_actuator", &d.qfrc_actuator),
                ("qacc", &d.qacc),
            ],
            TOL,
            &mut worst,
        );
        // the fixed tendon t (actuators 0-2): count the states on each side of its range
        let f = &d.actuator_force;
        if (f[0] + f[1] + f[2]).abs() >= 0.5 - 1e-12 {
            clamped += 1;
        } else {
            free += 1;
        }
        moreau::step(&m, &mut d);
        cmp_case(name, c, &[("qDeriv", &d.qDeriv)], TOL, &mut worst);
    }
    // the data covers both sides of the clamp
    assert!(clamped >= 3 && free >= 2, "clamped {clamped}, free {free}");
    for (k, a) in e["auto"].as_array().unwrap().iter().enumerate() {
        let m = load_from_str(a["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        assert_eq!(
            m.tendon_actfrclimited[0],
            a["tendon_actfrclimited"].as_bool().unwrap(),
            "auto {k}"
        );
        let r = m.tendon_actfrcrange[0];
        cmp(
            &format!("auto {k}"),
            &r,
            &fv(&a["tendon_actfrcrange"]),
            0.0,
            &mut worst,
        );
    }
    for r in e["refused"].as_array().unwrap() {
        let err = load_from_str(r["xml"].as_str().unwrap(), &Vfs::default())
            .expect_err("MuJoCo refuses this range");
        assert!(
            err.to_string()
                .contains("invalid actuatorfrcrange in tendon"),
            "{err}"
        );
    }
    eprintln!("tendon actuatorfrcrange: worst rel err {worst:.2e}");
}
