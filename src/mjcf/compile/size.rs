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

/// Sets `nuser_X` and `X_user` ([`Model::body_user`] and the others) from `<size nuser_X>`
/// (the last one given wins; −1, the default, means the longest `user` attribute given) and
/// the elements' `user` values, zero-padded. MuJoCo 4.0.0's errors: "nuser_X must be >= -1"
/// and "user has more values than nuser_X in X".
pub(super) fn compile_user(root: &Elem, m: &mut Model) -> R<()> {
    let raw = std::mem::take(&mut m.user_raw);
    let counts = [
        m.body_name.len(),
        m.jnt_name.len(),
        m.geom_name.len(),
        m.site_name.len(),
        m.cam_name.len(),
        m.tendon_name.len(),
        m.actuator_name.len(),
        m.sensor_name.len(),
    ];
    for (k, (kind, mut rows)) in crate::model::USER_KINDS.iter().zip(raw).enumerate() {
        // one row per element (each element's compiler pushes one)
        debug_assert_eq!(rows.len(), counts[k], "{kind}");
        rows.resize(counts[k], Vec::new());
        let key = format!("nuser_{kind}");
        let mut given: Option<(i64, &Elem)> = None;
        for el in root.children.iter().filter(|e| e.name == "size") {
            if let Some(n) = A::new(el).int(&key)? {
                if n < -1 {
                    return Err(A::new(el).err(
                        ErrorKind::InvalidValue,
                        &key,
                        format!("{key} must be >= -1"),
                    ));
                }
                given = Some((n, el));
            }
        }
        let longest = rows.iter().map(Vec::len).max().unwrap_or(0);
        let n = match given {
            Some((n, el)) if n >= 0 => {
                let n = n as usize;
                if let Some(i) = rows.iter().position(|r| r.len() > n) {
                    let what = match *kind {
                        "jnt" => "joint",
                        "cam" => "camera",
                        other => other,
                    };
                    return Err(A::new(el).err(
                        ErrorKind::InvalidValue,
                        &key,
                        format!("user has more values than {key} in {what} (id = {i})"),
                    ));
                }
                n
            }
            _ => longest,
        };
        let mut flat = Vec::with_capacity(rows.len() * n);
        for r in &rows {
            flat.extend_from_slice(r);
            flat.resize(flat.len() + n - r.len(), 0.0);
        }
        let (nuser, user) = match k {
            0 => (&mut m.nuser_body, &mut m.body_user),
            1 => (&mut m.nuser_jnt, &mut m.jnt_user),
            2 => (&mut m.nuser_geom, &mut m.geom_user),
            3 => (&mut m.nuser_site, &mut m.site_user),
            4 => (&mut m.nuser_cam, &mut m.cam_user),
            5 => (&mut m.nuser_tendon, &mut m.tendon_user),
            6 => (&mut m.nuser_actuator, &mut m.actuator_user),
            _ => (&mut m.nuser_sensor, &mut m.sensor_user),
        };
        *nuser = n;
        *user = flat;
    }
    Ok(())
}
