//! The structure-aware mutator of the `mjcf` fuzz target.

use crate::harness::FILE_MARKER;

/// A small deterministic generator (xorshift) for the mutator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Numeric extremes the mutator writes into attribute values.
const EXTREMES: &[&str] = &[
    "nan", "inf", "-inf", "1e308", "-1e308", "-0", "0", "1e-308", "1e10", "1e11", "4294967296",
    "1e9", "-1", "2147483648",
];

/// Byte ranges of the attributes (`name="value"`) in `text`.
fn attributes(text: &str) -> Vec<(usize, usize, usize)> {
    // (start of name, start of value, end of value) for name="value" / name='value'
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'=' && (b[i + 1] == b'"' || b[i + 1] == b'\'') {
            let q = b[i + 1];
            let mut s = i;
            while s > 0 && (b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'_') {
                s -= 1;
            }
            if let Some(len) = b[i + 2..].iter().position(|&c| c == q) {
                if s < i && s > 0 && b[s - 1] == b' ' {
                    out.push((s - 1, i + 2, i + 2 + len));
                }
                i += 2 + len;
            }
        }
        i += 1;
    }
    out
}

/// Start offsets of the elements (`<name`) in `text`.
fn elements(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(1))
        .filter(|&i| b[i] == b'<' && b[i + 1].is_ascii_alphabetic())
        .collect()
}

/// One structure-aware edit of an MJCF input: attribute deletion or duplication, numeric
/// extremes, deep nesting, huge counts, corrupt mesh headers, include cycles; otherwise
/// libFuzzer's own byte mutation.
fn edit(text: &str, rng: &mut Rng) -> Option<Vec<u8>> {
    if rng.below(9) == 6 {
        return corrupt_mesh(text, rng);
    }
    edit_text(text, rng).map(String::into_bytes)
}

/// The text edits of [`edit`].
fn edit_text(text: &str, rng: &mut Rng) -> Option<String> {
    let attrs = attributes(text);
    let elems = elements(text);
    match rng.below(11) {
        // delete an attribute
        0 if !attrs.is_empty() => {
            let (s, _, e) = attrs[rng.below(attrs.len())];
            Some(format!("{}{}", &text[..s], &text[e + 1..]))
        }
        // duplicate an attribute into another element
        1 if !attrs.is_empty() && !elems.is_empty() => {
            let (s, _, e) = attrs[rng.below(attrs.len())];
            let at = elems[rng.below(elems.len())];
            let name_end = text[at + 1..]
                .find(|c: char| !c.is_ascii_alphanumeric())
                .map(|k| at + 1 + k)?;
            Some(format!(
                "{}{}{}",
                &text[..name_end],
                &text[s..=e],
                &text[name_end..]
            ))
        }
        // a numeric extreme into a value (one number of it, or all of it)
        2 | 3 if !attrs.is_empty() => {
            let (_, vs, ve) = attrs[rng.below(attrs.len())];
            let x = EXTREMES[rng.below(EXTREMES.len())];
            let value = &text[vs..ve];
            let words: Vec<&str> = value.split_whitespace().collect();
            let new = if words.len() > 1 && rng.below(2) == 0 {
                let k = rng.below(words.len());
                let mut w: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                w[k] = x.to_string();
                w.join(" ")
            } else {
                x.to_string()
            };
            Some(format!("{}{new}{}", &text[..vs], &text[ve..]))
        }
        // deep nesting: wrap an element in many frames or bodies
        4 if !elems.is_empty() => {
            let at = elems[rng.below(elems.len())];
            let n = [10, 100, 497, 600, 2000][rng.below(5)];
            let tag = ["frame", "body", "default"][rng.below(3)];
            let close = text[at..].find("/>").map(|k| at + k + 2)?;
            Some(format!(
                "{}{}{}{}{}",
                &text[..at],
                format!("<{tag}>").repeat(n),
                &text[at..close],
                format!("</{tag}>").repeat(n),
                &text[close..]
            ))
        }
        // huge counts: repeat an element many times, or a huge integer
        5 if !elems.is_empty() => {
            let at = elems[rng.below(elems.len())];
            let close = text[at..].find("/>").map(|k| at + k + 2)?;
            let n = [10, 100, 1000][rng.below(3)];
            Some(format!(
                "{}{}{}",
                &text[..close],
                text[at..close].repeat(n),
                &text[close..]
            ))
        }
        // include cycles and repeated includes
        7 => {
            let n = 2 + rng.below(4);
            let mut s = text.replacen(
                "<worldbody>",
                "<include file='c0.xml'/><worldbody>",
                1,
            );
            for k in 0..n {
                let next = if rng.below(3) == 0 { 0 } else { (k + 1) % n };
                s.push_str(&format!(
                    "{FILE_MARKER}c{k}.xml\n<mujoco><include file='c{next}.xml'/></mujoco>"
                ));
            }
            Some(s)
        }
        // the arena: a hostile `<size memory>` (or nconmax/njmax), which sizes the contact list
        8 => {
            let (attr, v) = if rng.below(3) == 0 {
                (["nconmax", "njmax"][rng.below(2)], EXTREMES[rng.below(EXTREMES.len())])
            } else {
                ("memory", MEMORY[rng.below(MEMORY.len())])
            };
            Some(text.replacen(
                "<worldbody>",
                &format!("<size {attr}='{v}'/><worldbody>"),
                1,
            ))
        }
        // the broad phase's grid: more than 64 free bodies (a lattice, a point, or spread out
        // to an extreme coordinate), each with a sphere
        9 => {
            let n = [65, 100, 127][rng.below(3)];
            let spacing = [0.1, 0.0, 1e-300, 1e10, 1e300, f64::NAN, f64::INFINITY][rng.below(7)];
            let size = ["0.1", "1e-300", "1e300", "1e10"][rng.below(4)];
            let mut bodies = String::new();
            for i in 0..n {
                let p = [i % 5, (i / 5) % 5, i / 25].map(|k| k as f64 * spacing);
                let r = if i == 0 { size } else { "0.1" };
                bodies.push_str(&format!(
                    "<body name='fzg{i}' pos='{} {} {}'><freejoint/>\
                     <inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>\
                     <geom size='{r}'/></body>",
                    p[0], p[1], p[2]
                ));
            }
            let body = text.find("<worldbody>")? + "<worldbody>".len();
            Some(format!("{}{bodies}{}", &text[..body], &text[body..]))
        }
        _ => None,
    }
}

