//! `<asset><texture>`: textures compiled as MuJoCo 4.0.0 compiles them, into the model's
//! `tex_*` arrays (8-bit samples, `tex_nchannel` a pixel, rows from the top; a cube or skybox
//! is its six faces one under the other, in the order right, left, up, down, front, back).
//!
//! MuJoCo's XML reference (texture): a texture is read from a PNG `file` (a cube or skybox
//! from one file cut by `gridsize`/`gridlayout`, or from the six files `fileright` …
//! `fileback`), or made by a `builtin` generator (`gradient`, `checker`, `flat`) of `width` ×
//! `height` pixels (a cube's faces are `width` square) with the colors `rgb1`, `rgb2`, then
//! marked (`mark`: `edge`, `cross`, `random` with probability `random`) with `markrgb`.
//! What the reference leaves open was measured on MuJoCo 4.0.0
//! (tools/textures/builtin.py, tests/reference/texture_builtin.json):
//! - a sample is `255 x` truncated to an integer and wrapped to 8 bits (`rgb1="2 -1 .5"` gives
//!   254, 1, 127), `x` rounded to float32 first except in a gradient;
//! - `checker`: `rgb1` on the top-left and bottom-right quarters (`h/2`, `w/2` rounded down);
//!   a cube's front and back faces are the opposite pattern. `flat`: `rgb1`, a cube's down face
//!   `rgb2`;
//! - `gradient`: a 2d texture mixes `s rgb1 + (1 − s) rgb2` with `s = ½ + √½ t / √(1 + t²)`
//!   clamped to [0, 1], `t = 1 − 2ρ`, ρ the distance from the center in coordinates that run
//!   from −1 to 1 between the first and last pixel centers. A cube or skybox uses the same `s`
//!   with `t` = the elevation of the pixel's direction from the cube's center over π/2 (+Y up);
//! - marks: `edge` the first and last row and column, `cross` row `h/2` and column `w/2`, of
//!   each face; only builtin textures are marked. `random` draws one number per pixel;
//!   MuJoCo's generator was not identified (it is the same sequence for every texture and every
//!   process), so moreau's marked pixels are its own draws with the same probability;
//! - files: an image is flipped (`hflip`, `vflip`) before a cube's cells are cut from it; a
//!   face with no cell or file is `rgb1`; a grey image gives three equal samples, `nchannel`
//!   1 keeps the red sample and 4 adds alpha 255; a builtin wins over files; `colorspace`
//!   `auto` becomes sRGB for a file with an `sRGB` chunk, linear for another file.

use crate::mjcf::compile::asset::{decode_png, Image, MAX_IMAGE_BYTES};
use crate::mjcf::compile::attr::A;
use crate::mjcf::compile::ctx::R;
use crate::mjcf::compile::options::Compiler;
use crate::mjcf::error::{ErrorKind, MjcfError};
use crate::mjcf::xml::{Elem, FileSource};
use crate::model::Model;

/// The cube faces' file attributes, in MuJoCo's face order.
const FACE_FILES: [&str; 6] = [
    "fileright",
    "fileleft",
    "fileup",
    "filedown",
    "filefront",
    "fileback",
];
/// `gridlayout`'s face letters, in the same order.
const FACE_LETTERS: [u8; 6] = *b"RLUDFB";

/// `mjtTexture`.
const TYPES: [(&str, i32); 3] = [("2d", 0), ("cube", 1), ("skybox", 2)];
/// `mjtColorSpace`.
const COLORSPACES: [(&str, i32); 3] = [("auto", 0), ("linear", 1), ("sRGB", 2)];

#[derive(Clone, Copy, PartialEq)]
enum Builtin {
    None,
    Gradient,
    Checker,
    Flat,
}

#[derive(Clone, Copy, PartialEq)]
enum Mark {
    None,
    Edge,
    Cross,
    Random,
}

/// `255 x` truncated toward zero, wrapped to 8 bits.
fn byte(x: f64) -> u8 {
    // truncation toward zero, then the low 8 bits (a NaN gives 0)
    (x as i64) as u8
}

