//! Mesh compilation against MuJoCo 4.0.0 (tests/reference/mesh_cases.json, written by
//! tools/reference/gen_mesh_cases.py): the processed vertices and faces, `mesh_pos`,
//! `mesh_quat`, the convex-hull graph in Qhull's order, the hull polygons in MuJoCo's order
//! with MuJoCo's first corners, their normals, and the body and geom quantities the meshes
//! decide; degenerate meshes are refused as MuJoCo refuses them.
//!
//! Tolerances: the graph, the faces and the polygons are integers and must be identical.
//! Vertices are float32 in both: they agree to one float32 rounding (the principal frame is
//! the same to ~1e-15, which can move a coordinate across a float32 rounding boundary).
//! Mass properties, frames and sizes: 1e-10 relative to each quantity's scale. Polygon
//! normals: 1e-8 (a sliver polygon's Newell normal amplifies the ~1e-16 frame difference).

use moreau::{load_from_str, Vfs};
use serde_json::Value;

fn decode_b64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad base64"),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            acc |= val(c) << (18 - 6 * k);
        }
        for k in 0..chunk.len() - 1 {
            out.push((acc >> (16 - 8 * k)) as u8);
        }
    }
    out
}

fn flat(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().flat_map(flat).collect(),
        Value::Number(n) => vec![n.as_f64().unwrap()],
        _ => panic!("not numeric: {v}"),
    }
}

/// max |a - b| / max(max |b|, floor)
fn rel(a: &[f64], b: &[f64], floor: f64) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(floor, |m, x| m.max(x.abs()));
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

#[test]
fn meshes_compile_as_in_mujoco() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/mesh_cases.json"
    );
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e} (run tools/reference/gen_mesh_cases.py)"));
    let j: Value = serde_json::from_str(&text).unwrap();
    let cases = j["cases"].as_array().unwrap();
    assert!(cases.len() >= 25, "{} cases", cases.len());
    let mut worst = std::collections::BTreeMap::<&str, f64>::new();
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let mut vfs = Vfs::new();
        for (f, b) in c["files"].as_object().unwrap() {
            vfs.add(f.as_str(), decode_b64(b.as_str().unwrap()));
        }
        let res = load_from_str(c["xml"].as_str().unwrap(), &vfs);
        if let Some(err) = c["error"].as_str() {
            let e = res
                .err()
                .unwrap_or_else(|| panic!("{name}: MuJoCo refuses ({err})"));
            // the same reason (MuJoCo's wording after "mesh 'm' ")
            let reason = err.split("mesh 'm' ").nth(1).unwrap_or(err);
            assert!(e.to_string().contains(reason), "{name}: '{e}' vs '{err}'");
            continue;
        }
        let m = res.unwrap_or_else(|e| panic!("{name}: {e}"));
        let meshes = c["mesh"].as_array().unwrap();
        assert_eq!(m.mesh.len(), meshes.len(), "{name}");
        for (k, (mesh, r)) in m.mesh.iter().zip(meshes).enumerate() {
            let ctx = format!("{name} mesh {k}");
            let face: Vec<[usize; 3]> = serde_json::from_value(r["face"].clone()).unwrap();
            assert_eq!(mesh.face, face, "{ctx}: faces");
            let graph: Vec<i32> = serde_json::from_value(r["graph"].clone()).unwrap();
            assert_eq!(mesh.graph, graph, "{ctx}: hull graph");
            let polys: Vec<Vec<usize>> = serde_json::from_value(r["polyvert"].clone()).unwrap();
            assert_eq!(mesh.polyvert, polys, "{ctx}: polygons");
            // polymap: per vertex, its polygons in ascending order
            for (v, list) in mesh.polymap.iter().enumerate() {
                let expect: Vec<usize> = (0..polys.len())
                    .filter(|&p| polys[p].contains(&v))
                    .collect();
                assert_eq!(list, &expect, "{ctx}: polymap of vertex {v}");
            }
            let vert = flat(&r["vert"]);
            let mine: Vec<f64> = mesh.vert.iter().flatten().copied().collect();
            let e = rel(&mine, &vert, 0.0);
            assert!(e < 2.0 * f32::EPSILON as f64, "{ctx}: vertices {e:.1e}");
            for (key, a, floor) in [
                ("mesh_pos", mesh.pos.to_vec(), 1e-3),
                ("mesh_quat", mesh.quat.to_vec(), 1.0),
            ] {
                let b = flat(&r[key.strip_prefix("mesh_").unwrap()]);
                let e = rel(&a, &b, floor);
                let w = worst.entry(key).or_default();
                *w = w.max(e);
                assert!(e < 1e-10, "{ctx}: {key} {e:.1e}");
            }
            if !polys.is_empty() {
                let a: Vec<f64> = mesh.polynormal.iter().flatten().copied().collect();
                let e = rel(&a, &flat(&r["polynormal"]), 1.0);
                let w = worst.entry("mesh_polynormal").or_default();
                *w = w.max(e);
                assert!(e < 1e-8, "{ctx}: polygon normals {e:.1e}");
            }
        }
        for key in [
            "body_mass",
            "body_inertia",
            "body_ipos",
            "body_iquat",
            "geom_size",
            "geom_rbound",
            "geom_pos",
            "geom_quat",
        ] {
            let a: Vec<f64> = match key {
                "body_mass" => m.body_mass.clone(),
                "body_inertia" => m.body_inertia.iter().flatten().copied().collect(),
                "body_ipos" => m.body_ipos.iter().flatten().copied().collect(),
                "body_iquat" => m.body_iquat.iter().flatten().copied().collect(),
                "geom_size" => m.geom_size.iter().flatten().copied().collect(),
                "geom_rbound" => m.geom_rbound.clone(),
                "geom_pos" => m.geom_pos.iter().flatten().copied().collect(),
                _ => m.geom_quat.iter().flatten().copied().collect(),
            };
            // positions are measured against the meshes' size (~0.1): a centered mesh has
            // body_ipos ~1e-17, whose own magnitude is no scale
            let floor = if key.ends_with("pos") { 1e-2 } else { 1e-12 };
            let e = rel(&a, &flat(&c[key]), floor);
            let w = worst.entry(key).or_default();
            *w = w.max(e);
            assert!(e < 1e-10, "{name}: {key} {e:.1e}");
        }
    }
    let summary: Vec<String> = worst.iter().map(|(k, v)| format!("{k} {v:.1e}")).collect();
    eprintln!(
        "worst relative errors over {} cases: {}",
        cases.len(),
        summary.join(", ")
    );
}
