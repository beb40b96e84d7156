//! Mesh assets: the STL / OBJ / MSH readers, the convex hull (Qhull, as MuJoCo's compiler), and
//! the processing MuJoCo's compiler applies to a mesh: the user transform (`refpos`, `refquat`,
//! `scale`), the volume or surface mass properties, and the frame change that centers the mesh
//! at its center of mass and aligns it with its principal axes (MuJoCo XML reference,
//! `asset/mesh`; `docs/references.md`).
//!
//! Vertices are read as float32 (as MuJoCo's `mesh_vert`); every computation is in f64 on those
//! values, and the processed vertices are rounded to float32 again.

use super::math::*;

/// How mesh mass properties are computed (MJCF `mesh/@inertia`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshInertia {
    /// Volume of the convex hull.
    Convex,
    /// Signed volume of the (closed, consistently oriented) mesh.
    Exact,
    /// MuJoCo's default: every face's pyramid to the surface centroid counts with its absolute
    /// volume, which over-counts non-convex meshes (MuJoCo XML reference, `mesh/@inertia`).
    Legacy,
    /// Mass on the surface.
    Shell,
}

/// MuJoCo's `mjMINVAL`.
const MINVAL: f64 = 1e-15;
/// Largest number of triangles MuJoCo 4.0.0 reads from a binary STL file.
pub const STL_MAX_FACES: usize = 200_000;

/// A mesh as read from its file or from the `vertex` / `face` attributes.
#[derive(Clone, Debug, Default)]
pub struct RawMesh {
    /// Vertices (float32 values widened to f64).
    pub vert: Vec<V3>,
    /// Triangles; empty when the mesh is given by its vertices only (its hull is used).
    pub face: Vec<[usize; 3]>,
}

/// Parses a mesh file by extension (case-insensitive: `.stl`, `.obj`, `.msh`).
pub fn read_mesh_file(name: &str, bytes: &[u8]) -> Result<RawMesh, String> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".stl") {
        read_stl(name, bytes)
    } else if lower.ends_with(".obj") {
        read_obj(name, bytes)
    } else if lower.ends_with(".msh") {
        read_msh(name, bytes)
    } else {
        Err(format!(
            "unknown or unsupported mesh file: '{name}' (stl, obj, msh)"
        ))
    }
}

fn f32_at(b: &[u8], off: usize) -> f32 {
    f32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}
fn i32_at(b: &[u8], off: usize) -> i32 {
    i32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

/// A fast hasher for the bit patterns of float32 vertex triples (vertex welding).
#[derive(Default)]
struct BitsHasher(u64);
impl std::hash::Hasher for BitsHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u8(b);
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.0 = (self.0.rotate_left(21) ^ u64::from(x)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u32(u32::from(x));
    }
}
type BitsMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<BitsHasher>>;

/// Binary STL as MuJoCo 4.0.0 reads it: 1 to 200,000 triangles, a file size that matches the
/// header, coordinates within ±2³⁰, and bit-identical corners welded into one vertex (numbered
/// in order of first appearance). ASCII STL (which MuJoCo refuses) is accepted as an extension.
fn read_stl(name: &str, b: &[u8]) -> Result<RawMesh, String> {
    if b.is_empty() {
        return Err(format!("STL file '{name}' is empty"));
    }
    let ascii = b.len() >= 5 && b[..5].eq_ignore_ascii_case(b"solid") && {
        // a binary header may also start with "solid": trust the size if it matches
        b.len() < 84 || {
            let n = u32::from_le_bytes([b[80], b[81], b[82], b[83]]) as usize;
            n.checked_mul(50).and_then(|x| x.checked_add(84)) != Some(b.len())
        }
    };
    if ascii {
        return read_stl_ascii(b);
    }
    if b.len() < 84 {
        return Err(format!("invalid header in STL file '{name}'"));
    }
    let n = i32_at(b, 80);
    if n < 1 || n as usize > STL_MAX_FACES {
        return Err(format!(
            "number of faces should be between 1 and {STL_MAX_FACES} in STL file '{name}'; \
             perhaps this is an ASCII file?"
        ));
    }
    let n = n as usize;
    if n * 50 != b.len() - 84 {
        return Err(format!(
            "STL file '{name}' has wrong size; perhaps this is an ASCII file?"
        ));
    }
    let mut map: BitsMap<[u32; 3], usize> = BitsMap::default();
    map.reserve(n / 2 + 4);
    let mut vert = Vec::with_capacity(n / 2 + 4);
    let mut face = Vec::with_capacity(n);
    const BOUND: f32 = 1_073_741_824.0; // 2^30
    for t in 0..n {
        let base = 84 + 50 * t + 12;
        let mut f = [0usize; 3];
        for (k, fk) in f.iter_mut().enumerate() {
            let o = base + 12 * k;
            let v = [f32_at(b, o), f32_at(b, o + 4), f32_at(b, o + 8)];
            if v.iter().any(|x| x.abs() > BOUND) {
                return Err(format!(
                    "vertex in STL file '{name}' exceeds maximum bounds"
                ));
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(format!("vertex coordinate {} is not finite", vert.len()));
            }
            let key = [v[0].to_bits(), v[1].to_bits(), v[2].to_bits()];
            *fk = *map.entry(key).or_insert_with(|| {
                vert.push([f64::from(v[0]), f64::from(v[1]), f64::from(v[2])]);
                vert.len() - 1
            });
        }
        face.push(f);
    }
    Ok(RawMesh { vert, face })
}

