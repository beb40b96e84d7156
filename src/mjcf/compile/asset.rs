//! `<asset>`: meshes (with their hulls and inertias), materials and height fields (textures:
//! [`super::texture`]).

use crate::mjcf::compile::attr::A;
use crate::mjcf::compile::ctx::{Unique, R};
use crate::mjcf::compile::defaults::Defaults;
use crate::mjcf::compile::options::Compiler;
use crate::mjcf::error::ErrorKind;
use crate::mjcf::math::{add, norm, qnormalize, scl, sub, QID, V3};
use crate::mjcf::mesh;
use crate::mjcf::mesh::MeshInertia;
use crate::mjcf::xml::{Elem, FileSource};
use crate::model::{GeomType, Hfield, Mesh, Model};

pub(super) struct MeshInfo {
    /// Volume (or area for shell meshes).
    pub(super) measure: f64,
    /// Principal inertia per unit density.
    pub(super) inertia: V3,
    pub(super) aabb: [f64; 6],
    pub(super) size: V3,
    pub(super) rbound: f64,
    /// The vertices in the file's frame, kept until the hulls are known to be needed
    /// ([`finish_meshes`]).
    pub(super) raw: Vec<V3>,
    /// The processed vertices before float32 rounding (polygon normals).
    pub(super) exact: Vec<V3>,
    /// The scale mirrors the mesh: hull faces are flipped after the polygons are made.
    pub(super) mirror: bool,
    /// The `<mesh>` element without its children, to locate a later hull error.
    pub(super) el: Elem,
}

/// Reads, transforms and measures every `<asset><mesh>` as MuJoCo's compiler does
/// ([`mesh::process`]). The convex hull is computed here only when the mesh has no faces (its
/// hull becomes its faces) or `inertia="convex"`; the others wait for [`finish_meshes`].
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
                    format!("repeated name '{name}' in mesh"),
                ));
            }
            let bad = |e: String| el.err(ErrorKind::InvalidValue, None, e);
            let mesh::RawMesh {
                vert: mut raw,
                face: mut faces,
            } = if let Some(f) = file {
                let (bytes, _) = files
                    .fetch_asset(f, &comp.meshdir, &el.loc)
                    .map_err(|why| a.err(ErrorKind::MissingFile, "file", why))?;
                mesh::read_mesh_file(f, &bytes)
                    .map_err(|e| a.err(ErrorKind::InvalidValue, "file", e))?
            } else {
                mesh::RawMesh::default()
            };
            if let Some(v) = a.nums("vertex")? {
                if file.is_some() {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "vertex",
                        "repeated vertex specification",
                    ));
                }
                if v.len() % 3 != 0 {
                    return Err(a.err(
                        ErrorKind::WrongCount,
                        "vertex",
                        "vertex data must be a multiple of 3",
                    ));
                }
                // MuJoCo keeps user vertices as float32
                raw = v
                    .chunks(3)
                    .map(|c| [c[0] as f32 as f64, c[1] as f32 as f64, c[2] as f32 as f64])
                    .collect();
                if raw.iter().flatten().any(|x| !x.is_finite()) {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "vertex",
                        "vertex coordinate is not finite",
                    ));
                }
            }
            if let Some(fs) = a.str("face") {
                if file.is_some() && !faces.is_empty() {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "face",
                        "repeated face specification",
                    ));
                }
                let mut idx = Vec::new();
                for t in fs.split_whitespace() {
                    let k: i64 = t.parse().map_err(|_| {
                        a.err(
                            ErrorKind::BadNumber,
                            "face",
                            format!("'{t}' is not an index"),
                        )
                    })?;
                    if k < 0 || k as usize >= raw.len() {
                        return Err(a.err(
                            ErrorKind::InvalidValue,
                            "face",
                            format!("in face {}, vertex index {k} does not exist", idx.len() / 3),
                        ));
                    }
                    idx.push(k as usize);
                }
                if idx.len() % 3 != 0 {
                    return Err(a.err(
                        ErrorKind::WrongCount,
                        "face",
                        "face data must be a multiple of 3",
                    ));
                }
                faces = idx.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
            }
            if raw.len() < 4 {
                return Err(bad("at least 4 vertices required".into()));
            }
            let scale = a.arr("scale", [1.0; 3])?;
            let refpos = a.arr("refpos", [0.0; 3])?;
            let refquat = qnormalize(a.arr("refquat", QID)?)
                .ok_or_else(|| a.err(ErrorKind::InvalidValue, "refquat", "zero quaternion"))?;
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
            if mode == MeshInertia::Exact {
                if let Some((v0, v1)) = mesh::inconsistent_edge(&raw, &faces) {
                    return Err(bad(format!(
                        "faces of mesh '{name}' have inconsistent orientation. Please check \
                         the faces containing the vertices {v0} and {v1}."
                    )));
                }
            }
            // the hull, on the file's vertices, when it is needed now
            let mut graph = Vec::new();
            if faces.is_empty() || mode == MeshInertia::Convex {
                graph = mesh::hull_graph(&raw).map_err(|e| bad(format!("mesh '{name}' {e}")))?;
            }
            if faces.is_empty() {
                faces = mesh::graph_faces(&graph);
            }
            let hull_faces = mesh::graph_faces(&graph);
            // a negative scale determinant flips the faces (after the hull polygons are made)
            let mirror = scale[0] * scale[1] * scale[2] < 0.0;
            if mirror {
                for f in &mut faces {
                    f.swap(1, 2);
                }
            }
            let p = mesh::process(
                &raw,
                &faces,
                Some(&hull_faces),
                mode,
                &mesh::UserTransform {
                    refpos,
                    refquat,
                    scale,
                },
                &name,
            )
            .map_err(bad)?;
            // geom size: largest |coordinate| per axis; rbound: its norm
            let size = [0, 1, 2].map(|k| p.lo[k].abs().max(p.hi[k].abs()));
            let rbound = norm(size);
            let c = scl(add(p.lo, p.hi), 0.5);
            let h = scl(sub(p.hi, p.lo), 0.5);
            let mut mesh = Mesh {
                name,
                vert: p.vert,
                face: faces,
                pos: p.pos,
                quat: p.quat,
                ..Default::default()
            };
            if !graph.is_empty() {
                let mut polys = crate::collision::meshpoly::hull_polygons(&raw, &hull_faces);
                if mirror {
                    mirror_hull(&mut graph, &mut polys);
                }
                mesh.graph = graph;
                mesh.set_polygons(polys, &p.vert_exact);
                raw = Vec::new();
            }
            infos.push(MeshInfo {
                measure: p.measure,
                inertia: p.inertia,
                aabb: [c[0], c[1], c[2], h[0], h[1], h[2]],
                size,
                rbound,
                raw,
                exact: p.vert_exact,
                mirror,
                el: Elem {
                    name: el.name.clone(),
                    attrs: el.attrs.clone(),
                    children: Vec::new(),
                    text: String::new(),
                    loc: el.loc.clone(),
                },
            });
            m.mesh.push(mesh);
        }
    }
    m.nmesh = m.mesh.len();
    Ok(infos)
}

