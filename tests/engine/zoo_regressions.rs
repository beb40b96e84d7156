//! One small model per gap the public model zoo (`tests/engine/zoo.rs`) turned up, against MuJoCo
//! 4.0.0's values in `tests/reference/zoo_regressions.json` (`tools/zoo/gen_regressions.py`);
//! these need no zoo cache.

use moreau::{load_from_str, Data, Vfs};
use serde_json::Value;

fn reference() -> Value {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/zoo_regressions.json"
    );
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn fv(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().flat_map(fv).collect(),
        _ => vec![v.as_f64().unwrap()],
    }
}

fn close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(1e-300f64, |w, x| w.max(x.abs()));
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= tol * scale,
            "{what}[{k}]: moreau {a}, MuJoCo {b}\n got  {got:?}\n want {want:?}"
        );
    }
}

/// [`close`] on each (field, moreau's values, tolerance) against the case's field of that name.
fn fields(case: &Value, list: &[(&str, Vec<f64>, f64)]) {
    for (name, got, tol) in list {
        close(name, got, &fv(&case[*name]), *tol);
    }
}

/// A model field of fixed-size rows, flattened.
fn flat<const N: usize>(x: &[[f64; N]]) -> Vec<f64> {
    x.iter().flatten().copied().collect()
}

/// Vectors flattened.
fn vecs(x: &[nalgebra::Vector3<f64>]) -> Vec<f64> {
    x.iter().flatten().copied().collect()
}

/// Matrices flattened row-major, as MuJoCo's `xmat`.
fn rows(x: &[nalgebra::Matrix3<f64>]) -> Vec<f64> {
    x.iter()
        .flat_map(|a| a.transpose().iter().copied().collect::<Vec<_>>())
        .collect()
}

fn model(case: &Value) -> moreau::Model {
    load_from_str(case["xml"].as_str().unwrap(), &Vfs::default()).unwrap()
}

/// dm_control's cart-pole, quadruped and swimmer: `fromto` given by the default class sets the
/// capsule's half-length and frame (element orientation attributes are then ignored), for
/// geoms and sites, capsules and boxes.
#[test]
fn fromto_from_default_class() {
    let c = &reference()["fromto_default"];
    let m = model(c);
    fields(
        c,
        &[
            ("geom_pos", flat(&m.geom_pos), 1e-15),
            ("geom_quat", flat(&m.geom_quat), 1e-15),
            ("geom_size", flat(&m.geom_size), 1e-15),
            ("site_pos", flat(&m.site_pos), 1e-15),
            ("site_quat", flat(&m.site_quat), 1e-15),
            ("site_size", flat(&m.site_size), 1e-15),
            ("body_mass", m.body_mass.clone(), 1e-14),
        ],
    );
}

/// `fromto` with a nonzero `pos`, or on a sphere, is refused with MuJoCo's message.
#[test]
fn fromto_errors_use_mujocos_words() {
    for (name, c) in reference()["fromto_errors"].as_object().unwrap() {
        let err = load_from_str(c["xml"].as_str().unwrap(), &Vfs::default())
            .err()
            .unwrap_or_else(|| panic!("{name}: loads"));
        let msg = c["message"].as_str().unwrap();
        assert!(
            err.to_string().contains(msg),
            "{name}: `{err}` lacks `{msg}`"
        );
    }
}

/// dm_control's dog (`nkey="1"`) and Gymnasium's humanoids (`nkey="5"`): `<size nkey>` adds
/// unnamed keyframes at the initial state after the given ones.
#[test]
fn size_nkey_allocates_keyframes() {
    let c = &reference()["size_nkey"];
    let m = model(c);
    assert_eq!(m.nkey, c["nkey"].as_u64().unwrap() as usize);
    let names: Vec<&str> = c["key_name"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(m.key_name, names);
    let (qpos, qvel, ctrl) = (fv(&c["key_qpos"]), fv(&c["key_qvel"]), fv(&c["key_ctrl"]));
    let (mpos, mquat, time) = (fv(&c["key_mpos"]), fv(&c["key_mquat"]), fv(&c["key_time"]));
    for k in 0..m.nkey {
        let mut d = Data::<f64>::new(&m);
        d.reset_keyframe(&m, k).unwrap();
        close("time", &[d.time], &time[k..k + 1], 0.0);
        close("qpos", &d.qpos, &qpos[k * m.nq..(k + 1) * m.nq], 1e-15);
        close("qvel", &d.qvel, &qvel[k * m.nv..(k + 1) * m.nv], 0.0);
        close("ctrl", &d.ctrl, &ctrl[k * m.nu..(k + 1) * m.nu], 0.0);
        let p: Vec<f64> = d.mocap_pos.iter().flat_map(|p| p.iter().copied()).collect();
        let q: Vec<f64> = d
            .mocap_quat
            .iter()
            .flat_map(|q| [q.w, q.i, q.j, q.k])
            .collect();
        close("mpos", &p, &mpos[3 * k..3 * k + 3], 0.0);
        close("mquat", &q, &mquat[4 * k..4 * k + 4], 1e-15);
    }
}

/// Gymnasium's pusher and dm_control's ball-in-cup: a body on axis-aligned slide joints alone,
/// without children, on a static parent, with its inertial frame at the body frame (within
/// 1e-6: `body_sameframe`), has
/// `body_invweight0 = (1/mass, 0)` and `dof_invweight0 = 1/mass` (no armature); any other body
/// the `J M⁻¹ Jᵀ` averages.
#[test]
fn slider_bodies_weigh_by_mass() {
    let c = &reference()["sliders"];
    let m = model(c);
    let simple: Vec<bool> = (0..m.nbody)
        .map(|b| b > 0 && moreau::pipeline::slider_body(&m, b))
        .collect();
    let want: Vec<bool> = c["body_simple"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64() == Some(2))
        .collect();
    assert_eq!(simple, want);
    let iw: Vec<f64> = m.body_invweight0.iter().flatten().copied().collect();
    close("body_invweight0", &iw, &fv(&c["body_invweight0"]), 1e-14);
    close(
        "dof_invweight0",
        &m.dof_invweight0,
        &fv(&c["dof_invweight0"]),
        1e-14,
    );
}

/// dm_control's dog: MuJoCo's default mesh inertia ("legacy") on a non-convex mesh; "exact"
/// beside it.
#[test]
fn legacy_mesh_inertia() {
    let c = &reference()["legacy_mesh"];
    let m = model(c);
    close("body_mass", &m.body_mass, &fv(&c["body_mass"]), 1e-14);
    close(
        "body_inertia",
        &flat(&m.body_inertia),
        &fv(&c["body_inertia"]),
        1e-13,
    );
    close(
        "body_ipos",
        &flat(&m.body_ipos),
        &fv(&c["body_ipos"]),
        1e-14,
    );
}

/// dm_control's humanoid_CMU: contacts come in MuJoCo's order (body pairs by body id, then geoms
/// by id), whatever the sweep-and-prune order; the constraint solve depends on it.
#[test]
fn contact_order_is_mujocos() {
    let c = &reference()["contact_order"];
    let m = model(c);
    let mut d = Data::<f64>::new(&m);
    moreau::forward(&m, &mut d);
    let got: Vec<[usize; 2]> = d.contact.iter().map(|c| c.geom).collect();
    let want: Vec<[usize; 2]> = c["contact_geom"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            [
                g[0].as_u64().unwrap() as usize,
                g[1].as_u64().unwrap() as usize,
            ]
        })
        .collect();
    assert_eq!(got, want);
    let dist: Vec<f64> = d.contact.iter().map(|c| c.dist).collect();
    close("dist", &dist, &fv(&c["contact_dist"]), 1e-14);
}

