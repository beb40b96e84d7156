//! `<actuator>`: the general actuator and its shortcuts (motor, position, velocity, damper, cylinder, muscle, adhesion, ...), transmissions and ranges.

use crate::mjcf::compile::attr::{find, need, A};
use crate::mjcf::compile::ctx::{Names, Unique, R};
use crate::mjcf::compile::defaults::Defaults;
use crate::mjcf::compile::options::Compiler;
use crate::mjcf::error::ErrorKind;
use crate::mjcf::xml::Elem;
use crate::model::{BiasType, DynType, GainType, Model, TrnType};

/// The actuator fields a default class or an element sets (MuJoCo's mjsActuator).
#[derive(Clone)]
pub(super) struct ActSpec {
    pub(super) group: i64,
    pub(super) ctrllimited: Option<bool>,
    pub(super) forcelimited: Option<bool>,
    pub(super) actlimited: Option<bool>,
    pub(super) ctrlrange: Option<[f64; 2]>,
    pub(super) forcerange: Option<[f64; 2]>,
    pub(super) actrange: Option<[f64; 2]>,
    pub(super) gear: [f64; 6],
    pub(super) cranklength: f64,
    pub(super) dyntype: DynType,
    pub(super) gaintype: GainType,
    pub(super) biastype: BiasType,
    pub(super) dynprm: [f64; 10],
    pub(super) gainprm: [f64; 10],
    pub(super) biasprm: [f64; 10],
    pub(super) actearly: bool,
    pub(super) actdim: i64,
    pub(super) inheritrange: f64,
    /// `damping` (linear, then polynomial coefficients) and `armature`.
    pub(super) damping: [f64; 3],
    pub(super) armature: f64,
    /// MuJoCo's `actuator_ctrlspec` ([`ctrlspec`]).
    pub(super) ctrlspec: i32,
    /// Tag of the last actuator default applied (shortcut parameters inherit only from the
    /// same shortcut or from `general`, as MuJoCo 4.0.0 does).
    pub(super) last: Option<&'static str>,
}

pub(super) fn prm(first: &[f64]) -> [f64; 10] {
    let mut p = [0.0; 10];
    p[..first.len()].copy_from_slice(first);
    p
}

impl Default for ActSpec {
    fn default() -> Self {
        ActSpec {
            group: 0,
            ctrllimited: None,
            forcelimited: None,
            actlimited: None,
            ctrlrange: None,
            forcerange: None,
            actrange: None,
            gear: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            cranklength: 0.0,
            dyntype: DynType::None,
            gaintype: GainType::Fixed,
            biastype: BiasType::None,
            dynprm: prm(&[1.0]),
            gainprm: prm(&[1.0]),
            biasprm: [0.0; 10],
            actearly: false,
            actdim: -1,
            inheritrange: 0.0,
            damping: [0.0; 3],
            armature: 0.0,
            ctrlspec: 0,
            last: None,
        }
    }
}

pub(super) const SHORTCUTS: &[&str] = &[
    "general",
    "motor",
    "position",
    "velocity",
    "intvelocity",
    "damper",
    "cylinder",
    "muscle",
    "adhesion",
];

/// What the control of a shortcut element means, MuJoCo 4.0.0's `actuator_ctrlspec` (bits of
/// `mjtCtrlInput`): 1 a position target (`position`), 2 a velocity target (`velocity`,
/// `intvelocity`), 32 a pressure (`cylinder`), 0 for `motor`, `damper`, `muscle` and
/// `adhesion`; `general` keeps its class's value (measured on MuJoCo 4.0.0, defaults
/// included); the compiler sets 0 where the gain is not fixed.
fn ctrlspec(tag: &str) -> Option<i32> {
    match tag {
        "general" => None,
        "position" => Some(1),
        "velocity" | "intvelocity" => Some(2),
        "cylinder" => Some(32),
        _ => Some(0),
    }
}

pub(super) fn nonneg(a: &A, k: &str, v: f64) -> R<f64> {
    if v < 0.0 {
        Err(a.err(ErrorKind::InvalidValue, k, "must be nonnegative"))
    } else {
        Ok(v)
    }
}

