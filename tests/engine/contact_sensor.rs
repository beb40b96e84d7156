//! The contact sensor (MuJoCo's XML reference, `sensor/contact`) against MuJoCo 4.0.0:
//! `tests/reference/contact_sensor_cases.json` from `tools/zoo/gen_contact_sensor.py` (every
//! matching object, reduction and data field, pyramidal and elliptic cones, states along a
//! rollout). The compiled fields must be MuJoCo's exactly; `found` counts exactly; the other
//! outputs to 1e-9 of each sensor's largest MuJoCo value (forces come from the solver).

use crate::support::oracle_util::{fv, reference};
use moreau::model::SensorType;
use moreau::pipeline::sensor_needstage;
use moreau::{load_from_str, Data, Vfs};

/// An integer field, flattened (MuJoCo's integers are exact in the JSON's floats).
fn iv(v: &serde_json::Value) -> Vec<i64> {
    fv(v).iter().map(|&x| x as i64).collect()
}

#[test]
fn contact_sensor_matches_mujoco() {
    let j = reference("contact_sensor_cases.json");
    let mut worst = 0.0f64;
    let mut checked = 0;
    for case in j["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let m = load_from_str(case["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        // compiled fields
        let adr: Vec<i64> = m.sensor_adr.iter().map(|&x| x as i64).collect();
        let dim: Vec<i64> = m.sensor_dim.iter().map(|&x| x as i64).collect();
        let ot: Vec<i64> = m.sensor_objtype.iter().map(|&x| x as i64).collect();
        let rt: Vec<i64> = m.sensor_reftype.iter().map(|&x| x as i64).collect();
        let oid: Vec<i64> = m.sensor_objid.iter().map(|&x| x as i64).collect();
        let rid: Vec<i64> = m.sensor_refid.iter().map(|&x| x as i64).collect();
        let ip: Vec<i64> = m
            .sensor_intprm
            .iter()
            .flatten()
            .map(|&x| x as i64)
            .collect();
        let st: Vec<i64> = (0..m.nsensor)
            .map(|i| sensor_needstage(&m, i) as i64)
            .collect();
        for (what, got, key) in [
            ("adr", adr, "sensor_adr"),
            ("dim", dim, "sensor_dim"),
            ("objtype", ot, "sensor_objtype"),
            ("objid", oid, "sensor_objid"),
            ("reftype", rt, "sensor_reftype"),
            ("refid", rid, "sensor_refid"),
            ("intprm", ip, "sensor_intprm"),
            ("needstage", st, "sensor_needstage"),
        ] {
            assert_eq!(got, iv(&case[key]), "{name}: {what}");
        }
        assert!(m.sensor_type.iter().all(|&t| t == SensorType::Contact));
        let mut d = Data::new(&m);
        d.qpos.copy_from_slice(&fv(&case["qpos"]));
        d.qvel.copy_from_slice(&fv(&case["qvel"]));
        moreau::forward(&m, &mut d);
        assert_eq!(
            d.contact.len() as i64,
            case["ncon"].as_i64().unwrap(),
            "{name}: ncon"
        );
        let want = fv(&case["sensordata"]);
        for i in 0..m.nsensor {
            let (a, n) = (m.sensor_adr[i], m.sensor_dim[i]);
            let (got, exp) = (&d.sensordata[a..a + n], &want[a..a + n]);
            let scale = exp.iter().fold(1e-300f64, |s, x| s.max(x.abs()));
            let slot = n / m.sensor_intprm[i][2] as usize;
            for (k, (g, e)) in got.iter().zip(exp).enumerate() {
                let err = (g - e).abs();
                // `found` (the first field of each slot when present) is a count
                let tol = if m.sensor_intprm[i][0] & 1 != 0 && k % slot == 0 {
                    0.0
                } else {
                    1e-9 * scale
                };
                assert!(
                    err <= tol,
                    "{name}: sensor {} [{k}]: moreau {g}, MuJoCo {e}\n got  {got:?}\n want {exp:?}",
                    m.sensor_name[i],
                );
                worst = worst.max(err / scale);
            }
            checked += n;
        }
    }
    eprintln!("contact sensor: {checked} values, worst relative error {worst:.1e}");
}
