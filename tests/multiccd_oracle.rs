//! Multi-contact convex collision (`multiccd`) against MuJoCo 4.0.0
//! (tests/reference/multiccd_cases.json, written by tools/reference/gen_multiccd_cases.py).
//!
//! Box and mesh pairs resting face on face, tilted, on edges and vertices, crossing, with margin
//! and gap, and with the flag disabled. Per pose the contact list must match MuJoCo's in order:
//! count, geoms, dist, pos and the whole frame (normal and MuJoCo's tangents).
//!
//! Tolerances: contacts of a multi-contact patch come from the face planes and corners, so
//! they agree to rounding (`EXACT` = 1e-9; mesh vertices are the recorded float32 values).
//! Poses with a single contact (no matching features) take the depth, point and normal of the
//! penetration search, which MuJoCo stops at `ccd_tolerance` = 1e-6 (its native EPA) and moreau
//! runs tighter: `SINGLE` = 1e-5.
//!
//! The hull polygons are MuJoCo's (`mujoco_polygons`): its polygon listing decides the first
//! corner and so the contact order and, for overlaps with more than four corners, which four
//! are kept. With the polygons built by `Mesh::build_polygons` the same scenes are compared
//! order-insensitively and only on poses whose overlap has at most four corners
//! (`own_polygons_give_the_same_contact_sets`).

mod oracle_util;

use moreau::collision::{collision, Contact};
use moreau::Data;
use oracle_util::reference;
use oracle_util::scene::{build_model, f, mujoco_polygons, set_pose, vec3, vf, vi};
use serde_json::Value;

const EXACT: f64 = 1e-9;
const SINGLE: f64 = 1e-5;

/// (dist, pos, frame) errors of contact `o` against MuJoCo's `c`, or None if the geoms differ.
fn errors(o: &Contact<f64>, c: &Value) -> Option<[f64; 3]> {
    let g = vi(&c["geom"]);
    if o.geom[0] as i64 != g[0] || o.geom[1] as i64 != g[1] {
        return None;
    }
    let fr = vf(&c["frame"]);
    let ef = (0..9)
        .map(|k| (o.frame[(k / 3, k % 3)] - fr[k]).abs())
        .fold(0.0, f64::max);
    Some([
        (o.dist - f(&c["dist"])).abs(),
        (o.pos - vec3(&c["pos"])).amax(),
        ef,
    ])
}

#[test]
fn multiccd_matches_mujoco_in_order() {
    let j = reference("multiccd_cases.json");
    let mut failures = Vec::new();
    println!(
        "{:<26} {:>5} {:>5} {:>5} {:>9} {:>9} {:>9} {:>9}",
        "scene", "poses", "cnt≠", "ncon", "dist", "pos", "frame", "single"
    );
    for sc in j["scenes"].as_array().unwrap() {
        let name = sc["name"].as_str().unwrap();
        if std::env::var("MCCD_ONLY").is_ok_and(|o| o != name) {
            continue;
        }
        let mut m = build_model(&sc["model"]);
        mujoco_polygons(&mut m, &sc["model"]);
        let mut d: Data<f64> = Data::new(&m);
        let (mut bad_count, mut ncon) = (0, 0);
        let mut multi = [0.0f64; 3];
        let mut single: f64 = 0.0;
        for (k, p) in sc["poses"].as_array().unwrap().iter().enumerate() {
            set_pose(&mut d, p);
            collision(&m, &mut d);
            let theirs = p["contacts"].as_array().unwrap();
            if d.contact.len() != theirs.len() {
                bad_count += 1;
                if std::env::var("MCCD_DEBUG").is_ok() {
                    eprintln!("{name} pose {k}: ours {} theirs {}", d.contact.len(), theirs.len());
                    for c in &d.contact {
                        eprintln!("  ours   {:.9} {:.6?}", c.dist, c.pos.as_slice());
                    }
                    for c in theirs {
                        eprintln!("  theirs {:.9} {}", f(&c["dist"]), c["pos"]);
                    }
                }
                continue;
            }
            ncon += theirs.len();
            for (o, c) in d.contact.iter().zip(theirs) {
                let Some(e) = errors(o, c) else {
                    bad_count += 1;
                    break;
                };
                if theirs.len() == 1 {
                    single = single.max(e[0]).max(e[1]).max(e[2]);
                } else {
                    for i in 0..3 {
                        multi[i] = multi[i].max(e[i]);
                    }
                    if std::env::var("MCCD_DEBUG").is_ok() && e.iter().any(|&x| x > EXACT) {
                        eprintln!(
                            "{name} pose {k}: ours {:.9} {:.9?} theirs {:.9} {}",
                            o.dist,
                            o.pos.as_slice(),
                            f(&c["dist"]),
                            c["pos"]
                        );
                    }
                }
            }
        }
        println!(
            "{:<26} {:>5} {:>5} {:>5} {:>9.1e} {:>9.1e} {:>9.1e} {:>9.1e}",
            name,
            sc["poses"].as_array().unwrap().len(),
            bad_count,
            ncon,
            multi[0],
            multi[1],
            multi[2],
            single
        );
        if bad_count > 0 || multi.iter().any(|&e| e > EXACT) || single > SINGLE {
            failures.push(name.to_string());
        }
    }
    assert!(failures.is_empty(), "scenes off: {failures:?}");
}