/// A plain color's samples: MuJoCo 4.0.0 rounds it to float32 first (`rgb1="0.3333333333333333"`
/// gives 85, not 84), but not a gradient's colors (module docs).
fn color(c: [f64; 3]) -> [u8; 3] {
    c.map(|x| byte(255.0 * (x as f32) as f64))
}

/// The gradient's weight of `rgb1` for `t` in [−1, 1] (module docs); NaN stays NaN.
fn sigmoid(t: f64) -> f64 {
    (0.5 + std::f64::consts::FRAC_1_SQRT_2 * t / (1.0 + t * t).sqrt()).clamp(0.0, 1.0)
}

fn mix(s: f64, c1: [f64; 3], c2: [f64; 3]) -> [u8; 3] {
    std::array::from_fn(|k| byte(255.0 * (s * c1[k] + (1.0 - s) * c2[k])))
}

/// A builtin texture's attributes.
struct Spec {
    builtin: Builtin,
    mark: Mark,
    rgb1: [f64; 3],
    rgb2: [f64; 3],
    markrgb: [f64; 3],
    random: f32,
}

/// Whether an `edge` or `cross` mark covers pixel (`r`, `c`) of a `w` × `h` face.
fn marked(mark: Mark, r: usize, c: usize, w: usize, h: usize) -> bool {
    match mark {
        Mark::Edge => r == 0 || c == 0 || r + 1 == h || c + 1 == w,
        Mark::Cross => r == h / 2 || c == w / 2,
        Mark::None | Mark::Random => false,
    }
}

/// `-1 + 2 i / (n − 1)`: the coordinate of pixel `i` of `n` (NaN for `n = 1`, as in MuJoCo).
fn coord(i: usize, n: usize) -> f64 {
    2.0 * i as f64 / (n as f64 - 1.0) - 1.0
}

/// One face (or a 2d texture) of `w` × `h` RGB pixels; `face` is the cube face (0 … 5), or
/// `None` for a 2d texture.
fn builtin_face(sp: &Spec, w: usize, h: usize, face: Option<usize>, out: &mut [u8]) {
    let (c1, c2) = (color(sp.rgb1), color(sp.rgb2));
    for r in 0..h {
        for c in 0..w {
            let px = match sp.builtin {
                Builtin::Checker => {
                    let same = (r < h / 2) == (c < w / 2);
                    let flip = matches!(face, Some(4 | 5));
                    if same != flip {
                        c1
                    } else {
                        c2
                    }
                }
                Builtin::Flat => {
                    if face == Some(3) {
                        c2
                    } else {
                        c1
                    }
                }
                Builtin::Gradient => {
                    let (a, b) = (coord(c, w), coord(r, h));
                    let t = match face {
                        None => 1.0 - 2.0 * (a * a + b * b).sqrt(),
                        Some(f) => {
                            // the elevation (+Y up) of the pixel's direction from the center
                            let (y, horiz) = match f {
                                2 => (1.0, (a * a + b * b).sqrt()),
                                3 => (-1.0, (a * a + b * b).sqrt()),
                                _ => (-b, (a * a + 1.0).sqrt()),
                            };
                            y.atan2(horiz) / std::f64::consts::FRAC_PI_2
                        }
                    };
                    mix(sigmoid(t), sp.rgb1, sp.rgb2)
                }
                Builtin::None => c1,
            };
            let px = if marked(sp.mark, r, c, w, h) {
                color(sp.markrgb)
            } else {
                px
            };
            out[3 * (r * w + c)..3 * (r * w + c) + 3].copy_from_slice(&px);
        }
    }
}

/// `mark="random"`: each pixel independently with probability `random`. The draws are
/// moreau's own (a SplitMix64 sequence started afresh for each texture), not MuJoCo's.
fn random_marks(sp: &Spec, data: &mut [u8]) {
    let p = sp.random as f64;
    if p.is_nan() || p <= 0.0 {
        return;
    }
    let mark = color(sp.markrgb);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    // a uniform draw in (0, 1]
    let mut draw = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z >> 11) + 1) as f64 / (1u64 << 53) as f64
    };
    let npx = data.len() / 3;
    if p >= 1.0 {
        data.chunks_exact_mut(3)
            .for_each(|px| px.copy_from_slice(&mark));
        return;
    }
    // the number of unmarked pixels before the next marked one is geometric: one draw per marked
    // pixel instead of one per pixel, the same distribution
    let scale = 1.0 / (-p).ln_1p();
    let mut i = 0usize;
    loop {
        let gap = (draw().ln() * scale).floor();
        if gap >= (npx - i) as f64 {
            return;
        }
        i += gap as usize;
        data[3 * i..3 * i + 3].copy_from_slice(&mark);
        i += 1;
    }
}