/// Applies one actuator element (default or real) to `s` (docs/mujoco-behaviour.md#actuators).
pub(super) fn apply_actuator(s: &mut ActSpec, el: &Elem) -> R<()> {
    let a = A::new(el);
    let tag: &'static str = SHORTCUTS
        .iter()
        .copied()
        .find(|t| *t == el.name)
        .unwrap_or("general");
    // parameters inherit from the class only if it was set by `general` or the same shortcut
    let inherit = matches!(s.last, None | Some("general")) || s.last == Some(tag);
    if let Some(c) = ctrlspec(tag) {
        s.ctrlspec = c;
    }
    s.group = a.int_or("group", s.group)?;
    if a.has("ctrllimited") {
        s.ctrllimited = a.tristate("ctrllimited")?;
    }
    if a.has("forcelimited") {
        s.forcelimited = a.tristate("forcelimited")?;
    }
    if a.has("actlimited") {
        s.actlimited = a.tristate("actlimited")?;
    }
    if a.has("ctrlrange") {
        s.ctrlrange = Some(a.arr("ctrlrange", [0.0; 2])?);
    }
    if a.has("forcerange") {
        s.forcerange = Some(a.arr("forcerange", [0.0; 2])?);
    }
    if a.has("actrange") {
        s.actrange = Some(a.arr("actrange", [0.0; 2])?);
    }
    // A partial list overwrites only the leading entries: the rest keep the class default's
    // values (MuJoCo 4.0.0's reader, measured for `gear`, `damping`, `dynprm`, `gainprm`,
    // `biasprm`; myosuite's myoarm muscles give `gainprm="0.75 1.05 337.3"` over a class's
    // nine muscle parameters).
    if let Some(g) = a.vec("gear", 1, 6)? {
        s.gear[..g.len()].copy_from_slice(&g);
    }
    s.cranklength = a.f64_or("cranklength", s.cranklength)?;
    s.actearly = a.bool("actearly")?.unwrap_or(s.actearly);
    s.actdim = a.int_or("actdim", s.actdim)?;
    if let Some(dm) = a.vec("damping", 1, 3)? {
        for (k, &x) in dm.iter().enumerate() {
            s.damping[k] = nonneg(&a, "damping", x)?;
        }
    }
    s.armature = nonneg(&a, "armature", a.f64_or("armature", s.armature)?)?;
    let read10 = |k: &str, cur: [f64; 10]| -> R<[f64; 10]> {
        let mut out = cur;
        if let Some(v) = a.vec(k, 0, 10)? {
            out[..v.len()].copy_from_slice(&v);
        }
        Ok(out)
    };
    let kv_dr = |s: &mut ActSpec, kp: f64| -> R<()> {
        let kv = a.f64("kv")?;
        let dr = a.f64("dampratio")?;
        if kv.is_some() && dr.is_some() {
            return Err(a.err(
                ErrorKind::InvalidValue,
                "dampratio",
                "kv and dampratio are exclusive",
            ));
        }
        let prev2 = if inherit { s.biasprm[2] } else { 0.0 };
        s.biasprm = prm(&[0.0, -kp, prev2]);
        if let Some(kv) = kv {
            s.biasprm[2] = -nonneg(&a, "kv", kv)?;
        }
        if let Some(dr) = dr {
            // positive biasprm[2] marks a damping ratio, resolved to -kv by set_const
            s.biasprm[2] = nonneg(&a, "dampratio", dr)?;
        }
        Ok(())
    };
    match tag {
        "general" => {
            if let Some(d) = a.keyword(
                "dyntype",
                &[
                    ("none", DynType::None),
                    ("integrator", DynType::Integrator),
                    ("filter", DynType::Filter),
                    ("filterexact", DynType::FilterExact),
                    ("muscle", DynType::Muscle),
                    ("user", DynType::User),
                ],
            )? {
                s.dyntype = d;
            }
            if let Some(g) = a.keyword(
                "gaintype",
                &[
                    ("fixed", GainType::Fixed),
                    ("affine", GainType::Affine),
                    ("muscle", GainType::Muscle),
                    ("user", GainType::User),
                ],
            )? {
                s.gaintype = g;
            }
            if let Some(b) = a.keyword(
                "biastype",
                &[
                    ("none", BiasType::None),
                    ("affine", BiasType::Affine),
                    ("muscle", BiasType::Muscle),
                    ("user", BiasType::User),
                ],
            )? {
                s.biastype = b;
            }
            s.dynprm = read10("dynprm", s.dynprm)?;
            s.gainprm = read10("gainprm", s.gainprm)?;
            s.biasprm = read10("biasprm", s.biasprm)?;
        }
        "motor" => {
            s.gaintype = GainType::Fixed;
            s.biastype = BiasType::None;
            s.dyntype = DynType::None;
            s.gainprm = prm(&[1.0]);
            s.biasprm = [0.0; 10];
            s.dynprm = prm(&[1.0]);
        }
        "position" | "intvelocity" => {
            let kp0 = if inherit { s.gainprm[0] } else { 1.0 };
            let kp = nonneg(&a, "kp", a.f64_or("kp", kp0)?)?;
            kv_dr(s, kp)?;
            s.gaintype = GainType::Fixed;
            s.biastype = BiasType::Affine;
            s.gainprm = prm(&[kp]);
            if tag == "position" {
                match a.f64("timeconst")? {
                    Some(tc) => {
                        let tc = nonneg(&a, "timeconst", tc)?;
                        s.dynprm = prm(&[tc]);
                        s.dyntype = if tc > 0.0 {
                            DynType::FilterExact
                        } else {
                            DynType::None
                        };
                    }
                    None => {
                        if !(inherit && s.dyntype == DynType::FilterExact) {
                            s.dyntype = DynType::None;
                            s.dynprm = prm(&[1.0]);
                        }
                    }
                }
            } else {
                if !(inherit && s.dyntype != DynType::None) {
                    s.dynprm = prm(&[1.0]);
                }
                s.dyntype = DynType::Integrator;
            }
            if let Some(ir) = a.f64("inheritrange")? {
                s.inheritrange = nonneg(&a, "inheritrange", ir)?;
            }
        }
        "velocity" => {
            let kv0 = if inherit { s.gainprm[0] } else { 1.0 };
            let kv = nonneg(&a, "kv", a.f64_or("kv", kv0)?)?;
            s.gaintype = GainType::Fixed;
            s.biastype = BiasType::Affine;
            s.dyntype = DynType::None;
            s.gainprm = prm(&[kv]);
            s.biasprm = prm(&[0.0, 0.0, -kv]);
            s.dynprm = prm(&[1.0]);
        }
        "damper" => {
            let kv0 = if inherit { -s.gainprm[2] } else { 0.0 };
            let kv = nonneg(&a, "kv", a.f64_or("kv", kv0)?)?;
            s.gaintype = GainType::Affine;
            s.biastype = BiasType::None;
            s.dyntype = DynType::None;
            s.gainprm = prm(&[0.0, 0.0, -kv]);
            s.biasprm = [0.0; 10];
            s.dynprm = prm(&[1.0]);
            s.ctrllimited = Some(true);
        }
        "cylinder" => {
            let tc0 = if inherit { s.dynprm[0] } else { 1.0 };
            let area0 = if inherit { s.gainprm[0] } else { 1.0 };
            let bias0 = if inherit {
                [s.biasprm[0], s.biasprm[1], s.biasprm[2]]
            } else {
                [0.0; 3]
            };
            let tc = nonneg(&a, "timeconst", a.f64_or("timeconst", tc0)?)?;
            let mut area = a.f64_or("area", area0)?;
            if let Some(d) = a.f64("diameter")? {
                area = std::f64::consts::PI / 4.0 * d * d;
            }
            let bias = a.arr("bias", bias0)?;
            s.dyntype = DynType::Filter;
            s.gaintype = GainType::Fixed;
            s.biastype = BiasType::Affine;
            s.dynprm = prm(&[tc]);
            s.gainprm = prm(&[area]);
            s.biasprm = prm(&bias);
        }
        "muscle" => {
            let base: [f64; 9] = if inherit && s.gaintype == GainType::Muscle {
                let mut b = [0.0; 9];
                b.copy_from_slice(&s.gainprm[..9]);
                b
            } else {
                [0.75, 1.05, -1.0, 200.0, 0.5, 1.6, 1.5, 1.3, 1.2]
            };
            let dyn0: [f64; 3] = if inherit && s.dyntype == DynType::Muscle {
                [s.dynprm[0], s.dynprm[1], s.dynprm[2]]
            } else {
                [0.01, 0.04, 0.0]
            };
            let tc = a.arr("timeconst", [dyn0[0], dyn0[1]])?;
            let ts = a.f64_or("tausmooth", dyn0[2])?;
            let range = a.arr("range", [base[0], base[1]])?;
            let mut p = base;
            p[0] = range[0];
            p[1] = range[1];
            for (i, k) in ["force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax"]
                .iter()
                .enumerate()
            {
                p[2 + i] = a.f64_or(k, p[2 + i])?;
            }
            s.dyntype = DynType::Muscle;
            s.gaintype = GainType::Muscle;
            s.biastype = BiasType::Muscle;
            s.dynprm = prm(&[tc[0], tc[1], ts]);
            s.gainprm = prm(&p);
            s.biasprm = prm(&p);
        }
        "adhesion" => {
            let g0 = if inherit { s.gainprm[0] } else { 1.0 };
            let gain = nonneg(&a, "gain", a.f64_or("gain", g0)?)?;
            s.gaintype = GainType::Fixed;
            s.biastype = BiasType::None;
            s.dyntype = DynType::None;
            s.gainprm = prm(&[gain]);
            s.biasprm = [0.0; 10];
            s.dynprm = prm(&[1.0]);
            s.ctrllimited = Some(true);
        }
        _ => {}
    }
    s.last = Some(tag);
    Ok(())
}

