//! `<size memory nconmax njmax>`: the arena's bytes (`mjModel.narena`, `nconmax`, `njmax`).

use crate::data::arena::{compile_overflow, default_narena, parse_memory};
use crate::mjcf::compile::attr::A;
use crate::mjcf::compile::ctx::R;
use crate::mjcf::error::ErrorKind;
use crate::mjcf::xml::Elem;
use crate::model::Model;

/// Sets `m.nconmax`, `m.njmax` and `m.narena` from the `<size>` elements (the last one given
/// wins) once the model's sizes are known; `nstack` (-1: the default) sizes the arena's stack.
pub(super) fn compile_arena(root: &Elem, m: &mut Model) -> R<()> {
    let (mut memory, mut nconmax, mut njmax, mut nstack) = (None, -1, -1, -1);
    let mut memory_el = None;
    for el in root.children.iter().filter(|e| e.name == "size") {
        let a = A::new(el);
        if let Some(v) = a.str("memory") {
            memory_el = Some(el);
            if a.has("nstack") {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "memory",
                    "at most one of 'memory', 'nstack' can be specified",
                ));
            }
            memory = parse_memory(v).ok_or_else(|| {
                a.err(
                    ErrorKind::InvalidValue,
                    "memory",
                    "unsigned integer with an optional suffix {K,M,G,T,P,E} is expected in \
                     attribute 'memory' (or the size specified is too big)",
                )
            })?;
            if memory == Some(0) {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "memory",
                    "could not allocate mjData arena",
                ));
            }
        }
        if let Some(n) = a.int("nstack")? {
            // MuJoCo reads it as an int
            if n > i64::from(i32::MAX) {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "nstack",
                    "problem reading attribute 'nstack'",
                ));
            }
        }
        for (k, slot) in [
            ("nconmax", &mut nconmax),
            ("njmax", &mut njmax),
            ("nstack", &mut nstack),
        ] {
            if let Some(n) = a.int(k)? {
                if n < -1 {
                    return Err(a.err(ErrorKind::InvalidValue, k, format!("{k} must be >= -1")));
                }
                *slot = n;
            }
        }
    }
    m.nconmax = nconmax;
    m.njmax = njmax;
    m.narena = memory.unwrap_or_else(|| default_narena(m, u64::try_from(nstack).ok()));
    // MuJoCo's compiler runs the model on the arena's stack (mj_setConst): an arena smaller
    // than that fails with its fatal stack overflow
    if let (Some(el), Some(e)) = (memory_el, memory.and_then(|_| compile_overflow(m))) {
        // MuJoCo's whole message (its site, line, max and byte counts)
        return Err(A::new(el).err(ErrorKind::InvalidValue, "memory", e.to_string()));
    }
    Ok(())
}

/// Sets `m.nuserdata` from the `<size nuserdata>` attributes (the last one given wins).
pub(super) fn compile_userdata(root: &Elem, m: &mut Model) -> R<()> {
    for el in root.children.iter().filter(|e| e.name == "size") {
        let a = A::new(el);
        if let Some(n) = a.int("nuserdata")? {
            // MuJoCo 4.0.0 compiles a negative value and fails in mj_makeData ("userdata too
            // large"); refused here with the attribute named, as is a size beyond the data cap
            let n = usize::try_from(n)
                .ok()
                .filter(|&n| n <= 1 << 30)
                .ok_or_else(|| {
                    a.err(
                        ErrorKind::InvalidValue,
                        "nuserdata",
                        "nuserdata must be non-negative and at most 2^30 (8 GiB of userdata)",
                    )
                })?;
            m.nuserdata = n;
        }
    }
    Ok(())
}