/// For each of `n` keys, the index of the first key with the same bits: a sample computed from
/// equal inputs is equal, so it is computed once and copied.
fn first_equal(keys: &[f64]) -> Vec<usize> {
    let mut first = std::collections::HashMap::with_capacity(keys.len());
    keys.iter()
        .enumerate()
        .map(|(i, k)| *first.entry(k.to_bits()).or_insert(i))
        .collect()
}

/// A builtin cube or skybox gradient (`data` holds its six faces of `w` × `w` pixels): the same
/// samples as [`builtin_face`], with each `atan2` computed once per distinct input. The four side
/// faces are the same (the elevation does not depend on the side); the down face's elevation is
/// the up face's negated (`atan2` is odd in `y`); columns (and up/down rows) whose coordinates
/// give bit-equal inputs are copies.
fn gradient_cube(sp: &Spec, w: usize, data: &mut [u8]) {
    let face = 3 * w * w;
    let row = 3 * w;
    let co: Vec<f64> = (0..w).map(|i| coord(i, w)).collect();
    let sq: Vec<f64> = co.iter().map(|a| a * a).collect();
    let sample = |t: f64| mix(sigmoid(t / std::f64::consts::FRAC_PI_2), sp.rgb1, sp.rgb2);
    // side face (right, face 0): y = −b, horizontal distance √(a² + 1) per column
    let horiz: Vec<f64> = sq.iter().map(|a2| (a2 + 1.0).sqrt()).collect();
    let hrep = first_equal(&horiz);
    let (side, rest) = data.split_at_mut(face);
    for (r, out) in side.chunks_exact_mut(row).enumerate() {
        let y = -co[r];
        for c in 0..w {
            let px = if hrep[c] < c {
                let k = 3 * hrep[c];
                [out[k], out[k + 1], out[k + 2]]
            } else {
                sample(y.atan2(horiz[c]))
            };
            out[3 * c..3 * c + 3].copy_from_slice(&px);
        }
    }
    // up (2) and down (3): ρ = √(a² + b²); rows with bit-equal b² are the same row
    let (_, rest) = rest.split_at_mut(face);
    let (up, rest) = rest.split_at_mut(face);
    let (down, _) = rest.split_at_mut(face);
    let arep = first_equal(&sq);
    for r in 0..w {
        let b2 = sq[r];
        let (ru, rd) = (r * row, r * row + row);
        if arep[r] < r {
            let k = arep[r] * row;
            up.copy_within(k..k + row, ru);
            down.copy_within(k..k + row, ru);
            continue;
        }
        let (ou, od) = (&mut up[ru..rd], &mut down[ru..rd]);
        for c in 0..w {
            let (pu, pd) = if arep[c] < c {
                let k = 3 * arep[c];
                ([ou[k], ou[k + 1], ou[k + 2]], [od[k], od[k + 1], od[k + 2]])
            } else {
                let t = 1f64.atan2((sq[c] + b2).sqrt());
                (sample(t), sample(-t))
            };
            ou[3 * c..3 * c + 3].copy_from_slice(&pu);
            od[3 * c..3 * c + 3].copy_from_slice(&pd);
        }
    }
    for f in [1, 4, 5] {
        data.copy_within(0..face, f * face);
    }
    // marks, as [`builtin_face`] draws them
    if !matches!(sp.mark, Mark::Edge | Mark::Cross) {
        return;
    }
    let m = color(sp.markrgb);
    let h = w;
    for f in 0..6 {
        let fd = &mut data[f * face..(f + 1) * face];
        for r in 0..h {
            for c in 0..w {
                if marked(sp.mark, r, c, w, h) {
                    fd[3 * (r * w + c)..3 * (r * w + c) + 3].copy_from_slice(&m);
                }
            }
        }
    }
}

