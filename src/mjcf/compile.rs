//! Element tree -> [`Model`]: default classes, kinematic tree, MuJoCo's derived quantities.
//!
//! Conventions (MuJoCo 4.0.0 compiler, mujoco-facts §5/§7/§8, checked against the engine):
//! body/joint/geom/site ids in document (depth-first) order, each body's joints/geoms/sites
//! contiguous; angles in degrees unless `compiler/angle="radian"`; `fromto` orients +z along
//! p1 - p2; single-geom bodies keep the geom frame, multi-geom bodies and `fullinertia` are
//! diagonalized with descending principal moments.

use super::math::*;
use super::mesh::{self, MeshInertia};
use super::xml::{Elem, FileSource};
use super::{ErrorKind, MjcfError};
use crate::lengthrange::{LengthRangeMode, LengthRangeOpt};
use crate::model::*;
use std::collections::HashMap;

type R<T> = Result<T, MjcfError>;

const DEFAULT_SOLREF: [f64; 2] = [0.02, 1.0];
/// MuJoCo's `fluidcoef` default: blunt drag, slender drag, angular drag, Kutta lift, Magnus lift.
const DEFAULT_FLUIDCOEF: [f64; 5] = [0.5, 0.25, 1.5, 1.0, 1.0];
const DEFAULT_SOLIMP: [f64; 5] = [0.9, 0.95, 0.001, 0.5, 2.0];
const MINVAL: f64 = 1e-15;

// ------------------------------------------------------------------------------ attributes

/// Flattened default attributes of one element kind: name -> (value, defining element).
type AttrMap<'a> = HashMap<&'a str, (&'a str, &'a Elem)>;

/// Attribute reader for one element with its default class.
#[derive(Clone, Copy)]
struct A<'a> {
    el: &'a Elem,
    dflt: Option<&'a AttrMap<'a>>,
}

fn parse_f64(s: &str) -> Option<f64> {
    let v: f64 = s.parse().ok()?;
    if v.is_finite() {
        Some(v)
    } else {
        None
    }
}

impl<'a> A<'a> {
    fn new(el: &'a Elem) -> Self {
        A { el, dflt: None }
    }
    fn with(el: &'a Elem, dflt: &'a AttrMap<'a>) -> Self {
        A {
            el,
            dflt: Some(dflt),
        }
    }
    fn raw(&self, k: &str) -> Option<(&'a str, &'a Elem)> {
        if let Some(v) = self.el.attr(k) {
            return Some((v, self.el));
        }
        self.dflt.and_then(|d| d.get(k).copied())
    }
    fn has(&self, k: &str) -> bool {
        self.raw(k).is_some()
    }
    fn own(&self, k: &str) -> bool {
        self.el.attr(k).is_some()
    }
    fn err(&self, kind: ErrorKind, k: &str, msg: impl Into<String>) -> MjcfError {
        let el = self.raw(k).map(|(_, e)| e).unwrap_or(self.el);
        el.err(kind, Some(k), msg)
    }
    fn str(&self, k: &str) -> Option<&'a str> {
        self.raw(k).map(|(v, _)| v)
    }
    fn nums(&self, k: &str) -> R<Option<Vec<f64>>> {
        let Some((v, e)) = self.raw(k) else {
            return Ok(None);
        };
        v.split_whitespace()
            .map(|t| {
                parse_f64(t).ok_or_else(|| {
                    e.err(
                        ErrorKind::BadNumber,
                        Some(k),
                        format!("'{t}' is not a finite number"),
                    )
                })
            })
            .collect::<R<Vec<f64>>>()
            .map(Some)
    }
    /// Between `min` and `max` numbers.
    fn vec(&self, k: &str, min: usize, max: usize) -> R<Option<Vec<f64>>> {
        let Some(v) = self.nums(k)? else {
            return Ok(None);
        };
        if v.len() < min || v.len() > max {
            let want = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            return Err(self.err(
                ErrorKind::WrongCount,
                k,
                format!("expected {want} numbers, got {}", v.len()),
            ));
        }
        Ok(Some(v))
    }
    /// Exactly N numbers, or `def` when absent.
    fn arr<const N: usize>(&self, k: &str, def: [f64; N]) -> R<[f64; N]> {
        self.arr_min(k, def, N)
    }
    /// At least `min` numbers; the missing tail keeps `def`.
    /// A partial value overwrites only the leading entries of the class default (MuJoCo).
    fn arr_min<const N: usize>(&self, k: &str, def: [f64; N], min: usize) -> R<[f64; N]> {
        let mut out = def;
        if self.own(k) {
            if let Some(d) = self.dflt.filter(|d| d.contains_key(k)) {
                let only_default = A {
                    el: d.get(k).map(|(_, e)| *e).unwrap_or(self.el),
                    dflt: None,
                };

                if let Some(v) = only_default.vec(k, min, N)? {
                    out[..v.len()].copy_from_slice(&v);
                }
            }
        }
        if let Some(v) = self.vec(k, min, N)? {
            out[..v.len()].copy_from_slice(&v);
        }
        Ok(out)
    }
    fn f64(&self, k: &str) -> R<Option<f64>> {
        Ok(self.vec(k, 1, 1)?.map(|v| v[0]))
    }
    fn f64_or(&self, k: &str, d: f64) -> R<f64> {
        Ok(self.f64(k)?.unwrap_or(d))
    }
    fn int(&self, k: &str) -> R<Option<i64>> {
        let Some((v, e)) = self.raw(k) else {
            return Ok(None);
        };
        v.trim().parse::<i64>().map(Some).map_err(|_| {
            e.err(
                ErrorKind::BadNumber,
                Some(k),
                format!("'{v}' is not an integer"),
            )
        })
    }
    fn int_or(&self, k: &str, d: i64) -> R<i64> {
        Ok(self.int(k)?.unwrap_or(d))
    }
    fn bool(&self, k: &str) -> R<Option<bool>> {
        match self.str(k) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(v) => Err(self.err(
                ErrorKind::InvalidValue,
                k,
                format!("'{v}' is not 'true' or 'false'"),
            )),
        }
    }
    fn keyword<T: Copy>(&self, k: &str, table: &[(&str, T)]) -> R<Option<T>> {
        match self.str(k) {
            None => Ok(None),
            Some(v) => table
                .iter()
                .find(|(n, _)| *n == v)
                .map(|(_, t)| Some(*t))
                .ok_or_else(|| {
                    let names: Vec<&str> = table.iter().map(|x| x.0).collect();
                    self.err(
                        ErrorKind::InvalidValue,
                        k,
                        format!("'{v}' is not one of {}", names.join(", ")),
                    )
                }),
        }
    }
    /// "true" / "false" / "auto" -> Some(true) / Some(false) / None.
    fn tristate(&self, k: &str) -> R<Option<bool>> {
        match self.str(k) {
            Some("auto") | None => Ok(None),
            _ => self.bool(k),
        }
    }
    fn name(&self) -> String {
        self.el.attr("name").unwrap_or("").to_string()
    }
}

// ------------------------------------------------------------------------------ compiler options

#[derive(Clone, Copy, PartialEq, Eq)]
enum InertiaFromGeom {
    False,
    True,
    Auto,
}

struct Compiler {
    degree: bool,
    eulerseq: [u8; 3],
    autolimits: bool,
    inertiafromgeom: InertiaFromGeom,
    inertiagrouprange: [i64; 2],
    boundmass: f64,
    boundinertia: f64,
    settotalmass: f64,
    meshdir: String,
}

impl Compiler {
    fn angle(&self, x: f64) -> f64 {
        if self.degree {
            x * std::f64::consts::PI / 180.0
        } else {
            x
        }
    }
}

fn read_compiler(root: &Elem) -> R<Compiler> {
    let mut c = Compiler {
        degree: true,
        eulerseq: *b"xyz",
        autolimits: true,
        inertiafromgeom: InertiaFromGeom::Auto,
        inertiagrouprange: [0, 5],
        boundmass: 0.0,
        boundinertia: 0.0,
        settotalmass: -1.0,
        meshdir: String::new(),
    };
    let mut assetdir = None;
    let mut meshdir = None;
    for el in root.children.iter().filter(|e| e.name == "compiler") {
        let a = A::new(el);
        if let Some(d) = a.keyword("angle", &[("degree", true), ("radian", false)])? {
            c.degree = d;
        }
        if let Some(s) = a.str("eulerseq") {
            let b = s.as_bytes();
            if b.len() != 3 || !b.iter().all(|x| b"xyzXYZ".contains(x)) {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "eulerseq",
                    "must be 3 characters from xyzXYZ",
                ));
            }
            c.eulerseq = [b[0], b[1], b[2]];
        }
        if let Some(v) = a.bool("autolimits")? {
            c.autolimits = v;
        }
        if let Some(v) = a.keyword(
            "inertiafromgeom",
            &[
                ("false", InertiaFromGeom::False),
                ("true", InertiaFromGeom::True),
                ("auto", InertiaFromGeom::Auto),
            ],
        )? {
            c.inertiafromgeom = v;
        }
        if let Some(v) = a.vec("inertiagrouprange", 2, 2)? {
            if v.iter().any(|x| x.fract() != 0.0) {
                return Err(a.err(ErrorKind::BadNumber, "inertiagrouprange", "need integers"));
            }
            c.inertiagrouprange = [v[0] as i64, v[1] as i64];
        }
        c.boundmass = a.f64_or("boundmass", c.boundmass)?;
        c.boundinertia = a.f64_or("boundinertia", c.boundinertia)?;
        c.settotalmass = a.f64_or("settotalmass", c.settotalmass)?;
        if let Some(v) = a.str("meshdir") {
            meshdir = Some(v.to_string());
        }
        if let Some(v) = a.str("assetdir") {
            assetdir = Some(v.to_string());
        }
        if a.str("coordinate") == Some("global") {
            return Err(a.err(
                ErrorKind::Unsupported,
                "coordinate",
                "global coordinates were removed from MuJoCo",
            ));
        }
    }
    c.meshdir = meshdir.or(assetdir).unwrap_or_default();
    Ok(c)
}

/// `<compiler><lengthrange>` options used by [`crate::lengthrange::set_length_range`].
pub fn read_lengthrange(root: &Elem) -> R<LengthRangeOpt> {
    let mut o = LengthRangeOpt::default();
    for el in root
        .children
        .iter()
        .filter(|e| e.name == "compiler")
        .flat_map(|c| c.children.iter().filter(|g| g.name == "lengthrange"))
    {
        let a = A::new(el);
        if let Some(v) = a.keyword(
            "mode",
            &[
                ("none", LengthRangeMode::None),
                ("muscle", LengthRangeMode::Muscle),
                ("muscleuser", LengthRangeMode::MuscleUser),
                ("all", LengthRangeMode::All),
            ],
        )? {
            o.mode = v;
        }
        if let Some(v) = a.bool("useexisting")? {
            o.useexisting = v;
        }
        if let Some(v) = a.bool("uselimit")? {
            o.uselimit = v;
        }
        for (k, dst) in [
            ("accel", &mut o.accel),
            ("maxforce", &mut o.maxforce),
            ("timeconst", &mut o.timeconst),
            ("timestep", &mut o.timestep),
            ("inttotal", &mut o.inttotal),
            ("interval", &mut o.interval),
            ("tolrange", &mut o.tolrange),
        ] {
            if let Some(v) = a.f64(k)? {
                if !v.is_finite() || v < 0.0 {
                    return Err(a.err(ErrorKind::InvalidValue, k, "must be finite and >= 0"));
                }
                *dst = v;
            }
        }
    }
    Ok(o)
}

