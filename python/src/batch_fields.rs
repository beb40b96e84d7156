//! The model fields `moreau.batch` gives per-simulation values (`Batch.expand`, MuJoCo's
//! `mujoco.batch`), by MuJoCo's names, in MuJoCo's dtypes:
//! - the arrays `MjModel` views writeably (floats, ints, `geom_contype`-like bit fields), the
//!   `X_user` arrays, and the flags (`jnt_limited`, `eq_active0`, …), which the engine reads at
//!   every step: each simulation runs on its own values;
//! - `opt.<name>`, every `MjOption` field the engine has (enum values checked, as MuJoCo's
//!   `MjOption` setters do in moreau; a flag the engine does not support, or `sleep` in a batch
//!   that is not persistent, fails that simulation);
//! - [`STRUCTURAL`]: MuJoCo's other expandable fields that `MjModel` holds as read-only copies
//!   (ids, addresses, counts, types, keyframes, derived patterns). moreau's engine keeps them
//!   in forms it derives its layout from, so a simulation whose values differ from the model's
//!   fails with [`structural_error`]'s message, and the others run.

use crate::model::{array_values, set_array_values, set_option_enum, VALUE_ARRAYS};
use crate::values::{Values, ValuesRef};
use moreau::Model;

/// `MjOption`'s fields, as `opt.<name>`.
pub const OPTION_FIELDS: &[&str] = &[
    "opt.timestep",
    "opt.impratio",
    "opt.tolerance",
    "opt.ls_tolerance",
    "opt.noslip_tolerance",
    "opt.ccd_tolerance",
    "opt.sleep_tolerance",
    "opt.gravity",
    "opt.wind",
    "opt.magnetic",
    "opt.density",
    "opt.viscosity",
    "opt.o_margin",
    "opt.o_solref",
    "opt.o_solimp",
    "opt.o_friction",
    "opt.integrator",
    "opt.cone",
    "opt.jacobian",
    "opt.solver",
    "opt.iterations",
    "opt.ls_iterations",
    "opt.noslip_iterations",
    "opt.ccd_iterations",
    "opt.disableflags",
    "opt.enableflags",
];

/// The `X_user` arrays (`n × nuser_X` floats).
const USER_FIELDS: &[&str] = &[
    "body_user",
    "jnt_user",
    "geom_user",
    "site_user",
    "cam_user",
    "tendon_user",
    "actuator_user",
    "sensor_user",
];

/// MuJoCo 4.0.0's expandable fields (`mujoco.batch.MODEL_FIELDS`) that moreau's `MjModel`
/// holds as read-only copies, so that a simulation cannot run on other values
/// (`python/tools/gen_batch_structural.py` lists them).
pub const STRUCTURAL: &[&str] = &[
    "B_colind",
    "B_rowadr",
    "B_rownnz",
    "D_colind",
    "D_diag",
    "D_rowadr",
    "D_rownnz",
    "M_colind",
    "M_rowadr",
    "M_rownnz",
    "actuator_actnum",
    "actuator_biastype",
    "actuator_ctrladr",
    "actuator_ctrlnum",
    "actuator_ctrlspec",
    "actuator_dyntype",
    "actuator_gaintype",
    "actuator_outadr",
    "actuator_outnum",
    "actuator_plugin",
    "actuator_trntype",
    "body_conaffinity",
    "body_contype",
    "body_dofadr",
    "body_dofnum",
    "body_geomadr",
    "body_geomnum",
    "body_jntadr",
    "body_jntnum",
    "body_margin",
    "body_parentid",
    "body_plugin",
    "body_rootid",
    "body_sameframe",
    "body_simple",
    "body_treeid",
    "body_weldid",
    "cam_bodyid",
    "cam_mode",
    "dof_Madr",
    "dof_bodyid",
    "dof_jntid",
    "dof_simplenum",
    "dof_treeid",
    "eq_objtype",
    "eq_type",
    "geom_adhesion",
    "geom_bodyid",
    "geom_condim",
    "geom_plugin",
    "geom_sameframe",
    "geom_surfacevel",
    "geom_type",
    "jnt_actuatorid",
    "jnt_bodyid",
    "jnt_dofadr",
    "jnt_qposadr",
    "jnt_type",
    "key_act",
    "key_ctrl",
    "key_mpos",
    "key_mquat",
    "key_qpos",
    "key_qvel",
    "light_bodyid",
    "light_mode",
    "mapD2M",
    "mapM2D",
    "mapM2M",
    "mat_texid",
    "name_actuatoradr",
    "name_bodyadr",
    "name_camadr",
    "name_eqadr",
    "name_excludeadr",
    "name_flexadr",
    "name_geomadr",
    "name_hfieldadr",
    "name_jntadr",
    "name_keyadr",
    "name_lightadr",
    "name_matadr",
    "name_meshadr",
    "name_numericadr",
    "name_pairadr",
    "name_pluginadr",
    "name_sensoradr",
    "name_siteadr",
    "name_skinadr",
    "name_tendonadr",
    "name_texadr",
    "name_textadr",
    "name_tupleadr",
    "names_map",
    "numeric_adr",
    "numeric_size",
    "pair_adhesion",
    "pair_dim",
    "pair_geom1",
    "pair_geom2",
    "pair_signature",
    "sensor_adr",
    "sensor_datatype",
    "sensor_dim",
    "sensor_intprm",
    "sensor_needstage",
    "sensor_objtype",
    "sensor_plugin",
    "sensor_reftype",
    "sensor_type",
    "site_bodyid",
    "site_sameframe",
    "site_type",
    "ten_J_colind",
    "ten_J_rowadr",
    "ten_J_rownnz",
    "tendon_actuatorid",
    "tendon_adr",
    "tendon_num",
    "tendon_treeid",
    "tendon_treenum",
    "tendon_type",
    "tree_bodyadr",
    "tree_bodynum",
    "tree_dofadr",
    "tree_dofnum",
    "wrap_type",
];