/// MuJoCo's test model: a spatial tendon wraps a free body welded to the world; `cfrc_ext`
/// (and so the force and torque sensors) includes each spatial tendon's force (passive,
/// actuators, friction and limit rows) along its path, over a geom wrap and a pulley branch.
#[test]
fn spatial_tendon_forces_in_cfrc_ext() {
    let c = &reference()["tendon_ext"];
    let m = model(c);
    let mut d = Data::<f64>::new(&m);
    d.ctrl.copy_from_slice(&fv(&c["ctrl"]));
    d.qvel.copy_from_slice(&fv(&c["qvel"]));
    moreau::forward(&m, &mut d);
    moreau::pipeline::rne_post_constraint(&m, &mut d);
    let ext: Vec<f64> = d.cfrc_ext.iter().flat_map(|v| v.iter().copied()).collect();
    let want = fv(&c["cfrc_ext"]);
    close("cfrc_ext", &ext, &want, 1e-13);
    let int: Vec<f64> = d.cfrc_int.iter().flat_map(|v| v.iter().copied()).collect();
    close("cfrc_int", &int, &fv(&c["cfrc_int"]), 1e-12);
    // the sensors of free bodies read round-off: compared on the scale of the forces
    let scale = want.iter().fold(0.0f64, |w, x| w.max(x.abs()));
    for (k, (a, b)) in d.sensordata.iter().zip(fv(&c["sensordata"])).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * scale,
            "sensordata[{k}]: moreau {a}, MuJoCo {b}"
        );
    }
}

/// Barkour vb's height-field scene: `<hfield file="….png">` reads the image as grey levels (the
/// red channel of color and palette images, the high byte of 16-bit samples), rows from the
/// image's top at +y, elevations normalized to [0, 1]; for every PNG color type.
#[test]
fn png_height_fields() {
    let c = &reference()["png_hfield"];
    let mut vfs = Vfs::new();
    for (name, hex) in c["files"].as_object().unwrap() {
        let hex = hex.as_str().unwrap();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        vfs.add(name.clone(), bytes);
    }
    let m = load_from_str(c["xml"].as_str().unwrap(), &vfs).unwrap();
    let ints = |k: &str| -> Vec<usize> {
        c[k].as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect()
    };
    assert_eq!(
        m.hfield.iter().map(|h| h.nrow).collect::<Vec<_>>(),
        ints("hfield_nrow")
    );
    assert_eq!(
        m.hfield.iter().map(|h| h.ncol).collect::<Vec<_>>(),
        ints("hfield_ncol")
    );
    let data: Vec<f64> = m
        .hfield
        .iter()
        .flat_map(|h| h.data.iter().copied())
        .collect();
    // float32 data in MuJoCo, compared exactly
    close("hfield_data", &data, &fv(&c["hfield_data"]), 0.0);
    // a file that is not a PNG is refused with a message, not a panic
    vfs.add("rgb.png", b"not a png".to_vec());
    let err = load_from_str(c["xml"].as_str().unwrap(), &vfs).unwrap_err();
    assert!(err.to_string().contains("PNG"), "{err}");
}

