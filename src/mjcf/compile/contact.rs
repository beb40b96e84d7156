//! `<contact>`: explicit `<pair>`s and `<exclude>`s.

use crate::mjcf::compile::attr::{need, A};
use crate::mjcf::compile::ctx::{Names, Unique, DEFAULT_SOLIMP, DEFAULT_SOLREF, R};
use crate::mjcf::compile::defaults::Defaults;
use crate::mjcf::error::ErrorKind;
use crate::mjcf::xml::Elem;
use crate::model::Model;

pub(super) fn compile_contact(root: &Elem, defs: &Defaults, m: &mut Model) -> R<()> {
    let mut seen = Unique::default();
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
                let b1 = need(&ix.body, &a, "body1", "body")?;
                let b2 = need(&ix.body, &a, "body2", "body")?;
                let (lo, hi) = (b1.min(b2) as u32, b1.max(b2) as u32);
                m.exclude_signature.push((lo << 16) + hi);
            }
        }
    }
    m.exclude_signature.sort_unstable();
    m.npair = m.pair_geom1.len();
    m.nexclude = m.exclude_signature.len();
    Ok(())
}
