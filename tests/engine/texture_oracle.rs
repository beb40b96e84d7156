//! Compiled textures against MuJoCo 4.0.0 (`tests/reference/texture_builtin.json` from
//! tools/textures/builtin.py): `ntex`, `tex_type`, `tex_colorspace`, `tex_height`,
//! `tex_width`, `tex_nchannel`, `tex_adr`, every sample of `tex_data` (the bytes are integers:
//! compared exactly, in full or by two checksums and 24 spot samples for large textures) and
//! `mat_texid`, on constructed models (builtins, marks, PNG files, cube layouts, materials,
//! refusals with MuJoCo's words) and on every zoo model with textures.
//!
//! `mark="random"`: MuJoCo's random generator is not reproduced, so a random-marked texture is
//! compared exactly with its mark cleared (MuJoCo's samples through MjSpec, moreau's by loading
//! the same files with `mark="none"`); as compiled, every pixel must be the unmarked one or
//! `markrgb`, and the number of marked pixels must be within 6 standard deviations of
//! MuJoCo's count (the two are independent binomial draws).

use moreau::Model;
use moreau::{load_from_str, load_with_source, Vfs};
use serde_json::Value;

fn hex(s: &str) -> Vec<u8> {
    s.as_bytes()
        .chunks(2)
        .map(|h| u8::from_str_radix(std::str::from_utf8(h).unwrap(), 16).unwrap())
        .collect()
}

/// The generator's two checksums, modulo 2^64.
fn checksum(d: &[u8]) -> [u64; 2] {
    let (mut h1, mut h2) = (0u64, 0u64);
    for (i, &x) in d.iter().enumerate() {
        let i = i as u64;
        h1 = h1.wrapping_add((x as u64).wrapping_mul(i + 1));
        h2 = h2.wrapping_add((x as u64).wrapping_mul(i.wrapping_mul(2654435761) & 0xFFFF_FFFF));
    }
    [h1, h2]
}

/// Texture `i`'s samples.
fn samples(m: &Model, i: usize) -> &[u8] {
    let n = m.tex_height[i] * m.tex_width[i] * m.tex_nchannel[i];
    &m.tex_data[m.tex_adr[i]..m.tex_adr[i] + n]
}

/// Compares texture `i` of `m` with MuJoCo's entry; `clean` is the model compiled with random
/// marks cleared (for entries with `random`). Returns the number of samples compared.
fn check_texture(what: &str, m: &Model, clean: Option<&Model>, i: usize, e: &Value) -> usize {
    let fields = [
        ("type", m.tex_type[i] as i64),
        ("colorspace", m.tex_colorspace[i] as i64),
        ("height", m.tex_height[i] as i64),
        ("width", m.tex_width[i] as i64),
        ("nchannel", m.tex_nchannel[i] as i64),
        ("adr", m.tex_adr[i] as i64),
    ];
    for (k, got) in fields {
        let want = e[k].as_i64().unwrap_or_else(|| panic!("{what}: {k}"));
        assert_eq!(got, want, "{what}: tex_{k}[{i}]");
    }
    let got = samples(m, i);
    let want_data = if e["random"].as_bool() == Some(true) {
        let clean = clean.unwrap_or_else(|| panic!("{what}: no unmarked model"));
        let unmarked = samples(clean, i);
        // as compiled: each pixel is the unmarked one or markrgb, marked about as often
        let mut marked = 0usize;
        let mut mark: Option<&[u8]> = None;
        for (p, q) in got.chunks(3).zip(unmarked.chunks(3)) {
            if p != q {
                marked += 1;
                assert!(mark.is_none_or(|k| k == p), "{what}: two mark colors");
                mark = Some(p);
            }
        }
        let npix = (got.len() / 3) as f64;
        let want = e["marked"].as_u64().unwrap() as f64;
        // the probability MuJoCo's count estimates; both counts are binomial(npix, p)
        let p = (want / npix).clamp(1.0 / npix, 1.0 - 1.0 / npix);
        let sd = (2.0 * npix * p * (1.0 - p)).sqrt();
        assert!(
            (marked as f64 - want).abs() <= 6.0 * sd + 1.0,
            "{what}: texture {i} has {marked} marked pixels, MuJoCo {want}"
        );
        unmarked
    } else {
        got
    };
    if let Some(h) = e["data"].as_str() {
        let want = hex(h);
        if let Some(k) = (0..want.len()).find(|&k| want_data.get(k) != Some(&want[k])) {
            panic!(
                "{what}: texture {i}: sample {k} is {:?}, MuJoCo's {} ({} samples, MuJoCo {})",
                want_data.get(k),
                want[k],
                want_data.len(),
                want.len()
            );
        }
        assert_eq!(want_data.len(), want.len(), "{what}: texture {i} length");
    } else {
        for s in e["spots"].as_array().unwrap() {
            let (k, v) = (s[0].as_u64().unwrap() as usize, s[1].as_u64().unwrap());
            assert_eq!(
                want_data[k] as u64,
                v,
                "{what}: texture {i}: sample {k} (of {})",
                want_data.len()
            );
        }
        let sums: Vec<u64> = e["checksum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(
            checksum(want_data).to_vec(),
            sums,
            "{what}: texture {i}: checksums (spot samples agree)"
        );
    }
    want_data.len()
}