/// The humanoid's lower arms (a capsule and a sphere on one axis), rotated `fullinertia`s with
/// two equal moments and a tilted square-prism mesh: MuJoCo's principal frame for two equal
/// moments is the one its Jacobi iteration ends in (the pair is reordered only when the moments
/// differ by more than 1e-12 of the matrix' largest entry), not a 90° turn of it. A body with one
/// geom of nonzero mass among massless ones (dm_control's acrobot, fish, swimmer) takes that
/// geom's frame and unsorted moments.
#[test]
fn degenerate_inertia_frames() {
    let c = &reference()["degenerate_inertia"];
    let m = model(c);
    fields(
        c,
        &[
            ("body_inertia", flat(&m.body_inertia), 1e-14),
            ("body_iquat", flat(&m.body_iquat), 1e-13),
            ("body_ipos", flat(&m.body_ipos), 1e-14),
            ("geom_quat", flat(&m.geom_quat), 1e-13),
            ("geom_pos", flat(&m.geom_pos), 1e-14),
        ],
    );
}

/// Menagerie's Robotiq 2F-85 (and ALOHA, Spot with its arm): a hull polygon of more than 64
/// corners takes part in the multi-contact patch; a box edge across the rim of an 80-gon cap
/// gets MuJoCo's two clipped contacts, not the single fallback.
#[test]
fn large_hull_polygons_clip() {
    posed_contacts(&reference()["large_polygon"], 1e-9);
}

/// Menagerie's Spot: a mesh edge nearly parallel to the other mesh's face is clipped by the face
/// when `|e·n| < 0.0888` (MuJoCo 4.0.0, bisected), else the pair keeps its single contact. A
/// mesh cube's lowest edge tilted across that sine (2, 2, 1, 1 contacts; the last pose is inside
/// `√(1 − 0.996²)`, the rule this replaced) and its lowest face across the face-face cosine
/// 0.996 (4, 2 contacts), every corner inside the slab.
#[test]
fn mesh_edge_on_face_tolerance() {
    posed_contacts(&reference()["edge_tilt"], 1e-9);
}

/// The contacts' `dist`, `pos` and `frame` (rows), flattened.
fn contact_fields(d: &Data<f64>) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let dist = d.contact.iter().map(|c| c.dist).collect();
    let pos = d
        .contact
        .iter()
        .flat_map(|c| c.pos.iter().copied())
        .collect();
    let frame = d
        .contact
        .iter()
        .flat_map(|c| c.frame.transpose().iter().copied().collect::<Vec<_>>())
        .collect();
    (dist, pos, frame)
}

/// The largest absolute difference of moreau's contacts `order[k]` (dist, pos, frame) from
/// MuJoCo's `k`-th at the pose.
fn pose_error(d: &Data<f64>, pose: &Value, order: &[usize]) -> f64 {
    let (dist, pos, frame) = contact_fields(d);
    let mut e = 0.0f64;
    for (slot, &c) in order.iter().enumerate() {
        for (got, key, w) in [
            (&dist, "contact_dist", 1),
            (&pos, "contact_pos", 3),
            (&frame, "contact_frame", 9),
        ] {
            let want = fv(&pose[key]);
            for q in 0..w {
                e = e.max((got[c * w + q] - want[slot * w + q]).abs());
            }
        }
    }
    e
}

/// For each of the case's poses: moreau's contacts (count, dist, pos, frame) at MuJoCo's
/// `qpos`, within `tol` of each quantity's scale.
fn posed_contacts(c: &Value, tol: f64) {
    let m = model(c);
    let mut d = Data::<f64>::new(&m);
    for (k, pose) in c["poses"].as_array().unwrap().iter().enumerate() {
        d.qpos.copy_from_slice(&fv(&pose["qpos"]));
        moreau::forward(&m, &mut d);
        assert_eq!(
            d.contact.len() as u64,
            pose["ncon"].as_u64().unwrap(),
            "pose {k}: ncon"
        );
        let (dist, pos, frame) = contact_fields(&d);
        close(
            &format!("pose {k}: dist"),
            &dist,
            &fv(&pose["contact_dist"]),
            tol,
        );
        close(
            &format!("pose {k}: pos"),
            &pos,
            &fv(&pose["contact_pos"]),
            tol,
        );
        close(
            &format!("pose {k}: frame"),
            &frame,
            &fv(&pose["contact_frame"]),
            tol,
        );
    }
}

/// MuJoCo's testdata model: a cylinder's side line across a box face is cut by the face's side
/// planes, each cut twice (once from each end of the line). With three or four points inside
/// the margin the copies merge (two distinct contacts); with only one cut's two copies left,
/// MuJoCo 4.0.0 keeps both: two identical contacts. Count, dist, pos and frame to 1e-9 of their
/// scale (the side line through the EPA face's first vertex, [`cylinder_side_line_placement`]).
#[test]
fn cylinder_side_clip_keeps_two_copies() {
    posed_contacts(&reference()["cylinder_box_side"], 1e-9);
}

