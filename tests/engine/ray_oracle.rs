//! Ray casting against MuJoCo 4.0.0 (tests/reference/ray_cases.json, written by
//! tools/reference/gen_ray_cases.py): `ray::ray` (`mj_ray`) over random rays in a scene with
//! every geom type, with geom-group masks, static-geom and body exclusion; and the rangefinder
//! sensor. Distances to 1e-10 relative, geom ids exactly (on MuJoCo's compiled mesh data).

use moreau::{load_from_str, Data, Vfs};
use nalgebra::Vector3;
use serde_json::Value;

fn fv(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn rays_match_mujoco() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/ray_cases.json"
    );
    let c: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut m = load_from_str(c["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
    // MuJoCo's compiled mesh frames and vertices (moreau's mesh compiler differs at ~1e-8:
    // the inertial frame of a mesh), so the ray math is compared by itself
    for (k, g) in c["mesh_geom"].as_array().unwrap().iter().enumerate() {
        let g = g.as_u64().unwrap() as usize;
        let p = fv(&c["mesh_geom_pos"][k]);
        let q = fv(&c["mesh_geom_quat"][k]);
        m.geom_pos[g] = [p[0], p[1], p[2]];
        m.geom_quat[g] = [q[0], q[1], q[2], q[3]];
    }
    for (i, v) in c["mesh_vert"].as_array().unwrap().iter().enumerate() {
        let v = fv(v);
        for (j, w) in m.mesh[i].vert.iter_mut().enumerate() {
            *w = [v[3 * j], v[3 * j + 1], v[3 * j + 2]];
        }
    }
    assert_eq!(moreau::pipeline::forward_unsupported(&m), None);
    let mut d = Data::<f64>::new(&m);
    d.qpos.copy_from_slice(&fv(&c["qpos"]));
    moreau::forward(&m, &mut d);
    let mut worst = 0.0f64;
    let mut bad = Vec::new();
    for (k, r) in c["rays"].as_array().unwrap().iter().enumerate() {
        let p = fv(&r["pnt"]);
        let v = fv(&r["vec"]);
        let group = r["group"].as_array().map(|g| {
            let mut out = [false; 6];
            for (i, x) in g.iter().enumerate() {
                out[i] = x.as_bool().unwrap();
            }
            out
        });
        let ex = r["bodyexclude"].as_i64().unwrap();
        let (x, g) = moreau::ray(
            &m,
            &d,
            &Vector3::new(p[0], p[1], p[2]),
            &Vector3::new(v[0], v[1], v[2]),
            group,
            r["flg_static"].as_i64().unwrap() != 0,
            usize::try_from(ex).ok(),
        );
        let want = r["dist"].as_f64().unwrap();
        let wg = r["geomid"].as_i64().unwrap();
        let e = (x - want).abs() / want.abs().max(1.0);
        worst = worst.max(e);
        let gid = g.map_or(-1, |g| g as i64);
        if e > 1e-10 || gid != wg {
            bad.push(format!("ray {k}: {x} geom {gid}, MuJoCo {want} geom {wg}"));
        }
    }
    println!("rays: worst {worst:.2e}, {} mismatches", bad.len());
    for b in bad.iter().take(30) {
        println!("{b}");
    }
    assert!(bad.is_empty());
    let want = fv(&c["sensordata"]);
    for (a, b) in d.sensordata.iter().zip(&want) {
        assert!(
            (a - b).abs() <= 1e-10 * b.abs().max(1.0),
            "rangefinder {a} vs {b}"
        );
    }
}

/// Möller–Trumbore, both faces, as the definition the culled height-field ray is checked against.
fn tri(
    a: &Vector3<f64>,
    b: &Vector3<f64>,
    c: &Vector3<f64>,
    p: &Vector3<f64>,
    v: &Vector3<f64>,
) -> f64 {
    let (e1, e2) = (b - a, c - a);
    let h = v.cross(&e2);
    let det = e1.dot(&h);
    if det.abs() < 1e-15 {
        return -1.0;
    }
    let s = p - a;
    let u = s.dot(&h) / det;
    if !(0.0..=1.0).contains(&u) {
        return -1.0;
    }
    let q = s.cross(&e1);
    let w = v.dot(&q) / det;
    if w < 0.0 || u + w > 1.0 {
        return -1.0;
    }
    let x = e2.dot(&q) / det;
    if x >= 0.0 {
        x
    } else {
        -1.0
    }
}

/// `ray_hfield` visits only the cells under the ray's track; the nearest hit must be exactly
/// the one over every top triangle, every wall triangle and the base box (rays from above, from
/// below, from outside the grid, horizontal, vertical, along grid lines and through corners).
#[test]
fn hfield_ray_equals_every_triangle() {
    let (nr, nc) = (9usize, 13usize);
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let elev: Vec<String> = (0..nr * nc).map(|_| format!("{:.4}", rnd())).collect();
    let xml = format!(
        r#"<mujoco><asset><hfield name="h" nrow="{nr}" ncol="{nc}" size="1.5 1 0.4 0.2"
        elevation="{}"/></asset><worldbody><geom type="hfield" hfield="h"/></worldbody></mujoco>"#,
        elev.join(" ")
    );
    let m = load_from_str(&xml, &Vfs::default()).unwrap();
    let hf = &m.hfield[0];
    let [sx, sy, sz, sb] = hf.size;
    let (dx, dy) = (2.0 * sx / (nc - 1) as f64, 2.0 * sy / (nr - 1) as f64);
    let vtx = |i: usize, j: usize| {
        Vector3::new(
            -sx + dx * j as f64,
            -sy + dy * i as f64,
            hf.data[i * nc + j] * sz,
        )
    };
    let keep = |cur: f64, x: f64| {
        if x >= 0.0 && (cur < 0.0 || x < cur) {
            x
        } else {
            cur
        }
    };
    let every = |p: &Vector3<f64>, v: &Vector3<f64>| {
        let off = Vector3::new(0.0, 0.0, -0.5 * sb);
        let mut out = moreau::pipeline::ray_primitive_local(
            moreau::model::GeomType::Box,
            &[sx, sy, 0.5 * sb],
            &(p - off),
            v,
        );
        for i in 0..nr - 1 {
            for j in 0..nc - 1 {
                let (a, b, c, d) = (vtx(i, j), vtx(i, j + 1), vtx(i + 1, j), vtx(i + 1, j + 1));
                out = keep(out, tri(&a, &d, &b, p, v));
                out = keep(out, tri(&a, &c, &d, p, v));
            }
        }
        let z0 = |w: Vector3<f64>| Vector3::new(w.x, w.y, 0.0);
        let mut wall = |a: Vector3<f64>, b: Vector3<f64>| {
            out = keep(out, tri(&z0(a), &z0(b), &b, p, v));
            out = keep(out, tri(&z0(a), &b, &a, p, v));
        };
        for j in 0..nc - 1 {
            wall(vtx(0, j), vtx(0, j + 1));
            wall(vtx(nr - 1, j), vtx(nr - 1, j + 1));
        }
        for i in 0..nr - 1 {
            wall(vtx(i, 0), vtx(i + 1, 0));
            wall(vtx(i, nc - 1), vtx(i + 1, nc - 1));
        }
        out
    };
    let mut rays = Vec::new();
    for k in 0..4000 {
        let p = Vector3::new(
            (rnd() - 0.5) * 5.0,
            (rnd() - 0.5) * 4.0,
            (rnd() - 0.4) * 1.5,
        );
        let mut v = Vector3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * (0.1 + 3.0 * rnd());
        match k % 8 {
            1 => v.z = 0.0,
            2 => (v.x, v.y) = (0.0, 0.0),
            3 => v.x = 0.0,
            4 => v.y = 0.0,
            _ => {}
        }
        rays.push((p, v));
    }
    // along grid lines, through grid corners, along the walls, aimed at random grid points
    for i in 0..nr {
        for j in 0..nc {
            let c = vtx(i, j);
            rays.push((Vector3::new(c.x, -3.0, 0.1), Vector3::new(0.0, 1.0, 0.0)));
            rays.push((Vector3::new(-3.0, c.y, 0.05), Vector3::new(1.0, 0.0, 0.0)));
            rays.push((Vector3::new(c.x, c.y, 2.0), Vector3::new(0.0, 0.0, -1.0)));
            rays.push((
                c + Vector3::new(0.3, 0.2, 0.5),
                Vector3::new(-0.3, -0.2, -0.5),
            ));
            rays.push((
                c + Vector3::new(0.0, 0.0, -0.1),
                Vector3::new(0.0, 0.0, 1.0),
            ));
        }
    }
    let mut hits = 0;
    for (p, v) in &rays {
        let a = moreau::pipeline::ray_hfield(&m, 0, p, v);
        let b = every(p, v);
        assert_eq!(
            a.to_bits(),
            b.to_bits(),
            "ray {p:?} + t {v:?}: culled {a}, every triangle {b}"
        );
        hits += usize::from(b >= 0.0);
    }
    assert!(
        hits > rays.len() / 4,
        "only {hits} of {} rays hit",
        rays.len()
    );
}
