//! Actuator damping / damping polynomial / armature (MuJoCo 4.0.0 actuator attributes) against
//! MuJoCo 4.0.0 (tests/reference/actdamp_cases.json, written by
//! tools/reference/gen_actdamp_cases.py): compiled dof_M0 / invweight0 / actuator_acc0, qM,
//! qfrc_damper, qfrc_passive, qacc per state, and 50-step rollouts under Euler (implicit
//! damping), implicitfast, implicit and RK4.

use crate::oracle_util;

use moreau::{load_from_str, Data, Vfs};
use oracle_util::{cmp_case, fv, reference};

const TOL: f64 = 1e-10;
const TOL_ROLLOUT: f64 = 1e-8;

#[test]
fn actuator_damping_armature_match_mujoco() {
    let all = reference("actdamp_cases.json");
    let (mut worst, mut worst_roll) = (0.0f64, 0.0f64);
    for e in all.as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let m = load_from_str(e["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        assert_eq!(moreau::pipeline::forward_unsupported(&m), None, "{name}");
        let w = &mut worst;
        cmp_case(
            name,
            e,
            &[
                ("dof_M0", &m.dof_M0),
                ("dof_invweight0", &m.dof_invweight0),
                ("tendon_invweight0", &m.tendon_invweight0),
                ("actuator_acc0", &m.actuator_acc0),
            ],
            TOL,
            w,
        );
        for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
            let name = &format!("{name}#{k}");
            let mut d = Data::<f64>::new(&m);
            d.qpos.copy_from_slice(&fv(&c["qpos"]));
            d.qvel.copy_from_slice(&fv(&c["qvel"]));
            d.ctrl.copy_from_slice(&fv(&c["ctrl"]));
            moreau::forward(&m, &mut d);
            let mut dense = vec![0.0; m.nv * m.nv];
            moreau::full_m(&m, &d.qM, &mut dense);
            cmp_case(
                name,
                c,
                &[
                    ("qM", &dense),
                    ("qfrc_damper", &d.qfrc_damper),
                    ("qfrc_passive", &d.qfrc_passive),
                    ("qacc", &d.qacc),
                ],
                TOL,
                w,
            );
        }
        let r = &e["rollout"];
        let mut d = Data::<f64>::new(&m);
        d.qpos.copy_from_slice(&fv(&r["qpos0"]));
        for u in r["ctrl"].as_array().unwrap() {
            d.ctrl.copy_from_slice(&fv(u));
            moreau::step(&m, &mut d);
        }
        let w = &mut worst_roll;
        cmp_case(
            &format!("{name} rollout"),
            r,
            &[("qpos", &d.qpos), ("qvel", &d.qvel)],
            TOL_ROLLOUT,
            w,
        );
    }
    println!("actuator damping/armature: worst {worst:.2e}, rollouts {worst_roll:.2e}");
}
