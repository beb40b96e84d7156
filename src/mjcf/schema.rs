//! Element and attribute names accepted by the loader (MuJoCo's MJCF schema, the subset moreau
//! compiles plus elements that are accepted and ignored).

use crate::mjcf::error::{ErrorKind, MjcfError};
use crate::mjcf::xml::Elem;

const ORIENT: &[&str] = &["quat", "axisangle", "xyaxes", "zaxis", "euler"];

const LENGTHRANGE: &[&str] = &[
    "mode",
    "useexisting",
    "uselimit",
    "accel",
    "maxforce",
    "timeconst",
    "timestep",
    "inttotal",
    "interval",
    "tolrange",
];
const COMPILER: &[&str] = &[
    "autolimits",
    "boundmass",
    "boundinertia",
    "settotalmass",
    "balanceinertia",
    "strippath",
    "coordinate",
    "angle",
    "fitaabb",
    "eulerseq",
    "meshdir",
    "texturedir",
    "assetdir",
    "discardvisual",
    "usethread",
    "fusestatic",
    "inertiafromgeom",
    "inertiagrouprange",
    "saveinertial",
    "alignfree",
    "exactmeshinertia",
    "maxhullvert",
];
const OPTION: &[&str] = &[
    "timestep",
    "apirate",
    "impratio",
    "tolerance",
    "ls_tolerance",
    "noslip_tolerance",
    "ccd_tolerance",
    "sleep_tolerance",
    "gravity",
    "wind",
    "magnetic",
    "density",
    "viscosity",
    "o_margin",
    "o_solref",
    "o_solimp",
    "o_friction",
    "integrator",
    "cone",
    "jacobian",
    "solver",
    "iterations",
    "ls_iterations",
    "noslip_iterations",
    "ccd_iterations",
    "sdf_iterations",
    "sdf_initpoints",
    "actuatorgroupdisable",
];
/// `<flag>` attributes: (name, is_enable_bit, bit).
pub const FLAGS: &[(&str, bool, u32)] = &[
    ("constraint", false, 1 << 0),
    ("equality", false, 1 << 1),
    ("frictionloss", false, 1 << 2),
    ("limit", false, 1 << 3),
    ("contact", false, 1 << 4),
    ("spring", false, 1 << 5),
    ("damper", false, 1 << 6),
    ("gravity", false, 1 << 7),
    ("clampctrl", false, 1 << 8),
    ("warmstart", false, 1 << 9),
    ("filterparent", false, 1 << 10),
    ("actuation", false, 1 << 11),
    ("refsafe", false, 1 << 12),
    ("sensor", false, 1 << 13),
    ("midphase", false, 1 << 14),
    ("eulerdamp", false, 1 << 15),
    ("autoreset", false, 1 << 16),
    ("nativeccd", false, 1 << 17),
    ("island", false, 1 << 18),
    ("multiccd", false, 1 << 19),
    ("override", true, 1 << 0),
    ("energy", true, 1 << 1),
    ("fwdinv", true, 1 << 2),
    ("invdiscrete", true, 1 << 3),
    ("sleep", true, 1 << 4),
    ("diagexact", true, 1 << 5),
    ("ipc", true, 1 << 6),
    ("speculative", true, 1 << 7),
];
const BODY: &[&str] = &[
    "name",
    "childclass",
    "pos",
    "quat",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
    "mocap",
    "gravcomp",
    "user",
    "sleep",
];
const FRAME: &[&str] = &[
    "name",
    "childclass",
    "pos",
    "quat",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
];
const INERTIAL: &[&str] = &[
    "pos",
    "quat",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
    "mass",
    "diaginertia",
    "fullinertia",
];
pub const JOINT: &[&str] = &[
    "name",
    "class",
    "type",
    "group",
    "pos",
    "axis",
    "springdamper",
    "limited",
    "actuatorfrclimited",
    "solreflimit",
    "solimplimit",
    "solreffriction",
    "solimpfriction",
    "stiffness",
    "range",
    "actuatorfrcrange",
    "actuatorgravcomp",
    "margin",
    "ref",
    "springref",
    "armature",
    "damping",
    "frictionloss",
    "user",
];
const FREEJOINT: &[&str] = &["name", "group", "align"];
pub const GEOM: &[&str] = &[
    "name",
    "class",
    "type",
    "contype",
    "conaffinity",
    "condim",
    "group",
    "priority",
    "size",
    "material",
    "rgba",
    "friction",
    "mass",
    "density",
    "shellinertia",
    "solmix",
    "solref",
    "solimp",
    "margin",
    "gap",
    "fromto",
    "pos",
    "quat",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
    "hfield",
    "mesh",
    "fitscale",
    "fluidshape",
    "fluidcoef",
    "user",
];
/// `<light>` attributes (MuJoCo 4.0.0's schema).
pub const LIGHT: &[&str] = &[
    "name",
    "class",
    "directional",
    "type",
    "castshadow",
    "active",
    "pos",
    "dir",
    "bulbradius",
    "intensity",
    "range",
    "softness",
    "attenuation",
    "cutoff",
    "exponent",
    "ambient",
    "diffuse",
    "specular",
    "mode",
    "target",
    "texture",
];
pub const SITE: &[&str] = &[
    "name",
    "class",
    "type",
    "group",
    "pos",
    "quat",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
    "size",
    "fromto",
    "material",
    "rgba",
    "user",
];
const TENDON: &[&str] = &[
    "name",
    "class",
    "group",
    "limited",
    "actuatorfrclimited",
    "range",
    "actuatorfrcrange",
    "solreflimit",
    "solimplimit",
    "solreffriction",
    "solimpfriction",
    "frictionloss",
    "springlength",
    "width",
    "material",
    "margin",
    "stiffness",
    "damping",
    "armature",
    "rgba",
    "user",
];
const ACT_COMMON: &[&str] = &[
    "name",
    "class",
    "group",
    "ctrllimited",
    "forcelimited",
    "actlimited",
    "ctrlrange",
    "forcerange",
    "actrange",
    "lengthrange",
    "gear",
    "cranklength",
    "user",
    "joint",
    "jointinparent",
    "tendon",
    "cranksite",
    "slidersite",
    "site",
    "refsite",
    "body",
    "actdim",
    "actearly",
    "nsample",
    "interp",
    "delay",
    "damping",
    "armature",
];
/// Extra attributes of each actuator element.
pub fn actuator_extra(tag: &str) -> Option<&'static [&'static str]> {
    Some(match tag {
        "general" => &[
            "dyntype", "gaintype", "biastype", "dynprm", "gainprm", "biasprm",
        ],
        "motor" => &[],
        "position" => &["kp", "kv", "dampratio", "timeconst", "inheritrange"],
        "velocity" => &["kv"],
        "intvelocity" => &["kp", "kv", "dampratio", "inheritrange"],
        "damper" => &["kv"],
        "cylinder" => &["timeconst", "area", "diameter", "bias"],
        "muscle" => &[
            "timeconst",
            "tausmooth",
            "range",
            "force",
            "scale",
            "lmin",
            "lmax",
            "vmax",
            "fpmax",
            "fvmax",
        ],
        "adhesion" => &["gain"],
        _ => return None,
    })
}
const EQ_COMMON: &[&str] = &["name", "class", "active", "solref", "solimp"];
fn eq_extra(tag: &str) -> Option<&'static [&'static str]> {
    Some(match tag {
        "connect" => &["body1", "body2", "anchor", "site1", "site2"],
        "weld" => &[
            "body1",
            "body2",
            "anchor",
            "site1",
            "site2",
            "relpose",
            "torquescale",
        ],
        "joint" => &["joint1", "joint2", "polycoef"],
        "tendon" => &["tendon1", "tendon2", "polycoef"],
        _ => return None,
    })
}
const PAIR: &[&str] = &[
    "name",
    "class",
    "geom1",
    "geom2",
    "condim",
    "friction",
    "solref",
    "solreffriction",
    "solimp",
    "gap",
    "margin",
];
const KEY: &[&str] = &[
    "name", "time", "qpos", "qvel", "act", "ctrl", "mpos", "mquat",
];
const SENSOR_COMMON: &[&str] = &[
    "name", "noise", "cutoff", "user", "nsample", "interp", "delay", "interval",
];
/// Sensor element -> which object attributes it takes.
pub fn sensor_extra(tag: &str) -> Option<&'static [&'static str]> {
    Some(match tag {
        "touch" | "accelerometer" | "velocimeter" | "gyro" | "force" | "torque"
        | "magnetometer" | "rangefinder" => &["site"],
        "jointpos" | "jointvel" | "ballquat" | "ballangvel" | "jointlimitpos" | "jointlimitvel"
        | "jointlimitfrc" | "jointactuatorfrc" => &["joint"],
        "tendonpos" | "tendonvel" | "tendonlimitpos" | "tendonlimitvel" | "tendonlimitfrc" => {
            &["tendon"]
        }
        "actuatorpos" | "actuatorvel" | "actuatorfrc" => &["actuator"],
        "framepos" | "framequat" | "framexaxis" | "frameyaxis" | "framezaxis" | "framelinvel"
        | "frameangvel" => &["objtype", "objname", "reftype", "refname"],
        "framelinacc" | "frameangacc" => &["objtype", "objname"],
        "subtreecom" | "subtreelinvel" | "subtreeangmom" => &["body"],
        "clock" | "e_potential" | "e_kinetic" => &[],
        "contact" => &[
            "geom1", "geom2", "body1", "body2", "subtree1", "subtree2", "site", "num", "data",
            "reduce",
        ],
        _ => return None,
    })
}
const MESH: &[&str] = &[
    "name",
    "class",
    "content_type",
    "file",
    "vertex",
    "normal",
    "texcoord",
    "face",
    "refpos",
    "refquat",
    "scale",
    "smoothnormal",
    "maxhullvert",
    "inertia",
    "material",
];
const HFIELD: &[&str] = &[
    "name",
    "content_type",
    "file",
    "nrow",
    "ncol",
    "size",
    "elevation",
];