fn read_option(root: &Elem, o: &mut Options) -> R<()> {
    for el in root.children.iter().filter(|e| e.name == "option") {
        let a = A::new(el);
        o.timestep = a.f64_or("timestep", o.timestep)?;
        o.impratio = a.f64_or("impratio", o.impratio)?;
        o.tolerance = a.f64_or("tolerance", o.tolerance)?;
        o.ls_tolerance = a.f64_or("ls_tolerance", o.ls_tolerance)?;
        o.noslip_tolerance = a.f64_or("noslip_tolerance", o.noslip_tolerance)?;
        o.ccd_tolerance = a.f64_or("ccd_tolerance", o.ccd_tolerance)?;
        o.gravity = a.arr("gravity", o.gravity)?;
        o.wind = a.arr("wind", o.wind)?;
        o.magnetic = a.arr("magnetic", o.magnetic)?;
        o.density = a.f64_or("density", o.density)?;
        o.viscosity = a.f64_or("viscosity", o.viscosity)?;
        o.o_margin = a.f64_or("o_margin", o.o_margin)?;
        o.o_solref = a.arr("o_solref", o.o_solref)?;
        o.o_solimp = a.arr_min("o_solimp", o.o_solimp, 1)?;
        o.o_friction = a.arr_min("o_friction", o.o_friction, 1)?;
        if let Some(v) = a.keyword(
            "integrator",
            &[
                ("Euler", Some(Integrator::Euler)),
                ("RK4", Some(Integrator::Rk4)),
                ("implicit", Some(Integrator::Implicit)),
                ("implicitfast", Some(Integrator::ImplicitFast)),
                ("discrete", None),
            ],
        )? {
            o.integrator = v.ok_or_else(|| {
                a.err(
                    ErrorKind::Unsupported,
                    "integrator",
                    "the discrete integrator is not supported",
                )
            })?;
        }
        if let Some(v) = a.keyword(
            "cone",
            &[("pyramidal", Cone::Pyramidal), ("elliptic", Cone::Elliptic)],
        )? {
            o.cone = v;
        }
        if let Some(v) = a.keyword(
            "jacobian",
            &[
                ("dense", JacobianType::Dense),
                ("sparse", JacobianType::Sparse),
                ("auto", JacobianType::Auto),
            ],
        )? {
            o.jacobian = v;
        }
        if let Some(v) = a.keyword(
            "solver",
            &[
                ("PGS", SolverType::Pgs),
                ("CG", SolverType::Cg),
                ("Newton", SolverType::Newton),
            ],
        )? {
            o.solver = v;
        }
        let count = |k: &str, d: usize| -> R<usize> {
            let v = a.int_or(k, d as i64)?;
            usize::try_from(v).map_err(|_| a.err(ErrorKind::InvalidValue, k, "must be >= 0"))
        };
        o.iterations = count("iterations", o.iterations)?;
        o.ls_iterations = count("ls_iterations", o.ls_iterations)?;
        o.noslip_iterations = count("noslip_iterations", o.noslip_iterations)?;
        o.ccd_iterations = count("ccd_iterations", o.ccd_iterations)?;
        if o.timestep <= 0.0 {
            return Err(a.err(ErrorKind::InvalidValue, "timestep", "must be positive"));
        }
        for f in el.children.iter().filter(|c| c.name == "flag") {
            let fa = A::new(f);
            for &(name, enable, bit) in super::schema::FLAGS {
                if let Some(on) = fa.keyword(name, &[("enable", true), ("disable", false)])? {
                    let flags = if enable {
                        &mut o.enableflags
                    } else {
                        &mut o.disableflags
                    };
                    // disable bits are set when the feature is disabled
                    if on == enable {
                        *flags |= bit;
                    } else {
                        *flags &= !bit;
                    }
                }
            }
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------------ defaults

const DEFAULT_KINDS: &[&str] = &[
    "joint", "geom", "site", "camera", "tendon", "mesh", "pair", "equality", "material",
];

struct Class<'a> {
    maps: HashMap<&'static str, AttrMap<'a>>,
    /// Actuator default elements of this class and its ancestors, in order.
    acts: Vec<&'a Elem>,
}

struct Defaults<'a> {
    classes: Vec<Class<'a>>,
    index: HashMap<String, usize>,
    empty: AttrMap<'a>,
}

impl<'a> Defaults<'a> {
    fn build(root: &'a Elem) -> R<Self> {
        let mut d = Defaults {
            classes: vec![Class {
                maps: HashMap::new(),
                acts: Vec::new(),
            }],
            index: HashMap::from([("main".to_string(), 0)]),
            empty: HashMap::new(),
        };
        for el in root.children.iter().filter(|e| e.name == "default") {
            // a top-level default is class "main" (its class attribute may rename it)
            if let Some(c) = el.attr("class") {
                if c != "main" {
                    d.index.insert(c.to_string(), 0);
                }
            }
            d.fill(el, 0)?;
        }
        Ok(d)
    }
    fn fill(&mut self, el: &'a Elem, id: usize) -> R<()> {
        for c in &el.children {
            if let Some(&kind) = DEFAULT_KINDS.iter().find(|k| **k == c.name) {
                let map = self.classes[id].maps.entry(kind).or_default();
                for (k, v) in &c.attrs {
                    map.insert(k.as_str(), (v.as_str(), c));
                }
            } else if super::schema::actuator_extra(&c.name).is_some() {
                self.classes[id].acts.push(c);
            }
        }
        for c in el.children.iter().filter(|c| c.name == "default") {
            let name = c.attr("class").unwrap_or("");
            if self.index.contains_key(name) {
                return Err(c.err(
                    ErrorKind::DuplicateName,
                    Some("class"),
                    format!("repeated default class '{name}'"),
                ));
            }
            let child = Class {
                maps: self.classes[id].maps.clone(),
                acts: self.classes[id].acts.clone(),
            };
            self.classes.push(child);
            let cid = self.classes.len() - 1;
            self.index.insert(name.to_string(), cid);
            self.fill(c, cid)?;
        }
        Ok(())
    }
    /// Class id of an element given the inherited childclass.
    fn class_of(&self, el: &Elem, inherited: usize) -> R<usize> {
        match el.attr("class") {
            None => Ok(inherited),
            Some(c) => self.index.get(c).copied().ok_or_else(|| {
                el.err(
                    ErrorKind::BadReference,
                    Some("class"),
                    format!("unknown default class '{c}'"),
                )
            }),
        }
    }
    fn map(&self, class: usize, kind: &str) -> &AttrMap<'a> {
        self.classes[class].maps.get(kind).unwrap_or(&self.empty)
    }
    fn reader(&'a self, el: &'a Elem, class: usize, kind: &str) -> A<'a> {
        A::with(el, self.map(class, kind))
    }
}

// ------------------------------------------------------------------------------ orientation

/// Reads the orientation attributes of `a` (element first, then defaults). None if absent.
fn orientation(a: &A, comp: &Compiler) -> R<Option<Q>> {
    let keys = ["quat", "axisangle", "xyaxes", "zaxis", "euler"];
    let own: Vec<&str> = keys.iter().copied().filter(|k| a.own(k)).collect();
    let given: Vec<&str> = if own.is_empty() {
        keys.iter().copied().filter(|k| a.has(k)).collect()
    } else {
        own
    };
    if given.len() > 1 {
        return Err(a.err(
            ErrorKind::InvalidValue,
            given[1],
            format!("multiple orientation specifiers ({})", given.join(", ")),
        ));
    }
    let Some(&k) = given.first() else {
        return Ok(None);
    };
    let bad = |msg: &str| a.err(ErrorKind::InvalidValue, k, msg.to_string());
    let q = match k {
        "quat" => {
            let v = a.arr("quat", [0.0; 4])?;
            qnormalize(v).ok_or_else(|| bad("zero quaternion"))?
        }
        "axisangle" => {
            let v = a.arr("axisangle", [0.0; 4])?;
            let ax = normalize([v[0], v[1], v[2]]).ok_or_else(|| bad("zero axis"))?;
            axis_angle(ax, comp.angle(v[3]))
        }
        "xyaxes" => {
            let v = a.arr("xyaxes", [0.0; 6])?;
            let x = normalize([v[0], v[1], v[2]]).ok_or_else(|| bad("zero x axis"))?;
            let y = [v[3], v[4], v[5]];
            let y = normalize(sub(y, scl(x, dot(x, y))))
                .ok_or_else(|| bad("y axis parallel to x axis"))?;
            let z = cross(x, y);
            m2q(&from_cols(x, y, z))
        }
        "zaxis" => {
            let v = a.arr("zaxis", [0.0; 3])?;
            z_to(normalize(v).ok_or_else(|| bad("zero z axis"))?)
        }
        _ => {
            let v = a.arr("euler", [0.0; 3])?;
            let mut q = QID;
            for (i, &c) in comp.eulerseq.iter().enumerate() {
                let axis = match c.to_ascii_lowercase() {
                    b'x' => [1.0, 0.0, 0.0],
                    b'y' => [0.0, 1.0, 0.0],
                    _ => [0.0, 0.0, 1.0],
                };
                let r = axis_angle(axis, comp.angle(v[i]));
                q = if c.is_ascii_lowercase() {
                    qmul(q, r)
                } else {
                    qmul(r, q)
                };
            }
            q
        }
    };
    Ok(Some(q))
}

// ------------------------------------------------------------------------------ geometry

const GEOM_TYPES: &[(&str, GeomType)] = &[
    ("plane", GeomType::Plane),
    ("hfield", GeomType::Hfield),
    ("sphere", GeomType::Sphere),
    ("capsule", GeomType::Capsule),
    ("ellipsoid", GeomType::Ellipsoid),
    ("cylinder", GeomType::Cylinder),
    ("box", GeomType::Box),
    ("mesh", GeomType::Mesh),
    ("sdf", GeomType::Sdf),
];

/// Position, orientation and size of a geom or site, with `fromto` handled.
fn placement(a: &A, comp: &Compiler, t: GeomType, mut size: V3) -> R<(V3, Q, V3)> {
    if a.own("fromto") {
        let f = a.arr("fromto", [0.0; 6])?;
        let (p1, p2) = ([f[0], f[1], f[2]], [f[3], f[4], f[5]]);
        let d = sub(p1, p2);
        let len = norm(d);
        if len < MINVAL {
            return Err(a.err(ErrorKind::InvalidValue, "fromto", "points coincide"));
        }
        let q = z_to(scl(d, 1.0 / len));
        match t {
            GeomType::Capsule | GeomType::Cylinder => size[1] = len / 2.0,
            GeomType::Box | GeomType::Ellipsoid => {
                size[1] = size[0];
                size[2] = len / 2.0;
            }
            _ => {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "fromto",
                    "fromto needs a capsule, cylinder, box or ellipsoid",
                ))
            }
        }
        return Ok((scl(add(p1, p2), 0.5), q, size));
    }
    let pos = a.arr("pos", [0.0; 3])?;
    let q = orientation(a, comp)?.unwrap_or(QID);
    Ok((pos, q, size))
}