/// Samples of one compiled texture.
struct Tex {
    width: usize,
    height: usize,
    nchannel: usize,
    colorspace: i32,
    data: Vec<u8>,
}

/// An image's pixels as `nch` samples each (module docs), flipped as asked.
fn samples(img: &Image, nch: usize, hflip: bool, vflip: bool) -> Vec<u8> {
    let (w, h) = (img.width, img.height);
    let px: Vec<&[u8]> = img.pixels().collect();
    let mut out = Vec::with_capacity(w * h * nch);
    for r in 0..h {
        let rr = if vflip { h - 1 - r } else { r };
        for c in 0..w {
            let cc = if hflip { w - 1 - c } else { c };
            let p = px[rr * w + cc];
            // grey (and grey with alpha) gives three equal samples
            let rgb = if p.len() < 3 {
                [p[0]; 3]
            } else {
                [p[0], p[1], p[2]]
            };
            let alpha = match p.len() {
                2 => p[1],
                4 => p[3],
                _ => 255,
            };
            match nch {
                1 => out.push(rgb[0]),
                3 => out.extend_from_slice(&rgb),
                _ => {
                    out.extend_from_slice(&rgb);
                    out.push(alpha);
                }
            }
        }
    }
    out
}

/// An asset's name (a texture's for messages and for materials, a skin's for `names`): `name`,
/// else the stem of `file`.
pub(super) fn name_or_stem(el: &Elem) -> String {
    match (el.attr("name"), el.attr("file")) {
        (Some(n), _) if !n.is_empty() => n.to_string(),
        (_, Some(f)) => {
            let base = f.rsplit(['/', '\\']).next().unwrap_or(f);
            match base.rfind('.') {
                Some(i) if i > 0 => base[..i].to_string(),
                _ => base.to_string(),
            }
        }
        _ => String::new(),
    }
}

/// Compiles every `<asset><texture>` into `m.tex_*` (module docs). Files are read (an unused
/// texture's too) and decoded; the refusals are MuJoCo's, in its words.
pub(super) fn compile_textures(
    root: &Elem,
    comp: &Compiler,
    files: &FileSource,
    m: &mut Model,
) -> R<()> {
    let textures = root
        .children
        .iter()
        .filter(|e| e.name == "asset")
        .flat_map(|a| a.children.iter().filter(|e| e.name == "texture"));
    let mut seen = std::collections::HashSet::new();
    for (id, el) in textures.enumerate() {
        let name = name_or_stem(el);
        // only a skybox may be nameless (a file names its texture)
        if name.is_empty() && el.attr("type") != Some("skybox") {
            return Err(el.err(
                ErrorKind::InvalidValue,
                Some("name"),
                "empty name in texture",
            ));
        }
        if !name.is_empty() && !seen.insert(name.clone()) {
            return Err(el.err(
                ErrorKind::DuplicateName,
                Some("name"),
                format!("repeated name '{name}' in texture"),
            ));
        }
        let t = compile_texture(el, id, &name, comp, files)?;
        m.tex_name.push(name);
        m.tex_type
            .push(A::new(el).keyword("type", &TYPES)?.unwrap_or(TYPES[1].1));
        m.tex_colorspace.push(t.colorspace);
        m.tex_width.push(t.width);
        m.tex_height.push(t.height);
        m.tex_nchannel.push(t.nchannel);
        m.tex_adr.push(m.tex_data.len());
        m.tex_path.push(el.attr("file").unwrap_or("").to_string());
        m.tex_data.extend_from_slice(&t.data);
    }
    m.ntex = m.tex_name.len();
    Ok(())
}

