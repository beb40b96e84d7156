//! Where the hull-graph support search of GJK and EPA starts, against MuJoCo 4.0.0: on
//! Menagerie's Robotiq 2F-85 at four states of MuJoCo's own rollout, a mesh-mesh contact
//! depends in its last bits on the start of the hill climb (MuJoCo starts at the extremum of the
//! direction's octant, `mesh_extrema`, unless the previous support vertex projects at least as
//! far; `HullWalk::start` in src/collision/native.rs). Reference: `tests/reference/hull_start.json`
//! (`tools/reference/gen_hull_start.py`); needs the zoo cache (`python3 tools/zoo/fetch.py`).
//! A climb from the previous support vertex alone (vertex 0 at a search's start) is 2.6e-9 off
//! MuJoCo's contact frame here; the tolerance is 1e-12 of each quantity's scale.

use moreau::Data;
use serde_json::Value;

fn fv(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().flat_map(fv).collect(),
        _ => vec![v.as_f64().unwrap()],
    }
}

#[test]
fn robotiq_contacts_at_mujocos_support_start() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/hull_start.json"
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let m = crate::zoo::load_model(r["path"].as_str().unwrap());
    let mut d = Data::<f64>::new(&m);
    let states = r["states"].as_array().unwrap();
    assert_eq!(states.len(), 4);
    for s in states {
        let step = s["step"].as_u64().unwrap();
        d.qpos.copy_from_slice(&fv(&s["qpos"]));
        moreau::forward(&m, &mut d);
        let want = s["contact"].as_array().unwrap();
        assert_eq!(d.contact.len(), want.len(), "step {step}: contacts");
        for (k, (c, w)) in d.contact.iter().zip(want).enumerate() {
            let geom: Vec<usize> = fv(&w["geom"]).iter().map(|&g| g as usize).collect();
            assert_eq!(c.geom.to_vec(), geom, "step {step}, contact {k}: geoms");
            // frame rows (MuJoCo's layout: the normal first)
            let frame: Vec<f64> = (0..3)
                .flat_map(|i| (0..3).map(move |j| (i, j)))
                .map(|(i, j)| c.frame[(i, j)])
                .collect();
            for (what, got, want, scale) in [
                ("dist", vec![c.dist], fv(&w["dist"]), 1.0),
                ("pos", c.pos.iter().copied().collect(), fv(&w["pos"]), 1.0),
                ("frame", frame, fv(&w["frame"]), 1.0),
            ] {
                let scale = want.iter().fold(scale, |a: f64, x| a.max(x.abs()));
                for (a, b) in got.iter().zip(&want) {
                    assert!(
                        (a - b).abs() <= 1e-12 * scale,
                        "step {step}, contact {k}, {what}: moreau {got:?}, MuJoCo {want:?}"
                    );
                }
            }
        }
    }
}
