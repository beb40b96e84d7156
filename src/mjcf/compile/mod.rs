//! Element tree -> [`Model`]: default classes, kinematic tree, MuJoCo's derived quantities.
//!
//! Conventions (MuJoCo 4.0.0 compiler, docs/mujoco-behaviour.md#compiler, #actuators, #defaults,
//! checked against the engine): body/joint/geom/site ids in document (depth-first) order, each
//! body's joints/geoms/sites contiguous; angles in degrees unless `compiler/angle="radian"`;
//! `fromto` orients +z along p1 - p2; single-geom bodies keep the geom frame, multi-geom bodies and
//! `fullinertia` are diagonalized with descending principal moments.

use crate::mjcf::compile::actuator::compile_actuators;
use crate::mjcf::compile::asset::{
    compile_hfields, compile_materials, compile_meshes, finish_meshes,
};
use crate::mjcf::compile::body::Builder;
use crate::mjcf::compile::contact::compile_contact;
use crate::mjcf::compile::ctx::{Index, Lookup, MINVAL, R};
use crate::mjcf::compile::custom::compile_numerics;
use crate::mjcf::compile::defaults::Defaults;
use crate::mjcf::compile::equality::compile_equality;
use crate::mjcf::compile::keyframe::compile_keyframes;
use crate::mjcf::compile::options::{read_compiler, read_option};
use crate::mjcf::compile::sensor::compile_sensors;
use crate::mjcf::compile::tendon::compile_tendons;
use crate::mjcf::compile::texture::{compile_textures, name_or_stem};
use crate::mjcf::error::ErrorKind;
use crate::mjcf::xml::{Elem, FileSource};
use crate::model::{GeomType, Model};
use std::collections::HashMap;

mod actuator;
mod asset;
mod attr;
mod body;
mod contact;
mod ctx;
mod custom;
mod defaults;
mod equality;
mod frame;
mod geom;
mod keyframe;
mod options;
mod sensor;
mod size;
mod tendon;
mod texture;

pub use body::MAX_BODY_DEPTH;
pub(super) use options::read_lengthrange;

/// Compiles the validated element tree.
pub fn compile(root: &Elem, files: &FileSource) -> R<Model> {
    let comp = read_compiler(root)?;
    let mut m = Model {
        // MuJoCo's default model name (XML Reference, "mujoco": model)
        modelname: root.attr("model").unwrap_or("MuJoCo Model").to_string(),
        ..Model::default()
    };
    read_option(root, &mut m.opt)?;
    let defs = Defaults::build(root)?;
    compile_textures(root, &comp, files, &mut m)?;
    compile_materials(root, &defs, &mut m)?;
    compile_hfields(root, files, &comp, &mut m)?;
    m.skin_name = root
        .children
        .iter()
        .filter(|e| e.name == "asset")
        .flat_map(|a| a.children.iter().filter(|e| e.name == "skin"))
        .map(name_or_stem)
        .collect();
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
        light_target: Vec::new(),
        seen: HashMap::new(),
    };
    b.tree(root, &sections)?;
    b.body_inertia()?;
    let xpos = std::mem::take(&mut b.xpos);
    let xquat = std::mem::take(&mut b.xquat);
    let b_el = std::mem::take(&mut b.body_el);
    let cam_target = std::mem::take(&mut b.cam_target);
    let light_target = std::mem::take(&mut b.light_target);
    let meshes = std::mem::take(&mut b.meshes);
    let mut m = b.m;
    m.ncam = m.cam_name.len();
    let body_ix = Index::new(&m.body_name);
    // the target body ids, kept for every mode (as MuJoCo 4.0.0), used by targetbody /
    // targetbodycom only
    let target_ids = |targets: &[Option<(&str, &Elem)>], what: &str| -> R<Vec<i32>> {
        targets
            .iter()
            .map(|t| match t {
                Some((name, el)) => body_ix.id(name).map(|k| k as i32).ok_or_else(|| {
                    let msg = if what == "camera" {
                        format!("unknown target body '{name}'")
                    } else {
                        format!("unknown target body in {what}")
                    };
                    el.err(ErrorKind::BadReference, Some("target"), msg)
                }),
                None => Ok(-1),
            })
            .collect()
    };
    m.cam_targetbodyid = target_ids(&cam_target, "camera")?;
    m.nlight = m.light_name.len();
    m.light_targetbodyid = target_ids(&light_target, "light")?;
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
        // MuJoCo 4.0.0 also refuses a moving body whose inertia is NaN (an infinite inertia
        // tensor off its principal axes, e.g. a capsule 1e200 long), though not an infinite one
        let nan = m.body_mass[bid].is_nan() || m.body_inertia[bid].iter().any(|x| x.is_nan());
        if m.body_dofnum[bid] > 0 && (m.body_subtreemass[bid] < MINVAL || nan) {
            let el = el.unwrap_or(root);
            return Err(el.err(
                ErrorKind::InvalidValue,
                None,
                format!(
                    "mass and inertia of moving bodies must be larger than mjMINVAL (body '{}')",
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
    size::compile_arena(root, &mut m)?;
    size::compile_userdata(root, &mut m)?;
    size::compile_user(root, &mut m)?;
    Ok(m)
}
