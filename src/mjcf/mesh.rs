//! Mesh assets: STL / OBJ / MSH readers, convex hull, and the volume (or surface) mass
//! properties MuJoCo's compiler uses to center and align meshes.

use super::math::*;

/// How mesh mass properties are computed (MJCF `mesh/@inertia`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshInertia {
    /// Volume of the convex hull.
    Convex,
    /// Signed volume of the (closed) mesh.
    Exact,
    /// MuJoCo's default ("legacy"): unsigned tetrahedron volumes from a centre found in two
    /// passes (see [`mass_props`]); the same as `Exact` for closed convex meshes, larger for
    /// non-convex ones.
    Legacy,
    /// Mass on the surface.
    Shell,
}

/// Parses a mesh file by extension. Returns (vertices, faces) or an error message.
pub fn read_mesh_file(name: &str, bytes: &[u8]) -> Result<(Vec<V3>, Vec<[usize; 3]>), String> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".stl") {
        read_stl(bytes)
    } else if lower.ends_with(".obj") {
        read_obj(bytes)
    } else if lower.ends_with(".msh") {
        read_msh(bytes)
    } else {
        Err(format!(
            "unsupported mesh file type '{name}' (stl, obj, msh)"
        ))
    }
}

fn f32_at(b: &[u8], off: usize) -> Option<f32> {
    let s = b.get(off..off + 4)?;
    Some(f32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}
fn i32_at(b: &[u8], off: usize) -> Option<i32> {
    let s = b.get(off..off + 4)?;
    Some(i32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Adds a vertex, merging exact duplicates (as MuJoCo does for STL).
fn push_vert(
    map: &mut std::collections::HashMap<[u64; 3], usize>,
    verts: &mut Vec<V3>,
    v: V3,
) -> usize {
    let key = [v[0].to_bits(), v[1].to_bits(), v[2].to_bits()];
    *map.entry(key).or_insert_with(|| {
        verts.push(v);
        verts.len() - 1
    })
}

fn read_stl(b: &[u8]) -> Result<(Vec<V3>, Vec<[usize; 3]>), String> {
    let binary = b.len() >= 84 && {
        let n = u32::from_le_bytes([b[80], b[81], b[82], b[83]]) as usize;
        n.checked_mul(50).and_then(|x| x.checked_add(84)) == Some(b.len())
    };
    let mut map = std::collections::HashMap::new();
    let mut verts = Vec::new();
    let mut faces = Vec::new();
    if binary {
        let n = (b.len() - 84) / 50;
        for t in 0..n {
            let base = 84 + 50 * t + 12;
            let mut f = [0usize; 3];
            for (k, fk) in f.iter_mut().enumerate() {
                let mut v = [0.0; 3];
                for (c, vc) in v.iter_mut().enumerate() {
                    let x = f32_at(b, base + 12 * k + 4 * c).ok_or("truncated STL")?;
                    if !x.is_finite() {
                        return Err("non-finite STL vertex".into());
                    }
                    *vc = x as f64;
                }
                *fk = push_vert(&mut map, &mut verts, v);
            }
            faces.push(f);
        }
    } else {
        let text = std::str::from_utf8(b).map_err(|_| "STL is neither binary nor ASCII")?;
        if !text.trim_start().starts_with("solid") {
            return Err("STL is neither binary nor ASCII".into());
        }
        let mut cur: Vec<usize> = Vec::new();
        for line in text.lines() {
            let mut it = line.split_whitespace();
            match it.next() {
                Some("vertex") => {
                    let mut v = [0.0; 3];
                    for vc in &mut v {
                        *vc = it
                            .next()
                            .and_then(|s| s.parse::<f32>().ok())
                            .filter(|x| x.is_finite())
                            .ok_or("bad ASCII STL vertex")? as f64;
                    }
                    cur.push(push_vert(&mut map, &mut verts, v));
                }
                Some("endfacet") => {
                    if cur.len() != 3 {
                        return Err("ASCII STL facet without 3 vertices".into());
                    }
                    faces.push([cur[0], cur[1], cur[2]]);
                    cur.clear();
                }
                _ => {}
            }
        }
    }
    if faces.is_empty() {
        return Err("STL has no triangles".into());
    }
    Ok((verts, faces))
}

fn read_obj(b: &[u8]) -> Result<(Vec<V3>, Vec<[usize; 3]>), String> {
    let text = String::from_utf8_lossy(b);
    let mut verts: Vec<V3> = Vec::new();
    let mut faces = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("v") => {
                let mut v = [0.0; 3];
                for vc in &mut v {
                    // MuJoCo reads mesh vertices as float32
                    *vc = it
                        .next()
                        .and_then(|s| s.parse::<f32>().ok())
                        .filter(|x| x.is_finite())
                        .ok_or("bad OBJ vertex")? as f64;
                }
                verts.push(v);
            }
            Some("f") => {
                let mut idx = Vec::new();
                for tok in it {
                    let first = tok.split('/').next().unwrap_or("");
                    let i: i64 = first.parse().map_err(|_| "bad OBJ face index")?;
                    let n = verts.len() as i64;
                    let k = if i < 0 { n + i } else { i - 1 };
                    if k < 0 || k >= n {
                        return Err("OBJ face index out of range".into());
                    }
                    idx.push(k as usize);
                }
                if idx.len() < 3 {
                    return Err("OBJ face with fewer than 3 vertices".into());
                }
                for k in 1..idx.len() - 1 {
                    faces.push([idx[0], idx[k], idx[k + 1]]);
                }
            }
            _ => {}
        }
    }
    Ok((verts, faces))
}

fn read_msh(b: &[u8]) -> Result<(Vec<V3>, Vec<[usize; 3]>), String> {
    let h: Vec<i32> = (0..4)
        .map(|k| i32_at(b, 4 * k))
        .collect::<Option<_>>()
        .ok_or("truncated MSH header")?;
    if h.iter().any(|&x| x < 0) {
        return Err("bad MSH header".into());
    }
    let (nv, nn, nt, nf) = (h[0] as usize, h[1] as usize, h[2] as usize, h[3] as usize);
    let expect = 16 + 4 * (3 * nv + 3 * nn + 2 * nt + 3 * nf);
    if b.len() != expect {
        return Err("MSH size does not match its header".into());
    }
    let mut verts = Vec::with_capacity(nv);
    for i in 0..nv {
        let mut v = [0.0; 3];
        for (c, vc) in v.iter_mut().enumerate() {
            *vc = f32_at(b, 16 + 4 * (3 * i + c)).ok_or("truncated MSH")? as f64;
        }
        verts.push(v);
    }
    let fo = 16 + 4 * (3 * nv + 3 * nn + 2 * nt);
    let mut faces = Vec::with_capacity(nf);
    for i in 0..nf {
        let mut f = [0usize; 3];
        for (c, fc) in f.iter_mut().enumerate() {
            let k = i32_at(b, fo + 4 * (3 * i + c)).ok_or("truncated MSH")?;
            if k < 0 || k as usize >= nv {
                return Err("MSH face index out of range".into());
            }
            *fc = k as usize;
        }
        faces.push(f);
    }
    Ok((verts, faces))
}

/// Convex hull of a point set (incremental algorithm); faces oriented outward. Returns None if
/// the points are (nearly) coplanar.
pub fn convex_hull(p: &[V3]) -> Option<Vec<[usize; 3]>> {
    if p.len() < 4 {
        return None;
    }
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for v in p {
        for k in 0..3 {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    let scale = norm(sub(hi, lo));
    let eps = 1e-10 * scale.max(1e-300);
    // initial tetrahedron
    let i0 = 0;
    let i1 = (0..p.len()).max_by(|&a, &b| {
        norm(sub(p[a], p[i0]))
            .partial_cmp(&norm(sub(p[b], p[i0])))
            .unwrap_or(std::cmp::Ordering::Equal)
    })?;
    let d01 = sub(p[i1], p[i0]);
    let i2 = (0..p.len()).max_by(|&a, &b| {
        norm(cross(d01, sub(p[a], p[i0])))
            .partial_cmp(&norm(cross(d01, sub(p[b], p[i0]))))
            .unwrap_or(std::cmp::Ordering::Equal)
    })?;
    let n012 = cross(d01, sub(p[i2], p[i0]));
    if norm(n012) <= eps * scale {
        return None;
    }
    let i3 = (0..p.len()).max_by(|&a, &b| {
        dot(n012, sub(p[a], p[i0]))
            .abs()
            .partial_cmp(&dot(n012, sub(p[b], p[i0])).abs())
            .unwrap_or(std::cmp::Ordering::Equal)
    })?;
    if dot(n012, sub(p[i3], p[i0])).abs() <= eps * norm(n012) {
        return None;
    }
    let mut faces: Vec<[usize; 3]> = if dot(n012, sub(p[i3], p[i0])) < 0.0 {
        vec![[i0, i1, i2], [i0, i3, i1], [i1, i3, i2], [i2, i3, i0]]
    } else {
        vec![[i0, i2, i1], [i0, i1, i3], [i1, i2, i3], [i2, i0, i3]]
    };
    let plane = |f: &[usize; 3]| -> (V3, f64) {
        let n = cross(sub(p[f[1]], p[f[0]]), sub(p[f[2]], p[f[0]]));
        let n = normalize(n).unwrap_or([0.0; 3]);
        (n, dot(n, p[f[0]]))
    };
    let mut planes: Vec<(V3, f64)> = faces.iter().map(plane).collect();
    for (i, &v) in p.iter().enumerate() {
        if [i0, i1, i2, i3].contains(&i) {
            continue;
        }
        let visible: Vec<bool> = planes.iter().map(|(n, d)| dot(*n, v) - d > eps).collect();
        if !visible.iter().any(|&x| x) {
            continue;
        }
        // horizon: directed edges of visible faces whose reverse is not in a visible face
        let mut edges: Vec<(usize, usize)> = Vec::new();
        for (f, _) in faces.iter().zip(&visible).filter(|(_, &vis)| vis) {
            for k in 0..3 {
                edges.push((f[k], f[(k + 1) % 3]));
            }
        }
        let set: std::collections::HashSet<(usize, usize)> = edges.iter().copied().collect();
        let horizon: Vec<(usize, usize)> = edges
            .into_iter()
            .filter(|&(a, b)| !set.contains(&(b, a)))
            .collect();
        let mut nf = Vec::with_capacity(faces.len());
        let mut np = Vec::with_capacity(faces.len());
        for ((f, pl), vis) in faces.iter().zip(&planes).zip(&visible) {
            if !vis {
                nf.push(*f);
                np.push(*pl);
            }
        }
        for (a, b) in horizon {
            let f = [a, b, i];
            np.push(plane(&f));
            nf.push(f);
        }
        faces = nf;
        planes = np;
    }
    Some(faces)
}

/// Mass properties per unit density: (measure, center, inertia tensor about the center), where
/// measure is the volume (or area for `Shell`).
///
/// `Legacy` (MuJoCo 4.0.0's default, measured against its compiler on non-convex meshes to
/// 1e-14): the tetrahedra join each face to a centre and count with their unsigned volume. The
/// centre is found in two passes: `c0` = the area-weighted mean of the face centroids, then `c1`
/// = the centroid of the unsigned tetrahedra on `c0`; volume and inertia are those of the
/// unsigned tetrahedra on `c1`, about `c1`, which is the centre returned.
pub fn mass_props(
    v: &[V3],
    faces: &[[usize; 3]],
    mode: MeshInertia,
) -> Result<(f64, V3, M3), String> {
    let hull;
    let faces = if mode == MeshInertia::Convex {
        hull = convex_hull(v).ok_or("mesh is flat: cannot compute its convex hull")?;
        &hull[..]
    } else {
        faces
    };
    if mode == MeshInertia::Legacy {
        return legacy_mass_props(v, faces);
    }
    let cen = [0.0; 3];
    let mut tot = 0.0;
    let mut first = [0.0; 3];
    let mut second = [[0.0; 3]; 3];
    for f in faces {
        let (a, b, c) = (sub(v[f[0]], cen), sub(v[f[1]], cen), sub(v[f[2]], cen));
        let s = add(add(a, b), c);
        let (w, fac, cnt) = if mode == MeshInertia::Shell {
            (norm(cross(sub(b, a), sub(c, a))) / 2.0, 12.0, 3.0)
        } else {
            let vol = dot(a, cross(b, c)) / 6.0;

            (vol, 20.0, 4.0)
        };
        tot += w;
        first = add(first, scl(s, w / cnt));
        for i in 0..3 {
            for j in 0..3 {
                second[i][j] += w / fac * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
            }
        }
    }
    if tot.is_nan() || tot <= 1e-15 {
        return Err(if mode == MeshInertia::Shell {
            "mesh surface area is too small".into()
        } else {
            "mesh volume is too small (or faces are inverted)".into()
        });
    }
    let com = scl(first, 1.0 / tot);
    // second moment about the center, then inertia = tr(C) I - C
    let mut c = second;
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] -= tot * com[i] * com[j];
        }
    }
    let tr = c[0][0] + c[1][1] + c[2][2];
    let mut inertia = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            inertia[i][j] = if i == j { tr - c[i][j] } else { -c[i][j] };
        }
    }
    Ok((tot, add(com, cen), inertia))
}

