//! Element tree -> [`Model`]: default classes, kinematic tree, MuJoCo's derived quantities.
//!
//! Conventions (MuJoCo 4.0.0 compiler, docs/mujoco-behaviour.md#compiler, #actuators, #defaults,
//! checked against the engine): body/joint/geom/site ids in document (depth-first) order, each
//! body's joints/geoms/sites contiguous; angles in degrees unless `compiler/angle="radian"`;
//! `fromto` orients +z along p1 - p2; single-geom bodies keep the geom frame, multi-geom bodies and
//! `fullinertia` are diagonalized with descending principal moments.

use super::math::*;
use super::mesh::{self, MeshInertia};
use super::xml::{Elem, FileSource};
use super::{ErrorKind, MjcfError};
use crate::lengthrange::{LengthRangeMode, LengthRangeOpt};
use crate::model::*;
use std::collections::HashMap;

mod actuator;
mod asset;
mod attr;
mod body;
mod contact;
mod custom;
mod defaults;
mod equality;
mod geom;
mod keyframe;
mod options;
mod sensor;
mod tendon;

use actuator::*;
use asset::*;
use attr::*;
pub use body::MAX_BODY_DEPTH;
use body::*;
use contact::*;
use custom::*;
use defaults::*;
use equality::*;
use geom::*;
use keyframe::*;
pub(super) use options::read_lengthrange;
use options::*;
use sensor::*;
use tendon::*;

type R<T> = Result<T, MjcfError>;

const DEFAULT_SOLREF: [f64; 2] = [0.02, 1.0];
/// MuJoCo's `fluidcoef` default: blunt drag, slender drag, angular drag, Kutta lift, Magnus lift.
const DEFAULT_FLUIDCOEF: [f64; 5] = [0.5, 0.25, 1.5, 1.0, 1.0];
const DEFAULT_SOLIMP: [f64; 5] = [0.9, 0.95, 0.001, 0.5, 2.0];
const MINVAL: f64 = 1e-15;

/// Name → id: a linear scan of a name list, or an [`Index`] (hash map) for lookups in bulk.
pub(super) trait Lookup {
    /// The id of the first element named `name`.
    fn id(&self, name: &str) -> Option<usize>;
}

impl Lookup for [String] {
    fn id(&self, name: &str) -> Option<usize> {
        self.iter().position(|x| x == name)
    }
}

impl Lookup for Vec<String> {
    fn id(&self, name: &str) -> Option<usize> {
        self.as_slice().id(name)
    }
}

/// The names of one element kind, hashed (first occurrence wins, as a scan would find).
#[derive(Default)]
pub(super) struct Index(HashMap<String, usize>);

impl Index {
    pub(super) fn new(names: &[String]) -> Self {
        let mut map = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            map.entry(n.clone()).or_insert(i);
        }
        Index(map)
    }
}

impl Lookup for Index {
    fn id(&self, name: &str) -> Option<usize> {
        self.0.get(name).copied()
    }
}

/// Indexes of the element kinds that references resolve to, built from the model compiled so
/// far (kinds not compiled yet are empty): loading stays linear in the number of references.
pub(super) struct Names {
    pub(super) body: Index,
    pub(super) jnt: Index,
    pub(super) geom: Index,
    pub(super) site: Index,
    pub(super) cam: Index,
    pub(super) tendon: Index,
    pub(super) actuator: Index,
}

impl Names {
    pub(super) fn of(m: &Model) -> Self {
        Names {
            body: Index::new(&m.body_name),
            jnt: Index::new(&m.jnt_name),
            geom: Index::new(&m.geom_name),
            site: Index::new(&m.site_name),
            cam: Index::new(&m.cam_name),
            tendon: Index::new(&m.tendon_name),
            actuator: Index::new(&m.actuator_name),
        }
    }
}

/// The names used so far by one element kind, to refuse a repeated name in constant time.
#[derive(Default)]
pub(super) struct Unique(std::collections::HashSet<String>);

impl Unique {
    /// Error if `name` (non-empty) was used before by this kind (`what`), at element `el`.
    pub(super) fn check(&mut self, name: &str, el: &Elem, what: &str) -> R<()> {
        if !name.is_empty() && !self.0.insert(name.to_string()) {
            return Err(el.err(
                ErrorKind::DuplicateName,
                Some("name"),
                format!("repeated {what} name '{name}'"),
            ));
        }
        Ok(())
    }
}

fn find<L: Lookup + ?Sized>(names: &L, a: &A, k: &str, what: &str) -> R<Option<usize>> {
    match a.str(k) {
        None => Ok(None),
        Some(n) => names
            .id(n)
            .map(Some)
            .ok_or_else(|| a.err(ErrorKind::BadReference, k, format!("unknown {what} '{n}'"))),
    }
}

fn need<L: Lookup + ?Sized>(names: &L, a: &A, k: &str, what: &str) -> R<usize> {
    find(names, a, k, what)?.ok_or_else(|| {
        a.err(
            ErrorKind::InvalidValue,
            k,
            format!("missing {what} reference"),
        )
    })
}

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
    let sections: Vec<&Elem> = root
        .children
        .iter()
        .filter(|e| e.name == "worldbody")
        .collect();
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
        seen: HashMap::new(),
    };
    b.tree(root, &sections)?;
    b.body_inertia()?;
    let xpos = std::mem::take(&mut b.xpos);
    let xquat = std::mem::take(&mut b.xquat);
    let b_el = std::mem::take(&mut b.body_el);
    let cam_target = std::mem::take(&mut b.cam_target);
    let meshes = std::mem::take(&mut b.meshes);
    let mut m = b.m;
    m.ncam = m.cam_name.len();
    let body_ix = Index::new(&m.body_name);
    for t in &cam_target {
        let id = match t {
            // kept for every mode (as MuJoCo 4.0.0), used by targetbody / targetbodycom only
            Some((name, el)) => match body_ix.id(name) {
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
    finish_meshes(&mut m, meshes)?;
    compile_keyframes(root, &mut m)?;
    compile_numerics(root, &mut m)?;
    compile_sensors(root, &mut m)?;
    Ok(m)
}
