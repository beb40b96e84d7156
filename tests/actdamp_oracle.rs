//! Actuator damping / damping polynomial / armature (MuJoCo 4.0.0 actuator attributes) against
//! MuJoCo 4.0.0 (tests/reference/actdamp_cases.json, written by
//! tools/reference/gen_actdamp_cases.py): compiled dof_M0 / invweight0 / actuator_acc0, qM,
//! qfrc_damper, qfrc_passive, qacc per state, and 50-step rollouts under Euler (implicit
//! damping), implicitfast, implicit and RK4.

mod oracle_util;

use moreau::mjcf::{load_from_str, Vfs};
use moreau::{forward, integrator, Data};
use oracle_util::{cmp, fv, reference};

const TOL: f64 = 1e-10;
const TOL_ROLLOUT: f64 = 1e-8;

#[test]
fn actuator_damping_armature_match_mujoco() {
    let all = reference("actdamp_cases.json");
    let (mut worst, mut worst_roll) = (0.0f64, 0.0f64);
    for e in all.as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let m = load_from_str(e["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        assert_eq!(forward::unsupported(&m), None, "{name}");
        let w = &mut worst;
        cmp(
            &format!("{name} dof_M0"),
            &m.dof_M0,
            &fv(&e["dof_M0"]),
            TOL,
            w,
        );
        cmp(
            &format!("{name} dof_invweight0"),
            &m.dof_invweight0,
            &fv(&e["dof_invweight0"]),
            TOL,
            w,
        );
        cmp(
            &format!("{name} tendon_invweight0"),
            &m.tendon_invweight0,
            &fv(&e["tendon_invweight0"]),
            TOL,
            w,
        );
        cmp(
            &format!("{name} actuator_acc0"),
            &m.actuator_acc0,
            &fv(&e["actuator_acc0"]),
            TOL,
            w,
        );
        for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
            let name = &format!("{name}#{k}");
            let mut d = Data::<f64>::new(&m);
            d.qpos.copy_from_slice(&fv(&c["qpos"]));
            d.qvel.copy_from_slice(&fv(&c["qvel"]));
            d.ctrl.copy_from_slice(&fv(&c["ctrl"]));
            forward::forward(&m, &mut d);
            let mut dense = vec![0.0; m.nv * m.nv];
            moreau::crb::full_m(&m, &d.qM, &mut dense);
            cmp(&format!("{name} qM"), &dense, &fv(&c["qM"]), TOL, w);
            cmp(
                &format!("{name} qfrc_damper"),
                &d.qfrc_damper,
                &fv(&c["qfrc_damper"]),
                TOL,
                w,
            );
            cmp(
                &format!("{name} qfrc_passive"),
                &d.qfrc_passive,
                &fv(&c["qfrc_passive"]),
                TOL,
                w,
            );
            cmp(&format!("{name} qacc"), &d.qacc, &fv(&c["qacc"]), TOL, w);
        }
        let r = &e["rollout"];
        let mut d = Data::<f64>::new(&m);
        d.qpos.copy_from_slice(&fv(&r["qpos0"]));
        for u in r["ctrl"].as_array().unwrap() {
            d.ctrl.copy_from_slice(&fv(u));
            integrator::step(&m, &mut d);
        }
        let w = &mut worst_roll;
        cmp(
            &format!("{name} rollout qpos"),
            &d.qpos,
            &fv(&r["qpos"]),
            TOL_ROLLOUT,
            w,
        );
        cmp(
            &format!("{name} rollout qvel"),
            &d.qvel,
            &fv(&r["qvel"]),
            TOL_ROLLOUT,
            w,
        );
    }
    println!("actuator damping/armature: worst {worst:.2e}, rollouts {worst_roll:.2e}");
}
