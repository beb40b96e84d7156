//! `<asset>`: meshes (with their hulls and inertias), materials and height fields.

use super::*;

pub(super) struct MeshInfo {
    /// Volume (or area for shell meshes).
    pub(super) measure: f64,
    /// Principal inertia per unit density.
    pub(super) inertia: V3,
    pub(super) aabb: [f64; 6],
    pub(super) size: V3,
    pub(super) rbound: f64,
}

pub(super) fn compile_meshes(
    root: &Elem,
    defs: &Defaults,
    comp: &Compiler,
    files: &FileSource,
    m: &mut Model,
) -> R<Vec<MeshInfo>> {
    let mut infos = Vec::new();
    for asset in root.children.iter().filter(|e| e.name == "asset") {
        for el in asset.children.iter().filter(|e| e.name == "mesh") {
            let class = defs.class_of(el, 0)?;
            let a = defs.reader(el, class, "mesh");
            let file = a.str("file");
            let name = match (el.attr("name"), file) {
                (Some(n), _) => n.to_string(),
                (None, Some(f)) => {
                    let base = f.rsplit(['/', '\\']).next().unwrap_or(f);
                    base.rsplit_once('.')
                        .map(|(s, _)| s)
                        .unwrap_or(base)
                        .to_string()
                }
                (None, None) => String::new(),
            };
            if !name.is_empty() && m.mesh.iter().any(|x| x.name == name) {
                return Err(el.err(
                    ErrorKind::DuplicateName,
                    Some("name"),
                    format!("repeated mesh name '{name}'"),
                ));
            }
            let (mut verts, mut faces) = if let Some(f) = file {
                let bytes = files.read(f, &comp.meshdir).ok_or_else(|| {
                    a.err(
                        ErrorKind::MissingFile,
                        "file",
                        format!("cannot find mesh file '{f}'"),
                    )
                })?;
                mesh::read_mesh_file(f, &bytes)
                    .map_err(|e| a.err(ErrorKind::InvalidValue, "file", e))?
            } else {
                (Vec::new(), Vec::new())
            };
            if let Some(v) = a.nums("vertex")? {
                if file.is_some() {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "vertex",
                        "both a file and inline vertices",
                    ));
                }
                if v.len() % 3 != 0 {
                    return Err(a.err(ErrorKind::WrongCount, "vertex", "need a multiple of 3"));
                }
                // MuJoCo keeps user vertices as float32
                verts = v
                    .chunks(3)
                    .map(|c| [c[0] as f32 as f64, c[1] as f32 as f64, c[2] as f32 as f64])
                    .collect();
            }
            if let Some(fs) = a.str("face") {
                let mut idx = Vec::new();
                for t in fs.split_whitespace() {
                    let k: usize = t.parse().map_err(|_| {
                        a.err(
                            ErrorKind::BadNumber,
                            "face",
                            format!("'{t}' is not an index"),
                        )
                    })?;
                    if k >= verts.len() {
                        return Err(a.err(ErrorKind::InvalidValue, "face", "index out of range"));
                    }
                    idx.push(k);
                }
                if idx.len() % 3 != 0 {
                    return Err(a.err(ErrorKind::WrongCount, "face", "need a multiple of 3"));
                }
                faces = idx.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
            }
            if verts.len() < 4 {
                return Err(el.err(
                    ErrorKind::InvalidValue,
                    None,
                    "a mesh needs at least 4 vertices",
                ));
            }
            let scale = a.arr("scale", [1.0; 3])?;
            let refpos = a.arr("refpos", [0.0; 3])?;
            let refquat = qnormalize(a.arr("refquat", QID)?)
                .ok_or_else(|| a.err(ErrorKind::InvalidValue, "refquat", "zero quaternion"))?;
            // mesh vertices are float32 in MuJoCo
            let f32r = |v: V3| [v[0] as f32 as f64, v[1] as f32 as f64, v[2] as f32 as f64];
            for v in &mut verts {
                let s = [v[0] * scale[0], v[1] * scale[1], v[2] * scale[2]];
                *v = qrot(qconj(refquat), sub(s, refpos));
            }
            // a negative scale determinant flips the faces
            if scale[0] * scale[1] * scale[2] < 0.0 {
                for f in &mut faces {
                    f.swap(1, 2);
                }
            }
            if faces.is_empty() {
                faces = mesh::convex_hull(&verts).ok_or_else(|| {
                    el.err(ErrorKind::InvalidValue, None, "mesh vertices are coplanar")
                })?;
            }
            let mode = a
                .keyword(
                    "inertia",
                    &[
                        ("convex", MeshInertia::Convex),
                        ("exact", MeshInertia::Exact),
                        ("legacy", MeshInertia::Legacy),
                        ("shell", MeshInertia::Shell),
                    ],
                )?
                .unwrap_or(MeshInertia::Legacy);
            let (measure, com, inertia) = mesh::mass_props(&verts, &faces, mode)
                .map_err(|e| el.err(ErrorKind::InvalidValue, None, e))?;
            let (eig, quat) = eig3(&scl3(&inertia, 1.0 / measure));
            let rt = transpose(&q2m(quat));
            let mut lo = [f64::INFINITY; 3];
            let mut hi = [f64::NEG_INFINITY; 3];
            // sizes and bounding box from the double-precision vertices in the mesh frame; the
            // stored vertices are rounded to float32 as MuJoCo's mesh_vert
            for v in &mut verts {
                let w = mv(&rt, sub(*v, com));
                for k in 0..3 {
                    lo[k] = lo[k].min(w[k]);
                    hi[k] = hi[k].max(w[k]);
                }
                *v = f32r(w);
            }
            // geom size: largest |coordinate| per axis; rbound: its norm
            let size = [0, 1, 2].map(|k| lo[k].abs().max(hi[k].abs()));
            let rbound = norm(size);
            let c = scl(add(lo, hi), 0.5);
            let h = scl(sub(hi, lo), 0.5);
            infos.push(MeshInfo {
                measure,
                inertia: scl(eig, measure),
                aabb: [c[0], c[1], c[2], h[0], h[1], h[2]],
                size,
                rbound,
            });
            let mut mesh = Mesh {
                name,
                vert: verts,
                face: faces,
                pos: com,
                quat,
                ..Default::default()
            };
            mesh.build_polygons();
            m.mesh.push(mesh);
        }
    }
    m.nmesh = m.mesh.len();
    Ok(infos)
}