fn compile_texture(
    el: &Elem,
    id: usize,
    name: &str,
    comp: &Compiler,
    files: &FileSource,
) -> R<Tex> {
    let a = A::new(el);
    let ty = a.keyword("type", &TYPES)?.unwrap_or(TYPES[1].1);
    let cube = ty != 0;
    let bad = |msg: String| el.err(ErrorKind::InvalidValue, None, msg);
    let builtin = a
        .keyword(
            "builtin",
            &[
                ("none", Builtin::None),
                ("gradient", Builtin::Gradient),
                ("checker", Builtin::Checker),
                ("flat", Builtin::Flat),
            ],
        )?
        .unwrap_or(Builtin::None);
    let mark = a
        .keyword(
            "mark",
            &[
                ("none", Mark::None),
                ("edge", Mark::Edge),
                ("cross", Mark::Cross),
                ("random", Mark::Random),
            ],
        )?
        .unwrap_or(Mark::None);
    let sp = Spec {
        builtin,
        mark,
        rgb1: a.arr("rgb1", [0.8; 3])?,
        rgb2: a.arr("rgb2", [0.5; 3])?,
        markrgb: a.arr("markrgb", [0.0; 3])?,
        random: a.f64_or("random", 0.01)? as f32,
    };
    let nchannel = a.int_or("nchannel", 3)?;
    let colorspace = a.keyword("colorspace", &COLORSPACES)?.unwrap_or(0);
    let (hflip, vflip) = (
        a.bool("hflip")?.unwrap_or(false),
        a.bool("vflip")?.unwrap_or(false),
    );
    let gridsize = a.arr::<2>("gridsize", [1.0, 1.0])?;
    let layout = a.str("gridlayout").unwrap_or("");

    // every named file is read and decoded, even under a builtin (MuJoCo refuses a missing
    // or corrupt one either way)
    let mut images: [Option<Image>; 7] = Default::default();
    let mut any_srgb = false;
    for (slot, key) in std::iter::once("file").chain(FACE_FILES).enumerate() {
        let Some(f) = el.attr(key) else {
            continue;
        };
        let img = read_image(el, key, f, id, cube, gridsize, comp, files)?;
        any_srgb |= img.srgb;
        images[slot] = Some(img);
    }
    let has_file = el.attr("file").is_some();
    let has_faces = FACE_FILES.iter().any(|k| el.attr(k).is_some());

    if builtin != Builtin::None {
        if nchannel != 3 {
            return Err(bad("builtin textures must have 3 channels".into()));
        }
        let width = a.int_or("width", 0)?;
        if width <= 0 {
            return Err(bad("Invalid width of builtin texture".into()));
        }
        let width = width as usize;
        let (height, faces) = if cube {
            (6 * width, 6)
        } else {
            let h = a.int_or("height", 0)?;
            if h <= 0 {
                return Err(bad("Invalid height of builtin texture".into()));
            }
            (h as usize, 1)
        };
        let bytes = (width as u128) * (height as u128) * 3;
        if bytes > MAX_IMAGE_BYTES as u128 {
            return Err(bad(format!(
                "texture '{name}' of {width} x {height} pixels is above moreau's limit of \
                 {MAX_IMAGE_BYTES} bytes"
            )));
        }
        let mut data = vec![0u8; bytes as usize];
        let face_bytes = bytes as usize / faces;
        let fh = height / faces;
        if cube && builtin == Builtin::Gradient {
            gradient_cube(&sp, width, &mut data);
        } else {
            for (f, chunk) in data.chunks_exact_mut(face_bytes).enumerate() {
                builtin_face(&sp, width, fh, cube.then_some(f), chunk);
            }
        }
        if mark == Mark::Random {
            random_marks(&sp, &mut data);
        }
        return Ok(Tex {
            width,
            height,
            nchannel: 3,
            colorspace,
            data,
        });
    }

    if !matches!(nchannel, 1 | 3 | 4) {
        return Err(bad(format!("Unsupported number of channels: {nchannel}")));
    }
    if cube && nchannel != 3 {
        return Err(bad(
            "cube and skybox textures loaded from files must have 3 channels".into(),
        ));
    }
    let nch = nchannel as usize;
    let colorspace = match colorspace {
        0 if any_srgb => 2,
        0 => 1,
        c => c,
    };
    if !cube {
        let Some(img) = images[0].as_ref().filter(|_| has_file) else {
            return Err(bad(
                "Cannot load 2D texture from separate files, texture".into()
            ));
        };
        return Ok(Tex {
            width: img.width,
            height: img.height,
            nchannel: nch,
            colorspace,
            data: samples(img, nch, hflip, vflip),
        });
    }
    let fill = color(sp.rgb1);
    let fill_faces = |w: usize| fill.repeat(6 * w * w);
    if has_file {
        let img = images[0].as_ref().expect("decoded above");
        let all = samples(img, nch, hflip, vflip);
        let [rows, cols] = gridsize.map(|g| g as usize);
        if rows == 1 && cols == 1 {
            // one square image, kept as it is
            return Ok(Tex {
                width: img.width,
                height: img.height,
                nchannel: nch,
                colorspace,
                data: all,
            });
        }
        let w = img.width / cols;
        let mut data = fill_faces(w);
        for (cell, letter) in layout.bytes().enumerate().take(rows * cols) {
            let Some(face) = FACE_LETTERS.iter().position(|&l| l == letter) else {
                continue;
            };
            let (cr, cc) = (cell / cols, cell % cols);
            for r in 0..w {
                let src = ((cr * w + r) * img.width + cc * w) * nch;
                let dst = (face * w + r) * w * nch;
                data[dst..dst + w * nch].copy_from_slice(&all[src..src + w * nch]);
            }
        }
        return Ok(Tex {
            width: w,
            height: 6 * w,
            nchannel: nch,
            colorspace,
            data,
        });
    }
    if !has_faces {
        return Err(bad("No cubefiles_ defined in cube or skybox texture".into()));
    }
    // six face files: the first one's size (they are square) sizes every face
    let w = images[1..]
        .iter()
        .flatten()
        .map(|img| img.width)
        .next()
        .unwrap_or(0);
    let mut data = fill_faces(w);
    for (face, img) in images[1..].iter().enumerate() {
        let Some(img) = img else {
            continue;
        };
        if img.width != w {
            return Err(bad(format!(
                "PNG file sizes differ in cube or skybox texture id {id}"
            )));
        }
        let s = samples(img, nch, hflip, vflip);
        data[face * w * w * nch..(face + 1) * w * w * nch].copy_from_slice(&s);
    }
    Ok(Tex {
        width: w,
        height: 6 * w,
        nchannel: nch,
        colorspace,
        data,
    })
}