/// MuJoCo 4.0.0 draws a cylinder's side line for the multi-contact patch through the
/// cylinder's support point of its EPA's final face's first vertex, not along the normal (the
/// step-150 cylinder–box pair of MuJoCo's test model: `pos` 8.7e-6 off that way): the pair
/// moved and turned a little, 32 poses at `ccd_tolerance` 1e-5, 1e-6 and 1e-8, where the line
/// facing the normal is 6e-9 to 1e-4 off. Count, then dist, pos and frame to 1e-12 (absolute),
/// the two contacts in either order: which end of the cut side line MuJoCo lists first is not
/// modelled (measured here: 9 poses of the 32 list them the other way, none with both copies of
/// a cut bitwise equal; Sutherland–Hodgman from either end of the line fits neither way).
#[test]
fn cylinder_side_line_placement() {
    const ORDER_OFF: usize = 9;
    let mut swapped = Vec::new();
    for (k, case) in reference()["cylinder_box_aim"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let m = model(case);
        let mut d = Data::<f64>::new(&m);
        for (j, pose) in case["poses"].as_array().unwrap().iter().enumerate() {
            d.qpos.copy_from_slice(&fv(&pose["qpos"]));
            moreau::forward(&m, &mut d);
            assert_eq!(d.contact.len(), 2, "case {k} pose {j}: ncon");
            let e = pose_error(&d, pose, &[0, 1]);
            if e > 1e-12 {
                let es = pose_error(&d, pose, &[1, 0]);
                assert!(
                    es <= 1e-12,
                    "case {k} pose {j}: off by {e:.1e} ({es:.1e} swapped)"
                );
                swapped.push((k, j));
            }
        }
    }
    eprintln!("contacts in the other order: {swapped:?}");
    assert!(
        swapped.len() <= ORDER_OFF,
        "{} poses swapped: {swapped:?}",
        swapped.len()
    );
}

/// Menagerie's Spot: a foot sphere on the edge of a leg mesh. MuJoCo 4.0.0's contact is the
/// exact distance from the centre to the edge less the radius, at every `ccd_tolerance`; a
/// search on the rounded sphere stops within its tolerance, off in the normal.
#[test]
fn sphere_on_mesh_edge_is_exact() {
    let c = &reference()["sphere_edge"];
    let m = model(c);
    let mut d = Data::<f64>::new(&m);
    moreau::forward(&m, &mut d);
    assert_eq!(d.contact.len() as u64, c["ncon"].as_u64().unwrap(), "ncon");
    let dist: Vec<f64> = d.contact.iter().map(|c| c.dist).collect();
    let pos: Vec<f64> = d
        .contact
        .iter()
        .flat_map(|c| c.pos.iter().copied())
        .collect();
    let frame: Vec<f64> = d
        .contact
        .iter()
        .flat_map(|c| c.frame.transpose().iter().copied().collect::<Vec<_>>())
        .collect();
    close("dist", &dist, &fv(&c["contact_dist"]), 1e-9);
    close("pos", &pos, &fv(&c["contact_pos"]), 1e-9);
    close("frame", &frame, &fv(&c["contact_frame"]), 1e-9);
}

/// MuJoCo 4.0.0's native convex search on pairs with a smooth shape (dm_control's dog: its
/// torso ellipsoid on a paw box and under a capsule; an ellipsoid pair and a cylinder–ellipsoid
/// pair) at several `ccd_iterations` and `ccd_tolerance`: MuJoCo's contact is the iterate where
/// its budget or its tolerance stops GJK and EPA (the dog's ellipsoid–box normal is 1e-3 from
/// the converged one at the defaults), and moreau's must be that same iterate, to 1e-9.
#[test]
fn native_ccd_iterates() {
    every_case("native_ccd", 1e-9);
}

/// [`posed_contacts`] on every case of the reference's list `key`.
fn every_case(key: &str, tol: f64) {
    for (k, case) in reference()[key].as_array().unwrap().iter().enumerate() {
        let name = if case["pair"].is_null() {
            &case["what"]
        } else {
            &case["pair"]
        };
        eprintln!("case {k}: {name}");
        posed_contacts(case, tol);
    }
}

/// dm_control's dog: a geom, site or inertial frame within 1e-6 of its body's frame or of the
/// body's inertial frame takes that frame as it is (MuJoCo's `body_sameframe`,
/// `geom_sameframe`, `site_sameframe`); the dog's capsule collision geoms sit up to 3e-7 off
/// their bodies' inertial frames, which moved its capsule contacts by 1e-7. Every kind, each
/// near its 1e-6 bound, with the kinematics at a random state to 1e-15.
#[test]
fn sameframe_poses() {
    let c = &reference()["sameframe"];
    let m = model(c);
    let kinds = |v: &[moreau::model::SameFrame]| -> Vec<f64> {
        v.iter().map(|x| *x as u8 as f64).collect()
    };
    fields(
        c,
        &[
            ("body_sameframe", kinds(&m.body_sameframe), 0.0),
            ("geom_sameframe", kinds(&m.geom_sameframe), 0.0),
            ("site_sameframe", kinds(&m.site_sameframe), 0.0),
        ],
    );
    let mut d = Data::<f64>::new(&m);
    d.qpos.copy_from_slice(&fv(&c["qpos"]));
    moreau::forward(&m, &mut d);
    fields(
        c,
        &[
            ("xipos", vecs(&d.xipos), 1e-15),
            ("ximat", rows(&d.ximat), 1e-15),
            ("geom_xpos", vecs(&d.geom_xpos), 1e-15),
            ("geom_xmat", rows(&d.geom_xmat), 1e-15),
            ("site_xpos", vecs(&d.site_xpos), 1e-15),
            ("site_xmat", rows(&d.site_xmat), 1e-15),
        ],
    );
}

/// Body frames from quaternions as MuJoCo's `mju_quat2Mat` rounds them: free bodies at random
/// orientations, some with a ball-jointed child (a product of quaternions), `xquat`, `xmat` and
/// `geom_xmat` bit for bit (nalgebra's rotation matrix was 1 ulp off on the diagonal of most).
#[test]
fn quat_bodies_bit_for_bit() {
    let c = &reference()["quat_bodies"];
    let m = model(c);
    let mut d = Data::<f64>::new(&m);
    d.qpos.copy_from_slice(&fv(&c["qpos"]));
    moreau::forward(&m, &mut d);
    let q: Vec<f64> = d.xquat.iter().flat_map(|q| [q.w, q.i, q.j, q.k]).collect();
    fields(
        c,
        &[
            ("xquat", q, 0.0),
            ("xmat", rows(&d.xmat), 0.0),
            ("geom_xmat", rows(&d.geom_xmat), 0.0),
            ("xpos", vecs(&d.xpos), 0.0),
            ("geom_xpos", vecs(&d.geom_xpos), 0.0),
        ],
    );
}