pub(super) fn limited_flag(given: Option<bool>, range: Option<[f64; 2]>, comp: &Compiler) -> bool {
    match given {
        Some(l) => l,
        None => comp.autolimits && range.is_some_and(|r| r[0] < r[1]),
    }
}

pub(super) fn compile_actuators(
    root: &Elem,
    defs: &Defaults,
    comp: &Compiler,
    m: &mut Model,
) -> R<()> {
    let mut seen = Unique::default();
    let ix = Names::of(m);
    let mut na = 0usize;
    for sec in root.children.iter().filter(|e| e.name == "actuator") {
        for el in &sec.children {
            let cls = defs.class_of(el, 0)?;
            let mut s = ActSpec::default();
            for d in &defs.classes[cls].acts {
                apply_actuator(&mut s, d)?;
            }
            apply_actuator(&mut s, el)?;
            let a = A::new(el);
            let name = a.name();
            seen.check(&name, el, "actuator")?;
            // transmission
            let targets = [
                "joint",
                "jointinparent",
                "tendon",
                "site",
                "body",
                "cranksite",
            ];
            let given: Vec<&str> = targets.iter().copied().filter(|k| a.has(k)).collect();
            if given.len() != 1 {
                return Err(el.err(
                    ErrorKind::InvalidValue,
                    None,
                    "an actuator needs exactly one transmission target (joint, jointinparent, tendon, site, body or cranksite)",
                ));
            }
            let (trn, id0, id1) = match given[0] {
                "joint" => (TrnType::Joint, need(&ix.jnt, &a, "joint", "joint")?, -1),
                "jointinparent" => (
                    TrnType::JointInParent,
                    need(&ix.jnt, &a, "jointinparent", "joint")?,
                    -1,
                ),
                "tendon" => (
                    TrnType::Tendon,
                    need(&ix.tendon, &a, "tendon", "tendon")?,
                    -1,
                ),
                "site" => {
                    let r = find(&ix.site, &a, "refsite", "site")?;
                    (
                        TrnType::Site,
                        need(&ix.site, &a, "site", "site")?,
                        r.map(|x| x as i32).unwrap_or(-1),
                    )
                }
                "body" => (TrnType::Body, need(&ix.body, &a, "body", "body")?, -1),
                _ => {
                    let sl = need(&ix.site, &a, "slidersite", "site")?;
                    if s.cranklength <= 0.0 {
                        return Err(a.err(
                            ErrorKind::InvalidValue,
                            "cranklength",
                            "slider-crank needs a positive cranklength",
                        ));
                    }
                    (
                        TrnType::SliderCrank,
                        need(&ix.site, &a, "cranksite", "site")?,
                        sl as i32,
                    )
                }
            };
            if s.inheritrange > 0.0 {
                if a.own("ctrlrange") || (el.name == "intvelocity" && a.own("actrange")) {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "inheritrange",
                        "ctrlrange and inheritrange cannot both be defined",
                    ));
                }
                let r = match trn {
                    TrnType::Joint | TrnType::JointInParent if m.jnt_limited[id0] => {
                        m.jnt_range[id0]
                    }
                    TrnType::Tendon if m.tendon_limited[id0] => m.tendon_range[id0],
                    _ => {
                        return Err(a.err(
                            ErrorKind::InvalidValue,
                            "inheritrange",
                            "inheritrange needs a limited joint or tendon",
                        ))
                    }
                };
                let mid = 0.5 * (r[0] + r[1]);
                let half = 0.5 * s.inheritrange * (r[1] - r[0]);
                let rr = Some([mid - half, mid + half]);
                if el.name == "intvelocity" {
                    s.actrange = rr;
                } else {
                    s.ctrlrange = rr;
                }
            }
            // MuJoCo checks the force range first, then the control and activation ranges
            for (given, range, r, l) in [
                (s.forcelimited, s.forcerange, "forcerange", "forcelimited"),
                (s.ctrllimited, s.ctrlrange, "ctrlrange", "ctrllimited"),
                (s.actlimited, s.actrange, "actrange", "actlimited"),
            ] {
                comp.refuse_auto_limit(el, "actuator", given, range, r, l)?;
            }
            let ctrllimited = limited_flag(s.ctrllimited, s.ctrlrange, comp);
            let forcelimited = limited_flag(s.forcelimited, s.forcerange, comp);
            let actlimited = limited_flag(s.actlimited, s.actrange, comp);
            let cr = s.ctrlrange.unwrap_or([0.0; 2]);
            let fr = s.forcerange.unwrap_or([0.0; 2]);
            let ar = s.actrange.unwrap_or([0.0; 2]);
            if el.name == "damper" && cr[0] < 0.0 {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "ctrlrange",
                    "damper control range must be nonnegative",
                ));
            }
            let actnum = if s.actdim >= 0 {
                if s.dyntype == DynType::None && s.actdim > 0 {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "actdim",
                        "actdim > 0 needs dynamics",
                    ));
                }
                s.actdim as usize
            } else if s.dyntype == DynType::None {
                0
            } else {
                1
            };
            m.actuator_name.push(name);
            // the element's own `user`, else its default class's (the last actuator default
            // that gives one)
            let user = match a.nums("user")? {
                Some(u) => u,
                None => match defs.classes[cls]
                    .acts
                    .iter()
                    .rev()
                    .find(|d| d.attr("user").is_some())
                {
                    Some(d) => A::new(d).nums("user")?.unwrap_or_default(),
                    None => Vec::new(),
                },
            };
            m.user_raw[6].push(user);
            m.actuator_trntype.push(trn);
            m.actuator_dyntype.push(s.dyntype);
            m.actuator_gaintype.push(s.gaintype);
            m.actuator_biastype.push(s.biastype);
            m.actuator_trnid.push([id0 as i32, id1]);
            m.actuator_actadr
                .push(if actnum > 0 { na as i32 } else { -1 });
            m.actuator_actnum.push(actnum);
            na += actnum;
            m.actuator_group.push(s.group as i32);
            m.actuator_ctrllimited.push(ctrllimited);
            m.actuator_forcelimited.push(forcelimited);
            m.actuator_actlimited.push(actlimited);
            m.actuator_actearly.push(s.actearly);
            m.actuator_dynprm.push(s.dynprm);
            m.actuator_gainprm.push(s.gainprm);
            m.actuator_biasprm.push(s.biasprm);
            m.actuator_ctrlrange.push(cr);
            m.actuator_forcerange.push(fr);
            m.actuator_actrange.push(ar);
            m.actuator_gear.push(s.gear);
            m.actuator_damping.push(s.damping[0]);
            m.actuator_dampingpoly.push([s.damping[1], s.damping[2]]);
            m.actuator_armature.push(s.armature);
            // a gain other than fixed leaves the control's meaning unspecified (measured: a
            // `general` with `gaintype="affine"` under a `position` default gives 0)
            let fixed = s.gaintype == GainType::Fixed;
            m.actuator_ctrlspec.push(if fixed { s.ctrlspec } else { 0 });
            m.actuator_cranklength.push(s.cranklength);
            m.actuator_lengthrange.push(a.arr("lengthrange", [0.0; 2])?);
        }
    }
    m.nu = m.actuator_name.len();
    m.na = na;
    m.actuator_acc0 = vec![0.0; m.nu];
    m.actuator_length0 = vec![0.0; m.nu];
    Ok(())
}
