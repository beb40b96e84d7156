//! `<geom>`: types, placement (`fromto`, mesh frames), sizes, and the mass properties of primitive shapes.

use crate::mjcf::compile::body::{Builder, GeomMass, Placed};
use crate::mjcf::compile::ctx::{DEFAULT_FLUIDCOEF, DEFAULT_SOLIMP, DEFAULT_SOLREF, R};
use crate::mjcf::compile::frame::{placement, GEOM_TYPES};
use crate::mjcf::error::ErrorKind;
use crate::mjcf::math::{add, compose, qmul, qrot, scl, V3};
use crate::model::GeomType;

/// Smallest volume (area with `shellinertia`) of a primitive that counts in its body's mass.
const MIN_VOLUME: f64 = 1e-14;

/// Principal inertia of a solid capsule of radius `r`, half-length `h` and mass `mass`: the
/// cylinder with its share of the mass plus the two hemispheres, whose share is
/// `4r / (4r + 3H)` (`H = 2h`), each `2/5 m r²` about its centre and `m H (3r + 2H) / 8` more
/// about the transverse axes through the middle. Evaluated in this order the result equals
/// MuJoCo 4.0.0's `body_inertia` bit for bit (docs/mujoco-behaviour.md#compiler); the
/// per-unit-mass form scaled by the mass can differ by an ulp, which left a capsule of radius
/// 2³² on a two-link arm with an exactly singular mass matrix where MuJoCo's keeps a one-ulp
/// pivot.
fn solid_capsule_inertia(r: f64, h: f64, mass: f64) -> V3 {
    let height = 2.0 * h;
    let ms = mass * 4.0 * r / (4.0 * r + 3.0 * height);
    let mc = mass - ms;
    let sphere = 2.0 * ms * r * r / 5.0;
    let ixy = mc * (3.0 * r * r + height * height) / 12.0
        + sphere
        + ms * height * (3.0 * r + 2.0 * height) / 8.0;
    [ixy, ixy, mc * r * r / 2.0 + sphere]
}

/// Volume (or area when shell) and principal inertia per unit mass of a primitive.
pub(super) fn primitive_inertia(t: GeomType, s: V3, shell: bool) -> (f64, V3) {
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

impl<'a> Builder<'a> {
    pub(super) fn geom(&mut self, it: &Placed, body: usize) -> R<()> {
        let comp = self.comp;
        let cls = self.defs.class_of(it.el, it.class)?;
        let a = self.defs.reader(it.el, cls, "geom");
        let name = a.name();
        self.unique("geom", &name, it.el)?;
        let t = a.keyword("type", GEOM_TYPES)?.unwrap_or(GeomType::Sphere);
        if t == GeomType::Sdf {
            return Err(a.err(ErrorKind::Unsupported, "type", "sdf geoms need plugins"));
        }
        let size = a.arr_min("size", [0.0; 3], 1)?;
        let (mut pos, mut quat, mut size) = placement(&a, comp, t, size)?;
        let mut dataid = -1;
        let mut mesh_measure = None;
        let (mut rbound, mut aabb) = t.primitive_bounds(size);
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
                (rbound, aabb) = crate::model::hfield_bounds(s);
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
        // MuJoCo 4.0.0 leaves a primitive whose volume (area with shellinertia) is below
        // 1e-14 out of the body's mass and inertia, explicit `mass` included (bisected on
        // spheres, boxes and shells); a capsule of radius 1e-308 would otherwise divide 0 by 0.
        let props = props.filter(|&(meas, _)| t == GeomType::Mesh || meas >= MIN_VOLUME);
        if let Some((meas, ipm)) = props {
            let mass = mass_attr.unwrap_or(density * meas);
            let in_group = group >= comp.inertiagrouprange[0] && group <= comp.inertiagrouprange[1];
            if in_group {
                let inertia = if t == GeomType::Capsule && !shell {
                    solid_capsule_inertia(size[0], size[1], mass)
                } else {
                    scl(ipm, mass)
                };
                self.geom_mass[body].push(GeomMass {
                    mass,
                    inertia,
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
        m.user_raw[2].push(a.nums("user")?.unwrap_or_default());
        m.geom_type.push(t);
        m.geom_contype.push(uint("contype")?);
        m.geom_conaffinity.push(uint("conaffinity")?);
        m.geom_condim.push(condim as usize);
        m.geom_bodyid.push(body);
        m.geom_dataid.push(dataid);
        m.geom_group.push(group as i32);
        m.geom_priority.push(a.int_or("priority", 0)? as i32);
        m.geom_solmix.push(a.f64_or("solmix", 1.0)?);
        m.geom_solref.push(a.arr_min("solref", DEFAULT_SOLREF, 1)?);
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
        // float32, as MuJoCo keeps rendering properties
        m.geom_rgba
            .push(a.arr("rgba", [0.5, 0.5, 0.5, 1.0])?.map(|x| x as f32));
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
        m.geom_fluid.push(crate::passive::fluid::geom_fluid_compile(
            ellipsoid, &fluidcoef, t, &size,
        ));
        Ok(())
    }
}