/// `<size memory>` values: MuJoCo's suffixes, extremes, zero, malformed.
const MEMORY: &[&str] = &[
    "0", "1", "24", "1000", "100K", "1M", "64M", "1G", "16G", "1T", "1E", "8E", "16E", "-1", "-2",
    "1.5M", "M", "99999999999999999999",
];

/// A mesh whose binary STL header claims 10^9 (or 2^32 - 1, or a few) triangles that the file
/// does not hold.
fn corrupt_mesh(text: &str, rng: &mut Rng) -> Option<Vec<u8>> {
    let claim: u32 = [1_000_000_000, u32::MAX, 3, 0][rng.below(4)];
    let asset = "<asset><mesh name='fz' file='fz.stl'/></asset>";
    let geom = "<geom type='mesh' mesh='fz'/>";
    let body = text.find("<worldbody>")? + "<worldbody>".len();
    let s = format!("{}{geom}{}", &text[..body], &text[body..])
        .replacen("<worldbody>", &format!("{asset}<worldbody>"), 1);
    let mut out = s.into_bytes();
    out.extend_from_slice(FILE_MARKER.as_bytes());
    out.extend_from_slice(b"fz.stl\n");
    out.extend_from_slice(&[b' '; 80]);
    out.extend_from_slice(&claim.to_le_bytes());
    out.extend_from_slice(&[0u8; 50]);
    Some(out)
}

/// The structure-aware mutator (libFuzzer's `LLVMFuzzerCustomMutator`): edits the main
/// document, keeps the files after it.
pub fn mutate(data: &mut [u8], size: usize, max_size: usize, seed: u32) -> usize {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ u64::from(seed));
    let marker = FILE_MARKER.as_bytes();
    let cut = data[..size]
        .windows(marker.len())
        .position(|w| w == marker)
        .unwrap_or(size);
    if let Ok(text) = std::str::from_utf8(&data[..cut]) {
        if let Some(mut new) = edit(text, &mut rng) {
            new.extend_from_slice(&data[cut..size]);
            if new.len() <= max_size {
                data[..new.len()].copy_from_slice(&new);
                return new.len();
            }
        }
    }
    libfuzzer_sys::fuzzer_mutate(data, size, max_size)
}