fn read_stl_ascii(b: &[u8]) -> Result<RawMesh, String> {
    let text = std::str::from_utf8(b).map_err(|_| "STL is neither binary nor ASCII")?;
    let mut map: BitsMap<[u32; 3], usize> = BitsMap::default();
    let mut vert = Vec::new();
    let mut face = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("vertex") => {
                let mut v = [0f32; 3];
                for vc in &mut v {
                    *vc = it
                        .next()
                        .and_then(|s| s.parse::<f32>().ok())
                        .filter(|x| x.is_finite())
                        .ok_or("bad ASCII STL vertex")?;
                }
                let key = [v[0].to_bits(), v[1].to_bits(), v[2].to_bits()];
                cur.push(*map.entry(key).or_insert_with(|| {
                    vert.push([f64::from(v[0]), f64::from(v[1]), f64::from(v[2])]);
                    vert.len() - 1
                }));
            }
            Some("endfacet") => {
                if cur.len() != 3 {
                    return Err("ASCII STL facet without 3 vertices".into());
                }
                face.push([cur[0], cur[1], cur[2]]);
                cur.clear();
            }
            _ => {}
        }
    }
    if face.is_empty() {
        return Err("STL has no triangles".into());
    }
    Ok(RawMesh { vert, face })
}

/// Wavefront OBJ as MuJoCo 4.0.0 reads it (through tinyobjloader): every `v` line is a vertex
/// (none are merged); the faces are those of the first object or group that has faces; quads
/// are split along their shorter diagonal, larger polygons by [`clip_ears`].
fn read_obj(name: &str, b: &[u8]) -> Result<RawMesh, String> {
    let text = String::from_utf8_lossy(b);
    let mut vert: Vec<V3> = Vec::new();
    // polygons of the first shape (vertex indices), resolved after all vertices are read
    let mut polys: Vec<Vec<usize>> = Vec::new();
    let mut first_done = false;
    let mut idx: Vec<usize> = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let mut it = line.split_whitespace();
        match it.next() {
            Some("v") => {
                let mut v = [0.0; 3];
                for vc in &mut v {
                    // tinyobjloader parses to double, then stores float
                    let x = it
                        .next()
                        .and_then(|s| s.parse::<f64>().ok())
                        .ok_or_else(|| format!("could not parse OBJ file '{name}': bad vertex"))?;
                    let x = x as f32;
                    if !x.is_finite() {
                        return Err(format!("vertex coordinate {} is not finite", vert.len()));
                    }
                    *vc = f64::from(x);
                }
                vert.push(v);
            }
            Some("f") if !first_done => {
                idx.clear();
                for tok in it {
                    let first = tok.split('/').next().unwrap_or("");
                    let i: i64 = first
                        .parse()
                        .map_err(|_| format!("could not parse OBJ file '{name}': bad face"))?;
                    let n = vert.len() as i64;
                    let k = match i {
                        0 => -1,
                        i if i < 0 => n + i,
                        i => i - 1,
                    };
                    if k < 0 {
                        return Err(format!("could not parse OBJ file '{name}': bad face index"));
                    }
                    idx.push(k as usize);
                }
                if idx.len() < 3 {
                    return Err(format!(
                        "could not parse OBJ file '{name}': face with fewer than 3 vertices"
                    ));
                }
                polys.push(idx.clone());
            }
            Some("o") | Some("g") if !polys.is_empty() => first_done = true,
            _ => {}
        }
    }
    let mut face = Vec::with_capacity(polys.len());
    for p in &polys {
        if let Some(&bad) = p.iter().find(|&&k| k >= vert.len()) {
            return Err(format!(
                "in face {}, vertex index {bad} does not exist",
                face.len()
            ));
        }
        match p.len() {
            3 => face.push([p[0], p[1], p[2]]),
            4 => {
                // squared diagonals in float32, as tinyobjloader
                let d2 = |a: usize, b: usize| {
                    let (u, w) = (vert[p[a]], vert[p[b]]);
                    (0..3)
                        .map(|k| {
                            let e = w[k] as f32 - u[k] as f32;
                            e * e
                        })
                        .fold(0f32, |s, x| s + x)
                };
                if d2(0, 2) < d2(1, 3) {
                    face.push([p[0], p[1], p[2]]);
                    face.push([p[0], p[2], p[3]]);
                } else {
                    face.push([p[0], p[1], p[3]]);
                    face.push([p[1], p[2], p[3]]);
                }
            }
            _ => clip_ears(&vert, p, &mut face),
        }
    }
    Ok(RawMesh { vert, face })
}

