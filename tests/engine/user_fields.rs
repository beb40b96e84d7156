//! The MJCF `user` attributes (`nuser_X`, `X_user` of bodies, joints, geoms, sites, cameras,
//! tendons, actuators and sensors) against MuJoCo 4.0.0 (tests/reference/user_fields.json,
//! written by tools/reference/gen_user_fields.py): defaults (global, class, childclass),
//! `<size nuser_X>` above the values given and −1, several `<size>` elements, actuator
//! shortcuts with a default class, no `user` at all, and two zoo models (Gymnasium's humanoid
//! and half cheetah); every value exactly. Two documents MuJoCo refuses are refused, naming the
//! attribute.

use crate::oracle_util;
use moreau::{load_from_str, Model, Vfs};

fn fields<'a>(m: &'a Model, kind: &str) -> (usize, &'a [f64], usize) {
    match kind {
        "body" => (m.nuser_body, &m.body_user, m.nbody),
        "jnt" => (m.nuser_jnt, &m.jnt_user, m.njnt),
        "geom" => (m.nuser_geom, &m.geom_user, m.ngeom),
        "site" => (m.nuser_site, &m.site_user, m.nsite),
        "cam" => (m.nuser_cam, &m.cam_user, m.ncam),
        "tendon" => (m.nuser_tendon, &m.tendon_user, m.ntendon),
        "actuator" => (m.nuser_actuator, &m.actuator_user, m.nu),
        "sensor" => (m.nuser_sensor, &m.sensor_user, m.nsensor),
        _ => panic!("{kind}"),
    }
}

#[test]
fn user_data_is_mujocos() {
    let r = oracle_util::reference("user_fields.json");
    let mut checked = 0;
    for c in r["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let m = match c["zoo"].as_str() {
            Some(p) => crate::zoo::load_model(p),
            None => load_from_str(c["xml"].as_str().unwrap(), &Vfs::default()).unwrap(),
        };
        for (kind, n) in c["nuser"].as_object().unwrap() {
            let (nuser, user, count) = fields(&m, kind);
            assert_eq!(nuser as u64, n.as_u64().unwrap(), "{name}: nuser_{kind}");
            let want: Vec<f64> = c["user"][kind]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|row| row.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
                .collect();
            assert_eq!(user.len(), count * nuser, "{name}: {kind}_user");
            assert_eq!(user, &want[..], "{name}: {kind}_user");
            checked += 1;
        }
        assert!(m.user_raw.iter().all(Vec::is_empty), "{name}");
    }
    assert_eq!(checked, 6 * 8);
    for e in r["errors"].as_array().unwrap() {
        let xml = e["xml"].as_str().unwrap();
        let want = e["error"].as_str().unwrap();
        let got = load_from_str(xml, &Vfs::default()).expect_err(xml);
        let attr = got.attribute.clone().unwrap_or_default();
        assert!(attr.starts_with("nuser_"), "{xml}: {got}");
        // MuJoCo's words, without its location lines
        let first = want
            .lines()
            .next()
            .unwrap()
            .trim_start_matches("Error: ")
            .trim_start_matches("XML Error: ");
        assert!(
            got.message.starts_with(first),
            "{xml}: {got} (MuJoCo: {want})"
        );
    }
}
