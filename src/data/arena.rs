//! MuJoCo's arena (`mjModel.narena`, `<size memory>`): one block per `mjData` that holds the
//! contacts and constraint rows of a step beside the stack. moreau keeps its own arrays but
//! bounds the contacts and rows by the same bytes, so a step drops what MuJoCo 4.0.0 drops
//! (docs/mujoco-behaviour.md, "Contact capacity"). The sizes below were measured on MuJoCo
//! 4.0.0 (`tools/arena/fit.py`, `tools/arena/reference.py`); where its accounting is not
//! reproduced exactly the comment says so.

use crate::model::Model;

/// Arena bytes one contact takes (`sizeof(mjContact)` in MuJoCo 4.0.0: `d.parena / d.ncon`
/// after `mj_collision`).
pub const CONTACT_BYTES: usize = 608;

/// Arena bytes one constraint row takes beside its Jacobian (fitted on sparse pyramidal and
/// elliptic piles, ±5%; MuJoCo's exact per-row accounting is not reproduced).
pub const EFC_ROW_BYTES: usize = 205;

const MIB: usize = 1 << 20;

/// Most contacts a collision pass stores, whatever the arena (about 0.7 GB of contacts, so that
/// `<size memory>` cannot size an allocation past the loader's bounds): beyond it contacts are
/// dropped with `ContactFull` as if the arena were full. Only an arena above 1.2 GB holds more.
pub const MAX_CONTACTS: usize = 1 << 21;

/// `mjModel.narena` when `<size memory>` is not given: MuJoCo 4.0.0's default, rounded up to
/// whole MiB, as measured on the oracle by threshold search (`tools/arena/fit.py`): 608 bytes
/// per `nconmax` (default 100), `52 njmax² + 104 njmax·nv + 144 njmax` (`njmax` default
/// 500), `40 nv² + 480 nv`, and 160 bytes per body and per geom. It gives MuJoCo's value on
/// 106 of the 114 models of `models/` and the zoo; models with `nstack`, meshes or many
/// tendons and equalities can differ by a MiB.
pub fn default_narena(m: &Model) -> usize {
    let c = if m.nconmax < 0 {
        100
    } else {
        m.nconmax as u128
    };
    let j = if m.njmax < 0 { 500 } else { m.njmax as u128 };
    let v = m.nv as u128;
    let bytes = 608 * c
        + 52 * j * j
        + 104 * j * v
        + 40 * v * v
        + 144 * j
        + 480 * v
        + 160 * (m.nbody + m.ngeom) as u128;
    let mib = bytes.div_ceil(MIB as u128);
    usize::try_from(mib * MIB as u128).unwrap_or(usize::MAX)
}

/// The model's arena bytes: `m.narena`, or [`default_narena`] for a model built by hand.
pub fn narena(m: &Model) -> usize {
    if m.narena > 0 {
        m.narena
    } else {
        default_narena(m)
    }
}

/// Contacts a collision pass keeps of the `found` ones: those that fit in the arena beside the
/// 112 bytes per contact found plus 24 that MuJoCo 4.0.0's collision holds on the stack
/// (measured: exact to the byte on piles of spheres, one contact per geom pair, from 15 to
/// 4,030 contacts; where pairs give several contacts, as boxes on boxes, MuJoCo's stack holds
/// more and it keeps 3-9% fewer than this), in whole contacts, in the order found.
pub fn contacts_kept(m: &Model, found: usize) -> usize {
    let stack = 112 * found as u128 + 24;
    let free = (narena(m) as u128).saturating_sub(stack) / CONTACT_BYTES as u128;
    usize::try_from(free).map_or(found, |k| k.min(found))
}

/// Arena bytes of `nefc` rows with `nnz` Jacobian entries: 12 bytes per entry, of the
/// sparse pattern or, dense, of all `nefc·nv` (fitted on MuJoCo 4.0.0's piles both ways).
pub fn efc_bytes(nefc: usize, nv: usize, nnz: usize, sparse: bool) -> u128 {
    let entries = if sparse {
        nnz as u128
    } else {
        nefc as u128 * nv as u128
    };
    let j = 12 * entries;
    EFC_ROW_BYTES as u128 * nefc as u128 + j
}

/// A byte count as MuJoCo writes it in its warnings: with the largest of the suffixes K, M, G,
/// T, P, E (powers of 1024) that divides it, else the plain number ("1M", "600K", "1000000").
pub fn format_bytes(n: usize) -> String {
    let mut n = n as u128;
    let mut unit = "";
    for u in ["K", "M", "G", "T", "P", "E"] {
        if n == 0 || n % 1024 != 0 {
            break;
        }
        n /= 1024;
        unit = u;
    }
    format!("{n}{unit}")
}

/// Parses `<size memory>`: an unsigned integer with an optional suffix K, M, G, T, P or E
/// (powers of 1024), or -1 for the default. `None` if malformed or too big.
pub fn parse_memory(s: &str) -> Option<Option<usize>> {
    let s = s.trim();
    if s == "-1" {
        return Some(None);
    }
    let (digits, mult) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let k = "KMGTPE".find(c)?;
            (&s[..i], 1u128 << (10 * (k + 1)))
        }
        _ => (s, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u128 = digits.parse().ok()?;
    let bytes = n.checked_mul(mult)?;
    usize::try_from(bytes)
        .ok()
        .filter(|&b| b < 1 << 62)
        .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_suffixes_and_formatting() {
        assert_eq!(parse_memory("1M"), Some(Some(1 << 20)));
        assert_eq!(parse_memory("600K"), Some(Some(614_400)));
        assert_eq!(parse_memory("1000000"), Some(Some(1_000_000)));
        assert_eq!(parse_memory("-1"), Some(None));
        assert_eq!(parse_memory("1.5M"), None);
        assert_eq!(parse_memory("M"), None);
        assert_eq!(parse_memory("99999999E"), None);
        assert_eq!(format_bytes(1 << 20), "1M");
        assert_eq!(format_bytes(614_400), "600K");
        assert_eq!(format_bytes(23 << 20), "23M");
        assert_eq!(format_bytes(1_000_000), "1000000");
    }
}
