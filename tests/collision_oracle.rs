//! Collision detection against MuJoCo 4.0.0 (tests/reference/collision_cases.json, written by
//! tools/reference/gen_collision_cases.py).
//!
//! Each scene's Model is built by hand from the recorded fields, each pose fills geom/body poses,
//! and `collision` must reproduce MuJoCo's contact list: the same count, and per contact (matched
//! order-insensitively by geom pair and position) the same dist, pos, frame and parameters.
//! Tolerances per scene family are in `tolerance` below; `None` = reported only. Filter scenes
//! (which mix in box–box and capsule–box pairs) must produce the same colliding geom pairs and
//! contact parameters. Errors are measured on poses where the contact counts agree.

use moreau::collision::{collision, Contact};
use moreau::model::{GeomType, Hfield, Mesh, Model};
use moreau::Data;
use nalgebra::{Matrix3, Vector3};
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}
fn vf(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(f).collect()
}
fn vi(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as i64)
        .collect()
}
fn arr<const N: usize>(v: &Value) -> Vec<[f64; N]> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let r = vf(r);
            let mut a = [0.0; N];
            a.copy_from_slice(&r[..N]);
            a
        })
        .collect()
}
fn a<const N: usize>(v: &Value) -> [f64; N] {
    let r = vf(v);
    let mut a = [0.0; N];
    a.copy_from_slice(&r[..N]);
    a
}

fn geom_type(t: i64) -> GeomType {
    use GeomType::*;
    [
        Plane, Hfield, Sphere, Capsule, Ellipsoid, Cylinder, Box, Mesh, Sdf,
    ][t as usize]
}