/// Barkour vb's height-field scene: spheres, capsules and ellipsoids on a height field's prisms
/// go through MuJoCo 4.0.0's native search (a sphere as its centre and a capsule as its axis,
/// the radius added, while the core is outside the prism: exact at any tolerance; else the whole
/// shape's EPA, stopped by `ccd_tolerance` or `ccd_iterations`), at four positions and four
/// (`ccd_iterations`, `ccd_tolerance`) each; moreau's contacts must be MuJoCo's iterates, to 1e-9.
#[test]
fn native_hfield_iterates() {
    every_case("native_hfield", 1e-9);
}

/// Menagerie's Robotiq 2F-85: a box corner on the finger mesh's 76-corner flat hull polygon (the
/// finger's hull vertices inline, the box as at rollout step 150). MuJoCo 4.0.0's native search
/// on two polytopes (GJK, EPA to its repeated-vertex stop) takes a mesh's support point by
/// steepest ascent on the hull graph from the previous support vertex, which on a polygon flat
/// to float32 round-off stops at another vertex than a scan of every vertex: MuJoCo's contact
/// is 1.3e-10 shallower and its normal 2e-8 off the scan's. `dist` to 1e-12 (absolute), the
/// position and frame to 1e-9 of their scale.
#[test]
fn polytope_support_climbs_the_hull_graph() {
    let c = &reference()["polytope_hull"];
    let m = model(c);
    let mut d = Data::<f64>::new(&m);
    let pose = &c["poses"][0];
    d.qpos.copy_from_slice(&fv(&pose["qpos"]));
    moreau::forward(&m, &mut d);
    assert_eq!(d.contact.len() as u64, pose["ncon"].as_u64().unwrap());
    let (dist, pos, frame) = contact_fields(&d);
    for (a, b) in dist.iter().zip(fv(&pose["contact_dist"])) {
        assert!((a - b).abs() <= 1e-12, "dist: moreau {a}, MuJoCo {b}");
    }
    close("pos", &pos, &fv(&pose["contact_pos"]), 1e-9);
    close("frame", &frame, &fv(&pose["contact_frame"]), 1e-9);
}

/// myosuite's table-tennis net: OBJ faces of five or more corners, not planar, are cut into
/// triangles as MuJoCo 4.0.0's reader cuts them (ear clipping in a coordinate plane), not as a
/// fan from the first corner (the net's mass was 5e-8 off). Three prisms with 7-, 6- and 5-gon
/// caps: the triangles exactly, masses and inertias to 1e-12.
#[test]
fn obj_polygons_are_ear_clipped() {
    let c = &reference()["obj_polygons"];
    let mut vfs = Vfs::new();
    for (name, text) in c["files"].as_object().unwrap() {
        vfs.add(name.clone(), text.as_str().unwrap().as_bytes().to_vec());
    }
    let m = load_from_str(c["xml"].as_str().unwrap(), &vfs).unwrap();
    for (k, want) in c["mesh_face"].as_array().unwrap().iter().enumerate() {
        let want: Vec<[usize; 3]> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let f = fv(f);
                [f[0] as usize, f[1] as usize, f[2] as usize]
            })
            .collect();
        assert_eq!(m.mesh[k].face, want, "mesh {k}");
    }
    fields(
        c,
        &[
            ("body_mass", m.body_mass.clone(), 1e-12),
            ("body_inertia", flat(&m.body_inertia), 1e-12),
            ("body_ipos", flat(&m.body_ipos), 1e-12),
            ("geom_pos", flat(&m.geom_pos), 1e-12),
        ],
    );
}

/// myosuite's myoarm muscles (`<general gainprm="0.75 1.05 337.3">` in a class that gives all
/// nine muscle parameters): a partial `gear`, `damping`, `dynprm`, `gainprm` or `biasprm`
/// overwrites only its leading entries and the rest keep the class's values, as MuJoCo 4.0.0
/// reads them (moreau zeroed the rest: the muscle's scale, lmin, lmax, vmax, fpmax and fvmax).
/// The compiled parameters exactly; the forces at one state to 1e-12 of their scale.
#[test]
fn partial_actuator_parameters_keep_the_class_tail() {
    let c = &reference()["actuator_partial"];
    let m = model(c);
    fields(
        c,
        &[
            ("actuator_gear", flat(&m.actuator_gear), 0.0),
            ("actuator_gainprm", flat(&m.actuator_gainprm), 0.0),
            ("actuator_biasprm", flat(&m.actuator_biasprm), 0.0),
            ("actuator_dynprm", flat(&m.actuator_dynprm), 0.0),
            ("actuator_damping", m.actuator_damping.clone(), 0.0),
            ("actuator_dampingpoly", flat(&m.actuator_dampingpoly), 0.0),
        ],
    );
    let mut d = Data::<f64>::new(&m);
    d.qpos.copy_from_slice(&fv(&c["qpos"]));
    d.qvel.copy_from_slice(&fv(&c["qvel"]));
    d.act.copy_from_slice(&fv(&c["act"]));
    d.ctrl.copy_from_slice(&fv(&c["ctrl"]));
    moreau::forward(&m, &mut d);
    fields(
        c,
        &[
            ("actuator_force", d.actuator_force.clone(), 1e-12),
            ("act_dot", d.act_dot.clone(), 1e-12),
            ("qfrc_actuator", d.qfrc_actuator.clone(), 1e-12),
        ],
    );
}