/// The message of a simulation whose structural field `name` differs from the model's.
pub fn structural_error(name: &str) -> String {
    format!(
        "{name} differs from the batch's model in this simulation: moreau's engine derives its \
         layout from it and cannot run a simulation on other values"
    )
}

fn user<'a>(m: &'a Model, name: &str) -> Option<&'a Vec<f64>> {
    Some(match name {
        "body_user" => &m.body_user,
        "jnt_user" => &m.jnt_user,
        "geom_user" => &m.geom_user,
        "site_user" => &m.site_user,
        "cam_user" => &m.cam_user,
        "tendon_user" => &m.tendon_user,
        "actuator_user" => &m.actuator_user,
        "sensor_user" => &m.sensor_user,
        _ => return None,
    })
}

fn user_mut<'a>(m: &'a mut Model, name: &str) -> Option<&'a mut Vec<f64>> {
    Some(match name {
        "body_user" => &mut m.body_user,
        "jnt_user" => &mut m.jnt_user,
        "geom_user" => &mut m.geom_user,
        "site_user" => &mut m.site_user,
        "cam_user" => &mut m.cam_user,
        "tendon_user" => &mut m.tendon_user,
        "actuator_user" => &mut m.actuator_user,
        "sensor_user" => &mut m.sensor_user,
        _ => return None,
    })
}

/// The names [`values`] reads (every expandable field but the structural ones).
pub fn value_fields() -> impl Iterator<Item = &'static str> {
    VALUE_ARRAYS
        .iter()
        .chain(USER_FIELDS)
        .chain(OPTION_FIELDS)
        .copied()
}

