//! Post-constraint RNE against MuJoCo 4.0.0 (tests/reference/postcon_cases.json, written by
//! tools/reference/gen_postcon_cases.py): contact and connect/weld forces in `cfrc_ext` /
//! `cfrc_int`, `contact_force` (`mj_contactForce`), touch / force / torque sensors.
//!
//! Two checks per state: (a) isolated — MuJoCo's `efc_force` and `qacc` copied into moreau's
//! data after `forward`, then `rne_post_constraint` and the acceleration sensors recomputed, to
//! 1e-10; (b) moreau's own `forward` end to end, to 1e-5 (solver convergence: elliptic cones differ by ~1e-7).

use crate::oracle_util;

use moreau::{load_from_str, Data, Vfs};
use oracle_util::{cmp, cmp_case, fv, reference};

const TOL_E2E: f64 = 1e-5;
/// Forces end to end: elliptic-cone solver differences (~1e-7 in qacc) reach ~1e-4 in the
/// net force of a resting body.
const TOL_E2E_FRC: f64 = 1e-3;

fn flat6(v: &[nalgebra::Vector6<f64>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}

#[test]
fn post_constraint_matches_mujoco() {
    let all = reference("postcon_cases.json");
    let (mut worst, mut worst_e2e, mut worst_e2e_frc) = (0.0f64, 0.0f64, 0.0f64);
    for e in all.as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let m = load_from_str(e["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        assert_eq!(moreau::pipeline::forward_unsupported(&m), None, "{name}");
        for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
            let name = &format!("{name}#{k}");
            let mut d = Data::<f64>::new(&m);
            d.qpos.copy_from_slice(&fv(&c["qpos"]));
            d.qvel.copy_from_slice(&fv(&c["qvel"]));
            d.ctrl.copy_from_slice(&fv(&c["ctrl"]));
            d.qacc_warmstart.copy_from_slice(&fv(&c["qacc_warmstart"]));
            moreau::forward(&m, &mut d);
            // (b) end to end
            let w = &mut worst_e2e;
            cmp(
                &format!("{name} e2e qacc"),
                &d.qacc,
                &fv(&c["qacc"]),
                TOL_E2E,
                w,
            );
            let w = &mut worst_e2e_frc;
            cmp_case(
                &format!("{name} e2e"),
                c,
                &[
                    ("cfrc_ext", &flat6(&d.cfrc_ext)),
                    ("cfrc_int", &flat6(&d.cfrc_int)),
                    ("sensordata", &d.sensordata),
                ],
                TOL_E2E_FRC,
                w,
            );
            // (a) isolated on MuJoCo's constraint forces
            assert_eq!(d.nefc, c["nefc"].as_u64().unwrap() as usize, "{name}: nefc");
            let geoms = c["con_geom"].as_array().unwrap();
            assert_eq!(d.contact.len(), geoms.len(), "{name}: ncon");
            // MuJoCo's contact order (the broad phase may order pairs differently)
            let mut used = vec![false; d.contact.len()];
            let mut order = Vec::new();
            for g in geoms {
                let g = fv(g);
                let want = [g[0] as usize, g[1] as usize];
                let j = (0..d.contact.len())
                    .find(|&j| !used[j] && d.contact[j].geom == want)
                    .unwrap_or_else(|| panic!("{name}: no contact {want:?}"));
                used[j] = true;
                order.push(d.contact[j].clone());
            }
            d.contact = order;
            moreau::pipeline::make_constraint(&m, &mut d);
            let ty: Vec<i64> = d.efc_type.iter().map(|t| *t as i64).collect();
            let want: Vec<i64> = c["efc_type"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect();
            assert_eq!(ty, want, "{name}: efc_type");
            d.efc_force.copy_from_slice(&fv(&c["efc_force"]));
            d.qacc.copy_from_slice(&fv(&c["qacc"]));
            let w = &mut worst;
            for (i, f) in c["contact_force"].as_array().unwrap().iter().enumerate() {
                let got = moreau::pipeline::contact_force(&m, &d, i);
                cmp(&format!("{name} contact_force {i}"), &got, &fv(f), 1e-10, w);
            }
            moreau::pipeline::sensor_acc(&m, &mut d);
            moreau::pipeline::rne_post_constraint(&m, &mut d);
            cmp(
                &format!("{name} cfrc_ext"),
                &flat6(&d.cfrc_ext),
                &fv(&c["cfrc_ext"]),
                1e-10,
                w,
            );
            cmp(
                &format!("{name} cfrc_int"),
                &flat6(&d.cfrc_int),
                &fv(&c["cfrc_int"]),
                1e-10,
                w,
            );
            cmp(
                &format!("{name} sensordata"),
                &d.sensordata,
                &fv(&c["sensordata"]),
                1e-10,
                w,
            );
        }
    }
    println!(
        "post-constraint: worst isolated {worst:.2e}, end-to-end qacc {worst_e2e:.2e}, forces {worst_e2e_frc:.2e}"
    );
}