fn build_model(j: &Value) -> Model {
    let mut m = Model {
        ngeom: j["ngeom"].as_u64().unwrap() as usize,
        nbody: j["nbody"].as_u64().unwrap() as usize,
        npair: j["npair"].as_u64().unwrap() as usize,
        nexclude: j["nexclude"].as_u64().unwrap() as usize,
        nmesh: j["nmesh"].as_u64().unwrap() as usize,
        nhfield: j["nhfield"].as_u64().unwrap() as usize,
        ..Default::default()
    };
    m.geom_type = vi(&j["geom_type"]).into_iter().map(geom_type).collect();
    m.geom_contype = vi(&j["geom_contype"]).iter().map(|&x| x as u32).collect();
    m.geom_conaffinity = vi(&j["geom_conaffinity"])
        .iter()
        .map(|&x| x as u32)
        .collect();
    m.geom_condim = vi(&j["geom_condim"]).iter().map(|&x| x as usize).collect();
    m.geom_bodyid = vi(&j["geom_bodyid"]).iter().map(|&x| x as usize).collect();
    m.geom_dataid = vi(&j["geom_dataid"]).iter().map(|&x| x as i32).collect();
    m.geom_priority = vi(&j["geom_priority"]).iter().map(|&x| x as i32).collect();
    m.geom_solmix = vf(&j["geom_solmix"]);
    m.geom_solref = arr::<2>(&j["geom_solref"]);
    m.geom_solimp = arr::<5>(&j["geom_solimp"]);
    m.geom_size = arr::<3>(&j["geom_size"]);
    m.geom_rbound = vf(&j["geom_rbound"]);
    m.geom_aabb = arr::<6>(&j["geom_aabb"]);
    m.geom_friction = arr::<3>(&j["geom_friction"]);
    m.geom_margin = vf(&j["geom_margin"]);
    m.geom_gap = vf(&j["geom_gap"]);
    m.body_parentid = vi(&j["body_parentid"])
        .iter()
        .map(|&x| x as usize)
        .collect();
    m.body_rootid = vi(&j["body_rootid"]).iter().map(|&x| x as usize).collect();
    m.body_weldid = vi(&j["body_weldid"]).iter().map(|&x| x as usize).collect();
    m.body_mocapid = vec![-1; m.nbody];
    m.pair_dim = vi(&j["pair_dim"]).iter().map(|&x| x as usize).collect();
    m.pair_geom1 = vi(&j["pair_geom1"]).iter().map(|&x| x as usize).collect();
    m.pair_geom2 = vi(&j["pair_geom2"]).iter().map(|&x| x as usize).collect();
    m.pair_solref = arr::<2>(&j["pair_solref"]);
    m.pair_solreffriction = arr::<2>(&j["pair_solreffriction"]);
    m.pair_solimp = arr::<5>(&j["pair_solimp"]);
    m.pair_margin = vf(&j["pair_margin"]);
    m.pair_gap = vf(&j["pair_gap"]);
    m.pair_friction = arr::<5>(&j["pair_friction"]);
    m.exclude_signature = vi(&j["exclude_signature"])
        .iter()
        .map(|&x| x as u32)
        .collect();
    let verts = arr::<3>(&j["mesh_vert"]);
    let faces = arr::<3>(&j["mesh_face"]);
    let (va, vn) = (vi(&j["mesh_vertadr"]), vi(&j["mesh_vertnum"]));
    let (fa, fnum) = (vi(&j["mesh_faceadr"]), vi(&j["mesh_facenum"]));
    for k in 0..m.nmesh {
        let (v0, v1) = (va[k] as usize, (va[k] + vn[k]) as usize);
        let (f0, f1) = (fa[k] as usize, (fa[k] + fnum[k]) as usize);
        let mut mesh = Mesh {
            vert: verts[v0..v1].to_vec(),
            face: faces[f0..f1]
                .iter()
                .map(|t| [t[0] as usize, t[1] as usize, t[2] as usize])
                .collect(),
            ..Default::default()
        };
        mesh.build_polygons();
        m.mesh.push(mesh);
    }
    let hsize = arr::<4>(&j["hfield_size"]);
    let (hr, hc, ha) = (
        vi(&j["hfield_nrow"]),
        vi(&j["hfield_ncol"]),
        vi(&j["hfield_adr"]),
    );
    let hdata = vf(&j["hfield_data"]);
    for k in 0..m.nhfield {
        let n = (hr[k] * hc[k]) as usize;
        m.hfield.push(Hfield {
            size: hsize[k],
            nrow: hr[k] as usize,
            ncol: hc[k] as usize,
            data: hdata[ha[k] as usize..ha[k] as usize + n].to_vec(),
            ..Default::default()
        });
    }
    let o = &j["opt"];
    m.opt.disableflags = o["disableflags"].as_u64().unwrap() as u32;
    m.opt.enableflags = o["enableflags"].as_u64().unwrap() as u32;
    m.opt.o_margin = f(&o["o_margin"]);
    m.opt.o_solref = a::<2>(&o["o_solref"]);
    m.opt.o_solimp = a::<5>(&o["o_solimp"]);
    m.opt.o_friction = a::<5>(&o["o_friction"]);
    m.opt.ccd_tolerance = f(&o["ccd_tolerance"]);
    m.opt.ccd_iterations = o["ccd_iterations"].as_u64().unwrap() as usize;
    m.opt.impratio = f(&o["impratio"]);
    m
}

fn mat(v: &Value) -> Matrix3<f64> {
    Matrix3::from_row_slice(&vf(v))
}
fn vec3(v: &Value) -> Vector3<f64> {
    Vector3::from_row_slice(&vf(v))
}

#[derive(Default, Debug, Clone, Copy)]
struct Stats {
    poses: usize,
    count_mismatch: usize,
    unmatched: usize,
    contacts: usize,
    err_dist: f64,
    err_pos: f64,
    err_normal: f64,
    err_frame: f64,
    err_param: f64,
    /// Poses whose set of colliding geom pairs differs.
    pair_sets: usize,
}