/// A negative `scale` determinant mirrors the mesh: MuJoCo builds the hull and its polygons
/// in the file's frame, then reverses the hull faces and each polygon (keeping its first
/// corner) so that they stay counter-clockwise about the outward normal.
fn mirror_hull(graph: &mut [i32], polys: &mut [Vec<usize>]) {
    mesh::flip_graph_faces(graph);
    for p in polys {
        p[1..].reverse();
    }
}

/// Computes the hull graph and polygons of the meshes a collision needs (MuJoCo's
/// `needhull`): those of mesh geoms with a nonzero `contype` or `conaffinity`, or named in an
/// explicit `<pair>`. Called once geoms and pairs are compiled.
pub(super) fn finish_meshes(m: &mut Model, infos: Vec<MeshInfo>) -> R<()> {
    let mut need = vec![false; m.nmesh];
    let mut mark = |g: usize| {
        if m.geom_type[g] == GeomType::Mesh {
            if let Ok(k) = usize::try_from(m.geom_dataid[g]) {
                need[k] = true;
            }
        }
    };
    for g in 0..m.ngeom {
        if m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0 {
            mark(g);
        }
    }
    for p in 0..m.npair {
        mark(m.pair_geom1[p]);
        mark(m.pair_geom2[p]);
    }
    for (k, info) in infos.into_iter().enumerate() {
        if !need[k] || !m.mesh[k].graph.is_empty() {
            continue;
        }
        let name = m.mesh[k].name.clone();
        let mut graph = mesh::hull_graph(&info.raw).map_err(|e| {
            info.el
                .err(ErrorKind::InvalidValue, None, format!("mesh '{name}' {e}"))
        })?;
        let mut polys =
            crate::collision::meshpoly::hull_polygons(&info.raw, &mesh::graph_faces(&graph));
        if info.mirror {
            mirror_hull(&mut graph, &mut polys);
        }
        let mesh = &mut m.mesh[k];
        mesh.graph = graph;
        mesh.set_polygons(polys, &info.exact);
    }
    Ok(())
}