/// myosuite's object meshes (`myohand_object_cubelarge`, pyramid, sphere, water bottle): a
/// hull face flat on the plane with mesh vertices inside it, tied in depth with its corners.
/// MuJoCo 4.0.0 takes a plane-mesh support vertex among the hull vertices for a mesh of 10 or
/// more vertices (a hull corner, whose polygon gives the face's four corners) and by a scan of
/// every vertex below (the first tied vertex, inside the face: one contact). Four
/// box hulls of 9, 10, 24 and 208 vertices, flat, yawed and tilted by 1e-3 (6 poses, 13 to 16
/// contacts); before, moreau made one contact per flat mesh. Count, dist, pos and
/// frame to 1e-9 of their scale.
#[test]
fn plane_mesh_support_is_a_hull_vertex() {
    posed_contacts(&reference()["plane_mesh_hull"], 1e-9);
}

/// myosuite's object meshes resting on a hull face flat only to float32 round-off: MuJoCo
/// 4.0.0's support vertex is where steepest ascent on the hull graph stops, started from the
/// `mesh_extrema` vertex of the direction's components rounded to -1, 0 or 1 at ±0.4. Twenty
/// oblique prisms (tools/zoo/gen_regressions.py `plane_mesh_start`) resting on a cap, flat and
/// tilted by 1e-11 to 1e-9 (4 poses, 80 contacts): two whose direction has a component just
/// below and just above 0.4 (the other rounding stops at another vertex), and 18 whose first
/// contact is neither the first maximum over the hull vertices (the rule this replaced) nor
/// the end of an ascent from graph vertex 0. Count, dist, pos and frame to 1e-9 of their scale.
#[test]
fn plane_mesh_support_starts_at_the_extremum() {
    posed_contacts(&reference()["plane_mesh_start"], 1e-9);
}

/// Menagerie's Spot-arm and ALOHA: the multi-contact patch of two hull meshes starts from the
/// vertex indices of MuJoCo 4.0.0's last EPA face (both hulls inline, posed as at a rollout step
/// and perturbed a little). A vertex's candidate faces are all of its faces, an edge's its first
/// two; of the candidate pairs the most anti-parallel within the face tolerance is clipped; else
/// an edge of the smaller feature (both ways when they are the same size) on a face of the other,
/// whatever that face's alignment with the normal. Every pose differs from MuJoCo under the rule
/// this replaced (first pair within the tolerance, edges only on faces within it of the normal).
/// Count, dist, pos and frame to 1e-9 of their scale.
#[test]
fn polytope_patch_features() {
    every_case("polytope_patch", 1e-9);
}

/// dm_control's Kinova arm with the native collider: its ring cylinders deep inside its link
/// meshes (each mesh as MuJoCo compiled it, the rings posed as at the arm's qpos0;
/// `ccd_iterations` 5, 9 and 35). MuJoCo 4.0.0 starts a cylinder–mesh patch from the mesh's
/// vertices of its last EPA face, as for two polytopes, and the cylinder's side line from its
/// aim: at 5 iterations the EPA normal is 7° off the mesh face and the side line is still clipped
/// on it (the supporting vertices along the normal gave one contact). A side line's two points
/// come from its −z end on. Count, dist, pos and frame in MuJoCo's order to 1e-9 of their scale.
#[test]
fn cylinder_mesh_patch_features() {
    every_case("cylinder_mesh_patch", 1e-9);
}

/// Box and mesh pairs with a contact margin (an irregular 7-vertex hull, a cube mesh, a box; margins
/// 0.01 and 0.04; `ccd_tolerance` 1e-6 and 1e-10; the multi-contact patch on and off; 96 poses
/// overlapping or apart within the margin): MuJoCo 4.0.0's contact is the exact distance while
/// the polytopes are apart, EPA's iterate on both grown by half the margin when they overlap,
/// with the patch from that face's vertex indices; moreau's contacts must be MuJoCo's to 1e-9.
/// The two ends of a two-point edge patch may come in the other order (5 poses; the known open
/// difference of edge patches, same values; then compared swapped).
#[test]
fn polytope_margin_iterates() {
    let (mut worst, mut swapped) = (0.0f64, 0);
    let mut off = Vec::new();
    for (k, case) in reference()["polytope_margin"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let m = model(case);
        let mut d = Data::<f64>::new(&m);
        for (i, pose) in case["poses"].as_array().unwrap().iter().enumerate() {
            d.qpos.copy_from_slice(&fv(&pose["qpos"]));
            moreau::forward(&m, &mut d);
            let n = pose["ncon"].as_u64().unwrap() as usize;
            let mut e = f64::INFINITY;
            if d.contact.len() == n {
                let err = |order: &[usize]| pose_error(&d, pose, order);
                let order: Vec<usize> = (0..n).collect();
                e = err(&order);
                if n == 2 && e > 1e-9 && err(&[1, 0]) <= 1e-9 {
                    e = err(&[1, 0]);
                    swapped += 1;
                }
            }
            worst = worst.max(e);
            if e > 1e-9 {
                off.push(format!("case {k} ({}) pose {i}: {e:.1e}", case["pair"]));
            }
        }
    }
    eprintln!("polytope_margin: worst {worst:.1e}, {swapped} edge patches swapped");
    assert!(swapped <= 5, "{swapped} edge patches in the other order");
    assert!(off.is_empty(), "{off:#?}");
}