/// Compares one pose: per-contact errors in `st` (only when the counts agree).
fn compare(ours: &[Contact<f64>], theirs: &[Value], st: &mut Stats) {
    st.poses += 1;
    if std::env::var("COLL_DUMP").is_ok() {
        for c in ours {
            eprintln!(
                "ours   {:?} {:.6} {:.5?} {:.5?}",
                c.geom,
                c.dist,
                c.pos.as_slice(),
                c.normal().as_slice()
            );
        }
        for c in theirs {
            eprintln!(
                "theirs {} {:.6} {} {}",
                c["geom"],
                f(&c["dist"]),
                c["pos"],
                c["frame"]
            );
        }
        eprintln!("--");
    }
    // pairs touching exactly at the margin (|dist - margin| < 1e-12) are left out: rounding decides
    let edge = |dist: f64, margin: f64| (dist - margin).abs() < 1e-12;
    let mut pa: Vec<[i64; 2]> = ours
        .iter()
        .filter(|c| !edge(c.dist, c.includemargin))
        .map(|c| [c.geom[0] as i64, c.geom[1] as i64])
        .collect();
    let mut pb: Vec<[i64; 2]> = theirs
        .iter()
        .filter(|c| !edge(f(&c["dist"]), f(&c["includemargin"])))
        .map(|c| [vi(&c["geom"])[0], vi(&c["geom"])[1]])
        .collect();
    for p in [&mut pa, &mut pb] {
        p.sort();
        p.dedup();
    }
    if pa != pb {
        st.pair_sets += 1;
    }
    if ours.len() != theirs.len() {
        st.count_mismatch += 1;
        if std::env::var("COLL_DEBUG").is_ok() {
            let a: Vec<_> = ours.iter().map(|c| (c.geom, c.dist)).collect();
            let b: Vec<_> = theirs
                .iter()
                .map(|c| (vi(&c["geom"]), f(&c["dist"])))
                .collect();
            eprintln!("count: ours {a:?}\n theirs {b:?}");
        }
        // errors are measured on poses with the same count only
        return;
    }
    let mut used = vec![false; ours.len()];
    for c in theirs {
        let g = vi(&c["geom"]);
        let pos = vec3(&c["pos"]);
        let best = ours
            .iter()
            .enumerate()
            .filter(|(i, o)| !used[*i] && o.geom[0] as i64 == g[0] && o.geom[1] as i64 == g[1])
            .min_by(|x, y| {
                let dx = (x.1.pos - pos).norm() + (x.1.dist - f(&c["dist"])).abs();
                let dy = (y.1.pos - pos).norm() + (y.1.dist - f(&c["dist"])).abs();
                dx.total_cmp(&dy)
            })
            .map(|(i, _)| i);
        let Some(i) = best else {
            st.unmatched += 1;
            continue;
        };
        used[i] = true;
        let o = &ours[i];
        st.contacts += 1;
        st.err_dist = st.err_dist.max((o.dist - f(&c["dist"])).abs());
        if std::env::var("COLL_DEBUG").is_ok() && (o.dist - f(&c["dist"])).abs() > 1e-6 {
            eprintln!("dist: ours {} theirs {}", o.dist, f(&c["dist"]));
        }
        st.err_pos = st.err_pos.max((o.pos - pos).amax());
        let fr = vf(&c["frame"]);
        let mut en: f64 = 0.0;
        let mut ef: f64 = 0.0;
        for r in 0..3 {
            for k in 0..3 {
                let e = (o.frame[(r, k)] - fr[3 * r + k]).abs();
                ef = ef.max(e);
                if r == 0 {
                    en = en.max(e);
                }
            }
        }
        st.err_normal = st.err_normal.max(en);
        st.err_frame = st.err_frame.max(ef);
        let mut ep: f64 = (o.includemargin - f(&c["includemargin"])).abs();
        let pairs: [(&[f64], &str); 4] = [
            (&o.friction, "friction"),
            (&o.solref, "solref"),
            (&o.solreffriction, "solreffriction"),
            (&o.solimp, "solimp"),
        ];
        for (ov, key) in pairs {
            for (x, y) in ov.iter().zip(vf(&c[key])) {
                ep = ep.max((x - y).abs());
            }
        }
        ep = ep.max((o.mu - f(&c["mu"])).abs());
        if o.dim as i64 != c["dim"].as_i64().unwrap()
            || o.exclude as i64 != c["exclude"].as_i64().unwrap()
        {
            ep = ep.max(1.0);
        }
        if ep > 1e-12 && std::env::var("COLL_DEBUG").is_ok() {
            eprintln!("param mismatch: ours {o:?}\n theirs {c}");
        }
        st.err_param = st.err_param.max(ep);
    }
}