/// Elements whose whole subtree is accepted and ignored.
const IGNORED: &[&str] = &["visual", "statistic", "custom", "size"];
const IGNORED_IN_BODY: &[&str] = &["camera"];
const IGNORED_ASSET: &[&str] = &["texture", "material", "skin", "model"];
const UNSUPPORTED: &[&str] = &[
    "plugin",
    "composite",
    "flexcomp",
    "replicate",
    "attach",
    "deformable",
    "flex",
    "skin",
];

fn check_attrs(el: &Elem, lists: &[&[&str]]) -> Result<(), MjcfError> {
    for (k, _) in &el.attrs {
        if !lists.iter().any(|l| l.contains(&k.as_str())) {
            // MuJoCo 4.0.0's schema error, word for word
            return Err(el.err(
                ErrorKind::UnknownAttribute,
                Some(k),
                format!("Schema violation: unrecognized attribute: '{k}'"),
            ));
        }
    }
    Ok(())
}

fn unknown(el: &Elem, parent: &str) -> MjcfError {
    if UNSUPPORTED.contains(&el.name.as_str()) {
        el.err(
            ErrorKind::Unsupported,
            None,
            format!("<{}> is not supported by moreau", el.name),
        )
    } else {
        // MuJoCo 4.0.0's schema error, word for word, then where the element is
        el.err(
            ErrorKind::UnknownElement,
            None,
            format!(
                "Schema violation: unrecognized element (<{}> in <{}>)",
                el.name, parent
            ),
        )
    }
}