fn check_model(what: &str, m: &Model, clean: Option<&Model>, want: &Value) -> usize {
    let tex = want["textures"].as_array().unwrap();
    assert_eq!(m.ntex, tex.len(), "{what}: ntex");
    let texid: Vec<Vec<i64>> = want["mat_texid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect()
        })
        .collect();
    let got: Vec<Vec<i64>> = m
        .mat_texid
        .iter()
        .map(|r| r.iter().map(|&x| x as i64).collect())
        .collect();
    assert_eq!(got, texid, "{what}: mat_texid");
    (0..m.ntex)
        .map(|i| check_texture(what, m, clean, i, &tex[i]))
        .sum()
}

/// The same model with `mark="random"` cleared in its document and included files.
fn unmarked(xml: &str, vfs: &Vfs) -> Model {
    let mut clean = Vfs::default();
    for (name, bytes) in vfs.iter() {
        let b = match std::str::from_utf8(bytes) {
            Ok(s) if name.ends_with(".xml") => s.replace("mark=\"random\"", "mark=\"none\"").into(),
            _ => bytes.to_vec(),
        };
        clean.add(name, b);
    }
    load_from_str(&xml.replace("mark=\"random\"", "mark=\"none\""), &clean)
        .unwrap_or_else(|e| panic!("{xml}: without random marks: {e}"))
}

#[test]
fn textures_are_compiled_as_in_mujoco() {
    let r = crate::oracle_util::reference("texture_builtin.json");
    let (mut loaded, mut refused, mut bytes) = (0, 0, 0);
    for c in r["cases"].as_array().unwrap() {
        let xml = c["xml"].as_str().unwrap();
        let mut vfs = Vfs::default();
        for (name, h) in c["files"].as_object().unwrap() {
            vfs.add(name.as_str(), hex(h.as_str().unwrap()));
        }
        if let Some(want) = c["error"].as_str() {
            let want = want
                .trim_start_matches("XML Error: ")
                .trim_start_matches("Error: ");
            let e = match load_from_str(xml, &vfs) {
                Ok(_) => panic!("{xml}: loads; MuJoCo: {want}"),
                Err(e) => e,
            };
            assert!(e.message.contains(want), "{xml}: {e} (MuJoCo: {want})");
            refused += 1;
            continue;
        }
        let m = load_from_str(xml, &vfs).unwrap_or_else(|e| panic!("{xml}: {e}"));
        let clean = xml.contains("mark=\"random\"").then(|| unmarked(xml, &vfs));
        bytes += check_model(xml, &m, clean.as_ref(), c);
        loaded += 1;
    }
    eprintln!("{loaded} models' textures equal MuJoCo's ({bytes} samples), {refused} refused");
    assert!(
        loaded >= 120 && refused >= 15,
        "{loaded} loaded, {refused} refused"
    );
}

/// Every zoo model with textures (dm_control's 800 × 800 skybox and grids, Menagerie's
/// scenes, Gymnasium's): the same comparison. Needs the zoo cache (tools/zoo/fetch.py).
#[test]
fn zoo_textures_are_mujocos() {
    let r = crate::oracle_util::reference("texture_builtin.json");
    let cache = crate::zoo::cache_dir();
    assert!(
        cache.join("ZOO_STAMP").is_file(),
        "the model zoo cache is missing ({}): fetch it with `python3 tools/zoo/fetch.py`",
        cache.display()
    );
    let (mut models, mut bytes) = (0, 0);
    for (rel, want) in r["zoo"].as_object().unwrap() {
        let (m, src) = load_with_source(cache.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let random = want["textures"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["random"].as_bool() == Some(true));
        let clean = random.then(|| unmarked(&src.xml, &src.files));
        bytes += check_model(rel, &m, clean.as_ref(), want);
        models += 1;
    }
    eprintln!("{models} zoo models' textures equal MuJoCo's ({bytes} samples)");
    assert!(models >= 40, "{models} models");
}