/// Volume (or area when shell) and principal inertia per unit mass of a primitive.
fn primitive_inertia(t: GeomType, s: V3, shell: bool) -> (f64, V3) {
    use std::f64::consts::PI;
    match t {
        GeomType::Sphere => {
            let r = s[0];
            if shell {
                let i = 2.0 / 3.0 * r * r;
                (4.0 * PI * r * r, [i; 3])
            } else {
                let i = 0.4 * r * r;
                (4.0 / 3.0 * PI * r * r * r, [i; 3])
            }
        }
        GeomType::Capsule => {
            let (r, h) = (s[0], s[1]);
            let l = 2.0 * h;
            if shell {
                // cylinder shell (side) + sphere shell (two caps)
                let ac = 2.0 * PI * r * l;
                let asph = 4.0 * PI * r * r;
                let a = ac + asph;
                let (mc, ms) = (ac / a, asph / a);
                let iz = mc * r * r + ms * 2.0 / 3.0 * r * r;
                // hemispherical shells: 2/3 m r^2 about the base, COM r/2 from the base
                let ixy =
                    mc * (r * r / 2.0 + l * l / 12.0) + ms * (2.0 / 3.0 * r * r + h * h + h * r);
                (a, [ixy, ixy, iz])
            } else {
                let vc = PI * r * r * l;
                let vs = 4.0 / 3.0 * PI * r * r * r;
                let v = vc + vs;
                let (mc, ms) = (vc / v, vs / v);
                let iz = mc * r * r / 2.0 + ms * 0.4 * r * r;
                let ixy = mc * (3.0 * r * r + l * l) / 12.0
                    + ms * 0.4 * r * r
                    + ms * l * (3.0 * r + 2.0 * l) / 8.0;
                (v, [ixy, ixy, iz])
            }
        }
        GeomType::Cylinder => {
            let (r, h) = (s[0], s[1]);
            let l = 2.0 * h;
            if shell {
                let aside = 2.0 * PI * r * l;
                let acap = 2.0 * PI * r * r;
                let a = aside + acap;
                let (ms, mc) = (aside / a, acap / a);
                let iz = ms * r * r + mc * r * r / 2.0;
                let ixy = ms * (r * r / 2.0 + l * l / 12.0) + mc * (r * r / 4.0 + h * h);
                (a, [ixy, ixy, iz])
            } else {
                let ixy = (3.0 * r * r + l * l) / 12.0;
                (PI * r * r * l, [ixy, ixy, r * r / 2.0])
            }
        }
        GeomType::Ellipsoid => {
            let (a, b, c) = (s[0], s[1], s[2]);
            if shell {
                // Thomsen's approximation of the surface area; inertia of a thin shell
                let p = 1.6075;
                let area = 4.0
                    * PI
                    * (((a * b).powf(p) + (a * c).powf(p) + (b * c).powf(p)) / 3.0).powf(1.0 / p);
                (
                    area,
                    [
                        (b * b + c * c) / 3.0,
                        (a * a + c * c) / 3.0,
                        (a * a + b * b) / 3.0,
                    ],
                )
            } else {
                (
                    4.0 / 3.0 * PI * a * b * c,
                    [
                        (b * b + c * c) / 5.0,
                        (a * a + c * c) / 5.0,
                        (a * a + b * b) / 5.0,
                    ],
                )
            }
        }
        GeomType::Box => {
            let (a, b, c) = (2.0 * s[0], 2.0 * s[1], 2.0 * s[2]);
            if shell {
                let (x, y, z) = (s[0], s[1], s[2]);
                let area = 8.0 * (x * y + y * z + z * x);
                // faces: pairs perpendicular to x (area 4yz at distance x), etc.
                let (ax, ay, az) = (8.0 * y * z, 8.0 * x * z, 8.0 * x * y);
                let ix = ax * (y * y + z * z) / 3.0
                    + ay * (z * z / 3.0 + y * y)
                    + az * (y * y / 3.0 + z * z);
                let iy = ay * (x * x + z * z) / 3.0
                    + ax * (z * z / 3.0 + x * x)
                    + az * (x * x / 3.0 + z * z);
                let iz = az * (x * x + y * y) / 3.0
                    + ax * (y * y / 3.0 + x * x)
                    + ay * (x * x / 3.0 + y * y);
                let (ix, iy, iz) = (ix / area, iy / area, iz / area);
                (area, [ix, iy, iz])
            } else {
                (
                    a * b * c,
                    [
                        (b * b + c * c) / 12.0,
                        (a * a + c * c) / 12.0,
                        (a * a + b * b) / 12.0,
                    ],
                )
            }
        }
        _ => (0.0, [0.0; 3]),
    }
}

fn rbound_aabb(t: GeomType, s: V3) -> (f64, [f64; 6]) {
    match t {
        GeomType::Sphere => (s[0], [0.0, 0.0, 0.0, s[0], s[0], s[0]]),
        GeomType::Capsule => (s[0] + s[1], [0.0, 0.0, 0.0, s[0], s[0], s[0] + s[1]]),
        GeomType::Cylinder => (
            (s[0] * s[0] + s[1] * s[1]).sqrt(),
            [0.0, 0.0, 0.0, s[0], s[0], s[1]],
        ),
        GeomType::Ellipsoid => (s[0].max(s[1]).max(s[2]), [0.0, 0.0, 0.0, s[0], s[1], s[2]]),
        GeomType::Box => (norm(s), [0.0, 0.0, 0.0, s[0], s[1], s[2]]),
        GeomType::Plane => (0.0, [0.0, 0.0, -5e9, 1e10, 1e10, 5e9]),
        _ => (0.0, [0.0; 6]),
    }
}

// ------------------------------------------------------------------------------ meshes

struct MeshInfo {
    /// Volume (or area for shell meshes).
    measure: f64,
    /// Principal inertia per unit density.
    inertia: V3,
    aabb: [f64; 6],
    size: V3,
    rbound: f64,
}

fn compile_meshes(
    root: &Elem,
    defs: &Defaults,
    comp: &Compiler,
    files: &FileSource,
    m: &mut Model,
) -> R<Vec<MeshInfo>> {
    let mut infos = Vec::new();
    for asset in root.children.iter().filter(|e| e.name == "asset") {
        for el in asset.children.iter().filter(|e| e.name == "mesh") {
            let class = defs.class_of(el, 0)?;
            let a = defs.reader(el, class, "mesh");
            let file = a.str("file");
            let name = match (el.attr("name"), file) {
                (Some(n), _) => n.to_string(),
                (None, Some(f)) => {
                    let base = f.rsplit(['/', '\\']).next().unwrap_or(f);
                    base.rsplit_once('.')
                        .map(|(s, _)| s)
                        .unwrap_or(base)
                        .to_string()
                }
                (None, None) => String::new(),
            };
            if !name.is_empty() && m.mesh.iter().any(|x| x.name == name) {
                return Err(el.err(
                    ErrorKind::DuplicateName,
                    Some("name"),
                    format!("repeated mesh name '{name}'"),
                ));
            }
            let (mut verts, mut faces) = if let Some(f) = file {
                let bytes = files.read(f, &comp.meshdir).ok_or_else(|| {
                    a.err(
                        ErrorKind::MissingFile,
                        "file",
                        format!("cannot find mesh file '{f}'"),
                    )
                })?;
                mesh::read_mesh_file(f, &bytes)
                    .map_err(|e| a.err(ErrorKind::InvalidValue, "file", e))?
            } else {
                (Vec::new(), Vec::new())
            };
            if let Some(v) = a.nums("vertex")? {
                if file.is_some() {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "vertex",
                        "both a file and inline vertices",
                    ));
                }
                if v.len() % 3 != 0 {
                    return Err(a.err(ErrorKind::WrongCount, "vertex", "need a multiple of 3"));
                }
                // MuJoCo keeps user vertices as float32
                verts = v
                    .chunks(3)
                    .map(|c| [c[0] as f32 as f64, c[1] as f32 as f64, c[2] as f32 as f64])
                    .collect();
            }
            if let Some(fs) = a.str("face") {
                let mut idx = Vec::new();
                for t in fs.split_whitespace() {
                    let k: usize = t.parse().map_err(|_| {
                        a.err(
                            ErrorKind::BadNumber,
                            "face",
                            format!("'{t}' is not an index"),
                        )
                    })?;
                    if k >= verts.len() {
                        return Err(a.err(ErrorKind::InvalidValue, "face", "index out of range"));
                    }
                    idx.push(k);
                }
                if idx.len() % 3 != 0 {
                    return Err(a.err(ErrorKind::WrongCount, "face", "need a multiple of 3"));
                }
                faces = idx.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
            }
            if verts.len() < 4 {
                return Err(el.err(
                    ErrorKind::InvalidValue,
                    None,
                    "a mesh needs at least 4 vertices",
                ));
            }
            let scale = a.arr("scale", [1.0; 3])?;
            let refpos = a.arr("refpos", [0.0; 3])?;
            let refquat = qnormalize(a.arr("refquat", QID)?)
                .ok_or_else(|| a.err(ErrorKind::InvalidValue, "refquat", "zero quaternion"))?;
            // mesh vertices are float32 in MuJoCo
            let f32r = |v: V3| [v[0] as f32 as f64, v[1] as f32 as f64, v[2] as f32 as f64];
            for v in &mut verts {
                let s = [v[0] * scale[0], v[1] * scale[1], v[2] * scale[2]];
                *v = qrot(qconj(refquat), sub(s, refpos));
            }
            // a negative scale determinant flips the faces
            if scale[0] * scale[1] * scale[2] < 0.0 {
                for f in &mut faces {
                    f.swap(1, 2);
                }
            }
            if faces.is_empty() {
                faces = mesh::convex_hull(&verts).ok_or_else(|| {
                    el.err(ErrorKind::InvalidValue, None, "mesh vertices are coplanar")
                })?;
            }
            let mode = a
                .keyword(
                    "inertia",
                    &[
                        ("convex", MeshInertia::Convex),
                        ("exact", MeshInertia::Exact),
                        ("legacy", MeshInertia::Legacy),
                        ("shell", MeshInertia::Shell),
                    ],
                )?
                .unwrap_or(MeshInertia::Legacy);
            let (measure, com, inertia) = mesh::mass_props(&verts, &faces, mode)
                .map_err(|e| el.err(ErrorKind::InvalidValue, None, e))?;
            let (eig, quat) = eig3(&scl3(&inertia, 1.0 / measure));
            let rt = transpose(&q2m(quat));
            let mut lo = [f64::INFINITY; 3];
            let mut hi = [f64::NEG_INFINITY; 3];
            // sizes and bounding box from the double-precision vertices in the mesh frame; the
            // stored vertices are rounded to float32 as MuJoCo's mesh_vert
            for v in &mut verts {
                let w = mv(&rt, sub(*v, com));
                for k in 0..3 {
                    lo[k] = lo[k].min(w[k]);
                    hi[k] = hi[k].max(w[k]);
                }
                *v = f32r(w);
            }
            // geom size: largest |coordinate| per axis; rbound: its norm
            let size = [0, 1, 2].map(|k| lo[k].abs().max(hi[k].abs()));
            let rbound = norm(size);
            let c = scl(add(lo, hi), 0.5);
            let h = scl(sub(hi, lo), 0.5);
            infos.push(MeshInfo {
                measure,
                inertia: scl(eig, measure),
                aabb: [c[0], c[1], c[2], h[0], h[1], h[2]],
                size,
                rbound,
            });
            let mut mesh = Mesh {
                name,
                vert: verts,
                face: faces,
                pos: com,
                quat,
                ..Default::default()
            };
            mesh.build_polygons();
            m.mesh.push(mesh);
        }
    }
    m.nmesh = m.mesh.len();
    Ok(infos)
}

fn scl3(a: &M3, s: f64) -> M3 {
    let mut r = *a;
    for row in &mut r {
        for x in row.iter_mut() {
            *x *= s;
        }
    }
    r
}

/// `<asset><material>`: name and `rgba` (with default classes); the other (visual) attributes
/// are accepted and ignored. Only the alpha is used ([`crate::ray::ray`]).
fn compile_materials(root: &Elem, defs: &Defaults, m: &mut Model) -> R<()> {
    for asset in root.children.iter().filter(|e| e.name == "asset") {
        for el in asset.children.iter().filter(|e| e.name == "material") {
            let cls = defs.class_of(el, 0)?;
            let a = defs.reader(el, cls, "material");
            let name = a.name();
            dup(&m.mat_name, &name, el, "material")?;
            m.mat_name.push(name);
            m.mat_rgba.push(a.arr("rgba", [1.0; 4])?);
        }
    }
    m.nmat = m.mat_name.len();
    Ok(())
}