/// Required accuracy per scene (dist/pos/frame), or None where only reported.
fn tolerance(name: &str) -> Option<f64> {
    const EXACT: [&str; 26] = [
        "plane-mesh",
        "plane-cube",
        "plane-cube-margin",
        "plane-hexprism",
        "plane-hexprism-flat",
        "plane-hexprism-margin",
        "plane-octprism",
        "plane-octprism-flat",
        "plane-sphere",
        "plane-capsule",
        "plane-box",
        "plane-cylinder",
        "sphere-sphere",
        "sphere-capsule",
        "sphere-cylinder",
        "sphere-box",
        "capsule-capsule",
        "mix-",
        "override",
        "sphere-sphere-margin",
        "plane-sphere-margin",
        "box-box",
        "box-box-margin",
        "capsule-box",
        "capsule-box-margin",
        "filters",
    ];
    if EXACT
        .iter()
        .any(|p| name == *p || (p.ends_with('-') && name.starts_with(p)))
    {
        return Some(1e-9);
    }
    if name == "plane-box-margin" {
        return Some(1e-9);
    }
    None
}

#[test]
fn collision_matches_mujoco() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/collision_cases.json"
    );
    let j: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut failures = Vec::new();
    println!(
        "{:<24} {:>5} {:>5} {:>5} {:>5} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "scene", "poses", "pair≠", "cnt≠", "unm", "ncon", "dist", "pos", "normal", "frame", "param"
    );
    for sc in j["scenes"].as_array().unwrap() {
        let name = sc["name"].as_str().unwrap();
        if let Ok(only) = std::env::var("COLL_ONLY") {
            if name != only {
                continue;
            }
        }
        let m = build_model(&sc["model"]);
        let mut d: Data<f64> = Data::new(&m);
        let mut st = Stats::default();
        for p in sc["poses"].as_array().unwrap() {
            for (g, v) in p["geom_xpos"].as_array().unwrap().iter().enumerate() {
                d.geom_xpos[g] = vec3(v);
            }
            for (g, v) in p["geom_xmat"].as_array().unwrap().iter().enumerate() {
                d.geom_xmat[g] = mat(v);
            }
            for (b, v) in p["xpos"].as_array().unwrap().iter().enumerate() {
                d.xpos[b] = vec3(v);
            }
            for (b, v) in p["xmat"].as_array().unwrap().iter().enumerate() {
                d.xmat[b] = mat(v);
            }
            collision(&m, &mut d);
            compare(&d.contact, p["contacts"].as_array().unwrap(), &mut st);
        }
        let tol = tolerance(name);
        println!(
            "{:<24} {:>5} {:>5} {:>5} {:>5} {:>5} {:>9.1e} {:>9.1e} {:>9.1e} {:>9.1e} {:>9.1e} {}",
            name,
            st.poses,
            st.pair_sets,
            st.count_mismatch,
            st.unmatched,
            st.contacts,
            st.err_dist,
            st.err_pos,
            st.err_normal,
            st.err_frame,
            st.err_param,
            tol.map_or("(report)".to_string(), |t| format!("tol {t:.0e}"))
        );
        if let Some(t) = tol {
            let e = st.err_dist.max(st.err_pos).max(st.err_frame);
            if st.count_mismatch > 0 || st.unmatched > 0 || e > t || st.err_param > 1e-12 {
                failures.push(name.to_string());
            }
        }
        // filters: the same geom pairs collide, with the same parameters
        if name.starts_with("filters") && (st.pair_sets > 0 || st.err_param > 1e-12) {
            failures.push(name.to_string());
        }
    }
    assert!(failures.is_empty(), "scenes off: {failures:?}");
}