/// `mjtTextureRole`'s names, in its order (`<material><layer role>`).
const TEXTURE_ROLES: [&str; 10] = [
    "user",
    "rgb",
    "occlusion",
    "roughness",
    "metallic",
    "normal",
    "opacity",
    "emissive",
    "rgba",
    "orm",
];

/// `<asset><material>`: name, `rgba` (with default classes) and the textures of its roles
/// (`mat_texid`: `texture` is the `rgb` role; `<layer texture role>` children set any role,
/// a later layer winning; the two forms exclude each other, as in MuJoCo 4.0.0); the other
/// (visual) attributes are accepted and ignored. Only the alpha is used
/// ([`crate::ray::ray`]). Textures are compiled first.
pub(super) fn compile_materials(root: &Elem, defs: &Defaults, m: &mut Model) -> R<()> {
    let mut seen = Unique::default();
    let materials = root
        .children
        .iter()
        .filter(|e| e.name == "asset")
        .flat_map(|a| a.children.iter().filter(|e| e.name == "material"));
    for (id, el) in materials.enumerate() {
        let cls = defs.class_of(el, 0)?;
        let a = defs.reader(el, cls, "material");
        let name = a.name();
        seen.check(&name, el, "material")?;
        let layers: Vec<&Elem> = el.children.iter().filter(|c| c.name == "layer").collect();
        let tex_id = |n: &str| -> R<i32> {
            m.tex_name
                .iter()
                .position(|t| !t.is_empty() && t == n)
                .map(|i| i as i32)
                .ok_or_else(|| {
                    el.err(
                        ErrorKind::BadReference,
                        Some("texture"),
                        format!("texture '{n}' not found in material {id}"),
                    )
                })
        };
        let mut texid = [-1; 10];
        if let Some(t) = a.str("texture") {
            if let Some(l) = layers.first() {
                return Err(l.err(
                    ErrorKind::InvalidValue,
                    None,
                    "A material with a texture attribute cannot have layer sub-elements",
                ));
            }
            texid[1] = tex_id(t)?;
        }
        for l in layers {
            let la = A::new(l);
            let role = la.str("role").ok_or_else(|| {
                la.err(
                    ErrorKind::InvalidValue,
                    "role",
                    "required attribute missing: 'role'",
                )
            })?;
            let r = TEXTURE_ROLES
                .iter()
                .position(|&x| x == role)
                .ok_or_else(|| {
                    la.err(
                        ErrorKind::InvalidValue,
                        "role",
                        format!("unknown layer role '{role}'"),
                    )
                })?;
            if let Some(t) = la.str("texture") {
                texid[r] = tex_id(t)?;
            }
        }
        m.mat_name.push(name);
        m.mat_rgba.push(a.arr("rgba", [1.0; 4])?);
        // float32, as MuJoCo keeps rendering properties (its defaults)
        let f = |k: &str, d: f64| -> R<f32> { Ok(a.f64_or(k, d)? as f32) };
        m.mat_emission.push(f("emission", 0.0)?);
        m.mat_specular.push(f("specular", 0.5)?);
        m.mat_shininess.push(f("shininess", 0.5)?);
        m.mat_reflectance.push(f("reflectance", 0.0)?);
        m.mat_metallic.push(f("metallic", -1.0)?);
        m.mat_roughness.push(f("roughness", -1.0)?);
        m.mat_texid.push(texid);
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
                    format!("repeated name '{name}' in hfield"),
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
                let (bytes, _) = files
                    .fetch_asset(f, &comp.meshdir, &el.loc)
                    .map_err(|why| a.err(ErrorKind::MissingFile, "file", why))?;
                let (nr, nc, d) = if f.to_ascii_lowercase().ends_with(".png") {
                    png_grey(&bytes).map_err(|msg| {
                        a.err(
                            ErrorKind::InvalidValue,
                            "file",
                            format!("cannot decode PNG hfield file '{f}': {msg}"),
                        )
                    })?
                } else if f.to_ascii_lowercase().ends_with(".bin") {
                    binary_hfield(&bytes).ok_or_else(|| {
                        a.err(
                            ErrorKind::InvalidValue,
                            "file",
                            "not a binary hfield (.bin) file",
                        )
                    })?
                } else {
                    return Err(a.err(
                        ErrorKind::Unsupported,
                        "file",
                        "hfield files must be PNG (.png) or MuJoCo's binary format (.bin)",
                    ));
                };
                data = d;
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
            // hfield_data is float32 in MuJoCo, normalized in float32 (the values first rounded
            // to float32: an `elevation` of 0.735 gives another last bit than in double)
            let lo = data.iter().map(|&x| x as f32).fold(f32::INFINITY, f32::min);
            let hi = data
                .iter()
                .map(|&x| x as f32)
                .fold(f32::NEG_INFINITY, f32::max);
            if hi > lo {
                for x in &mut data {
                    *x = ((*x as f32 - lo) / (hi - lo)) as f64;
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

/// MuJoCo's binary height field: int32 nrow, int32 ncol, then nrow*ncol float32, row-major.
fn binary_hfield(bytes: &[u8]) -> Option<(usize, usize, Vec<f64>)> {
    let int = |i: usize| {
        i32::from_le_bytes(bytes.get(i..i + 4)?.try_into().ok()?)
            .try_into()
            .ok()
    };
    let (nr, nc): (usize, usize) = (int(0)?, int(4)?);
    let n = nr.checked_mul(nc)?;
    if nr == 0 || nc == 0 || bytes.len() != 8 + n.checked_mul(4)? {
        return None;
    }
    let data = bytes[8..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
        .collect();
    Some((nr, nc, data))
}

/// A PNG height field as 8-bit grey levels, rows from the top of the image (the caller flips
/// them and normalizes the elevations to [0, 1]). MuJoCo's XML reference: the image is
/// converted to grey scale. As MuJoCo 4.0.0 does, the grey level of a color or palette
/// pixel is its red channel and a 16-bit sample is reduced to its high byte; alpha is ignored.
fn png_grey(bytes: &[u8]) -> Result<(usize, usize, Vec<f64>), String> {
    let img = decode_png(bytes)?;
    let data = img.pixels().map(|px| px[0] as f64).collect();
    Ok((img.height, img.width, data))
}

/// Most bytes a decoded PNG image may take (a height field or a texture; 8192 × 8192 RGBA is
/// 256 MiB): a file whose header claims more is refused before anything is allocated for it.
pub const MAX_IMAGE_BYTES: usize = 1 << 30;

/// A decoded PNG image: 8-bit samples (palettes expanded, 16-bit samples reduced to their high
/// byte), rows from the top, `line` bytes apart, `channels` samples a pixel.
pub(super) struct Image {
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    /// The file has an `sRGB` chunk.
    pub srgb: bool,
    line: usize,
    buf: Vec<u8>,
}

impl Image {
    /// The pixels, row after row from the top: `channels` samples each.
    pub fn pixels(&self) -> impl Iterator<Item = &[u8]> {
        self.buf
            .chunks_exact(self.line)
            .take(self.height)
            .flat_map(|row| row.chunks_exact(self.channels).take(self.width))
    }
}

/// Decodes a PNG file, refusing an empty image and one above [`MAX_IMAGE_BYTES`] (the
/// decoder's own allocations are bounded by the same limit).
pub(super) fn decode_png(bytes: &[u8]) -> Result<Image, String> {
    let mut dec = png::Decoder::new_with_limits(
        bytes,
        png::Limits {
            bytes: MAX_IMAGE_BYTES,
        },
    );
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(|e| e.to_string())?;
    let size = reader.output_buffer_size();
    if size > MAX_IMAGE_BYTES {
        let i = reader.info();
        return Err(format!(
            "an image of {} x {} pixels is above moreau's limit of {MAX_IMAGE_BYTES} bytes",
            i.width, i.height
        ));
    }
    let srgb = reader.info().srgb.is_some();
    let mut buf = vec![0u8; size];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let (width, height) = (info.width as usize, info.height as usize);
    if width == 0 || height == 0 {
        return Err("empty image".into());
    }
    buf.truncate(info.buffer_size());
    Ok(Image {
        width,
        height,
        channels: info.color_type.samples(),
        srgb,
        line: info.line_size,
        buf,
    })
}

pub(super) fn flip_rows(d: &mut [f64], nrow: usize, ncol: usize) {
    for r in 0..nrow / 2 {
        for c in 0..ncol {
            d.swap(r * ncol + c, (nrow - 1 - r) * ncol + c);
        }
    }
}