pub(super) fn scl3(a: &M3, s: f64) -> M3 {
    let mut r = *a;
    for row in &mut r {
        for x in row.iter_mut() {
            *x *= s;
        }
    }
    r
}

/// `<asset><material>`: name and `rgba` (with default classes); the other (visual) attributes
/// are accepted and ignored. Only the alpha is used ([`crate::ray::ray`]).
pub(super) fn compile_materials(root: &Elem, defs: &Defaults, m: &mut Model) -> R<()> {
    let mut seen = Unique::default();
    for asset in root.children.iter().filter(|e| e.name == "asset") {
        for el in asset.children.iter().filter(|e| e.name == "material") {
            let cls = defs.class_of(el, 0)?;
            let a = defs.reader(el, cls, "material");
            let name = a.name();
            seen.check(&name, el, "material")?;
            m.mat_name.push(name);
            m.mat_rgba.push(a.arr("rgba", [1.0; 4])?);
        }
    }
    m.nmat = m.mat_name.len();
    Ok(())
}

pub(super) fn compile_hfields(
    root: &Elem,
    files: &FileSource,
    comp: &Compiler,
    m: &mut Model,
) -> R<()> {
    for asset in root.children.iter().filter(|e| e.name == "asset") {
        for el in asset.children.iter().filter(|e| e.name == "hfield") {
            let a = A::new(el);
            let name = a.name();
            if !name.is_empty() && m.hfield.iter().any(|h| h.name == name) {
                return Err(el.err(
                    ErrorKind::DuplicateName,
                    Some("name"),
                    format!("repeated hfield name '{name}'"),
                ));
            }
            let size = a.arr("size", [0.0; 4]).and_then(|s| {
                if a.has("size") {
                    Ok(s)
                } else {
                    Err(a.err(ErrorKind::InvalidValue, "size", "hfield size is required"))
                }
            })?;
            if size.iter().any(|&x| x <= 0.0) {
                return Err(a.err(ErrorKind::InvalidValue, "size", "sizes must be positive"));
            }
            let mut nrow = a.int_or("nrow", 0)?;
            let mut ncol = a.int_or("ncol", 0)?;
            let mut data: Vec<f64>;
            if let Some(f) = a.str("file") {
                let bytes = files.read(f, &comp.meshdir).ok_or_else(|| {
                    a.err(
                        ErrorKind::MissingFile,
                        "file",
                        format!("cannot find hfield file '{f}'"),
                    )
                })?;
                // MuJoCo's custom binary format: int32 nrow, int32 ncol, float32 data
                let bad = || {
                    a.err(
                        ErrorKind::InvalidValue,
                        "file",
                        "not a binary hfield (.bin) file",
                    )
                };
                if !f.to_ascii_lowercase().ends_with(".bin") || bytes.len() < 8 {
                    return Err(a.err(
                        ErrorKind::Unsupported,
                        "file",
                        "only MuJoCo's binary hfield format is supported",
                    ));
                }
                let nr = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                let nc = i32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
                if nr <= 0 || nc <= 0 {
                    return Err(bad());
                }
                let n = (nr as usize).checked_mul(nc as usize).ok_or_else(bad)?;
                if bytes.len() != 8 + 4 * n {
                    return Err(bad());
                }
                data = bytes[8..]
                    .chunks(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
                    .collect();
                nrow = nr as i64;
                ncol = nc as i64;
                // file rows are stored top to bottom like the elevation attribute
                flip_rows(&mut data, nrow as usize, ncol as usize);
            } else {
                if nrow < 1 || ncol < 1 {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "nrow",
                        "nrow and ncol must be positive without a file",
                    ));
                }
                let n = (nrow as usize).saturating_mul(ncol as usize);
                if n > 100_000_000 {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "nrow",
                        "height field is too large",
                    ));
                }
                data = match a.nums("elevation")? {
                    Some(v) => {
                        if v.len() != n {
                            return Err(a.err(
                                ErrorKind::WrongCount,
                                "elevation",
                                format!("expected nrow*ncol = {n} numbers, got {}", v.len()),
                            ));
                        }
                        v
                    }
                    None => vec![0.0; n],
                };
                flip_rows(&mut data, nrow as usize, ncol as usize);
            }
            let lo = data.iter().cloned().fold(f64::INFINITY, f64::min);
            let hi = data.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            if hi > lo {
                for x in &mut data {
                    // hfield_data is float32 in MuJoCo
                    *x = ((*x - lo) / (hi - lo)) as f32 as f64;
                }
            } else {
                data.iter_mut().for_each(|x| *x = 0.0);
            }
            m.hfield.push(Hfield {
                name,
                size,
                nrow: nrow as usize,
                ncol: ncol as usize,
                data,
            });
        }
    }
    m.nhfield = m.hfield.len();
    Ok(())
}

pub(super) fn flip_rows(d: &mut [f64], nrow: usize, ncol: usize) {
    for r in 0..nrow / 2 {
        for c in 0..ncol {
            d.swap(r * ncol + c, (nrow - 1 - r) * ncol + c);
        }
    }
}
