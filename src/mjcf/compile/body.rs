//! The kinematic tree: `<body>`, `<frame>`, `<joint>`, `<freejoint>`, `<inertial>`, `<site>`, `<camera>`, and body inertias from their geoms.

use crate::mjcf::compile::asset::MeshInfo;
use crate::mjcf::compile::attr::A;
use crate::mjcf::compile::ctx::{Unique, DEFAULT_SOLIMP, DEFAULT_SOLREF, R};
use crate::mjcf::compile::defaults::Defaults;
use crate::mjcf::compile::frame::{orientation, placement, GEOM_TYPES};
use crate::mjcf::compile::options::{Compiler, InertiaFromGeom};
use crate::mjcf::error::ErrorKind;
use crate::mjcf::math::{
    add, compose, dot, eig3, normalize, q2m, qmul, qrot, scl, sub, Q, QID, V3,
};
use crate::mjcf::xml::Elem;
use crate::model::{BodySleep, CamMode, GeomType, JointType, Model};
use std::collections::HashMap;

/// Mass properties a geom contributes to its body (geom frame, principal diagonal).
pub(super) struct GeomMass {
    pub(super) mass: f64,
    pub(super) inertia: V3,
    pub(super) pos: V3,
    pub(super) quat: Q,
}

pub(super) enum Item<'a> {
    Body,
    Joint,
    FreeJoint,
    Geom,
    Site,
    Camera,
    Light,
    Inertial,
    #[allow(dead_code)]
    Other(&'a Elem),
}

pub(super) struct Placed<'a> {
    pub(super) el: &'a Elem,
    pub(super) kind: Item<'a>,
    pub(super) class: usize,
    pub(super) fpos: V3,
    pub(super) fquat: Q,
}

pub(super) struct Builder<'a> {
    pub(super) defs: &'a Defaults<'a>,
    pub(super) comp: &'a Compiler,
    pub(super) m: Model,
    pub(super) meshes: Vec<MeshInfo>,
    /// World pose of each body at qpos0.
    pub(super) xpos: Vec<V3>,
    pub(super) xquat: Vec<Q>,
    /// Per body: (explicit inertial given, contributing geom masses).
    pub(super) inertial: Vec<Option<(f64, V3, Q, V3)>>,
    pub(super) geom_mass: Vec<Vec<GeomMass>>,
    pub(super) body_el: Vec<Option<&'a Elem>>,
    /// Per camera: the `target` body name and its element (resolved after the tree).
    pub(super) cam_target: Vec<Option<(&'a str, &'a Elem)>>,
    /// Per light: the same.
    pub(super) light_target: Vec<Option<(&'a str, &'a Elem)>>,
    /// Names used so far per kind ("body", "joint", "geom", "site", "camera", "light").
    pub(super) seen: HashMap<&'static str, Unique>,
}

impl Builder<'_> {
    /// Refuses a repeated `what` name (constant time).
    pub(super) fn unique(&mut self, what: &'static str, name: &str, el: &Elem) -> R<()> {
        self.seen.entry(what).or_default().check(name, el, what)
    }
}

/// The tracking `mode` of a camera or a light (`mjtCamLight`), fixed by default.
fn track_mode(a: &A) -> R<CamMode> {
    Ok(a.keyword(
        "mode",
        &[
            ("fixed", CamMode::Fixed),
            ("track", CamMode::Track),
            ("trackcom", CamMode::TrackCom),
            ("targetbody", CamMode::TargetBody),
            ("targetbodycom", CamMode::TargetBodyCom),
        ],
    )?
    .unwrap_or(CamMode::Fixed))
}

pub(super) fn frame_pose(el: &Elem, comp: &Compiler) -> R<(V3, Q)> {
    let a = A::new(el);
    Ok((
        a.arr("pos", [0.0; 3])?,
        orientation(&a, comp)?.unwrap_or(QID),
    ))
}

