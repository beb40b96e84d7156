//! Capsule pairs whose segments cross (the closest points coincide) against MuJoCo 4.0.0
//! (`tools/reference/gen_capsule_cross_cases.py`): random 3-D crossings and a planar leg whose
//! foot folds onto its torso. MuJoCo's normal there is `a1 × a2` normalized, not the
//! coincident-spheres default `+x`. Contacts (count, geoms, dist, pos, frame) to 1e-12.

use moreau::{load_from_str, Data, Vfs};
use serde_json::Value;

#[test]
fn crossing_capsules_match_mujoco() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/capsule_cross_cases.json"
    );
    let j: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let f = |v: &Value| v.as_f64().unwrap();
    let mut worst: f64 = 0.0;
    let mut n = 0;
    for c in j["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let m = load_from_str(c["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        let mut d: Data<f64> = Data::new(&m);
        for (q, v) in d.qpos.iter_mut().zip(c["qpos"].as_array().unwrap()) {
            *q = f(v);
        }
        moreau::forward(&m, &mut d);
        let cs = c["contacts"].as_array().unwrap();
        assert_eq!(d.contact.len(), cs.len(), "{name}: contact count");
        for (k, (mc, rc)) in d.contact.iter().zip(cs).enumerate() {
            let g: Vec<usize> = rc["geom"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(mc.geom.to_vec(), g, "{name}[{k}]: geoms");
            let mut e = (mc.dist - f(&rc["dist"])).abs();
            for i in 0..3 {
                e = e.max((mc.pos[i] - f(&rc["pos"][i])).abs());
                for l in 0..3 {
                    e = e.max((mc.frame[(i, l)] - f(&rc["frame"][3 * i + l])).abs());
                }
            }
            assert!(e < 1e-12, "{name}[{k}]: error {e:e}");
            worst = worst.max(e);
            n += 1;
        }
    }
    assert!(n >= 30, "only {n} contacts compared");
    println!("{n} contacts, max error {worst:.1e}");
}
