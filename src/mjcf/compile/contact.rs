//! `<contact>`: explicit `<pair>`s and `<exclude>`s.

use crate::mjcf::compile::attr::{need, A};
use crate::mjcf::compile::ctx::{Names, Unique, DEFAULT_SOLIMP, DEFAULT_SOLREF, R};
use crate::mjcf::compile::defaults::Defaults;
use crate::mjcf::error::ErrorKind;
use crate::mjcf::xml::Elem;
use crate::model::Model;

pub(super) fn compile_contact(root: &Elem, defs: &Defaults, m: &mut Model) -> R<()> {
    let mut seen = Unique::default();
    let mut seen_exclude = Unique::default();
    let mut excludes = Vec::new();
    let ix = Names::of(m);
    for sec in root.children.iter().filter(|e| e.name == "contact") {
        for el in &sec.children {
            if el.name == "pair" {
                let cls = defs.class_of(el, 0)?;
                let a = defs.reader(el, cls, "pair");
                let name = a.name();
                seen.check(&name, el, "pair")?;
                let mut g1 = need(&ix.geom, &a, "geom1", "geom")?;
                let mut g2 = need(&ix.geom, &a, "geom2", "geom")?;
                if m.geom_bodyid[g1] > m.geom_bodyid[g2] {
                    std::mem::swap(&mut g1, &mut g2);
                }
                let condim = a.int_or("condim", 3)?;
                if ![1, 3, 4, 6].contains(&condim) {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "condim",
                        "condim must be 1, 3, 4 or 6",
                    ));
                }
                m.pair_name.push(name.clone());
                m.pair_geom1.push(g1);
                m.pair_geom2.push(g2);
                m.pair_dim.push(condim as usize);
                m.pair_solref.push(a.arr_min("solref", DEFAULT_SOLREF, 1)?);
                m.pair_solreffriction
                    .push(a.arr_min("solreffriction", [0.0; 2], 1)?);
                m.pair_solimp.push(a.arr_min("solimp", DEFAULT_SOLIMP, 1)?);
                m.pair_margin.push(a.f64_or("margin", 0.0)?);
                m.pair_gap.push(a.f64_or("gap", 0.0)?);
                m.pair_friction.push(a.arr_min(
                    "friction",
                    [1.0, 1.0, 0.005, 0.0001, 0.0001],
                    1,
                )?);
            } else {
                let a = A::new(el);
                let name = a.name();
                seen_exclude.check(&name, el, "exclude")?;
                let b1 = need(&ix.body, &a, "body1", "body")?;
                let b2 = need(&ix.body, &a, "body2", "body")?;
                let (lo, hi) = (b1.min(b2) as u32, b1.max(b2) as u32);
                excludes.push(((lo << 16) + hi, name));
            }
        }
    }
    // MuJoCo keeps the excludes sorted by signature, their names with them (a stable sort: equal
    // signatures keep document order).
    excludes.sort_by_key(|e| e.0);
    (m.exclude_signature, m.exclude_name) = excludes.into_iter().unzip();
    sort_pairs(m);
    m.npair = m.pair_geom1.len();
    m.nexclude = m.exclude_signature.len();
    Ok(())
}

/// `pair_signature` of pair `k`: `(body1 << 16) + body2`, the bodies of its geoms (the geom of
/// the lower body first).
fn signature(m: &Model, k: usize) -> u64 {
    ((m.geom_bodyid[m.pair_geom1[k]] as u64) << 16) + m.geom_bodyid[m.pair_geom2[k]] as u64
}

/// Orders the explicit pairs by `pair_signature`, pairs of equal signature in the document's
/// order, as MuJoCo 4.0.0's compiler does (measured: its `pair_*` arrays are the document's
/// pairs stably sorted by signature; the collision takes them, and so the contacts and rows,
/// in that order).
fn sort_pairs(m: &mut Model) {
    let n = m.pair_geom1.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| signature(m, k));
    if order.iter().enumerate().all(|(i, &k)| i == k) {
        return;
    }
    fn permute<T: Clone>(v: &mut Vec<T>, order: &[usize]) {
        *v = order.iter().map(|&k| v[k].clone()).collect();
    }
    permute(&mut m.pair_name, &order);
    permute(&mut m.pair_geom1, &order);
    permute(&mut m.pair_geom2, &order);
    permute(&mut m.pair_dim, &order);
    permute(&mut m.pair_solref, &order);
    permute(&mut m.pair_solreffriction, &order);
    permute(&mut m.pair_solimp, &order);
    permute(&mut m.pair_margin, &order);
    permute(&mut m.pair_gap, &order);
    permute(&mut m.pair_friction, &order);
}