/// The items of `el` (bodies, joints, geoms, ...) in document order, with `<frame>` elements
/// flattened: each item carries its frame's pose and class. Iterative (an explicit stack of
/// frames), so that nested frames cannot overflow the call stack.
pub(super) fn collect<'a>(
    el: &'a Elem,
    class: usize,
    fpos: V3,
    fquat: Q,
    defs: &Defaults,
    comp: &Compiler,
    out: &mut Vec<Placed<'a>>,
) -> R<()> {
    let mut frames = vec![(el.children.iter(), class, fpos, fquat)];
    while let Some(top) = frames.last_mut() {
        let (class, fpos, fquat) = (top.1, top.2, top.3);
        let Some(c) = top.0.next() else {
            frames.pop();
            continue;
        };
        let kind = match c.name.as_str() {
            "frame" => {
                let cc = match c.attr("childclass") {
                    Some(_) => childclass(c, defs)?,
                    None => class,
                };
                let (p, q) = frame_pose(c, comp)?;
                let (p2, q2) = compose(fpos, fquat, p, q);
                frames.push((c.children.iter(), cc, p2, q2));
                continue;
            }
            "body" => Item::Body,
            "joint" => Item::Joint,
            "freejoint" => Item::FreeJoint,
            "geom" => Item::Geom,
            "site" => Item::Site,
            "camera" => Item::Camera,
            "light" => Item::Light,
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

pub(super) fn childclass(el: &Elem, defs: &Defaults) -> R<usize> {
    let c = el.attr("childclass").unwrap_or("main");
    defs.index.get(c).copied().ok_or_else(|| {
        el.err(
            ErrorKind::BadReference,
            Some("childclass"),
            format!("unknown default class name '{c}'"),
        )
    })
}

/// Bodies deeper than this below the world are refused, as by MuJoCo 4.0.0's compiler ("depth
/// limit exceeded in signature computation" for the first body at depth 1024).
pub const MAX_BODY_DEPTH: usize = 1023;

/// A body waiting to be built: its element, parent id, inherited class and pose in the parent.
pub(super) struct PendingBody<'a> {
    el: &'a Elem,
    parent: usize,
    class: usize,
    pos: V3,
    quat: Q,
}

impl<'a> Builder<'a> {
    /// The kinematic tree: the world (element `world_el`, items from every `<worldbody>` in
    /// `sections`), then every body in depth-first document order, which gives MuJoCo's body
    /// ids. An explicit stack replaces recursion, so tree depth is bounded by memory only.
    pub(super) fn tree(&mut self, world_el: &'a Elem, sections: &[&'a Elem]) -> R<()> {
        let mut kids = Vec::new();
        self.body(world_el, 0, 0, [0.0; 3], QID, sections, &mut kids)?;
        let mut stack: Vec<(PendingBody<'a>, usize)> =
            kids.drain(..).rev().map(|b| (b, 1)).collect();
        while let Some((b, depth)) = stack.pop() {
            if depth > MAX_BODY_DEPTH {
                return Err(b.el.err(
                    ErrorKind::InvalidValue,
                    None,
                    format!(
                        "depth limit exceeded in signature computation (body id {}, more than \
                         {MAX_BODY_DEPTH} bodies deep)",
                        self.m.body_name.len()
                    ),
                ));
            }
            self.body(b.el, b.parent, b.class, b.pos, b.quat, &[b.el], &mut kids)?;
            stack.extend(kids.drain(..).rev().map(|k| (k, depth + 1)));
        }
        Ok(())
    }

    /// Adds one body (its joints, geoms, sites, cameras, inertial); its child bodies go to
    /// `kids`, in document order. `sections` hold the items (the body element itself, or every
    /// `<worldbody>` for the world).
    #[allow(clippy::too_many_arguments)]
    fn body(
        &mut self,
        el: &'a Elem,
        parent: usize,
        class: usize,
        pos: V3,
        quat: Q,
        sections: &[&'a Elem],
        kids: &mut Vec<PendingBody<'a>>,
    ) -> R<()> {
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
            self.unique("body", &name, el)?;
        }
        let m = &mut self.m;
        m.body_name.push(name);
        m.user_raw[0].push(a.nums("user")?.unwrap_or_default());
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
        m.body_sleep.push(if is_world {
            BodySleep::Auto
        } else {
            a.keyword(
                "sleep",
                &[
                    ("auto", BodySleep::Auto),
                    ("never", BodySleep::Never),
                    ("allowed", BodySleep::Allowed),
                    ("init", BodySleep::Init),
                ],
            )?
            .unwrap_or(BodySleep::Auto)
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
        for sec in sections {
            collect(sec, cls, [0.0; 3], QID, defs, comp, &mut items)?;
        }
        let mut njnt = 0;
        let mut ndof = 0;
        for it in &items {
            match it.kind {
                Item::Joint | Item::FreeJoint => {
                    let (nq, nv) = self.joint(it, id)?;
                    njnt += 1;
                    ndof += nv;
                    let _ = nq;
                    // MuJoCo's limit (a body's motion has six degrees of freedom)
                    if ndof > 6 {
                        let name = &self.m.body_name[id];
                        return Err(el.err(
                            ErrorKind::InvalidValue,
                            None,
                            format!("more than 6 dofs in body '{name}'"),
                        ));
                    }
                }
                Item::Geom => self.geom(it, id)?,
                Item::Site => self.site(it, id)?,
                Item::Camera => self.camera(it, id)?,
                Item::Light => self.light(it, id)?,
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
                let (pos, quat) = compose(it.fpos, it.fquat, p, q);
                kids.push(PendingBody {
                    el: it.el,
                    parent: id,
                    class: it.class,
                    pos,
                    quat,
                });
            }
        }
        Ok(())
    }

    pub(super) fn read_inertial(&self, it: &Placed) -> R<(f64, V3, Q, V3)> {
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
                    // MuJoCo 4.0.0's words (its XML reader's)
                    "Schema violation: at most one of 'fullinertia', 'quat', 'axisangle', \
                     'xyaxes', 'zaxis', 'euler' can be specified",
                ));
            }
            if a.has("diaginertia") {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "fullinertia",
                    "fullinertia and diagonal inertia cannot both be specified",
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
        if !self.comp.balanceinertia && violates_triangle(&inertia) {
            return Err(a.err(
                ErrorKind::InvalidValue,
                "diaginertia",
                "principal inertias violate the triangle inequality (use 'balanceinertia' to fix)",
            ));
        }
        let (p, q) = compose(it.fpos, it.fquat, pos, quat);
        Ok((mass, p, q, inertia))
    }

    /// Adds a joint; returns (nq, nv).
    pub(super) fn joint(&mut self, it: &Placed, body: usize) -> R<(usize, usize)> {
        let comp = self.comp;
        let free = matches!(it.kind, Item::FreeJoint);
        let cls = self.defs.class_of(it.el, it.class)?;
        let a = if free {
            A::new(it.el)
        } else {
            self.defs.reader(it.el, cls, "joint")
        };
        let name = a.name();
        self.unique("joint", &name, it.el)?;
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
        // MuJoCo 4.0.0's compiler refuses a free joint below the top level, in these words
        // (python/tests/test_spec.py)
        if jt == JointType::Free && self.m.body_parentid.get(body).is_some_and(|&p| p != 0) {
            return Err(it.el.err(
                ErrorKind::InvalidValue,
                None,
                "free joint can only be used on top level",
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
        let afr = a.arr("actuatorfrcrange", [0.0; 2])?;
        let given_afl = a.tristate("actuatorfrclimited")?;
        comp.refuse_auto_limit(
            it.el,
            "joint",
            a.tristate("limited")?,
            Some(range),
            "range",
            "limited",
        )?;
        comp.refuse_auto_limit(
            it.el,
            "joint",
            given_afl,
            Some(afr),
            "actuatorfrcrange",
            "actuatorfrclimited",
        )?;
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
        let afl = match given_afl {
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
        let solref_fri = a.arr_min("solreffriction", DEFAULT_SOLREF, 1)?;
        let solimp_fri = a.arr_min("solimpfriction", DEFAULT_SOLIMP, 1)?;
        let group = a.int_or("group", 0)? as i32;
        let jid = self.m.jnt_name.len();
        let m = &mut self.m;
        m.jnt_name.push(name);
        m.user_raw[1].push(a.nums("user")?.unwrap_or_default());
        m.jnt_type.push(jt);
        m.jnt_qposadr.push(m.nq);
        m.jnt_dofadr.push(m.nv);
        m.jnt_bodyid.push(body);
        m.jnt_group.push(group);
        m.jnt_limited.push(limited);
        m.jnt_actfrclimited.push(afl);
        m.jnt_solref
            .push(a.arr_min("solreflimit", DEFAULT_SOLREF, 1)?);
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
}

impl<'a> Builder<'a> {
    pub(super) fn site(&mut self, it: &Placed, body: usize) -> R<()> {
        let cls = self.defs.class_of(it.el, it.class)?;
        let a = self.defs.reader(it.el, cls, "site");
        let name = a.name();
        self.unique("site", &name, it.el)?;
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
        let rgba = a.arr("rgba", [0.5, 0.5, 0.5, 1.0])?.map(|x| x as f32);
        let group = a.int_or("group", 0)? as i32;
        let matid = material_id(&a, &self.m.mat_name)?;
        let m = &mut self.m;
        m.site_rgba.push(rgba);
        m.site_group.push(group);
        m.site_matid.push(matid);
        m.site_name.push(name);
        m.user_raw[3].push(a.nums("user")?.unwrap_or_default());
        m.site_type.push(t);
        m.site_bodyid.push(body);
        m.site_size.push(size);
        m.site_pos.push(pos);
        m.site_quat.push(quat);
        Ok(())
    }

    /// A camera: pose in the body frame, tracking `mode` and `target` (resolved by
    /// [`compile`] once all bodies exist). Optical attributes are accepted and ignored.
    pub(super) fn camera(&mut self, it: &Placed<'a>, body: usize) -> R<()> {
        let cls = self.defs.class_of(it.el, it.class)?;
        let a = self.defs.reader(it.el, cls, "camera");
        let name = a.name();
        self.unique("camera", &name, it.el)?;
        let mode = track_mode(&a)?;
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
        // in degrees whatever the compiler's angle (XML Reference, camera/fovy)
        let fovy = a.f64_or("fovy", 45.0)?;
        let ipd = a.f64_or("ipd", 0.068)?;
        let m = &mut self.m;
        m.cam_fovy.push(fovy);
        m.cam_ipd.push(ipd);
        m.cam_name.push(name);
        m.user_raw[4].push(a.nums("user")?.unwrap_or_default());
        m.cam_mode.push(mode);
        m.cam_bodyid.push(body);
        m.cam_pos.push(pos);
        m.cam_quat.push(quat);
        self.cam_target.push(target);
        Ok(())
    }

    /// A light: pose in the body frame (its direction normalized), tracking `mode` and
    /// `target` (resolved by [`compile`] once all bodies exist), type and optical properties
    /// with MuJoCo 4.0.0's defaults. A `texture` is accepted and not kept (`light_texid` -1).
    pub(super) fn light(&mut self, it: &Placed<'a>, body: usize) -> R<()> {
        let cls = self.defs.class_of(it.el, it.class)?;
        let a = self.defs.reader(it.el, cls, "light");
        let name = a.name();
        self.unique("light", &name, it.el)?;
        let mode = track_mode(&a)?;
        let ty = match a.keyword(
            "type",
            &[("spot", 0), ("directional", 1), ("point", 2), ("image", 3)],
        )? {
            Some(t) => t,
            None => i32::from(a.bool("directional")?.unwrap_or(false)),
        };
        let pos = a.arr("pos", [0.0; 3])?;
        let dir = a.arr("dir", [0.0, 0.0, -1.0])?;
        let dir = crate::mjcf::math::normalize(crate::mjcf::math::qrot(it.fquat, dir))
            .ok_or_else(|| a.err(ErrorKind::InvalidValue, "dir", "zero direction in light"))?;
        let (pos, _) = compose(it.fpos, it.fquat, pos, QID);
        let target = it.el.attr("target").map(|t| (t, it.el));
        let m = &mut self.m;
        m.light_name.push(name);
        m.light_mode.push(mode);
        m.light_bodyid.push(body);
        m.light_type.push(ty);
        m.light_texid.push(-1);
        m.light_castshadow
            .push(a.bool("castshadow")?.unwrap_or(true));
        m.light_active.push(a.bool("active")?.unwrap_or(true));
        m.light_bulbradius.push(a.f64_or("bulbradius", 0.02)?);
        m.light_intensity.push(a.f64_or("intensity", 0.0)?);
        m.light_range.push(a.f64_or("range", 10.0)?);
        m.light_softness.push(a.f64_or("softness", 0.2)?);
        m.light_cutoff.push(a.f64_or("cutoff", 45.0)?);
        m.light_exponent.push(a.f64_or("exponent", 10.0)?);
        m.light_attenuation
            .push(a.arr("attenuation", [1.0, 0.0, 0.0])?);
        m.light_ambient.push(a.arr("ambient", [0.0; 3])?);
        m.light_diffuse.push(a.arr("diffuse", [0.7; 3])?);
        m.light_specular.push(a.arr("specular", [0.3; 3])?);
        m.light_pos.push(pos);
        m.light_dir.push(dir);
        self.light_target.push(target);
        Ok(())
    }

    /// Body mass and inertia from `<inertial>` or geoms (docs/mujoco-behaviour.md#compiler).
    pub(super) fn body_inertia(&mut self) -> R<()> {
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
                // a body without mass from its geoms keeps its own frame as its inertial
                // frame (what MuJoCo 4.0.0 reports as `body_ipos`/`body_iquat` of such bodies)
                let massless = (0.0, self.m.body_pos[b], self.m.body_quat[b], [0.0; 3]);
                if gm.is_empty() {
                    explicit.unwrap_or(massless)
                } else if explicit.is_none() && gm.iter().all(|g| g.mass == 0.0) {
                    massless
                } else if let Some(g) = only_massive(gm) {
                    // one geom with mass: its frame and moments as they are, unsorted (as
                    // MuJoCo 4.0.0 does, whatever massless geoms the body also has)
                    (g.mass, g.pos, g.quat, g.inertia)
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
                explicit.unwrap_or((0.0, self.m.body_pos[b], self.m.body_quat[b], [0.0; 3]))
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
                // MuJoCo's `balanceinertia`, after the bound (measured on MuJoCo 4.0.0:
                // diaginertia 1e-5 1e-5 1e-3 with boundinertia 1e-4 gives 4e-4 each)
                if comp.balanceinertia && violates_triangle(&inertia) {
                    inertia = [(inertia[0] + inertia[1] + inertia[2]) / 3.0; 3];
                }
            }
            self.m.body_mass.push(mass);
            self.m.body_ipos.push(ipos);
            self.m.body_iquat.push(iquat);
            self.m.body_inertia.push(inertia);
        }
        if comp.settotalmass > 0.0 {
            // MuJoCo 4.0.0 warns once per compile when the final value is positive (measured)
            crate::data::warning::report_message(
                "compiler attribute 'settotalmass' is deprecated and will be removed in a \
                 future release: scale the masses and densities in the model, or call \
                 mj_setTotalmass and mj_setConst on the compiled model",
            );
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

/// The material named by the `material` attribute of `a`, -1 without one.
pub(super) fn material_id(a: &A, mat_name: &[String]) -> R<i32> {
    match a.str("material") {
        None => Ok(-1),
        Some(n) => mat_name
            .iter()
            .position(|x| x == n)
            .map(|k| k as i32)
            .ok_or_else(|| {
                a.err(
                    ErrorKind::BadReference,
                    "material",
                    format!("unknown material '{n}'"),
                )
            }),
    }
}

/// The body's one geom with mass, if exactly one has mass.
fn only_massive(gm: &[GeomMass]) -> Option<&GeomMass> {
    let mut massive = gm.iter().filter(|g| g.mass > 0.0);
    match (massive.next(), massive.next()) {
        (Some(g), None) => Some(g),
        _ => None,
    }
}

/// Whether principal inertias violate the triangle inequality `A + B >= C` (beyond a relative
/// round-off of 1e-12).
fn violates_triangle(i: &[f64; 3]) -> bool {
    i[0] + i[1] < i[2] - 1e-12 * (i[2].abs() + 1.0)
        || i[0] + i[2] < i[1] - 1e-12 * (i[1].abs() + 1.0)
        || i[1] + i[2] < i[0] - 1e-12 * (i[0].abs() + 1.0)
}
