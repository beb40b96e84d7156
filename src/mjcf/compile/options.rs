//! `<compiler>`, `<option>` (with its `<flag>`) and the length-range options.

use crate::lengthrange::{LengthRangeMode, LengthRangeOpt};
use crate::mjcf::compile::attr::A;
use crate::mjcf::compile::ctx::R;
use crate::mjcf::error::ErrorKind;
use crate::mjcf::xml::Elem;
use crate::model::{Cone, Integrator, JacobianType, Options, SolverType};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum InertiaFromGeom {
    False,
    True,
    Auto,
}

pub(super) struct Compiler {
    pub(super) degree: bool,
    pub(super) eulerseq: [u8; 3],
    pub(super) autolimits: bool,
    pub(super) inertiafromgeom: InertiaFromGeom,
    pub(super) inertiagrouprange: [i64; 2],
    pub(super) boundmass: f64,
    pub(super) boundinertia: f64,
    /// Principal inertias that violate the triangle inequality are all set to their mean
    /// (after `boundinertia`) instead of refused.
    pub(super) balanceinertia: bool,
    pub(super) settotalmass: f64,
    pub(super) meshdir: String,
    /// Where texture files are read from (`texturedir`, else `assetdir`).
    pub(super) texturedir: String,
}

impl Compiler {
    /// A `<what>` whose `limited` flag (e.g. `ctrllimited`) is absent or "auto" (`given` is
    /// `None`) under `autolimits="false"` may not have a nonzero `range` (e.g. `ctrlrange`): MuJoCo
    /// 4.0.0 refuses the model with this text (XML Reference, "compiler": autolimits).
    pub(super) fn refuse_auto_limit(
        &self,
        el: &Elem,
        what: &str,
        given: Option<bool>,
        range: Option<[f64; 2]>,
        range_attr: &str,
        limited_attr: &str,
    ) -> R<()> {
        let nonzero = range.is_some_and(|r| r[0] != 0.0 || r[1] != 0.0);
        if self.autolimits || given.is_some() || !nonzero {
            return Ok(());
        }
        Err(el.err(
            ErrorKind::InvalidValue,
            Some(range_attr),
            format!(
                "{what} has `{range_attr}` but not `{limited_attr}`. set the autolimits=\"true\" \
                 compiler option, specify `{limited_attr}` explicitly (\"true\" or \"false\"), or \
                 remove the `{range_attr}` attribute."
            ),
        ))
    }

    pub(super) fn angle(&self, x: f64) -> f64 {
        if self.degree {
            x * std::f64::consts::PI / 180.0
        } else {
            x
        }
    }
}

pub(super) fn read_compiler(root: &Elem) -> R<Compiler> {
    let mut c = Compiler {
        degree: true,
        eulerseq: *b"xyz",
        autolimits: true,
        inertiafromgeom: InertiaFromGeom::Auto,
        inertiagrouprange: [0, 5],
        boundmass: 0.0,
        boundinertia: 0.0,
        balanceinertia: false,
        settotalmass: -1.0,
        meshdir: String::new(),
        texturedir: String::new(),
    };
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
        if let Some(v) = a.bool("balanceinertia")? {
            c.balanceinertia = v;
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
        // MuJoCo 4.0.0 (measured): `assetdir` sets the mesh and texture directories, and
        // `meshdir` / `texturedir` in the same element override it; a later `<compiler>`
        // overrides them all
        if let Some(v) = a.str("assetdir") {
            c.meshdir = v.to_string();
            c.texturedir = v.to_string();
        }
        if let Some(v) = a.str("meshdir") {
            c.meshdir = v.to_string();
        }
        if let Some(v) = a.str("texturedir") {
            c.texturedir = v.to_string();
        }
        if a.str("coordinate") == Some("global") {
            return Err(a.err(
                ErrorKind::Unsupported,
                "coordinate",
                "global coordinates were removed from MuJoCo",
            ));
        }
    }
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

pub(super) fn read_option(root: &Elem, o: &mut Options) -> R<()> {
    for el in root.children.iter().filter(|e| e.name == "option") {
        let a = A::new(el);
        o.timestep = a.f64_or("timestep", o.timestep)?;
        o.impratio = a.f64_or("impratio", o.impratio)?;
        o.tolerance = a.f64_or("tolerance", o.tolerance)?;
        o.ls_tolerance = a.f64_or("ls_tolerance", o.ls_tolerance)?;
        o.noslip_tolerance = a.f64_or("noslip_tolerance", o.noslip_tolerance)?;
        o.ccd_tolerance = a.f64_or("ccd_tolerance", o.ccd_tolerance)?;
        o.sleep_tolerance = a.f64_or("sleep_tolerance", o.sleep_tolerance)?;
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
            for &(name, enable, bit) in crate::mjcf::schema::FLAGS {
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
