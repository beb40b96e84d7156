//! `<tendon>`: fixed and spatial tendons with their wrapping objects.

use crate::mjcf::compile::actuator::nonneg;
use crate::mjcf::compile::attr::{find, need, A};
use crate::mjcf::compile::ctx::{Names, Unique, DEFAULT_SOLIMP, DEFAULT_SOLREF, R};
use crate::mjcf::compile::defaults::Defaults;
use crate::mjcf::compile::options::Compiler;
use crate::mjcf::error::ErrorKind;
use crate::mjcf::xml::Elem;
use crate::model::{GeomType, JointType, Model, WrapType};

pub(super) fn compile_tendons(
    root: &Elem,
    defs: &Defaults,
    comp: &Compiler,
    m: &mut Model,
) -> R<()> {
    let mut seen = Unique::default();
    let ix = Names::of(m);
    for sec in root.children.iter().filter(|e| e.name == "tendon") {
        for el in &sec.children {
            let cls = defs.class_of(el, 0)?;
            let a = defs.reader(el, cls, "tendon");
            let name = a.name();
            seen.check(&name, el, "tendon")?;
            let range = a.arr("range", [0.0; 2])?;
            let actfrcrange = a.arr("actuatorfrcrange", [0.0; 2])?;
            comp.refuse_auto_limit(
                el,
                "tendon",
                a.tristate("limited")?,
                Some(range),
                "range",
                "limited",
            )?;
            comp.refuse_auto_limit(
                el,
                "tendon",
                a.tristate("actuatorfrclimited")?,
                Some(actfrcrange),
                "actuatorfrcrange",
                "actuatorfrclimited",
            )?;
            let limited = match a.tristate("limited")? {
                Some(l) => l,
                None => comp.autolimits && a.has("range") && range[0] < range[1],
            };
            // actuatorfrclimited "auto": limited when autolimits is on and actuatorfrcrange is
            // given with lower < upper; an explicitly limited tendon needs lower < upper
            // (MuJoCo's tendon/actuatorfrclimited; its compiler's wording)
            let actfrclimited = match a.tristate("actuatorfrclimited")? {
                Some(l) => l,
                None => {
                    comp.autolimits && a.has("actuatorfrcrange") && actfrcrange[0] < actfrcrange[1]
                }
            };
            if actfrclimited && actfrcrange[0] >= actfrcrange[1] {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "actuatorfrcrange",
                    "invalid actuatorfrcrange in tendon",
                ));
            }
            let sl = a.vec("springlength", 1, 2)?.unwrap_or(vec![-1.0, -1.0]);
            let lengthspring = if sl.len() == 1 {
                [sl[0], sl[0]]
            } else {
                [sl[0], sl[1]]
            };
            let adr = m.wrap_type.len();
            if el.children.is_empty() {
                return Err(el.err(ErrorKind::InvalidValue, None, "tendon has no path elements"));
            }
            let mut joints = std::collections::HashSet::new();
            for (pos, w) in el.children.iter().enumerate() {
                let wa = A::new(w);
                match (el.name.as_str(), w.name.as_str()) {
                    ("fixed", _) => {
                        let j = need(&ix.jnt, &wa, "joint", "joint")?;
                        if !matches!(m.jnt_type[j], JointType::Hinge | JointType::Slide) {
                            return Err(wa.err(
                                ErrorKind::InvalidValue,
                                "joint",
                                "fixed tendons need hinge or slide joints",
                            ));
                        }
                        // (MuJoCo's compiler check and wording; pos counts the path elements)
                        if !joints.insert(j) {
                            return Err(el.err(
                                ErrorKind::InvalidValue,
                                None,
                                format!(
                                    "tendon '{name}' (id = {}): joint {pos} is repeated",
                                    m.tendon_name.len()
                                ),
                            ));
                        }
                        let coef = wa.f64("coef")?.ok_or_else(|| {
                            wa.err(ErrorKind::InvalidValue, "coef", "missing coef")
                        })?;
                        m.wrap_type.push(WrapType::Joint);
                        m.wrap_objid.push(j as i32);
                        m.wrap_prm.push(coef);
                    }
                    (_, "site") => {
                        let s = need(&ix.site, &wa, "site", "site")?;
                        m.wrap_type.push(WrapType::Site);
                        m.wrap_objid.push(s as i32);
                        m.wrap_prm.push(0.0);
                    }
                    (_, "geom") => {
                        let g = need(&ix.geom, &wa, "geom", "geom")?;
                        let t = match m.geom_type[g] {
                            GeomType::Sphere => WrapType::Sphere,
                            GeomType::Cylinder => WrapType::Cylinder,
                            _ => {
                                return Err(wa.err(
                                    ErrorKind::InvalidValue,
                                    "geom",
                                    "wrapping geoms must be spheres or cylinders",
                                ))
                            }
                        };
                        let side = find(&ix.site, &wa, "sidesite", "site")?;
                        m.wrap_type.push(t);
                        m.wrap_objid.push(g as i32);
                        m.wrap_prm.push(side.map(|s| s as f64).unwrap_or(-1.0));
                    }
                    (_, _) => {
                        let d = wa.f64_or("divisor", 0.0)?;
                        if d <= 0.0 {
                            return Err(wa.err(
                                ErrorKind::InvalidValue,
                                "divisor",
                                "divisor must be positive",
                            ));
                        }
                        m.wrap_type.push(WrapType::Pulley);
                        m.wrap_objid.push(-1);
                        m.wrap_prm.push(d);
                    }
                }
            }
            // a wrapping geom needs a site on both sides (MuJoCo's compiler check and wording)
            if el.name != "fixed" {
                let t = &m.wrap_type[adr..];
                for (k, w) in t.iter().enumerate() {
                    if matches!(w, WrapType::Sphere | WrapType::Cylinder)
                        && !(k > 0
                            && t[k - 1] == WrapType::Site
                            && t.get(k + 1) == Some(&WrapType::Site))
                    {
                        return Err(el.err(
                            ErrorKind::InvalidValue,
                            None,
                            format!(
                                "tendon '{name}' (id = {}): geom at pos {k} not bracketed by sites",
                                m.tendon_name.len()
                            ),
                        ));
                    }
                }
            }
            m.tendon_rgba
                .push(a.arr("rgba", [0.5, 0.5, 0.5, 1.0])?.map(|x| x as f32));
            m.tendon_width.push(a.f64_or("width", 0.003)?);
            m.tendon_group.push(a.int_or("group", 0)? as i32);
            m.tendon_matid
                .push(crate::mjcf::compile::body::material_id(&a, &m.mat_name)?);
            m.tendon_name.push(name);
            m.user_raw[5].push(a.nums("user")?.unwrap_or_default());
            m.tendon_adr.push(adr);
            m.tendon_num.push(m.wrap_type.len() - adr);
            m.tendon_limited.push(limited);
            m.tendon_range.push(range);
            m.tendon_actfrclimited.push(actfrclimited);
            m.tendon_actfrcrange.push(actfrcrange);
            m.tendon_solref_lim
                .push(a.arr_min("solreflimit", DEFAULT_SOLREF, 1)?);
            m.tendon_solimp_lim
                .push(a.arr_min("solimplimit", DEFAULT_SOLIMP, 1)?);
            m.tendon_solref_fri
                .push(a.arr_min("solreffriction", DEFAULT_SOLREF, 1)?);
            m.tendon_solimp_fri
                .push(a.arr_min("solimpfriction", DEFAULT_SOLIMP, 1)?);
            m.tendon_margin.push(a.f64_or("margin", 0.0)?);
            let nn = |k: &str| -> R<f64> { nonneg(&a, k, a.f64_or(k, 0.0)?) };
            let st = a.arr_min("stiffness", [0.0; 3], 1)?;
            let dm = a.arr_min("damping", [0.0; 3], 1)?;
            m.tendon_stiffness.push(nonneg(&a, "stiffness", st[0])?);
            m.tendon_damping.push(nonneg(&a, "damping", dm[0])?);
            m.tendon_stiffnesspoly.push([st[1], st[2]]);
            m.tendon_dampingpoly.push([dm[1], dm[2]]);
            m.tendon_armature.push(nn("armature")?);
            m.tendon_frictionloss.push(nn("frictionloss")?);
            m.tendon_lengthspring.push(lengthspring);
        }
    }
    m.ntendon = m.tendon_name.len();
    m.nwrap = m.wrap_type.len();
    m.tendon_length0 = vec![0.0; m.ntendon];
    m.tendon_invweight0 = vec![0.0; m.ntendon];
    Ok(())
}