/// Reads and decodes one texture file (`key` = `f`) with MuJoCo's refusals.
#[allow(clippy::too_many_arguments)]
fn read_image(
    el: &Elem,
    key: &str,
    f: &str,
    id: usize,
    cube: bool,
    gridsize: [f64; 2],
    comp: &Compiler,
    files: &FileSource,
) -> R<Image> {
    let (bytes, _) = files
        .fetch_asset(f, &comp.texturedir, &el.loc)
        .map_err(|why| el.err(ErrorKind::MissingFile, Some(key), why))?;
    let lower = f.to_ascii_lowercase();
    if !lower.ends_with(".png") {
        // MuJoCo 4.0.0 refuses every other type but KTX, which moreau does not read
        let msg = if lower.ends_with(".ktx") {
            format!("texture file '{f}': moreau does not read KTX files")
        } else {
            "unsupported content type: ''".to_string()
        };
        return Err(el.err(ErrorKind::InvalidValue, Some(key), msg));
    }
    // the file as MuJoCo names it, inside `texturedir`
    let path = match comp.texturedir.trim_end_matches('/') {
        "" => f.to_string(),
        dir => format!("{dir}/{f}"),
    };
    let bad = |msg: String| -> MjcfError { el.err(ErrorKind::InvalidValue, Some(key), msg) };
    if bytes.is_empty() {
        return Err(bad(format!("empty PNG file '{path}'")));
    }
    let img = decode_png(&bytes)
        .map_err(|why| bad(format!("error decoding PNG file '{path}': {why}")))?;
    if cube {
        if key != "file" {
            if img.width != img.height {
                return Err(bad(format!(
                    "Non-square PNG file '{f}' in cube or skybox id {id}"
                )));
            }
        } else {
            // (a negative or fractional size cuts no square cells)
            let [rows, cols] = gridsize.map(|g| if g >= 1.0 { g as usize } else { 0 });
            let square = rows > 0
                && cols > 0
                && img.width % cols == 0
                && img.height % rows == 0
                && img.width / cols == img.height / rows;
            if !square {
                return Err(bad(format!(
                    "PNG size must be integer multiple of gridsize in texture '{f}' (id {id})"
                )));
            }
        }
    }
    Ok(img)
}