/// Triangles of an OBJ polygon of five or more corners as MuJoCo 4.0.0's reader makes them
/// (measured on myosuite's table-tennis net, whose non-planar 5- and 6-gons made its mass differ
/// by 5e-8, and on the prisms of tools/zoo/gen_regressions.py `obj_polygons`), in float32:
/// - the polygon is projected on two coordinate axes: the first corner `(k, k+1, k+2)` whose
///   edge cross product has a component above `f32::EPSILON` drops the axis of its largest
///   component (x only when that one is strictly largest; then y when z is strictly largest);
/// - ear clipping with a cursor from corner 0: the corner triangle `(g, g+1, g+2)` is an ear
///   unless its turn `e0 × e1` has the opposite sign of the signed area of the triangle
///   (origin, g, g+1), or another remaining corner lies inside it (crossing-number test); an ear
///   is emitted and its middle corner removed with the cursor kept, else the cursor moves on;
/// - it stops at three corners (the last triangle) or after a full turn with no ear (the rest
///   is dropped).
fn clip_ears(vert: &[V3], p: &[usize], face: &mut Vec<[usize; 3]>) {
    let v32 = |i: usize| vert[i].map(|x| x as f32);
    let n = p.len();
    let mut axes = [1usize, 2];
    for k in 0..n {
        let (a, b, c) = (v32(p[k]), v32(p[(k + 1) % n]), v32(p[(k + 2) % n]));
        let e0 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e1 = [c[0] - b[0], c[1] - b[1], c[2] - b[2]];
        let cx = (e0[1] * e1[2] - e0[2] * e1[1]).abs();
        let cy = (e0[2] * e1[0] - e0[0] * e1[2]).abs();
        let cz = (e0[0] * e1[1] - e0[1] * e1[0]).abs();
        if cx > f32::EPSILON || cy > f32::EPSILON || cz > f32::EPSILON {
            if !(cx > cy && cx > cz) {
                axes[0] = 0;
                if cz > cx && cz > cy {
                    axes[1] = 1;
                }
            }
            break;
        }
    }
    let xy = |i: usize| {
        let v = v32(i);
        (v[axes[0]], v[axes[1]])
    };
    // point (tx, ty) inside the triangle: a ray towards +x crosses an odd number of its edges
    let inside = |t: &[(f32, f32); 3], (tx, ty): (f32, f32)| {
        let mut odd = false;
        let mut j = 2;
        for i in 0..3 {
            let ((xi, yi), (xj, yj)) = (t[i], t[j]);
            if (yi > ty) != (yj > ty) && tx < (xj - xi) * (ty - yi) / (yj - yi) + xi {
                odd = !odd;
            }
            j = i;
        }
        odd
    };
    let mut rest = p.to_vec();
    let mut g = 0usize;
    let mut left = rest.len();
    let mut last = rest.len();
    while rest.len() > 3 && left > 0 {
        let m = rest.len();
        if g >= m {
            g -= m;
        }
        if last != m {
            last = m;
            left = m;
        } else {
            left -= 1;
        }
        let ind = [rest[g % m], rest[(g + 1) % m], rest[(g + 2) % m]];
        let t = ind.map(xy);
        let turn = (t[1].0 - t[0].0) * (t[2].1 - t[1].1) - (t[1].1 - t[0].1) * (t[2].0 - t[1].0);
        let area = (t[0].0 * t[1].1 - t[0].1 * t[1].0) * 0.5;
        if turn * area < 0.0 || (3..m).any(|o| inside(&t, xy(rest[(g + o) % m]))) {
            g += 1;
            continue;
        }
        face.push(ind);
        rest.remove((g + 1) % m);
    }
    if let [a, b, c] = rest[..] {
        face.push([a, b, c]);
    }
}