fn compile_hfields(root: &Elem, files: &FileSource, comp: &Compiler, m: &mut Model) -> R<()> {
    for asset in root.children.iter().filter(|e| e.name == "asset") {
        for el in asset.children.iter().filter(|e| e.name == "hfield") {
            let a = A::new(el);
            let name = a.name();
            if !name.is_empty() && m.hfield.iter().any(|h| h.name == name) {
                return Err(el.err(
                    ErrorKind::DuplicateName,
                    Some("name"),
                    format!("repeated hfield name '{name}'"),
                ));
            }
            let size = a.arr("size", [0.0; 4]).and_then(|s| {
                if a.has("size") {
                    Ok(s)
                } else {
                    Err(a.err(ErrorKind::InvalidValue, "size", "hfield size is required"))
                }
            })?;
            if size.iter().any(|&x| x <= 0.0) {
                return Err(a.err(ErrorKind::InvalidValue, "size", "sizes must be positive"));
            }
            let mut nrow = a.int_or("nrow", 0)?;
            let mut ncol = a.int_or("ncol", 0)?;
            let mut data: Vec<f64>;
            if let Some(f) = a.str("file") {
                let bytes = files.read(f, &comp.meshdir).ok_or_else(|| {
                    a.err(
                        ErrorKind::MissingFile,
                        "file",
                        format!("cannot find hfield file '{f}'"),
                    )
                })?;
                // MuJoCo's custom binary format: int32 nrow, int32 ncol, float32 data
                let bad = || {
                    a.err(
                        ErrorKind::InvalidValue,
                        "file",
                        "not a binary hfield (.bin) file",
                    )
                };
                if !f.to_ascii_lowercase().ends_with(".bin") || bytes.len() < 8 {
                    return Err(a.err(
                        ErrorKind::Unsupported,
                        "file",
                        "only MuJoCo's binary hfield format is supported",
                    ));
                }
                let nr = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                let nc = i32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
                if nr <= 0 || nc <= 0 {
                    return Err(bad());
                }
                let n = (nr as usize).checked_mul(nc as usize).ok_or_else(bad)?;
                if bytes.len() != 8 + 4 * n {
                    return Err(bad());
                }
                data = bytes[8..]
                    .chunks(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
                    .collect();
                nrow = nr as i64;
                ncol = nc as i64;
                // file rows are stored top to bottom like the elevation attribute
                flip_rows(&mut data, nrow as usize, ncol as usize);
            } else {
                if nrow < 1 || ncol < 1 {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "nrow",
                        "nrow and ncol must be positive without a file",
                    ));
                }
                let n = (nrow as usize).saturating_mul(ncol as usize);
                if n > 100_000_000 {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "nrow",
                        "height field is too large",
                    ));
                }
                data = match a.nums("elevation")? {
                    Some(v) => {
                        if v.len() != n {
                            return Err(a.err(
                                ErrorKind::WrongCount,
                                "elevation",
                                format!("expected nrow*ncol = {n} numbers, got {}", v.len()),
                            ));
                        }
                        v
                    }
                    None => vec![0.0; n],
                };
                flip_rows(&mut data, nrow as usize, ncol as usize);
            }
            let lo = data.iter().cloned().fold(f64::INFINITY, f64::min);
            let hi = data.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            if hi > lo {
                for x in &mut data {
                    // hfield_data is float32 in MuJoCo
                    *x = ((*x - lo) / (hi - lo)) as f32 as f64;
                }
            } else {
                data.iter_mut().for_each(|x| *x = 0.0);
            }
            m.hfield.push(Hfield {
                name,
                size,
                nrow: nrow as usize,
                ncol: ncol as usize,
                data,
            });
        }
    }
    m.nhfield = m.hfield.len();
    Ok(())
}

fn flip_rows(d: &mut [f64], nrow: usize, ncol: usize) {
    for r in 0..nrow / 2 {
        for c in 0..ncol {
            d.swap(r * ncol + c, (nrow - 1 - r) * ncol + c);
        }
    }
}

// ------------------------------------------------------------------------------ kinematic tree

/// Mass properties a geom contributes to its body (geom frame, principal diagonal).
struct GeomMass {
    mass: f64,
    inertia: V3,
    pos: V3,
    quat: Q,
}

enum Item<'a> {
    Body,
    Joint,
    FreeJoint,
    Geom,
    Site,
    Camera,
    Inertial,
    #[allow(dead_code)]
    Other(&'a Elem),
}

struct Placed<'a> {
    el: &'a Elem,
    kind: Item<'a>,
    class: usize,
    fpos: V3,
    fquat: Q,
}

struct Builder<'a> {
    defs: &'a Defaults<'a>,
    comp: &'a Compiler,
    m: Model,
    meshes: Vec<MeshInfo>,
    /// World pose of each body at qpos0.
    xpos: Vec<V3>,
    xquat: Vec<Q>,
    /// Per body: (explicit inertial given, contributing geom masses).
    inertial: Vec<Option<(f64, V3, Q, V3)>>,
    geom_mass: Vec<Vec<GeomMass>>,
    body_el: Vec<Option<&'a Elem>>,
    /// Per camera: the `target` body name and its element (resolved after the tree).
    cam_target: Vec<Option<(&'a str, &'a Elem)>>,
}

fn frame_pose(el: &Elem, comp: &Compiler) -> R<(V3, Q)> {
    let a = A::new(el);
    Ok((
        a.arr("pos", [0.0; 3])?,
        orientation(&a, comp)?.unwrap_or(QID),
    ))
}

fn collect<'a>(
    el: &'a Elem,
    class: usize,
    fpos: V3,
    fquat: Q,
    defs: &Defaults,
    comp: &Compiler,
    out: &mut Vec<Placed<'a>>,
) -> R<()> {
    for c in &el.children {
        let kind = match c.name.as_str() {
            "frame" => {
                let cc = match c.attr("childclass") {
                    Some(_) => childclass(c, defs)?,
                    None => class,
                };
                let (p, q) = frame_pose(c, comp)?;
                let (p2, q2) = compose(fpos, fquat, p, q);
                collect(c, cc, p2, q2, defs, comp, out)?;
                continue;
            }
            "body" => Item::Body,
            "joint" => Item::Joint,
            "freejoint" => Item::FreeJoint,
            "geom" => Item::Geom,
            "site" => Item::Site,
            "camera" => Item::Camera,
            "inertial" => Item::Inertial,
            _ => Item::Other(c),
        };
        out.push(Placed {
            el: c,
            kind,
            class,
            fpos,
            fquat,
        });
    }
    Ok(())
}

fn childclass(el: &Elem, defs: &Defaults) -> R<usize> {
    let c = el.attr("childclass").unwrap_or("main");
    defs.index.get(c).copied().ok_or_else(|| {
        el.err(
            ErrorKind::BadReference,
            Some("childclass"),
            format!("unknown default class '{c}'"),
        )
    })
}

fn dup(names: &[String], name: &str, el: &Elem, what: &str) -> R<()> {
    if !name.is_empty() && names.iter().any(|n| n == name) {
        return Err(el.err(
            ErrorKind::DuplicateName,
            Some("name"),
            format!("repeated {what} name '{name}'"),
        ));
    }
    Ok(())
}

impl<'a> Builder<'a> {
    fn body(&mut self, el: &'a Elem, parent: usize, class: usize, pos: V3, quat: Q) -> R<()> {
        let comp = self.comp;
        let defs = self.defs;
        let id = self.m.body_name.len();
        let is_world = id == 0;
        let a = A::new(el);
        let name = if is_world {
            "world".to_string()
        } else {
            a.name()
        };
        if !is_world {
            dup(&self.m.body_name, &name, el, "body")?;
        }
        let m = &mut self.m;
        m.body_name.push(name);
        m.body_parentid.push(parent);
        m.body_pos.push(pos);
        m.body_quat.push(quat);
        let (xp, xq) = if is_world {
            ([0.0; 3], QID)
        } else {
            compose(self.xpos[parent], self.xquat[parent], pos, quat)
        };
        self.xpos.push(xp);
        self.xquat.push(xq);
        m.body_rootid.push(if parent == 0 {
            id
        } else {
            m.body_rootid[parent]
        });
        m.body_jntadr.push(m.jnt_name.len());
        m.body_dofadr.push(m.nv);
        m.body_geomadr.push(m.geom_name.len());
        m.body_gravcomp.push(if is_world {
            0.0
        } else {
            a.f64_or("gravcomp", 0.0)?
        });
        let mocap = if is_world {
            false
        } else {
            a.bool("mocap")?.unwrap_or(false)
        };
        self.inertial.push(None);
        self.geom_mass.push(Vec::new());
        self.body_el.push(Some(el));

        let cls = if el.attr("childclass").is_some() {
            childclass(el, defs)?
        } else {
            class
        };
        let mut items = Vec::new();
        collect(el, cls, [0.0; 3], QID, defs, comp, &mut items)?;
        let mut njnt = 0;
        let mut ndof = 0;
        for it in &items {
            match it.kind {
                Item::Joint | Item::FreeJoint => {
                    let (nq, nv) = self.joint(it, id)?;
                    njnt += 1;
                    ndof += nv;
                    let _ = nq;
                }
                Item::Geom => self.geom(it, id)?,
                Item::Site => self.site(it, id)?,
                Item::Camera => self.camera(it, id)?,
                Item::Inertial => {
                    if self.inertial[id].is_some() {
                        return Err(it.el.err(
                            ErrorKind::InvalidValue,
                            None,
                            "more than one <inertial> in a body",
                        ));
                    }
                    self.inertial[id] = Some(self.read_inertial(it)?);
                }
                _ => {}
            }
        }
        let m = &mut self.m;
        m.body_jntnum.push(njnt);
        m.body_dofnum.push(ndof);
        m.body_geomnum.push(m.geom_name.len() - m.body_geomadr[id]);
        m.body_weldid.push(if njnt > 0 || is_world || mocap {
            id
        } else {
            m.body_weldid[parent]
        });
        if mocap {
            if parent != 0 || njnt > 0 {
                return Err(el.err(
                    ErrorKind::InvalidValue,
                    Some("mocap"),
                    "mocap bodies must be children of the world and have no joints",
                ));
            }
            m.body_mocapid.push(m.nmocap as i32);
            m.nmocap += 1;
        } else {
            m.body_mocapid.push(-1);
        }
        for it in &items {
            if let Item::Body = it.kind {
                let (p, q) = frame_pose(it.el, comp)?;
                let (p, q) = compose(it.fpos, it.fquat, p, q);
                self.body(it.el, id, it.class, p, q)?;
            }
        }
        Ok(())
    }