fn no_children(el: &Elem) -> Result<(), MjcfError> {
    match el.children.first() {
        Some(c) => Err(unknown(c, &el.name)),
        None => Ok(()),
    }
}

/// Validates element and attribute names of the whole document.
pub fn validate(root: &Elem) -> Result<(), MjcfError> {
    check_attrs(root, &[&["model"]])?;
    for c in &root.children {
        match c.name.as_str() {
            n if IGNORED.contains(&n) => {}
            "compiler" => {
                check_attrs(c, &[COMPILER])?;
                for g in &c.children {
                    if g.name != "lengthrange" {
                        return Err(unknown(g, "compiler"));
                    }
                    check_attrs(g, &[LENGTHRANGE])?;
                    no_children(g)?;
                }
            }
            "option" => {
                check_attrs(c, &[OPTION])?;
                for f in &c.children {
                    if f.name != "flag" {
                        return Err(unknown(f, "option"));
                    }
                    let names: Vec<&str> = FLAGS.iter().map(|x| x.0).collect();
                    check_attrs(f, &[&names])?;
                    no_children(f)?;
                }
            }
            "extension" => {
                if let Some(p) = c.children.first() {
                    return Err(p.err(
                        ErrorKind::Unsupported,
                        None,
                        "extensions requiring plugins are not supported",
                    ));
                }
            }
            "default" => validate_default(c, true)?,
            "asset" => {
                check_attrs(c, &[])?;
                for a in &c.children {
                    match a.name.as_str() {
                        "mesh" => {
                            check_attrs(a, &[MESH])?;
                            for p in &a.children {
                                if p.name == "plugin" {
                                    return Err(unknown(p, "mesh"));
                                }
                            }
                        }
                        "hfield" => {
                            check_attrs(a, &[HFIELD])?;
                            no_children(a)?;
                        }
                        n if IGNORED_ASSET.contains(&n) => {}
                        _ => return Err(unknown(a, "asset")),
                    }
                }
            }
            "worldbody" => {
                check_attrs(c, &[])?;
                validate_body(c, true)?;
            }
            // MuJoCo 4.0.0's schema allows a `<body>` here (a fragment to be included inside
            // `<worldbody>`, as models/zoo_part.xml) and its compiler ignores it: names are
            // checked, values are not read (measured: an unknown attribute or element is its
            // schema error, `pos="a b c"` or `<joint type="bogus"/>` loads an empty model)
            "body" => {
                check_attrs(c, &[BODY])?;
                validate_body(c, false)?;
            }
            "tendon" => {
                check_attrs(c, &[])?;
                for t in &c.children {
                    match t.name.as_str() {
                        "fixed" => {
                            check_attrs(t, &[TENDON])?;
                            for j in &t.children {
                                if j.name != "joint" {
                                    return Err(unknown(j, "fixed"));
                                }
                                check_attrs(j, &[&["joint", "coef"]])?;
                                no_children(j)?;
                            }
                        }
                        "spatial" => {
                            check_attrs(t, &[TENDON])?;
                            for w in &t.children {
                                let l: &[&str] = match w.name.as_str() {
                                    "site" => &["site"],
                                    "geom" => &["geom", "sidesite"],
                                    "pulley" => &["divisor"],
                                    _ => return Err(unknown(w, "spatial")),
                                };
                                check_attrs(w, &[l])?;
                                no_children(w)?;
                            }
                        }
                        _ => return Err(unknown(t, "tendon")),
                    }
                }
            }
            "actuator" => {
                check_attrs(c, &[])?;
                for a in &c.children {
                    let extra = actuator_extra(&a.name).ok_or_else(|| unknown(a, "actuator"))?;
                    check_attrs(a, &[ACT_COMMON, extra])?;
                    no_children(a)?;
                }
            }
            "equality" => {
                check_attrs(c, &[])?;
                for e in &c.children {
                    let extra = eq_extra(&e.name).ok_or_else(|| unknown(e, "equality"))?;
                    check_attrs(e, &[EQ_COMMON, extra])?;
                    no_children(e)?;
                }
            }
            "contact" => {
                check_attrs(c, &[])?;
                for e in &c.children {
                    match e.name.as_str() {
                        "pair" => check_attrs(e, &[PAIR])?,
                        "exclude" => check_attrs(e, &[&["name", "body1", "body2"]])?,
                        _ => return Err(unknown(e, "contact")),
                    }
                    no_children(e)?;
                }
            }
            "keyframe" => {
                check_attrs(c, &[])?;
                for k in &c.children {
                    if k.name != "key" {
                        return Err(unknown(k, "keyframe"));
                    }
                    check_attrs(k, &[KEY])?;
                    no_children(k)?;
                }
            }
            "sensor" => {
                check_attrs(c, &[])?;
                for s in &c.children {
                    let extra = sensor_extra(&s.name).ok_or_else(|| {
                        if matches!(
                            s.name.as_str(),
                            "camprojection"
                                | "insidesite"
                                | "geomdist"
                                | "geomnormal"
                                | "geomfromto"
                                | "tactile"
                                | "user"
                                | "plugin"
                                | "tendonactuatorfrc"
                        ) {
                            s.err(
                                ErrorKind::Unsupported,
                                None,
                                format!("sensor <{}> is not supported by moreau", s.name),
                            )
                        } else {
                            unknown(s, "sensor")
                        }
                    })?;
                    check_attrs(s, &[SENSOR_COMMON, extra])?;
                    no_children(s)?;
                }
            }
            _ => return Err(unknown(c, "mujoco")),
        }
    }
    Ok(())
}