/// MuJoCo's binary MSH: int32 counts (vertices, normals, texcoords, faces), then float32
/// vertices, normals and texture coordinates, then int32 faces.
fn read_msh(name: &str, b: &[u8]) -> Result<RawMesh, String> {
    if b.is_empty() {
        return Err(format!("MSH file '{name}' is empty"));
    }
    if b.len() < 16 {
        return Err(format!("missing header in MSH file '{name}'"));
    }
    let (nv, nn, nt, nf) = (i32_at(b, 0), i32_at(b, 4), i32_at(b, 8), i32_at(b, 12));
    if nv < 4 || nf < 0 || nn < 0 || nt < 0 || (nn > 0 && nn != nv) || (nt > 0 && nt != nv) {
        return Err(format!("invalid sizes in MSH file '{name}'"));
    }
    let (nv, nn, nt, nf) = (nv as usize, nn as usize, nt as usize, nf as usize);
    let lim = i32::MAX as usize / 12;
    if nv >= lim || nn >= lim || nt >= i32::MAX as usize / 8 || nf >= lim {
        return Err(format!("too large sizes in MSH file '{name}'."));
    }
    if b.len() != 16 + 4 * (3 * nv + 3 * nn + 2 * nt + 3 * nf) {
        return Err(format!("unexpected file size in MSH file '{name}'"));
    }
    let mut vert = Vec::with_capacity(nv);
    for i in 0..nv {
        let o = 16 + 12 * i;
        let v = [f32_at(b, o), f32_at(b, o + 4), f32_at(b, o + 8)];
        if v.iter().any(|x| !x.is_finite()) {
            return Err(format!("vertex coordinate {i} is not finite"));
        }
        vert.push([f64::from(v[0]), f64::from(v[1]), f64::from(v[2])]);
    }
    let fo = 16 + 4 * (3 * nv + 3 * nn + 2 * nt);
    let mut face = Vec::with_capacity(nf);
    for i in 0..nf {
        let mut f = [0usize; 3];
        for (c, fc) in f.iter_mut().enumerate() {
            let k = i32_at(b, fo + 4 * (3 * i + c));
            if k < 0 || k as usize >= nv {
                return Err(format!("in face {i}, vertex index {k} does not exist"));
            }
            *fc = k as usize;
        }
        face.push(f);
    }
    Ok(RawMesh { vert, face })
}

// ---------------------------------------------------------------------------------- hull

/// MuJoCo's convex-hull graph (`mesh_graph`): `[numvert, numface, vert_edgeadr[numvert],
/// vert_globalid[numvert], edge_localid[numvert + 3 numface], face_globalid[3 numface]]`.
/// The hull vertices and faces come in Qhull's order (`qhull Qt`); each vertex lists its hull
/// neighbours (local ids, `-1`-terminated) in the order of its incident facets; faces are
/// oriented outward.
pub fn hull_graph(p: &[V3]) -> Result<Vec<i32>, String> {
    hull_precheck(p)?;
    qhull_graph(p)
}

/// The degenerate point sets MuJoCo's compiler refuses before calling Qhull: all points
/// coincident, collinear or coplanar (relative tolerance `mjMINVAL`).
fn hull_precheck(p: &[V3]) -> Result<(), String> {
    if p.len() < 4 {
        return Err("has fewer than 4 vertices, cannot compute convex hull".into());
    }
    let o = p[0];
    let (i1, len1) = match (1..p.len())
        .map(|i| (i, norm(sub(p[i], o))))
        .find(|&(_, l)| l > MINVAL)
    {
        Some(x) => x,
        None => return Err("mesh has colocated vertices, cannot compute convex hull".into()),
    };
    let e1 = sub(p[i1], o);
    let mut nrm = None;
    for (i, &q) in p.iter().enumerate().skip(1) {
        if i == i1 {
            continue;
        }
        let e2 = sub(q, o);
        let len2 = norm(e2);
        if len2 < MINVAL {
            continue;
        }
        let c = cross(e1, e2);
        let nc = norm(c);
        if nc > MINVAL * len1 * len2 {
            nrm = Some(scl(c, 1.0 / nc));
            break;
        }
    }
    let Some(n) = nrm else {
        return Err(
            "has collinear vertices, cannot compute convex hull. Consider using a thin \
             capsule instead"
                .into(),
        );
    };
    let d = dot(n, o);
    if p.iter().all(|&q| (dot(n, q) - d).abs() <= MINVAL * len1) {
        return Err(
            "has coplanar vertices, cannot compute convex hull. Consider using a \
                    primitive geom type (plane or thin box) instead"
                .into(),
        );
    }
    Ok(())
}

/// State handed to the Qhull run inside its error trap.
struct QhRun {
    qh: *mut qhull::sys::qhT,
    pts: *mut f64,
    n: i32,
    cmd: *mut std::ffi::c_char,
}

unsafe extern "C" {
    /// Qhull's `qh_vertexneighbors` (poly2_r.c, compiled into the `qhull` crate's library but
    /// not in its bindings): fills each vertex's set of incident facets.
    fn qh_vertexneighbors(qh: *mut qhull::sys::qhT);
}

/// The Qhull calls that can fail (they return to the trap by `longjmp`): options, input,
/// hull, triangulation, vertex neighbours. A plain frame: no Rust value with a destructor
/// lives here, so jumping out of it is sound.
unsafe extern "C" fn qhull_steps(data: *mut std::ffi::c_void) {
    // SAFETY: `data` is the `QhRun` of `qhull_graph`, alive for the whole call.
    unsafe {
        let r = &*(data as *const QhRun);
        qhull::sys::qh_initflags(r.qh, r.cmd);
        qhull::sys::qh_init_B(r.qh, r.pts, r.n, 3, 0);
        qhull::sys::qh_qhull(r.qh);
        qhull::sys::qh_triangulate(r.qh);
        qh_vertexneighbors(r.qh);
    }
}