    fn read_inertial(&self, it: &Placed) -> R<(f64, V3, Q, V3)> {
        let a = A::new(it.el);
        let mass = a
            .f64("mass")?
            .ok_or_else(|| a.err(ErrorKind::InvalidValue, "mass", "inertial mass is required"))?;
        if mass < 0.0 {
            return Err(a.err(ErrorKind::InvalidValue, "mass", "negative mass"));
        }
        let pos = a.arr("pos", [0.0; 3])?;
        let mut quat = orientation(&a, self.comp)?.unwrap_or(QID);
        let inertia = if let Some(f) = a.vec("fullinertia", 6, 6)? {
            if ["quat", "axisangle", "xyaxes", "zaxis", "euler"]
                .iter()
                .any(|k| a.has(k))
            {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "fullinertia",
                    "fullinertia cannot be combined with an orientation",
                ));
            }
            if a.has("diaginertia") {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "fullinertia",
                    "both fullinertia and diaginertia",
                ));
            }
            let full = [[f[0], f[3], f[4]], [f[3], f[1], f[5]], [f[4], f[5], f[2]]];
            let (eig, frame) = eig3(&full);
            if eig[2] < 0.0 {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "fullinertia",
                    "inertia matrix is not positive semidefinite",
                ));
            }
            quat = qmul(quat, frame);
            eig
        } else if let Some(d) = a.vec("diaginertia", 3, 3)? {
            [d[0], d[1], d[2]]
        } else {
            return Err(a.err(
                ErrorKind::InvalidValue,
                "diaginertia",
                "inertial needs diaginertia or fullinertia",
            ));
        };
        if inertia.iter().any(|&x| x < 0.0) {
            return Err(a.err(ErrorKind::InvalidValue, "diaginertia", "negative inertia"));
        }
        if inertia[0] + inertia[1] < inertia[2] - 1e-12 * (inertia[2].abs() + 1.0)
            || inertia[0] + inertia[2] < inertia[1] - 1e-12 * (inertia[1].abs() + 1.0)
            || inertia[1] + inertia[2] < inertia[0] - 1e-12 * (inertia[0].abs() + 1.0)
        {
            return Err(a.err(
                ErrorKind::InvalidValue,
                "diaginertia",
                "principal inertias violate the triangle inequality",
            ));
        }
        let (p, q) = compose(it.fpos, it.fquat, pos, quat);
        Ok((mass, p, q, inertia))
    }

    /// Adds a joint; returns (nq, nv).
    fn joint(&mut self, it: &Placed, body: usize) -> R<(usize, usize)> {
        let comp = self.comp;
        let free = matches!(it.kind, Item::FreeJoint);
        let cls = self.defs.class_of(it.el, it.class)?;
        let a = if free {
            A::new(it.el)
        } else {
            self.defs.reader(it.el, cls, "joint")
        };
        let name = a.name();
        dup(&self.m.jnt_name, &name, it.el, "joint")?;
        let jt = if free {
            JointType::Free
        } else {
            a.keyword(
                "type",
                &[
                    ("free", JointType::Free),
                    ("ball", JointType::Ball),
                    ("slide", JointType::Slide),
                    ("hinge", JointType::Hinge),
                ],
            )?
            .unwrap_or(JointType::Hinge)
        };
        if body == 0 {
            return Err(it.el.err(
                ErrorKind::InvalidValue,
                None,
                "the world cannot have joints",
            ));
        }
        let pos = a.arr("pos", [0.0; 3])?;
        let axis = normalize(a.arr("axis", [0.0, 0.0, 1.0])?)
            .ok_or_else(|| a.err(ErrorKind::InvalidValue, "axis", "zero axis"))?;
        let (pos, axis) =
            if matches!(jt, JointType::Free | JointType::Ball) && jt == JointType::Free {
                ([0.0; 3], [0.0, 0.0, 1.0])
            } else {
                (add(it.fpos, qrot(it.fquat, pos)), qrot(it.fquat, axis))
            };
        let angular = matches!(jt, JointType::Hinge | JointType::Ball);
        let ang = |x: f64| if angular { comp.angle(x) } else { x };
        let mut range = a.arr("range", [0.0; 2])?;
        let limited = match a.tristate("limited")? {
            Some(l) => l,
            None => comp.autolimits && a.has("range") && range[0] < range[1],
        };
        // MuJoCo converts the range to radians only for limited joints
        if limited {
            range = [ang(range[0]), ang(range[1])];
        }
        if limited && jt == JointType::Free {
            {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "limited",
                    "free joints cannot be limited",
                ));
            }
        }
        let afr = a.arr("actuatorfrcrange", [0.0; 2])?;
        let afl = match a.tristate("actuatorfrclimited")? {
            Some(l) => l,
            None => comp.autolimits && a.has("actuatorfrcrange"),
        };
        let stiff = a.arr_min("stiffness", [0.0; 3], 1)?;
        let damp = a.arr_min("damping", [0.0; 3], 1)?;
        let armature = a.f64_or("armature", 0.0)?;
        let agc = a.bool("actuatorgravcomp")?.unwrap_or(false);
        let frictionloss = a.f64_or("frictionloss", 0.0)?;
        for (k, v) in [
            ("stiffness", stiff[0]),
            ("damping", damp[0]),
            ("armature", armature),
            ("frictionloss", frictionloss),
        ] {
            if v < 0.0 {
                return Err(a.err(ErrorKind::InvalidValue, k, "must be nonnegative"));
            }
        }
        let springdamper = a.arr("springdamper", [0.0; 2])?;
        let reference = ang(a.f64_or("ref", 0.0)?);
        let springref = ang(a.f64_or("springref", 0.0)?);
        let solref_fri = a.arr("solreffriction", DEFAULT_SOLREF)?;
        let solimp_fri = a.arr_min("solimpfriction", DEFAULT_SOLIMP, 1)?;
        let group = a.int_or("group", 0)? as i32;
        let jid = self.m.jnt_name.len();
        let m = &mut self.m;
        m.jnt_name.push(name);
        m.jnt_type.push(jt);
        m.jnt_qposadr.push(m.nq);
        m.jnt_dofadr.push(m.nv);
        m.jnt_bodyid.push(body);
        m.jnt_group.push(group);
        m.jnt_limited.push(limited);
        m.jnt_actfrclimited.push(afl);
        m.jnt_solref.push(a.arr("solreflimit", DEFAULT_SOLREF)?);
        m.jnt_solimp
            .push(a.arr_min("solimplimit", DEFAULT_SOLIMP, 1)?);
        m.jnt_pos.push(pos);
        m.jnt_axis.push(axis);
        m.jnt_stiffness.push(stiff[0]);
        m.jnt_stiffnesspoly.push([stiff[1], stiff[2]]);
        m.jnt_range.push(range);
        m.jnt_actfrcrange.push(afr);
        m.jnt_actgravcomp.push(agc);
        m.jnt_margin.push(a.f64_or("margin", 0.0)?);
        m.jnt_springdamper.push(springdamper);
        let bp = self.m.body_pos[body];
        let bq = self.m.body_quat[body];
        let m = &mut self.m;
        match jt {
            JointType::Free => {
                m.qpos0.extend_from_slice(&bp);
                m.qpos0.extend_from_slice(&bq);
                m.qpos_spring.extend_from_slice(&bp);
                m.qpos_spring.extend_from_slice(&bq);
            }
            JointType::Ball => {
                m.qpos0.extend_from_slice(&QID);
                m.qpos_spring.extend_from_slice(&QID);
            }
            _ => {
                m.qpos0.push(reference);
                m.qpos_spring.push(springref);
            }
        }
        for _ in 0..jt.nv() {
            m.dof_bodyid.push(body);
            m.dof_jntid.push(jid);
            m.dof_solref.push(solref_fri);
            m.dof_solimp.push(solimp_fri);
            m.dof_frictionloss.push(frictionloss);
            m.dof_armature.push(armature);
            m.dof_damping.push(damp[0]);
            m.dof_dampingpoly.push([damp[1], damp[2]]);
        }
        m.nq += jt.nq();
        m.nv += jt.nv();
        Ok((jt.nq(), jt.nv()))
    }

    fn geom(&mut self, it: &Placed, body: usize) -> R<()> {
        let comp = self.comp;
        let cls = self.defs.class_of(it.el, it.class)?;
        let a = self.defs.reader(it.el, cls, "geom");
        let name = a.name();
        dup(&self.m.geom_name, &name, it.el, "geom")?;
        let t = a.keyword("type", GEOM_TYPES)?.unwrap_or(GeomType::Sphere);
        if t == GeomType::Sdf {
            return Err(a.err(ErrorKind::Unsupported, "type", "sdf geoms need plugins"));
        }
        let size = a.arr_min("size", [0.0; 3], 1)?;
        let (mut pos, mut quat, mut size) = placement(&a, comp, t, size)?;
        let mut dataid = -1;
        let mut mesh_measure = None;
        let (mut rbound, mut aabb) = rbound_aabb(t, size);
        match t {
            GeomType::Mesh => {
                let mname = a.str("mesh").ok_or_else(|| {
                    a.err(ErrorKind::InvalidValue, "mesh", "mesh geom needs a mesh")
                })?;
                let mid = self
                    .m
                    .mesh
                    .iter()
                    .position(|x| x.name == mname)
                    .ok_or_else(|| {
                        a.err(
                            ErrorKind::BadReference,
                            "mesh",
                            format!("unknown mesh '{mname}'"),
                        )
                    })?;
                dataid = mid as i32;
                let info = &self.meshes[mid];
                let mesh = &self.m.mesh[mid];
                pos = add(pos, qrot(quat, mesh.pos));
                quat = qmul(quat, mesh.quat);
                size = info.size;
                rbound = info.rbound;
                aabb = info.aabb;
                mesh_measure = Some((info.measure, info.inertia));
            }
            GeomType::Hfield => {
                let hname = a.str("hfield").ok_or_else(|| {
                    a.err(
                        ErrorKind::InvalidValue,
                        "hfield",
                        "hfield geom needs an hfield",
                    )
                })?;
                let hid = self
                    .m
                    .hfield
                    .iter()
                    .position(|x| x.name == hname)
                    .ok_or_else(|| {
                        a.err(
                            ErrorKind::BadReference,
                            "hfield",
                            format!("unknown hfield '{hname}'"),
                        )
                    })?;
                dataid = hid as i32;
                let s = self.m.hfield[hid].size;
                // MuJoCo's hfield geom size: half extents, then (elevation / 2 + base) / 2
                size = [s[0], s[1], 0.25 * s[2] + 0.5 * s[3]];
                rbound = (s[0] * s[0] + s[1] * s[1] + s[2].max(s[3]).powi(2)).sqrt();
                aabb = [
                    0.0,
                    0.0,
                    0.5 * (s[2] - s[3]),
                    s[0],
                    s[1],
                    0.5 * (s[2] + s[3]),
                ];
            }
            GeomType::Plane => {
                if body != 0 && self.m.body_weldid.get(body).is_none() {
                    // checked after joints are known (planes must be static)
                }
            }
            GeomType::Sphere => {
                if size[0] <= 0.0 {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "size",
                        "sphere radius must be positive",
                    ));
                }
            }
            GeomType::Capsule | GeomType::Cylinder => {
                if size[0] <= 0.0 || size[1] <= 0.0 {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "size",
                        "radius and half-length must be positive",
                    ));
                }
            }
            _ => {
                if size.iter().any(|&x| x <= 0.0) {
                    return Err(a.err(
                        ErrorKind::InvalidValue,
                        "size",
                        "all three sizes must be positive",
                    ));
                }
            }
        }
        let (pos, quat) = compose(it.fpos, it.fquat, pos, quat);
        let group = a.int_or("group", 0)?;
        // mass properties
        let density = a.f64_or("density", 1000.0)?;
        let mass_attr = a.f64("mass")?;
        if let Some(mm) = mass_attr {
            if mm < 0.0 {
                return Err(a.err(ErrorKind::InvalidValue, "mass", "negative mass"));
            }
        }
        let shell = a.bool("shellinertia")?.unwrap_or(false);
        let props = match t {
            GeomType::Plane | GeomType::Hfield => None,
            GeomType::Mesh => mesh_measure.map(|(meas, inert)| (meas, scl(inert, 1.0 / meas))),
            _ => Some(primitive_inertia(t, size, shell)),
        };
        if let Some((meas, ipm)) = props {
            let mass = mass_attr.unwrap_or(density * meas);
            let in_group = group >= comp.inertiagrouprange[0] && group <= comp.inertiagrouprange[1];
            if in_group {
                self.geom_mass[body].push(GeomMass {
                    mass,
                    inertia: scl(ipm, mass),
                    pos,
                    quat,
                });
            }
        }
        let condim = a.int_or("condim", 3)?;
        if ![1, 3, 4, 6].contains(&condim) {
            return Err(a.err(
                ErrorKind::InvalidValue,
                "condim",
                "condim must be 1, 3, 4 or 6",
            ));
        }
        let uint = |k: &str| -> R<u32> {
            let v = a.int_or(k, 1)?;
            u32::try_from(v).map_err(|_| {
                a.err(
                    ErrorKind::InvalidValue,
                    k,
                    "must be a 32-bit unsigned integer",
                )
            })
        };
        let m = &mut self.m;
        m.geom_name.push(name);
        m.geom_type.push(t);
        m.geom_contype.push(uint("contype")?);
        m.geom_conaffinity.push(uint("conaffinity")?);
        m.geom_condim.push(condim as usize);
        m.geom_bodyid.push(body);
        m.geom_dataid.push(dataid);
        m.geom_group.push(group as i32);
        m.geom_priority.push(a.int_or("priority", 0)? as i32);
        m.geom_solmix.push(a.f64_or("solmix", 1.0)?);
        m.geom_solref.push(a.arr("solref", DEFAULT_SOLREF)?);
        m.geom_solimp.push(a.arr_min("solimp", DEFAULT_SOLIMP, 1)?);
        m.geom_size.push(size);
        m.geom_rbound.push(rbound);
        m.geom_aabb.push(aabb);
        m.geom_pos.push(pos);
        m.geom_quat.push(quat);
        m.geom_friction
            .push(a.arr_min("friction", [1.0, 0.005, 0.0001], 1)?);
        m.geom_margin.push(a.f64_or("margin", 0.0)?);
        m.geom_gap.push(a.f64_or("gap", 0.0)?);
        m.geom_rgba.push(a.arr("rgba", [0.5, 0.5, 0.5, 1.0])?);
        let matid = match a.str("material") {
            None => -1,
            Some(n) => m.mat_name.iter().position(|x| x == n).ok_or_else(|| {
                a.err(
                    ErrorKind::BadReference,
                    "material",
                    format!("unknown material '{n}'"),
                )
            })? as i32,
        };
        m.geom_matid.push(matid);
        let ellipsoid = a
            .keyword("fluidshape", &[("none", false), ("ellipsoid", true)])?
            .unwrap_or(false);
        let fluidcoef = a.arr_min("fluidcoef", DEFAULT_FLUIDCOEF, 1)?;
        m.geom_fluid.push(crate::fluid::geom_fluid_compile(
            ellipsoid, &fluidcoef, t, &size,
        ));
        Ok(())
    }

    fn site(&mut self, it: &Placed, body: usize) -> R<()> {
        let cls = self.defs.class_of(it.el, it.class)?;
        let a = self.defs.reader(it.el, cls, "site");
        let name = a.name();
        dup(&self.m.site_name, &name, it.el, "site")?;
        let t = a.keyword("type", GEOM_TYPES)?.unwrap_or(GeomType::Sphere);
        if matches!(
            t,
            GeomType::Mesh | GeomType::Hfield | GeomType::Sdf | GeomType::Plane
        ) {
            return Err(a.err(
                ErrorKind::InvalidValue,
                "type",
                "sites must be primitive shapes",
            ));
        }
        let size = a.arr_min("size", [0.005; 3], 1)?;
        let (pos, quat, size) = placement(&a, self.comp, t, size)?;
        let (pos, quat) = compose(it.fpos, it.fquat, pos, quat);
        let m = &mut self.m;
        m.site_name.push(name);
        m.site_type.push(t);
        m.site_bodyid.push(body);
        m.site_size.push(size);
        m.site_pos.push(pos);
        m.site_quat.push(quat);
        Ok(())
    }

    /// A camera: pose in the body frame, tracking `mode` and `target` (resolved by
    /// [`compile`] once all bodies exist). Optical attributes are accepted and ignored.
    fn camera(&mut self, it: &Placed<'a>, body: usize) -> R<()> {
        let cls = self.defs.class_of(it.el, it.class)?;
        let a = self.defs.reader(it.el, cls, "camera");
        let name = a.name();
        dup(&self.m.cam_name, &name, it.el, "camera")?;
        let mode = a
            .keyword(
                "mode",
                &[
                    ("fixed", CamMode::Fixed),
                    ("track", CamMode::Track),
                    ("trackcom", CamMode::TrackCom),
                    ("targetbody", CamMode::TargetBody),
                    ("targetbodycom", CamMode::TargetBodyCom),
                ],
            )?
            .unwrap_or(CamMode::Fixed);
        let target = it.el.attr("target").map(|t| (t, it.el));
        if matches!(mode, CamMode::TargetBody | CamMode::TargetBodyCom) && target.is_none() {
            return Err(a.err(
                ErrorKind::InvalidValue,
                "target",
                "camera mode targetbody / targetbodycom needs a target body",
            ));
        }
        let pos = a.arr("pos", [0.0; 3])?;
        let quat = orientation(&a, self.comp)?.unwrap_or(QID);
        let (pos, quat) = compose(it.fpos, it.fquat, pos, quat);
        let m = &mut self.m;
        m.cam_name.push(name);
        m.cam_mode.push(mode);
        m.cam_bodyid.push(body);
        m.cam_pos.push(pos);
        m.cam_quat.push(quat);
        self.cam_target.push(target);
        Ok(())
    }

    /// Body mass and inertia from `<inertial>` or geoms (mujoco-facts §5).
    fn body_inertia(&mut self) -> R<()> {
        let comp = self.comp;
        let nbody = self.m.body_name.len();
        for b in 0..nbody {
            let explicit = self.inertial[b];
            let use_geoms = match comp.inertiafromgeom {
                InertiaFromGeom::True => true,
                InertiaFromGeom::False => false,
                InertiaFromGeom::Auto => explicit.is_none(),
            };
            let (mass, ipos, iquat, inertia) = if b == 0 {
                (0.0, [0.0; 3], QID, [0.0; 3])
            } else if use_geoms {
                let gm = &self.geom_mass[b];
                if gm.is_empty() {
                    explicit.unwrap_or((0.0, [0.0; 3], QID, [0.0; 3]))
                } else if gm.len() == 1 {
                    (gm[0].mass, gm[0].pos, gm[0].quat, gm[0].inertia)
                } else {
                    let mass: f64 = gm.iter().map(|g| g.mass).sum();
                    let com = if mass > 0.0 {
                        scl(
                            gm.iter().fold([0.0; 3], |c, g| add(c, scl(g.pos, g.mass))),
                            1.0 / mass,
                        )
                    } else {
                        [0.0; 3]
                    };
                    let mut full = [[0.0; 3]; 3];
                    for g in gm {
                        let r = q2m(g.quat);
                        let d = g.inertia;
                        let c = sub(g.pos, com);
                        let cc = dot(c, c);
                        for i in 0..3 {
                            for j in 0..3 {
                                let rot: f64 = (0..3).map(|k| r[i][k] * d[k] * r[j][k]).sum();
                                let par = g.mass * (if i == j { cc } else { 0.0 } - c[i] * c[j]);
                                full[i][j] += rot + par;
                            }
                        }
                    }
                    let (eig, frame) = eig3(&full);
                    (mass, com, frame, eig)
                }
            } else {
                explicit.unwrap_or((0.0, [0.0; 3], QID, [0.0; 3]))
            };
            let mut mass = mass;
            let mut inertia = inertia;
            if b > 0 {
                if comp.boundmass > 0.0 {
                    mass = mass.max(comp.boundmass);
                }
                if comp.boundinertia > 0.0 {
                    for x in &mut inertia {
                        *x = x.max(comp.boundinertia);
                    }
                }
            }
            self.m.body_mass.push(mass);
            self.m.body_ipos.push(ipos);
            self.m.body_iquat.push(iquat);
            self.m.body_inertia.push(inertia);
        }
        if comp.settotalmass > 0.0 {
            let total: f64 = self.m.body_mass.iter().sum();
            if total > 0.0 {
                let s = comp.settotalmass / total;
                for b in 0..nbody {
                    self.m.body_mass[b] *= s;
                    self.m.body_inertia[b] = scl(self.m.body_inertia[b], s);
                }
            }
        }
        // moving bodies need mass: every body with dofs must carry mass in its subtree
        Ok(())
    }
}