/// The pairs of [`native_ccd_iterates`] with a contact margin of 0.05 on both geoms: MuJoCo
/// 4.0.0 grows both shapes by half the margin (a sphere's or capsule's core keeps its radius plus
/// that), so an overlap runs EPA on the grown shapes; 25 (pair, budget, tolerance) cases to 1e-9
/// (the search without the growth is 1e-3 off on the first).
#[test]
fn native_ccd_with_margin() {
    every_case("native_ccd_margin", 1e-9);
}

/// Height-field prisms against spheres, capsules and ellipsoids with a margin of 0.01 (the
/// cases of [`native_hfield_iterates`]): MuJoCo 4.0.0 grows the prism and the geom by half the
/// margin and runs its native search on the grown shapes (`native::contact_with_margin`),
/// contacts up to the margin; 48 cases to 1e-9.
#[test]
fn native_hfield_with_margin() {
    every_case("native_hfield_margin", 1e-9);
}

/// Boxes and meshes (an irregular 7-vertex hull) on a height field with a contact margin (0.01,
/// 0.004; `ccd_tolerance` 1e-6, 1e-10), lowered until MuJoCo 4.0.0's deepest contact is
/// between 0.012 deep and the margin: a prism overlapping the geom gives the last EPA face of
/// both grown by half the margin, one apart within the margin the exact distance, as on two
/// polytopes ([`polytope_margin_iterates`]). Count, dist, pos and frame of every contact to 1e-9
/// (absolute; the scene is 0.3 across): 32 poses, 0 off (the converged minimal depth used
/// before: 20 off, up to 9.0e-5). Cylinders (16 poses) are searched as the smooth shapes
/// ([`native_hfield_with_margin`]); MuJoCo's differs on 9 (up to 3.6e-5; the polytope rule: 10,
/// up to 1.2e-4; the converged minimal depth: 14, up to 3.7e-3): their count of poses off and
/// their worst error are bounded, not zero.
#[test]
fn hfield_polytope_margin() {
    let (mut off, mut cyl_off) = (Vec::new(), Vec::new());
    let (mut worst, mut cyl_worst) = (0.0f64, 0.0f64);
    let mut n = 0;
    for case in reference()["hfield_polytope_margin"].as_array().unwrap() {
        let m = model(case);
        let mut d = Data::<f64>::new(&m);
        let pair = case["pair"].as_str().unwrap();
        let cylinder = pair.starts_with("hfield-cylinder");
        for (k, pose) in case["poses"].as_array().unwrap().iter().enumerate() {
            d.qpos.copy_from_slice(&fv(&pose["qpos"]));
            moreau::forward(&m, &mut d);
            n += 1;
            let (list, w) = if cylinder {
                (&mut cyl_off, &mut cyl_worst)
            } else {
                (&mut off, &mut worst)
            };
            let ncon = pose["ncon"].as_u64().unwrap() as usize;
            if d.contact.len() != ncon {
                list.push(format!(
                    "{pair} pose {k}: ncon {} vs {ncon}",
                    d.contact.len()
                ));
                continue;
            }
            let order: Vec<usize> = (0..ncon).collect();
            let e = pose_error(&d, pose, &order);
            *w = w.max(e);
            if e > 1e-9 {
                list.push(format!("{pair} pose {k}: {e:.1e}"));
            }
        }
    }
    eprintln!(
        "hfield margin: {n} poses; boxes and meshes worst {worst:.1e}, off {off:#?}; \
         cylinders worst {cyl_worst:.1e}, off {cyl_off:#?}"
    );
    assert!(off.is_empty(), "{} box or mesh poses off", off.len());
    // cylinders: 9 poses off (MuJoCo's GJK stops at another iterate on prisms apart within
    // the margin: `pos` and frame up to 3.6e-5, `dist` to 1e-10; see collision/hfield.rs)
    assert!(cyl_off.len() <= 9, "{} cylinder poses off", cyl_off.len());
    assert!(cyl_worst <= 5e-5, "cylinders worst {cyl_worst:.1e}");
}

/// myosuite's `myolegs_soccer.xml`: a mocap goalkeeper's capsule on the world's floor planes.
/// MuJoCo 4.0.0 makes no body-pair contact between two bodies without degrees of freedom (the
/// world, mocap bodies), but does for an explicit `<pair>`; the contacts below were measured on
/// it (geom pairs in MuJoCo's order).
#[test]
fn fixed_bodies_do_not_collide() {
    let contacts = |xml: &str| -> Vec<[usize; 2]> {
        let m = load_from_str(xml, &Vfs::default()).unwrap();
        let mut d = Data::<f64>::new(&m);
        moreau::forward(&m, &mut d);
        d.contact.iter().map(|c| c.geom).collect()
    };
    let bodies = "<mujoco><worldbody><geom type='plane' size='1 1 .1'/>\
        <body mocap='true'><geom size='.1'/></body>\
        <body mocap='true' pos='.15 0 0'><geom size='.1'/></body>\
        <body pos='-.15 0 0'><freejoint/><geom size='.1'/></body>\
        <body mocap='true' pos='0 .5 0'><body><joint type='hinge'/><geom size='.1'/></body></body>\
        </worldbody></mujoco>";
    assert_eq!(contacts(bodies), vec![[0, 3], [0, 4], [1, 3]]);
    let pairs = "<mujoco><worldbody><geom name='p' type='plane' size='1 1 .1'/>\
        <body mocap='true'><geom name='s' size='.1'/></body>\
        <body pos='0 .5 0'><geom name='s2' size='.1'/></body></worldbody>\
        <contact><pair geom1='p' geom2='s'/><pair geom1='p' geom2='s2'/></contact></mujoco>";
    assert_eq!(contacts(pairs), vec![[0, 1], [0, 2]]);
}