/// An int32 of a count the engine keeps as `usize` (MuJoCo's field is an int).
fn int(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn option_values(m: &Model, name: &str) -> Option<Values> {
    let o = &m.opt;
    let f = |x: f64| Values::F64(vec![x]);
    let i = |x: i32| Values::I32(vec![x]);
    Some(match name {
        "timestep" => f(o.timestep),
        "impratio" => f(o.impratio),
        "tolerance" => f(o.tolerance),
        "ls_tolerance" => f(o.ls_tolerance),
        "noslip_tolerance" => f(o.noslip_tolerance),
        "ccd_tolerance" => f(o.ccd_tolerance),
        "sleep_tolerance" => f(o.sleep_tolerance),
        "density" => f(o.density),
        "viscosity" => f(o.viscosity),
        "o_margin" => f(o.o_margin),
        "gravity" => Values::F64(o.gravity.to_vec()),
        "wind" => Values::F64(o.wind.to_vec()),
        "magnetic" => Values::F64(o.magnetic.to_vec()),
        "o_solref" => Values::F64(o.o_solref.to_vec()),
        "o_solimp" => Values::F64(o.o_solimp.to_vec()),
        "o_friction" => Values::F64(o.o_friction.to_vec()),
        "integrator" => i(o.integrator as i32),
        "cone" => i(o.cone as i32),
        "jacobian" => i(o.jacobian as i32),
        "solver" => i(o.solver as i32),
        "iterations" => i(int(o.iterations)),
        "ls_iterations" => i(int(o.ls_iterations)),
        "noslip_iterations" => i(int(o.noslip_iterations)),
        "ccd_iterations" => i(int(o.ccd_iterations)),
        // the int32 bits of MuJoCo's fields are the engine's uint32 bits
        "disableflags" => i(o.disableflags as i32),
        "enableflags" => i(o.enableflags as i32),
        _ => return None,
    })
}

fn set_option(m: &mut Model, name: &str, v: ValuesRef<'_>) -> Result<(), String> {
    let o = &mut m.opt;
    let count = |x: i32| {
        usize::try_from(x).map_err(|_| format!("opt.{name} must be non-negative, got {x}"))
    };
    match (name, v) {
        ("timestep", ValuesRef::F64(&[x])) => o.timestep = x,
        ("impratio", ValuesRef::F64(&[x])) => o.impratio = x,
        ("tolerance", ValuesRef::F64(&[x])) => o.tolerance = x,
        ("ls_tolerance", ValuesRef::F64(&[x])) => o.ls_tolerance = x,
        ("noslip_tolerance", ValuesRef::F64(&[x])) => o.noslip_tolerance = x,
        ("ccd_tolerance", ValuesRef::F64(&[x])) => o.ccd_tolerance = x,
        ("sleep_tolerance", ValuesRef::F64(&[x])) => o.sleep_tolerance = x,
        ("density", ValuesRef::F64(&[x])) => o.density = x,
        ("viscosity", ValuesRef::F64(&[x])) => o.viscosity = x,
        ("o_margin", ValuesRef::F64(&[x])) => o.o_margin = x,
        ("gravity", ValuesRef::F64(&[x, y, z])) => o.gravity = [x, y, z],
        ("wind", ValuesRef::F64(&[x, y, z])) => o.wind = [x, y, z],
        ("magnetic", ValuesRef::F64(&[x, y, z])) => o.magnetic = [x, y, z],
        ("o_solref", ValuesRef::F64(v)) if v.len() == 2 => o.o_solref.copy_from_slice(v),
        ("o_solimp", ValuesRef::F64(v)) if v.len() == 5 => o.o_solimp.copy_from_slice(v),
        ("o_friction", ValuesRef::F64(v)) if v.len() == 5 => o.o_friction.copy_from_slice(v),
        ("integrator" | "cone" | "jacobian" | "solver", ValuesRef::I32(&[x])) => {
            set_option_enum(o, name, i64::from(x)).map_err(|e| format!("opt.{name}: {e}"))?
        }
        ("iterations", ValuesRef::I32(&[x])) => o.iterations = count(x)?,
        ("ls_iterations", ValuesRef::I32(&[x])) => o.ls_iterations = count(x)?,
        ("noslip_iterations", ValuesRef::I32(&[x])) => o.noslip_iterations = count(x)?,
        ("ccd_iterations", ValuesRef::I32(&[x])) => o.ccd_iterations = count(x)?,
        ("disableflags", ValuesRef::I32(&[x])) => o.disableflags = x as u32,
        ("enableflags", ValuesRef::I32(&[x])) => o.enableflags = x as u32,
        _ => return Err(format!("opt.{name}: values of another type or size")),
    }
    Ok(())
}

/// The values of field `name` in model `m` (see the module documentation); `None` for a
/// structural field or another name.
pub fn values(m: &Model, name: &str) -> Option<Values> {
    if let Some(opt) = name.strip_prefix("opt.") {
        return option_values(m, opt);
    }
    if let Some(u) = user(m, name) {
        return Some(Values::F64(u.clone()));
    }
    array_values(m, name)
}

/// Writes `v` into field `name` of `m`, or says why it cannot: a value the field does not
/// accept (an unknown enum value, a negative count).
pub fn set_values(m: &mut Model, name: &str, v: ValuesRef<'_>) -> Result<(), String> {
    if let Some(opt) = name.strip_prefix("opt.") {
        return set_option(m, opt, v);
    }
    if let Some(u) = user_mut(m, name) {
        return match v {
            ValuesRef::F64(v) if v.len() == u.len() => {
                u.copy_from_slice(v);
                Ok(())
            }
            _ => Err(format!("{name}: values of another type or size")),
        };
    }
    if set_array_values(m, name, v) {
        Ok(())
    } else {
        Err(format!("{name}: values of another type or size"))
    }
}