// ------------------------------------------------------------------------------ actuators

/// The actuator fields a default class or an element sets (MuJoCo's mjsActuator).
#[derive(Clone)]
struct ActSpec {
    group: i64,
    ctrllimited: Option<bool>,
    forcelimited: Option<bool>,
    actlimited: Option<bool>,
    ctrlrange: Option<[f64; 2]>,
    forcerange: Option<[f64; 2]>,
    actrange: Option<[f64; 2]>,
    gear: [f64; 6],
    cranklength: f64,
    dyntype: DynType,
    gaintype: GainType,
    biastype: BiasType,
    dynprm: [f64; 10],
    gainprm: [f64; 10],
    biasprm: [f64; 10],
    actearly: bool,
    actdim: i64,
    inheritrange: f64,
    /// `damping` (linear, then polynomial coefficients) and `armature`.
    damping: [f64; 3],
    armature: f64,
    /// Tag of the last actuator default applied (shortcut parameters inherit only from the
    /// same shortcut or from `general`, as MuJoCo 4.0.0 does).
    last: Option<&'static str>,
}

fn prm(first: &[f64]) -> [f64; 10] {
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
            last: None,
        }
    }
}

const SHORTCUTS: &[&str] = &[
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

fn nonneg(a: &A, k: &str, v: f64) -> R<f64> {
    if v < 0.0 {
        Err(a.err(ErrorKind::InvalidValue, k, "must be nonnegative"))
    } else {
        Ok(v)
    }
}

/// Applies one actuator element (default or real) to `s` (mujoco-facts §7).
fn apply_actuator(s: &mut ActSpec, el: &Elem) -> R<()> {
    let a = A::new(el);
    let tag: &'static str = SHORTCUTS
        .iter()
        .copied()
        .find(|t| *t == el.name)
        .unwrap_or("general");
    // parameters inherit from the class only if it was set by `general` or the same shortcut
    let inherit = matches!(s.last, None | Some("general")) || s.last == Some(tag);
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
    if let Some(g) = a.vec("gear", 1, 6)? {
        s.gear = [0.0; 6];
        s.gear[..g.len()].copy_from_slice(&g);
    }
    s.cranklength = a.f64_or("cranklength", s.cranklength)?;
    s.actearly = a.bool("actearly")?.unwrap_or(s.actearly);
    s.actdim = a.int_or("actdim", s.actdim)?;
    if let Some(dm) = a.vec("damping", 1, 3)? {
        s.damping = [0.0; 3];
        for (k, &x) in dm.iter().enumerate() {
            s.damping[k] = nonneg(&a, "damping", x)?;
        }
    }
    s.armature = nonneg(&a, "armature", a.f64_or("armature", s.armature)?)?;
    let read10 = |k: &str, cur: [f64; 10]| -> R<[f64; 10]> {
        Ok(match a.vec(k, 0, 10)? {
            Some(v) => prm(&v),
            None => cur,
        })
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

// ------------------------------------------------------------------------------ lookups

fn find(names: &[String], a: &A, k: &str, what: &str) -> R<Option<usize>> {
    match a.str(k) {
        None => Ok(None),
        Some(n) => names
            .iter()
            .position(|x| x == n)
            .map(Some)
            .ok_or_else(|| a.err(ErrorKind::BadReference, k, format!("unknown {what} '{n}'"))),
    }
}

fn need(names: &[String], a: &A, k: &str, what: &str) -> R<usize> {
    find(names, a, k, what)?.ok_or_else(|| {
        a.err(
            ErrorKind::InvalidValue,
            k,
            format!("missing {what} reference"),
        )
    })
}

fn body_names(m: &Model) -> Vec<String> {
    m.body_name.clone()
}

// ------------------------------------------------------------------------------ main

/// Compiles the validated element tree.
pub fn compile(root: &Elem, files: &FileSource) -> R<Model> {
    let comp = read_compiler(root)?;
    let mut m = Model::default();
    read_option(root, &mut m.opt)?;
    let defs = Defaults::build(root)?;
    compile_materials(root, &defs, &mut m)?;
    compile_hfields(root, files, &comp, &mut m)?;
    let meshes = compile_meshes(root, &defs, &comp, files, &mut m)?;

    // kinematic tree: the world body collects every <worldbody> section
    let world = Elem {
        name: "worldbody".into(),
        attrs: Vec::new(),
        children: root
            .children
            .iter()
            .filter(|e| e.name == "worldbody")
            .flat_map(|e| e.children.iter().cloned())
            .collect(),
        text: String::new(),
        loc: root.loc.clone(),
    };
    let mut b = Builder {
        defs: &defs,
        comp: &comp,
        m,
        meshes,
        xpos: Vec::new(),
        xquat: Vec::new(),
        inertial: Vec::new(),
        geom_mass: Vec::new(),
        body_el: Vec::new(),
        cam_target: Vec::new(),
    };
    b.body(&world, 0, 0, [0.0; 3], QID)?;
    b.body_inertia()?;
    let xpos = std::mem::take(&mut b.xpos);
    let xquat = std::mem::take(&mut b.xquat);
    let b_el = std::mem::take(&mut b.body_el);
    let cam_target = std::mem::take(&mut b.cam_target);
    let mut m = b.m;
    m.ncam = m.cam_name.len();
    for t in &cam_target {
        let id = match t {
            // kept for every mode (as MuJoCo 4.0.0), used by targetbody / targetbodycom only
            Some((name, el)) => match m.body_name.iter().position(|n| n == name) {
                Some(k) => k as i32,
                None => {
                    return Err(el.err(
                        ErrorKind::BadReference,
                        Some("target"),
                        format!("unknown target body '{name}'"),
                    ))
                }
            },
            None => -1,
        };
        m.cam_targetbodyid.push(id);
    }
    m.nbody = m.body_name.len();
    m.njnt = m.jnt_name.len();
    m.ngeom = m.geom_name.len();
    m.nsite = m.site_name.len();

    // planes must be static
    for g in 0..m.ngeom {
        if m.geom_type[g] == GeomType::Plane && m.body_weldid[m.geom_bodyid[g]] != 0 {
            return Err(root.err(
                ErrorKind::InvalidValue,
                None,
                format!("plane geom {g} is in a moving body"),
            ));
        }
    }

    // dof tree and the sparse M layout
    m.dof_parentid = vec![-1; m.nv];
    for bid in 1..m.nbody {
        let mut prev: i32 = -1;
        let mut p = m.body_parentid[bid];
        while p != 0 {
            if m.body_dofnum[p] > 0 {
                prev = (m.body_dofadr[p] + m.body_dofnum[p] - 1) as i32;
                break;
            }
            p = m.body_parentid[p];
        }
        for i in 0..m.body_dofnum[bid] {
            let d = m.body_dofadr[bid] + i;
            m.dof_parentid[d] = prev;
            prev = d as i32;
        }
    }
    m.dof_Madr = Vec::with_capacity(m.nv);
    let mut adr = 0;
    for i in 0..m.nv {
        m.dof_Madr.push(adr);
        let mut depth = 1;
        let mut p = m.dof_parentid[i];
        while p >= 0 {
            depth += 1;
            p = m.dof_parentid[p as usize];
        }
        adr += depth;
    }
    m.nM = adr;
    m.fill_dof_mcol();
    m.body_subtreemass = m.body_mass.clone();
    for bid in (1..m.nbody).rev() {
        let p = m.body_parentid[bid];
        m.body_subtreemass[p] += m.body_subtreemass[bid];
    }
    for (bid, el) in b_el.iter().enumerate().skip(1) {
        if m.body_dofnum[bid] > 0 && m.body_subtreemass[bid] < MINVAL {
            let el = el.unwrap_or(root);
            return Err(el.err(
                ErrorKind::InvalidValue,
                None,
                format!(
                    "mass and inertia of moving bodies must be positive (body '{}')",
                    m.body_name[bid]
                ),
            ));
        }
    }
    m.body_invweight0 = vec![[0.0; 2]; m.nbody];
    m.dof_invweight0 = vec![0.0; m.nv];
    m.dof_M0 = vec![0.0; m.nv];

    compile_tendons(root, &defs, &comp, &mut m)?;
    compile_actuators(root, &defs, &comp, &mut m)?;
    compile_equality(root, &defs, &comp, &mut m, &xpos, &xquat)?;
    compile_contact(root, &defs, &mut m)?;
    compile_keyframes(root, &mut m)?;
    compile_sensors(root, &mut m)?;
    Ok(m)
}

fn compile_tendons(root: &Elem, defs: &Defaults, comp: &Compiler, m: &mut Model) -> R<()> {
    for sec in root.children.iter().filter(|e| e.name == "tendon") {
        for el in &sec.children {
            let cls = defs.class_of(el, 0)?;
            let a = defs.reader(el, cls, "tendon");
            let name = a.name();
            dup(&m.tendon_name, &name, el, "tendon")?;
            let range = a.arr("range", [0.0; 2])?;
            let limited = match a.tristate("limited")? {
                Some(l) => l,
                None => comp.autolimits && a.has("range") && range[0] < range[1],
            };
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
            for w in &el.children {
                let wa = A::new(w);
                match (el.name.as_str(), w.name.as_str()) {
                    ("fixed", _) => {
                        let j = need(&m.jnt_name, &wa, "joint", "joint")?;
                        if !matches!(m.jnt_type[j], JointType::Hinge | JointType::Slide) {
                            return Err(wa.err(
                                ErrorKind::InvalidValue,
                                "joint",
                                "fixed tendons need hinge or slide joints",
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
                        let s = need(&m.site_name, &wa, "site", "site")?;
                        m.wrap_type.push(WrapType::Site);
                        m.wrap_objid.push(s as i32);
                        m.wrap_prm.push(0.0);
                    }
                    (_, "geom") => {
                        let g = need(&m.geom_name, &wa, "geom", "geom")?;
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
                        let side = find(&m.site_name, &wa, "sidesite", "site")?;
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
            m.tendon_name.push(name);
            m.tendon_adr.push(adr);
            m.tendon_num.push(m.wrap_type.len() - adr);
            m.tendon_limited.push(limited);
            m.tendon_range.push(range);
            m.tendon_solref_lim
                .push(a.arr("solreflimit", DEFAULT_SOLREF)?);
            m.tendon_solimp_lim
                .push(a.arr_min("solimplimit", DEFAULT_SOLIMP, 1)?);
            m.tendon_solref_fri
                .push(a.arr("solreffriction", DEFAULT_SOLREF)?);
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

fn limited_flag(given: Option<bool>, range: Option<[f64; 2]>, comp: &Compiler) -> bool {
    match given {
        Some(l) => l,
        None => comp.autolimits && range.is_some_and(|r| r[0] < r[1]),
    }
}

fn compile_actuators(root: &Elem, defs: &Defaults, comp: &Compiler, m: &mut Model) -> R<()> {
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
            dup(&m.actuator_name, &name, el, "actuator")?;
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
                "joint" => (TrnType::Joint, need(&m.jnt_name, &a, "joint", "joint")?, -1),
                "jointinparent" => (
                    TrnType::JointInParent,
                    need(&m.jnt_name, &a, "jointinparent", "joint")?,
                    -1,
                ),
                "tendon" => (
                    TrnType::Tendon,
                    need(&m.tendon_name, &a, "tendon", "tendon")?,
                    -1,
                ),
                "site" => {
                    let r = find(&m.site_name, &a, "refsite", "site")?;
                    (
                        TrnType::Site,
                        need(&m.site_name, &a, "site", "site")?,
                        r.map(|x| x as i32).unwrap_or(-1),
                    )
                }
                "body" => (TrnType::Body, need(&m.body_name, &a, "body", "body")?, -1),
                _ => {
                    let sl = need(&m.site_name, &a, "slidersite", "site")?;
                    if s.cranklength <= 0.0 {
                        return Err(a.err(
                            ErrorKind::InvalidValue,
                            "cranklength",
                            "slider-crank needs a positive cranklength",
                        ));
                    }
                    (
                        TrnType::SliderCrank,
                        need(&m.site_name, &a, "cranksite", "site")?,
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

fn compile_equality(
    root: &Elem,
    defs: &Defaults,
    comp: &Compiler,
    m: &mut Model,
    xpos: &[V3],
    xquat: &[Q],
) -> R<()> {
    let _ = comp;
    for sec in root.children.iter().filter(|e| e.name == "equality") {
        for el in &sec.children {
            let cls = defs.class_of(el, 0)?;
            let a = defs.reader(el, cls, "equality");
            let name = a.name();
            dup(&m.eq_name, &name, el, "equality")?;
            let mut data = [0.0; 12];
            let (t, objtype, o1, o2) = match el.name.as_str() {
                "connect" | "weld" => {
                    let weld = el.name == "weld";
                    let t = if weld { EqType::Weld } else { EqType::Connect };
                    if a.has("site1") || a.has("site2") {
                        if a.has("body1") || a.has("body2") || a.has("anchor") {
                            return Err(el.err(
                                ErrorKind::InvalidValue,
                                None,
                                "use either sites or bodies (with anchor), not both",
                            ));
                        }
                        let s1 = need(&m.site_name, &a, "site1", "site")?;
                        let s2 = need(&m.site_name, &a, "site2", "site")?;
                        if weld {
                            data[1] = 1.0;
                            data[10] = a.f64_or("torquescale", 1.0)?;
                        }
                        (t, ObjType::Site, s1 as i32, s2 as i32)
                    } else {
                        let names = body_names(m);
                        let b1 = need(&names, &a, "body1", "body")?;
                        let b2 = find(&names, &a, "body2", "body")?.unwrap_or(0);
                        let anchor = a.arr("anchor", [0.0; 3])?;
                        if !weld {
                            let pw = add(xpos[b1], qrot(xquat[b1], anchor));
                            let p2 = qrot(qconj(xquat[b2]), sub(pw, xpos[b2]));
                            data[..3].copy_from_slice(&anchor);
                            data[3..6].copy_from_slice(&p2);
                            data[10] = 1.0;
                        } else {
                            let rel = a.arr("relpose", [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0])?;
                            data[..3].copy_from_slice(&anchor);
                            if rel[3..7].iter().all(|&x| x == 0.0) {
                                let pw = add(xpos[b2], qrot(xquat[b2], anchor));
                                let p1 = qrot(qconj(xquat[b1]), sub(pw, xpos[b1]));
                                let q = qmul(qconj(xquat[b1]), xquat[b2]);
                                data[3..6].copy_from_slice(&p1);
                                data[6..10].copy_from_slice(&q);
                                // MuJoCo 4.0.0 flags a relative pose computed at qpos0
                                data[11] = 1.0;
                            } else {
                                let q = qnormalize([rel[3], rel[4], rel[5], rel[6]]).ok_or_else(
                                    || a.err(ErrorKind::InvalidValue, "relpose", "zero quaternion"),
                                )?;
                                data[3..6].copy_from_slice(&rel[..3]);
                                data[6..10].copy_from_slice(&q);
                            }
                            data[10] = a.f64_or("torquescale", 1.0)?;
                        }
                        if b1 == b2 {
                            return Err(a.err(
                                ErrorKind::InvalidValue,
                                "body2",
                                "body1 and body2 are the same",
                            ));
                        }
                        (t, ObjType::Body, b1 as i32, b2 as i32)
                    }
                }
                "joint" | "tendon" => {
                    let joint = el.name == "joint";
                    let (k1, k2, names, what) = if joint {
                        ("joint1", "joint2", &m.jnt_name, "joint")
                    } else {
                        ("tendon1", "tendon2", &m.tendon_name, "tendon")
                    };
                    let o1 = need(names, &a, k1, what)?;
                    let o2 = find(names, &a, k2, what)?;
                    if o2 == Some(o1) {
                        return Err(a.err(
                            ErrorKind::InvalidValue,
                            k2,
                            format!("{what} is repeated"),
                        ));
                    }
                    if joint {
                        for o in [Some(o1), o2].into_iter().flatten() {
                            if !matches!(m.jnt_type[o], JointType::Hinge | JointType::Slide) {
                                return Err(a.err(
                                    ErrorKind::InvalidValue,
                                    k1,
                                    "joint equality needs hinge or slide joints",
                                ));
                            }
                        }
                    }
                    let pc = a.arr_min("polycoef", [0.0, 1.0, 0.0, 0.0, 0.0], 1)?;
                    data[..5].copy_from_slice(&pc);
                    data[10] = 1.0;
                    let t = if joint { EqType::Joint } else { EqType::Tendon };
                    (
                        t,
                        ObjType::Unknown,
                        o1 as i32,
                        o2.map(|x| x as i32).unwrap_or(-1),
                    )
                }
                _ => return Err(el.err(ErrorKind::UnknownElement, None, "unknown equality")),
            };
            m.eq_name.push(name);
            m.eq_type.push(t);
            m.eq_objtype.push(objtype);
            m.eq_obj1id.push(o1);
            m.eq_obj2id.push(o2);
            m.eq_active0.push(a.bool("active")?.unwrap_or(true));
            m.eq_solref.push(a.arr("solref", DEFAULT_SOLREF)?);
            m.eq_solimp.push(a.arr_min("solimp", DEFAULT_SOLIMP, 1)?);
            m.eq_data.push(data);
        }
    }
    m.neq = m.eq_name.len();
    Ok(())
}

fn compile_contact(root: &Elem, defs: &Defaults, m: &mut Model) -> R<()> {
    let mut pair_names: Vec<String> = Vec::new();
    for sec in root.children.iter().filter(|e| e.name == "contact") {
        for el in &sec.children {
            if el.name == "pair" {
                let cls = defs.class_of(el, 0)?;
                let a = defs.reader(el, cls, "pair");
                let name = a.name();
                dup(&pair_names, &name, el, "pair")?;
                pair_names.push(name);
                let mut g1 = need(&m.geom_name, &a, "geom1", "geom")?;
                let mut g2 = need(&m.geom_name, &a, "geom2", "geom")?;
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
                m.pair_geom1.push(g1);
                m.pair_geom2.push(g2);
                m.pair_dim.push(condim as usize);
                m.pair_solref.push(a.arr("solref", DEFAULT_SOLREF)?);
                m.pair_solreffriction
                    .push(a.arr("solreffriction", [0.0; 2])?);
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
                let b1 = need(&m.body_name, &a, "body1", "body")?;
                let b2 = need(&m.body_name, &a, "body2", "body")?;
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

/// Normalizes a quaternion in place (the identity if it is zero).
fn normalize_quat_slice(q: &mut [f64]) {
    let n = qnormalize([q[0], q[1], q[2], q[3]]).unwrap_or(QID);
    q.copy_from_slice(&n);
}

fn compile_keyframes(root: &Elem, m: &mut Model) -> R<()> {
    let mut mpos0 = Vec::new();
    let mut mquat0 = Vec::new();
    for b in 0..m.nbody {
        if m.body_mocapid[b] >= 0 {
            mpos0.extend_from_slice(&m.body_pos[b]);
            mquat0.extend_from_slice(&m.body_quat[b]);
        }
    }
    for sec in root.children.iter().filter(|e| e.name == "keyframe") {
        for el in &sec.children {
            let a = A::new(el);
            let name = a.name();
            dup(&m.key_name, &name, el, "key")?;
            let get = |k: &str, n: usize, def: Vec<f64>| -> R<Vec<f64>> {
                match a.vec(k, n, n)? {
                    Some(v) => Ok(v),
                    None => Ok(def),
                }
            };
            m.key_time.push(a.f64_or("time", 0.0)?);
            // MuJoCo normalizes the quaternions of a keyframe (ball and free joints, mocap)
            let mut qpos = get("qpos", m.nq, m.qpos0.clone())?;
            for j in 0..m.njnt {
                let a = m.jnt_qposadr[j];
                let q = match m.jnt_type[j] {
                    JointType::Free => &mut qpos[a + 3..a + 7],
                    JointType::Ball => &mut qpos[a..a + 4],
                    _ => continue,
                };
                normalize_quat_slice(q);
            }
            m.key_qpos.push(qpos);
            m.key_qvel.push(get("qvel", m.nv, vec![0.0; m.nv])?);
            m.key_act.push(get("act", m.na, vec![0.0; m.na])?);
            m.key_ctrl.push(get("ctrl", m.nu, vec![0.0; m.nu])?);
            m.key_mpos.push(get("mpos", 3 * m.nmocap, mpos0.clone())?);
            let mut mquat = get("mquat", 4 * m.nmocap, mquat0.clone())?;
            mquat.chunks_mut(4).for_each(normalize_quat_slice);
            m.key_mquat.push(mquat);
            m.key_name.push(name);
        }
    }
    m.nkey = m.key_name.len();
    Ok(())
}

fn compile_sensors(root: &Elem, m: &mut Model) -> R<()> {
    use SensorType as S;
    let mut adr = 0;
    for sec in root.children.iter().filter(|e| e.name == "sensor") {
        for el in &sec.children {
            let a = A::new(el);
            let name = a.name();
            dup(&m.sensor_name, &name, el, "sensor")?;
            let (t, dim) = match el.name.as_str() {
                "touch" => (S::Touch, 1),
                "accelerometer" => (S::Accelerometer, 3),
                "velocimeter" => (S::Velocimeter, 3),
                "gyro" => (S::Gyro, 3),
                "force" => (S::Force, 3),
                "torque" => (S::Torque, 3),
                "magnetometer" => (S::Magnetometer, 3),
                "rangefinder" => (S::Rangefinder, 1),
                "jointpos" => (S::JointPos, 1),
                "jointvel" => (S::JointVel, 1),
                "tendonpos" => (S::TendonPos, 1),
                "tendonvel" => (S::TendonVel, 1),
                "actuatorpos" => (S::ActuatorPos, 1),
                "actuatorvel" => (S::ActuatorVel, 1),
                "actuatorfrc" => (S::ActuatorFrc, 1),
                "jointactuatorfrc" => (S::JointActFrc, 1),
                "ballquat" => (S::BallQuat, 4),
                "ballangvel" => (S::BallAngVel, 3),
                "jointlimitpos" => (S::JointLimitPos, 1),
                "jointlimitvel" => (S::JointLimitVel, 1),
                "jointlimitfrc" => (S::JointLimitFrc, 1),
                "tendonlimitpos" => (S::TendonLimitPos, 1),
                "tendonlimitvel" => (S::TendonLimitVel, 1),
                "tendonlimitfrc" => (S::TendonLimitFrc, 1),
                "framepos" => (S::FramePos, 3),
                "framequat" => (S::FrameQuat, 4),
                "framexaxis" => (S::FrameXAxis, 3),
                "frameyaxis" => (S::FrameYAxis, 3),
                "framezaxis" => (S::FrameZAxis, 3),
                "framelinvel" => (S::FrameLinVel, 3),
                "frameangvel" => (S::FrameAngVel, 3),
                "framelinacc" => (S::FrameLinAcc, 3),
                "frameangacc" => (S::FrameAngAcc, 3),
                "subtreecom" => (S::SubtreeCom, 3),
                "subtreelinvel" => (S::SubtreeLinVel, 3),
                "subtreeangmom" => (S::SubtreeAngMom, 3),
                "clock" => (S::Clock, 1),
                _ => return Err(el.err(ErrorKind::UnknownElement, None, "unknown sensor")),
            };
            let (mut ot, mut oid, mut rt, mut rid) =
                (ObjType::Unknown, -1i32, ObjType::Unknown, -1i32);
            match t {
                S::Touch
                | S::Accelerometer
                | S::Velocimeter
                | S::Gyro
                | S::Force
                | S::Torque
                | S::Magnetometer
                | S::Rangefinder => {
                    ot = ObjType::Site;
                    oid = need(&m.site_name, &a, "site", "site")? as i32;
                }
                S::JointPos
                | S::JointVel
                | S::JointActFrc
                | S::BallQuat
                | S::BallAngVel
                | S::JointLimitPos
                | S::JointLimitVel
                | S::JointLimitFrc => {
                    ot = ObjType::Joint;
                    let j = need(&m.jnt_name, &a, "joint", "joint")?;
                    oid = j as i32;
                    let jt = m.jnt_type[j];
                    let ok = match t {
                        S::JointPos | S::JointVel | S::JointActFrc => {
                            matches!(jt, JointType::Hinge | JointType::Slide)
                        }
                        S::BallQuat | S::BallAngVel => jt == JointType::Ball,
                        _ => m.jnt_limited[j],
                    };
                    if !ok {
                        return Err(a.err(
                            ErrorKind::InvalidValue,
                            "joint",
                            "joint type or limits do not fit this sensor",
                        ));
                    }
                }
                S::TendonPos
                | S::TendonVel
                | S::TendonLimitPos
                | S::TendonLimitVel
                | S::TendonLimitFrc => {
                    ot = ObjType::Tendon;
                    let k = need(&m.tendon_name, &a, "tendon", "tendon")?;
                    oid = k as i32;
                    if matches!(t, S::TendonLimitPos | S::TendonLimitVel | S::TendonLimitFrc)
                        && !m.tendon_limited[k]
                    {
                        return Err(a.err(
                            ErrorKind::InvalidValue,
                            "tendon",
                            "tendon must be limited",
                        ));
                    }
                }
                S::ActuatorPos | S::ActuatorVel | S::ActuatorFrc => {
                    ot = ObjType::Actuator;
                    oid = need(&m.actuator_name, &a, "actuator", "actuator")? as i32;
                }
                S::SubtreeCom | S::SubtreeLinVel | S::SubtreeAngMom => {
                    ot = ObjType::Body;
                    oid = need(&m.body_name, &a, "body", "body")? as i32;
                }
                S::Clock => {}
                _ => {
                    let obj = |tk: &str, nk: &str, required: bool| -> R<(ObjType, i32)> {
                        let Some(ty) = a.keyword(
                            tk,
                            &[
                                ("body", ObjType::Body),
                                ("xbody", ObjType::XBody),
                                ("geom", ObjType::Geom),
                                ("site", ObjType::Site),
                                ("camera", ObjType::Camera),
                            ],
                        )?
                        else {
                            if required || a.has(nk) {
                                return Err(a.err(
                                    ErrorKind::InvalidValue,
                                    tk,
                                    "missing object type",
                                ));
                            }
                            return Ok((ObjType::Unknown, -1));
                        };
                        let names = match ty {
                            ObjType::Body | ObjType::XBody => &m.body_name,
                            ObjType::Geom => &m.geom_name,
                            ObjType::Site => &m.site_name,
                            _ => &m.cam_name,
                        };
                        Ok((ty, need(names, &a, nk, "object")? as i32))
                    };
                    (ot, oid) = obj("objtype", "objname", true)?;
                    (rt, rid) = obj("reftype", "refname", false)?;
                }
            }
            let noise = nonneg(&a, "noise", a.f64_or("noise", 0.0)?)?;
            let cutoff = nonneg(&a, "cutoff", a.f64_or("cutoff", 0.0)?)?;
            m.sensor_name.push(name);
            m.sensor_type.push(t);
            m.sensor_objtype.push(ot);
            m.sensor_objid.push(oid);
            m.sensor_reftype.push(rt);
            m.sensor_refid.push(rid);
            m.sensor_dim.push(dim);
            m.sensor_adr.push(adr);
            m.sensor_cutoff.push(cutoff);
            m.sensor_noise.push(noise);
            adr += dim;
        }
    }
    m.nsensor = m.sensor_name.len();
    m.nsensordata = adr;
    Ok(())
}