/// `mj_integratePos` on ball and free joints as MuJoCo 4.0.0 rounds `mju_quatIntegrate` (the
/// quaternion normalized, then turned about `v·(1/|v|)` by `h|v|`): 24 random unnormalized
/// quaternions, velocities and steps from 1e-6 (MuJoCo's FD perturbations) to 1, to the bit.
#[test]
fn integrate_pos_bit_for_bit() {
    let c = &reference()["integrate_pos"];
    let m = model(c);
    for (k, case) in c["cases"].as_array().unwrap().iter().enumerate() {
        let mut qpos = fv(&case["qpos"]);
        let qvel = fv(&case["qvel"]);
        moreau::integrate_pos(&m, &mut qpos, &qvel, case["h"].as_f64().unwrap());
        close(&format!("case {k}: qpos"), &qpos, &fv(&case["out"]), 0.0);
    }
}

/// MuJoCo's test model at keyframe 0: a cylinder on a height-field prism whose EPA ends on
/// another face (3.5e-3 in the contact frame) when the cylinder's orientation moves by one ulp.
/// Kinematics as MuJoCo 4.0.0 rounds them: `xmat` from `mju_quat2Mat`'s sums, joint anchors and
/// axes rotated by the quaternion (`mju_rotVecQuat`), a geom's, site's, camera's or inertial
/// frame's orientation the matrix of the composed quaternion. A chain of every joint kind with
/// offset anchors and frames turned off their bodies, at 8 random states: bit for bit.
#[test]
fn kinematics_bit_for_bit() {
    let c = &reference()["kinematics"];
    let m = model(c);
    let mut d = Data::<f64>::new(&m);
    let v = |x: &[nalgebra::Vector3<f64>]| -> Vec<f64> { x.iter().flatten().copied().collect() };
    // row-major, as MuJoCo's xmat
    let r = |x: &[nalgebra::Matrix3<f64>]| -> Vec<f64> {
        x.iter()
            .flat_map(|a| a.transpose().iter().copied().collect::<Vec<_>>())
            .collect()
    };
    let mut off = Vec::new();
    for (k, s) in c["states"].as_array().unwrap().iter().enumerate() {
        d.qpos.copy_from_slice(&fv(&s["qpos"]));
        moreau::forward(&m, &mut d);
        let q: Vec<f64> = d.xquat.iter().flat_map(|q| [q.w, q.i, q.j, q.k]).collect();
        let got = [
            ("xpos", v(&d.xpos)),
            ("xquat", q),
            ("xmat", r(&d.xmat)),
            ("xanchor", v(&d.xanchor)),
            ("xaxis", v(&d.xaxis)),
            ("xipos", v(&d.xipos)),
            ("ximat", r(&d.ximat)),
            ("geom_xpos", v(&d.geom_xpos)),
            ("geom_xmat", r(&d.geom_xmat)),
            ("site_xpos", v(&d.site_xpos)),
            ("site_xmat", r(&d.site_xmat)),
            ("cam_xpos", v(&d.cam_xpos)),
            ("cam_xmat", r(&d.cam_xmat)),
        ];
        for (name, g) in got {
            let want = fv(&s[name]);
            assert_eq!(g.len(), want.len(), "{name}: length");
            for (i, (a, b)) in g.iter().zip(&want).enumerate() {
                if a != b {
                    off.push(format!("state {k} {name}[{i}]: moreau {a:e}, MuJoCo {b:e}"));
                }
            }
        }
    }
    assert!(
        off.is_empty(),
        "{} entries differ:\n{}",
        off.len(),
        off.join("\n")
    );
}

/// `<flag nativeccd="disable"/>` (dm_control's kinova arm and duplo brick): MuJoCo 4.0.0's MPR
/// collider on every type pair moreau routes to it (mesh–mesh, sphere–mesh, capsule–mesh, box–mesh,
/// cylinder–mesh/box/cylinder, capsule–cylinder; an irregular hull and a cube), 12 seeded poses
/// per case (tools/zoo/gen_mpr.py): `multiccd` off
/// and on (its perturbed extra contacts), mesh pairs also with contact margins. Count equal;
/// dist, pos and frame within 1e-9 (absolute; the geoms are 0.05 to 0.1 across).
#[test]
fn mpr_contacts_are_mujocos() {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/zoo_mpr.json");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let (mut worst, mut n, mut off) = (0.0f64, 0, Vec::new());
    for case in r["cases"].as_array().unwrap() {
        let m = model(case);
        let mut d = Data::<f64>::new(&m);
        for (i, pose) in case["poses"].as_array().unwrap().iter().enumerate() {
            d.qpos.copy_from_slice(&fv(&pose["qpos"]));
            moreau::forward(&m, &mut d);
            let k = pose["ncon"].as_u64().unwrap() as usize;
            let e = if d.contact.len() == k {
                pose_error(&d, pose, &(0..k).collect::<Vec<_>>())
            } else {
                f64::INFINITY
            };
            worst = worst.max(e);
            n += 1;
            if e > 1e-9 {
                off.push(format!(
                    "{} pose {i}: {e:.1e} (ncon {} / {k})",
                    case["pair"],
                    d.contact.len()
                ));
            }
        }
    }
    eprintln!("mpr: {n} poses, worst {worst:.1e}");
    assert!(off.is_empty(), "{off:#?}");
}