/// Elements of a Qhull set (`FOREACHsetelement_`), up to the terminating null.
///
/// # Safety
/// `set` must be null or a live Qhull set of `T` pointers.
unsafe fn set_elems<T>(set: *mut qhull::sys::setT) -> Vec<*mut T> {
    let mut out = Vec::new();
    if set.is_null() {
        return out;
    }
    // SAFETY: a Qhull set stores `maxsize + 1` slots after `maxsize`, null-terminated.
    unsafe {
        let e = std::ptr::addr_of!((*set).e) as *const *mut T;
        let mut k = 0;
        loop {
            let p = *e.add(k);
            if p.is_null() {
                break;
            }
            out.push(p);
            k += 1;
        }
    }
    out
}

fn qhull_graph(p: &[V3]) -> Result<Vec<i32>, String> {
    use qhull::sys;
    let n = i32::try_from(p.len()).map_err(|_| "too many mesh vertices for the convex hull")?;
    let mut pts: Vec<f64> = p.iter().flat_map(|v| *v).collect();
    let mut cmd = *b"qhull Qt\0";
    // Qhull's messages go to a temporary file (dropped), not to the process's stderr
    let errfile = qhull::tmp_file::TmpFile::new().ok();
    // SAFETY: the Qhull state lives on the heap for the whole function and is freed on every
    // path; the point array outlives it; Qhull's error exits return to the trap in
    // `qhull_try_on_qh`, which only skips the plain frame of `qhull_steps`.
    unsafe {
        let ferr = match &errfile {
            Some(f) => f.file_handle() as *mut sys::FILE,
            None => sys::qhull_sys__stderr(),
        };
        let mut state = Box::new(std::mem::MaybeUninit::<sys::qhT>::zeroed());
        let qh = state.as_mut_ptr();
        sys::qh_zero(qh, ferr);
        sys::qh_init_A(
            qh,
            sys::qhull_sys__stdin(),
            sys::qhull_sys__stdout(),
            ferr,
            0,
            std::ptr::null_mut(),
        );
        let run = QhRun {
            qh,
            pts: pts.as_mut_ptr(),
            n,
            cmd: cmd.as_mut_ptr() as *mut std::ffi::c_char,
        };
        let code = sys::qhull_sys__try_on_qh(
            qh,
            Some(qhull_steps),
            &run as *const QhRun as *mut std::ffi::c_void,
        );
        let result = if code != 0 {
            Err("qhull error: cannot compute convex hull".to_string())
        } else {
            read_graph(qh, p.len())
        };
        sys::qh_freeqhull(qh, 0);
        let (mut curlong, mut totlong) = (0, 0);
        sys::qh_memfreeshort(qh, &mut curlong, &mut totlong);
        result
    }
}

/// Reads the hull of a finished Qhull run into MuJoCo's graph layout.
///
/// # Safety
/// `qh` must hold a completed, triangulated hull with vertex neighbours.
unsafe fn read_graph(qh: *mut qhull::sys::qhT, npoint: usize) -> Result<Vec<i32>, String> {
    use qhull::sys;
    // SAFETY: walks Qhull's vertex and facet lists (sentinel-terminated) of a finished run.
    unsafe {
        let pid = |pt: *mut f64| -> Result<usize, String> {
            let id = sys::qh_pointid(qh, pt);
            usize::try_from(id)
                .ok()
                .filter(|&i| i < npoint)
                .ok_or_else(|| "could not construct convex hull graph".to_string())
        };
        let mut verts: Vec<*mut sys::vertexT> = Vec::new();
        let mut v = (*qh).vertex_list;
        while !v.is_null() && !(*v).next.is_null() {
            verts.push(v);
            v = (*v).next;
        }
        let mut facets: Vec<*mut sys::facetT> = Vec::new();
        let mut f = (*qh).facet_list;
        while !f.is_null() && !(*f).next.is_null() {
            facets.push(f);
            f = (*f).next;
        }
        let (nv, nf) = (verts.len(), facets.len());
        let mut globalid = Vec::with_capacity(nv);
        let mut local = vec![-1i32; npoint];
        for (i, &v) in verts.iter().enumerate() {
            let g = pid((*v).point)?;
            globalid.push(g as i32);
            local[g] = i as i32;
        }
        let mut edgeadr = Vec::with_capacity(nv);
        let mut edges: Vec<i32> = Vec::with_capacity(nv + 3 * nf);
        for (i, &v) in verts.iter().enumerate() {
            edgeadr.push(edges.len() as i32);
            let start = edges.len();
            for fct in set_elems::<sys::facetT>((*v).neighbors) {
                let fv = set_elems::<sys::vertexT>((*fct).vertices);
                if fv.len() != 3 {
                    return Err("qhull did not return a triangle".into());
                }
                for w in fv {
                    let g = pid((*w).point)?;
                    let l = local[g];
                    if l < 0 {
                        return Err("vertex id not found in convex hull".into());
                    }
                    if l as usize != i && !edges[start..].contains(&l) {
                        edges.push(l);
                    }
                }
            }
            edges.push(-1);
        }
        if edges.len() != nv + 3 * nf {
            return Err("wrong size in convex hull graph".into());
        }
        let mut faces = Vec::with_capacity(3 * nf);
        for &fct in &facets {
            let fv = set_elems::<sys::vertexT>((*fct).vertices);
            if fv.len() != 3 {
                return Err("qhull did not return a triangle".into());
            }
            let ids = [
                pid((*fv[0]).point)?,
                pid((*fv[1]).point)?,
                pid((*fv[2]).point)?,
            ];
            // Qhull's vertex sets are sorted; `toporient` tells the outward orientation
            let t = if (*fct).toporient() != 0 {
                [ids[1], ids[0], ids[2]]
            } else {
                ids
            };
            faces.extend(t.iter().map(|&x| x as i32));
        }
        let mut g = Vec::with_capacity(2 + 3 * nv + 6 * nf);
        g.push(nv as i32);
        g.push(nf as i32);
        g.extend(edgeadr);
        g.extend(globalid);
        g.extend(edges);
        g.extend(faces);
        Ok(g)
    }
}