/// [`MeshInertia::Legacy`] mass properties (see [`mass_props`]).
fn legacy_mass_props(v: &[V3], faces: &[[usize; 3]]) -> Result<(f64, V3, M3), String> {
    let tet = |f: &[usize; 3], c: V3| {
        let (a, b, d) = (sub(v[f[0]], c), sub(v[f[1]], c), sub(v[f[2]], c));
        (dot(a, cross(b, d)).abs() / 6.0, a, b, d)
    };
    // pass 1: the area-weighted centroid of the surface
    let mut area = 0.0;
    let mut c0 = [0.0; 3];
    for f in faces {
        let (a, b, c) = (v[f[0]], v[f[1]], v[f[2]]);
        let w = norm(cross(sub(b, a), sub(c, a))) / 2.0;
        area += w;
        c0 = add(c0, scl(add(add(a, b), c), w / 3.0));
    }
    if area.is_nan() || area <= 1e-15 {
        return Err("mesh surface area is too small".into());
    }
    let c0 = scl(c0, 1.0 / area);
    // pass 2: the centroid of the unsigned tetrahedra on c0
    let mut tot = 0.0;
    let mut c1 = [0.0; 3];
    for f in faces {
        let (w, ..) = tet(f, c0);
        tot += w;
        let s = add(add(add(v[f[0]], v[f[1]]), v[f[2]]), c0);
        c1 = add(c1, scl(s, w / 4.0));
    }
    if tot.is_nan() || tot <= 1e-15 {
        return Err("mesh volume is too small (or faces are inverted)".into());
    }
    let c1 = scl(c1, 1.0 / tot);
    // volume and second moment of the unsigned tetrahedra on c1, about c1
    let mut vol = 0.0;
    let mut second = [[0.0; 3]; 3];
    for f in faces {
        let (w, a, b, c) = tet(f, c1);
        vol += w;
        let s = add(add(a, b), c);
        for i in 0..3 {
            for j in 0..3 {
                second[i][j] += w / 20.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
            }
        }
    }
    if vol.is_nan() || vol <= 1e-15 {
        return Err("mesh volume is too small (or faces are inverted)".into());
    }
    let tr = second[0][0] + second[1][1] + second[2][2];
    let mut inertia = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            inertia[i][j] = if i == j { tr } else { 0.0 } - second[i][j];
        }
    }
    Ok((vol, c1, inertia))
}