/// A `<default>` tree (explicit stack: nesting depth is not limited by the call stack).
fn validate_default(d: &Elem, top: bool) -> Result<(), MjcfError> {
    let mut stack = vec![(d, top)];
    while let Some((d, top)) = stack.pop() {
        check_attrs(d, &[&["class"]])?;
        if !top && d.attr("class").is_none() {
            return Err(d.err(
                ErrorKind::InvalidValue,
                Some("class"),
                "nested default classes need a class name",
            ));
        }
        let first_nested = stack.len();
        for c in &d.children {
            let n = c.name.as_str();
            match n {
                "default" => stack.push((c, false)),
                "joint" => check_attrs(c, &[JOINT])?,
                "geom" => check_attrs(c, &[GEOM])?,
                "site" => check_attrs(c, &[SITE])?,
                "tendon" => check_attrs(c, &[TENDON])?,
                "mesh" => check_attrs(c, &[MESH])?,
                "pair" => check_attrs(c, &[PAIR])?,
                "equality" => check_attrs(c, &[EQ_COMMON])?,
                "light" => check_attrs(c, &[LIGHT])?,
                "camera" | "material" | "texture" => {}
                _ => match actuator_extra(n) {
                    Some(extra) => check_attrs(c, &[ACT_COMMON, extra])?,
                    None => return Err(unknown(c, "default")),
                },
            }
            if n != "default" {
                no_children(c)?;
            }
        }
        // nested classes in document order
        stack[first_nested..].reverse();
    }
    Ok(())
}