/// Reverses the orientation of a hull graph's faces (a negative `scale` determinant mirrors
/// the mesh; MuJoCo flips the faces after the polygons are made).
pub fn flip_graph_faces(graph: &mut [i32]) {
    if graph.len() < 2 {
        return;
    }
    let (nv, nf) = (graph[0] as usize, graph[1] as usize);
    for f in graph[2 + 3 * nv + 3 * nf..].chunks_exact_mut(3) {
        f.swap(1, 2);
    }
}

/// The faces of a hull graph (its last `3 numface` entries).
pub fn graph_faces(graph: &[i32]) -> Vec<[usize; 3]> {
    if graph.len() < 2 {
        return Vec::new();
    }
    let (nv, nf) = (graph[0] as usize, graph[1] as usize);
    graph[2 + 3 * nv + 3 * nf..]
        .chunks_exact(3)
        .map(|c| [c[0] as usize, c[1] as usize, c[2] as usize])
        .collect()
}

// ---------------------------------------------------------------------- mass properties

/// The result of [`process`]: the mesh in its own frame and its mass properties.
#[derive(Clone, Debug)]
pub struct Processed {
    /// Vertices in the mesh frame (center of mass at the origin, principal axes), rounded to
    /// float32.
    pub vert: Vec<V3>,
    /// The same vertices before rounding (used for sizes and polygon normals).
    pub vert_exact: Vec<V3>,
    /// Volume (or area for shell meshes): MuJoCo's `GetVolumeRef`.
    pub measure: f64,
    /// Principal moments per unit density, descending.
    pub inertia: V3,
    /// Offset and rotation removed from the (transformed) vertices: `mesh_pos`, `mesh_quat`.
    pub pos: V3,
    pub quat: Q,
    /// Axis-aligned bounds of the processed vertices (before float32 rounding).
    pub lo: V3,
    pub hi: V3,
}

/// The user transform of a mesh (`mesh/@refpos`, `@refquat` (unit), `@scale`).
#[derive(Clone, Copy, Debug)]
pub struct UserTransform {
    pub refpos: V3,
    pub refquat: Q,
    pub scale: V3,
}

/// Triangle area, unit normal and centroid; area 0 (and no normal) below `mjMINVAL`.
fn triangle(a: V3, b: V3, c: V3) -> (f64, V3, V3) {
    let cen = [
        (a[0] + b[0] + c[0]) / 3.0,
        (a[1] + b[1] + c[1]) / 3.0,
        (a[2] + b[2] + c[2]) / 3.0,
    ];
    let n = cross(sub(b, a), sub(c, a));
    let len = norm(n);
    if len < MINVAL {
        return (0.0, n, cen);
    }
    (0.5 * len, scl(n, 1.0 / len), cen)
}

/// Applies the user transform and computes the mass properties as MuJoCo's compiler does
/// (MuJoCo XML reference, `mesh/@refpos`, `@refquat`, `@scale`, `@inertia`):
/// `v ← R(refquat)ᵀ (v − refpos) ⊙ scale`; the surface centroid (area-weighted face centers)
/// is the apex of each face's pyramid; the center of mass weighs the pyramids' centroids by
/// their volumes (absolute values for `legacy`); the inertia is accumulated about that point,
/// diagonalized, and the vertices are moved into the principal frame.
///
/// `faces` are the mesh faces (already swapped for a negative scale determinant);
/// `hull_faces` are used instead for `inertia="convex"`.
pub fn process(
    raw: &[V3],
    faces: &[[usize; 3]],
    hull_faces: Option<&[[usize; 3]]>,
    mode: MeshInertia,
    t: &UserTransform,
    name: &str,
) -> Result<Processed, String> {
    let (refpos, scale) = (t.refpos, t.scale);
    let r = q2m(t.refquat);
    let mut v: Vec<V3> = raw
        .iter()
        .map(|&p| {
            let d = sub(p, refpos);
            // Rᵀ d
            let w = [
                r[0][0] * d[0] + r[1][0] * d[1] + r[2][0] * d[2],
                r[0][1] * d[0] + r[1][1] * d[1] + r[2][1] * d[2],
                r[0][2] * d[0] + r[1][2] * d[1] + r[2][2] * d[2],
            ];
            [w[0] * scale[0], w[1] * scale[1], w[2] * scale[2]]
        })
        .collect();
    // surface centroid
    let mut facecen = [0.0; 3];
    let mut area = 0.0;
    for f in faces {
        let (a, _, c) = triangle(v[f[0]], v[f[1]], v[f[2]]);
        facecen = add(facecen, scl(c, a));
        area += a;
    }
    if area < MINVAL {
        return Err(format!("mesh surface area is too small: {name}"));
    }
    facecen = scl(facecen, 1.0 / area);
    let vol_faces = match mode {
        MeshInertia::Convex => hull_faces.unwrap_or(faces),
        _ => faces,
    };
    // volume (or area) and center of mass
    let mut com = [0.0; 3];
    let mut total = 0.0;
    if mode == MeshInertia::Shell {
        for f in faces {
            let (a, _, c) = triangle(v[f[0]], v[f[1]], v[f[2]]);
            total += a;
            com = add(com, scl(add(scl(c, 0.75), scl(facecen, 0.25)), a));
        }
        if total < MINVAL {
            return Err(format!("mesh surface area is too small: {name}"));
        }
    } else {
        for f in vol_faces {
            let (a, n, c) = triangle(v[f[0]], v[f[1]], v[f[2]]);
            let mut w = dot(sub(c, facecen), n) * a / 3.0;
            if mode == MeshInertia::Legacy {
                w = w.abs();
            }
            total += w;
            com = add(com, scl(add(scl(c, 0.75), scl(facecen, 0.25)), w));
        }
        if total.is_nan() || total < MINVAL {
            return Err(if total < 0.0 {
                format!("mesh volume is negative (misoriented triangles): {name}")
            } else {
                format!("mesh volume is too small: {name} . Try setting inertia to shell")
            });
        }
    }
    com = scl(com, 1.0 / total);
    // products of inertia about the center of mass; the measure is recomputed there
    let mut pr = [0.0; 6];
    let mut measure = 0.0;
    const K: [(usize, usize); 6] = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)];
    let ifaces = if mode == MeshInertia::Shell {
        faces
    } else {
        vol_faces
    };
    let den = if mode == MeshInertia::Shell {
        12.0
    } else {
        20.0
    };
    for f in ifaces {
        let (d, e, g) = (sub(v[f[0]], com), sub(v[f[1]], com), sub(v[f[2]], com));
        let (a, n, c) = triangle(d, e, g);
        let mut w = if mode == MeshInertia::Shell {
            a
        } else {
            dot(c, n) * a / 3.0
        };
        if mode == MeshInertia::Legacy {
            w = w.abs();
        }
        measure += w;
        for (j, &(p, q)) in K.iter().enumerate() {
            pr[j] += w / den
                * (2.0 * (d[p] * d[q] + e[p] * e[q] + g[p] * g[q])
                    + d[p] * e[q]
                    + d[q] * e[p]
                    + d[p] * g[q]
                    + d[q] * g[p]
                    + e[p] * g[q]
                    + e[q] * g[p]);
        }
    }
    let full = [
        [pr[1] + pr[2], -pr[3], -pr[4]],
        [-pr[3], pr[0] + pr[2], -pr[5]],
        [-pr[4], -pr[5], pr[0] + pr[1]],
    ];
    let (eig, quat) = eig3_tol(&full, EIG3_TOL_MESH);
    if eig[2] <= 0.0 {
        return Err(format!(
            "eigenvalue of mesh inertia must be positive: {name}"
        ));
    }
    let (rtol, atol) = (1e-6, 1e-9);
    if eig[0] + eig[1] < eig[2] * (1.0 - rtol) - atol
        || eig[0] + eig[2] < eig[1] * (1.0 - rtol) - atol
        || eig[1] + eig[2] < eig[0] * (1.0 - rtol) - atol
    {
        return Err(format!(
            "eigenvalues of mesh inertia violate A + B >= C: {name}"
        ));
    }
    // into the principal frame: v ← R(quat)ᵀ (v − com)
    let rq = q2m(quat);
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in &mut v {
        let d = sub(*p, com);
        let w = [
            rq[0][0] * d[0] + rq[1][0] * d[1] + rq[2][0] * d[2],
            rq[0][1] * d[0] + rq[1][1] * d[1] + rq[2][1] * d[2],
            rq[0][2] * d[0] + rq[1][2] * d[1] + rq[2][2] * d[2],
        ];
        for k in 0..3 {
            lo[k] = lo[k].min(w[k]);
            hi[k] = hi[k].max(w[k]);
        }
        *p = w;
    }
    let vert = v
        .iter()
        .map(|p| [p[0] as f32 as f64, p[1] as f32 as f64, p[2] as f32 as f64])
        .collect();
    Ok(Processed {
        vert,
        vert_exact: v,
        measure,
        inertia: eig,
        pos: com,
        quat,
        lo,
        hi,
    })
}