/// A body's (or frame's, or the world's) content, depth first in document order (explicit
/// stack: tree depth is not limited by the call stack).
fn validate_body(b: &Elem, world: bool) -> Result<(), MjcfError> {
    let mut stack = vec![(b, world)];
    while let Some((b, world)) = stack.pop() {
        let first_nested = stack.len();
        for c in &b.children {
            match c.name.as_str() {
                "body" => {
                    check_attrs(c, &[BODY])?;
                    stack.push((c, false));
                }
                "frame" => {
                    check_attrs(c, &[FRAME])?;
                    stack.push((c, world));
                }
                "inertial" if !world && b.name == "body" => {
                    check_attrs(c, &[INERTIAL])?;
                    no_children(c)?;
                }
                "joint" if !world => {
                    check_attrs(c, &[JOINT])?;
                    no_children(c)?;
                }
                "freejoint" if !world => {
                    check_attrs(c, &[FREEJOINT])?;
                    no_children(c)?;
                }
                "geom" => {
                    check_attrs(c, &[GEOM])?;
                    no_children(c)?;
                }
                "site" => {
                    check_attrs(c, &[SITE])?;
                    no_children(c)?;
                }
                "light" => {
                    check_attrs(c, &[LIGHT])?;
                    no_children(c)?;
                }
                n if IGNORED_IN_BODY.contains(&n) => {}
                _ => return Err(unknown(c, &b.name)),
            }
        }
        stack[first_nested..].reverse();
    }
    let _ = ORIENT;
    Ok(())
}