/// The first pair of vertices (1-based, as MuJoCo reports them) whose directed edge appears in
/// two faces, i.e. where neighbouring faces disagree on orientation; faces of area below
/// `√mjMINVAL` are ignored. `inertia="exact"` refuses such meshes.
pub fn inconsistent_edge(vert: &[V3], faces: &[[usize; 3]]) -> Option<(usize, usize)> {
    let mut he: Vec<(usize, usize)> = Vec::with_capacity(3 * faces.len());
    for f in faces {
        if triangle(vert[f[0]], vert[f[1]], vert[f[2]]).0 > MINVAL.sqrt() {
            he.extend([(f[0], f[1]), (f[1], f[2]), (f[2], f[0])]);
        }
    }
    he.sort_unstable();
    he.windows(2)
        .find(|w| w[0] == w[1])
        .map(|w| (w[0].0 + 1, w[0].1 + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> Vec<V3> {
        let mut v = Vec::new();
        for x in [-1.0, 1.0] {
            for y in [-1.0, 1.0] {
                for z in [-1.0, 1.0] {
                    v.push([0.1 * x, 0.2 * y, 0.3 * z]);
                }
            }
        }
        v.extend([[0.0137, -0.023, -0.0459], [-0.0483, 0.0313, 0.0413]]);
        v
    }

    #[test]
    fn hull_of_a_box_with_interior_points() {
        let g = hull_graph(&cube()).unwrap();
        let (nv, nf) = (g[0] as usize, g[1] as usize);
        assert_eq!((nv, nf), (8, 12));
        assert_eq!(g.len(), 2 + 3 * nv + 6 * nf);
        // every hull face is outward: the other hull points lie below its plane
        let p = cube();
        for f in graph_faces(&g) {
            let n = cross(sub(p[f[1]], p[f[0]]), sub(p[f[2]], p[f[0]]));
            assert!(p.iter().all(|q| dot(n, sub(*q, p[f[0]])) <= 1e-12));
        }
        // interior points are not hull vertices
        let gid = &g[2 + nv..2 + 2 * nv];
        assert!(gid.iter().all(|&i| i < 8));
    }

    #[test]
    fn degenerate_point_sets_are_refused_with_mujocos_reason() {
        let flat = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
        ];
        assert!(hull_graph(&flat).unwrap_err().contains("coplanar"));
        let line: Vec<V3> = (0..5).map(|i| [i as f64, 0.0, 0.0]).collect();
        assert!(hull_graph(&line).unwrap_err().contains("collinear"));
        let same = vec![[1.0, 2.0, 3.0]; 5];
        assert!(hull_graph(&same).unwrap_err().contains("colocated"));
    }

    #[test]
    fn obj_takes_the_first_shape_and_splits_quads_on_the_shorter_diagonal() {
        let obj = "o a\nv 0 0 0\nv 1 0 0\nv 1.2 1 0\nv 0 1 0\nv 0.5 0.5 1\n\
                   f 1 2 3 4\nf 1 2 5\nf 2 3 5\nf 3 4 5\nf 4 1 5\no b\nv 5 5 5\nf 1 2 6\n";
        let m = read_obj("t.obj", obj.as_bytes()).unwrap();
        assert_eq!(m.vert.len(), 6);
        assert_eq!(
            m.face,
            vec![
                [0, 1, 3],
                [1, 2, 3],
                [0, 1, 4],
                [1, 2, 4],
                [2, 3, 4],
                [3, 0, 4]
            ]
        );
    }

    #[test]
    fn binary_stl_limits() {
        let mut b = vec![0u8; 84];
        b[80..84].copy_from_slice(&300_000u32.to_le_bytes());
        assert!(read_stl("big.stl", &b).unwrap_err().contains("200000"));
        b[80..84].copy_from_slice(&2u32.to_le_bytes());
        assert!(read_stl("short.stl", &b)
            .unwrap_err()
            .contains("wrong size"));
    }
}
