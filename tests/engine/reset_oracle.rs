//! What a reset leaves in every field, against MuJoCo 4.0.0's `mj_resetData` and
//! `mj_resetDataKeyframe` (tests/reference/reset_fields.json, written by
//! tools/reference/gen_reset_fields.py).
//!
//! Each case drives a `Data` away from its defaults as the script does (60 steps with
//! controls, applied forces, moved mocap bodies and userdata, after a first keyframe reset; or
//! 300 steps with controls only, so that trees fall asleep), resets it and compares every field
//! `Data` has under MuJoCo's name: the integer fields, the counts and every field MuJoCo has all
//! zero exactly (−0 equals 0; 1e-300 fails), the fields a reset with the `sleep` flag computes
//! (its kinematics or its forward pass) within [`TOL`] relative to max(1, the field's largest
//! magnitude in MuJoCo), their integer-valued entries exactly.
//! Fields whose layout differs from MuJoCo's (`qLD`, `ten_J`: MuJoCo's compressed patterns)
//! are compared where MuJoCo's are all zero: then moreau's must be too. The actuator moments
//! and their rows (`actuator_moment`, `moment_rownnz`, `moment_rowadr`, `moment_colind`) are
//! compared entry by entry (the models here have no site or body transmissions, whose rows
//! MuJoCo narrows at the current state).
//! Then the same after driving again and a keyframe reset to the model's last keyframe.
//! The zoo cases run when the zoo cache is there (tools/zoo/fetch.py).

use crate::oracle_util;

use moreau::{load_from_str, Data, Model, Vfs};
use nalgebra::{Matrix3, Quaternion, Vector3, Vector6};
use oracle_util::root;
use serde_json::Value;

/// Converged contact solutions (the reset's forward pass with `sleep="init"` trees).
const TOL: f64 = 1e-8;

fn v3(v: &[Vector3<f64>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}

fn v6(v: &[Vector6<f64>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}

fn quat(v: &[Quaternion<f64>]) -> Vec<f64> {
    v.iter().flat_map(|q| [q.w, q.i, q.j, q.k]).collect()
}

/// Row-major, as MuJoCo's `xmat`.
fn mat(v: &[Matrix3<f64>]) -> Vec<f64> {
    v.iter()
        .flat_map(|x| (0..9).map(move |k| x[(k / 3, k % 3)]))
        .collect()
}

fn ints<I: Copy + TryInto<i64>>(v: &[I]) -> Vec<f64> {
    v.iter()
        .map(|&x| x.try_into().unwrap_or(i64::MAX) as f64)
        .collect()
}

fn one(x: f64) -> Vec<f64> {
    vec![x]
}

/// How a field is compared.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Every entry: zeros and integers exactly, the rest within [`TOL`].
    Values,
    /// Layout differs from MuJoCo's: all zeros where MuJoCo's are all zero.
    ZeroIfZero,
}

/// Every field of `d` under MuJoCo's name, flattened in MuJoCo's layout.
fn fields(d: &Data) -> Vec<(&'static str, Kind, Vec<f64>)> {
    use Kind::*;
    let w = |f: fn(&moreau::data::WarningStat) -> f64| d.warning.iter().map(f).collect();
    vec![
        ("time", Values, one(d.time)),
        ("qpos", Values, d.qpos.clone()),
        ("qvel", Values, d.qvel.clone()),
        ("act", Values, d.act.clone()),
        ("qacc_warmstart", Values, d.qacc_warmstart.clone()),
        ("mocap_pos", Values, v3(&d.mocap_pos)),
        ("mocap_quat", Values, quat(&d.mocap_quat)),
        ("ctrl", Values, d.ctrl.clone()),
        ("qfrc_applied", Values, d.qfrc_applied.clone()),
        ("xfrc_applied", Values, v6(&d.xfrc_applied)),
        ("qacc", Values, d.qacc.clone()),
        ("act_dot", Values, d.act_dot.clone()),
        ("userdata", Values, d.userdata.clone()),
        ("xpos", Values, v3(&d.xpos)),
        ("xquat", Values, quat(&d.xquat)),
        ("xmat", Values, mat(&d.xmat)),
        ("xipos", Values, v3(&d.xipos)),
        ("ximat", Values, mat(&d.ximat)),
        ("xanchor", Values, v3(&d.xanchor)),
        ("xaxis", Values, v3(&d.xaxis)),
        ("geom_xpos", Values, v3(&d.geom_xpos)),
        ("geom_xmat", Values, mat(&d.geom_xmat)),
        ("site_xpos", Values, v3(&d.site_xpos)),
        ("site_xmat", Values, mat(&d.site_xmat)),
        ("cam_xpos", Values, v3(&d.cam_xpos)),
        ("cam_xmat", Values, mat(&d.cam_xmat)),
        ("light_xpos", Values, v3(&d.light_xpos)),
        ("light_xdir", Values, v3(&d.light_xdir)),
        ("subtree_com", Values, v3(&d.subtree_com)),
        ("cdof", Values, v6(&d.cdof)),
        (
            "cinert",
            Values,
            d.cinert.iter().flatten().copied().collect(),
        ),
        ("crb", Values, d.crb.iter().flatten().copied().collect()),
        ("ten_length", Values, d.ten_length.clone()),
        ("ten_J", ZeroIfZero, d.ten_J.clone()),
        ("ten_wrapadr", Values, ints(&d.ten_wrapadr)),
        ("ten_wrapnum", Values, ints(&d.ten_wrapnum)),
        ("wrap_obj", Values, ints(&d.wrap_obj)),
        ("wrap_xpos", Values, v3(&d.wrap_xpos)),
        ("actuator_length", Values, d.actuator_length.clone()),
        ("actuator_moment", Values, d.actuator_moment.clone()),
        ("moment_rownnz", Values, ints(&d.moment_rownnz)),
        ("moment_rowadr", Values, ints(&d.moment_rowadr)),
        ("moment_colind", Values, ints(&d.moment_colind)),
        ("M", ZeroIfZero, d.qM.clone()),
        ("qLD", ZeroIfZero, d.qLD.clone()),
        ("qLDiagInv", Values, d.qLDiagInv.clone()),
        ("ten_velocity", Values, d.ten_velocity.clone()),
        ("actuator_velocity", Values, d.actuator_velocity.clone()),
        ("cvel", Values, v6(&d.cvel)),
        ("cdof_dot", Values, v6(&d.cdof_dot)),
        ("qfrc_bias", Values, d.qfrc_bias.clone()),
        ("qfrc_spring", Values, d.qfrc_spring.clone()),
        ("qfrc_damper", Values, d.qfrc_damper.clone()),
        ("qfrc_gravcomp", Values, d.qfrc_gravcomp.clone()),
        ("qfrc_fluid", Values, d.qfrc_fluid.clone()),
        ("qfrc_passive", Values, d.qfrc_passive.clone()),
        ("qfrc_adhesion", Values, d.qfrc_adhesion.clone()),
        ("subtree_linvel", Values, v3(&d.subtree_linvel)),
        ("subtree_angmom", Values, v3(&d.subtree_angmom)),
        ("actuator_force", Values, d.actuator_force.clone()),
        ("qfrc_actuator", Values, d.qfrc_actuator.clone()),
        ("qfrc_smooth", Values, d.qfrc_smooth.clone()),
        ("qacc_smooth", Values, d.qacc_smooth.clone()),
        ("qfrc_constraint", Values, d.qfrc_constraint.clone()),
        ("qfrc_inverse", Values, d.qfrc_inverse.clone()),
        ("cacc", Values, v6(&d.cacc)),
        ("cfrc_int", Values, v6(&d.cfrc_int)),
        ("cfrc_ext", Values, v6(&d.cfrc_ext)),
        ("qDeriv", ZeroIfZero, d.qDeriv.clone()),
        ("qLU", ZeroIfZero, d.qLU.clone()),
        ("qH", ZeroIfZero, d.qH.clone()),
        ("qHDiagInv", Values, d.qHDiagInv.clone()),
        ("sensordata", Values, d.sensordata.clone()),
        ("solver_fwdinv", Values, d.solver_fwdinv.to_vec()),
        ("energy", Values, d.energy.to_vec()),
        (
            "eq_active",
            Values,
            d.eq_active.iter().map(|&a| a as u8 as f64).collect(),
        ),
        ("tree_asleep", Values, ints(&d.tree_asleep)),
        ("tree_island", Values, ints(&d.tree_island)),
        ("dof_island", Values, ints(&d.dof_island)),
        ("map_dof2idof", Values, ints(&d.map_dof2idof)),
        ("map_idof2dof", Values, ints(&d.map_idof2dof)),
        ("map_itree2tree", Values, ints(&d.map_itree2tree)),
        ("island_nv", Values, ints(&d.island_nv)),
        ("island_ntree", Values, ints(&d.island_ntree)),
        ("island_nefc", Values, ints(&d.island_nefc)),
        (
            "efc_island",
            Values,
            ints(&d.efc_island[..d.nefc.min(d.efc_island.len())]),
        ),
        ("efc_force", Values, d.efc_force.clone()),
        ("efc_pos", Values, d.efc_pos.clone()),
        ("ncon", Values, one(d.contact.len() as f64)),
        ("nefc", Values, one(d.nefc as f64)),
        ("nisland", Values, one(d.nisland as f64)),
        ("nidof", Values, one(d.nidof as f64)),
        ("maxuse_con", Values, one(d.maxuse_con as f64)),
        ("maxuse_efc", Values, one(d.maxuse_efc as f64)),
        ("flg_energypos", Values, one(d.flg_energypos as u8 as f64)),
        ("flg_energyvel", Values, one(d.flg_energyvel as u8 as f64)),
        ("solver_niter", Values, ints(&d.solver_niter)),
        ("warning_number", Values, w(|s| s.number as f64)),
        ("warning_lastinfo", Values, w(|s| s.lastinfo as f64)),
    ]
}

/// MuJoCo's field, expanded from its nonzero entries.
fn expand(f: &Value) -> Vec<f64> {
    let n: usize = f["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .product();
    let mut v = vec![0.0; n];
    for e in f["nz"].as_array().unwrap() {
        v[e[0].as_u64().unwrap() as usize] = e[1].as_f64().unwrap();
    }
    v
}

fn compare(at: &str, d: &Data, want: &Value, worst: &mut f64) -> Vec<String> {
    let mut bad = Vec::new();
    for (name, kind, got) in fields(d) {
        let Some(f) = want.get(name) else {
            bad.push(format!("{at}: {name} not in the reference"));
            continue;
        };
        let w = expand(f);
        if kind == Kind::ZeroIfZero {
            if w.iter().all(|x| *x == 0.0) && got.iter().any(|x| *x != 0.0) {
                bad.push(format!("{at}: {name} not all zero"));
            }
            continue;
        }
        if got.len() != w.len() {
            bad.push(format!(
                "{at}: {name} has {} entries, MuJoCo {}",
                got.len(),
                w.len()
            ));
            continue;
        }
        let scale = w.iter().fold(1.0f64, |s, x| s.max(x.abs()));
        let cleared = w.iter().all(|x| *x == 0.0);
        for (k, (a, b)) in got.iter().zip(&w).enumerate() {
            let exact = b.fract() == 0.0 && a.fract() == 0.0 && b.abs() < 1e9;
            let ok = if cleared || exact {
                a == b
            } else {
                let e = (a - b).abs() / scale;
                *worst = worst.max(e);
                e <= TOL
            };
            if !ok {
                bad.push(format!("{at}: {name}[{k}] = {a:e}, MuJoCo {b:e}"));
                break;
            }
        }
    }
    bad
}

/// The script's `drive` (tools/reference/gen_reset_fields.py).
fn drive(m: &Model, d: &mut Data, nstep: usize, push: bool) {
    if m.nkey > 0 && push {
        d.reset_keyframe(m, 0).unwrap();
    }
    for i in 0..nstep {
        for j in 0..m.nu {
            let mut c = 0.5 * (0.1 * i as f64 + j as f64).sin();
            if m.actuator_ctrllimited[j] {
                let [lo, hi] = m.actuator_ctrlrange[j];
                c = lo + (hi - lo) * (0.5 + c);
            }
            d.ctrl[j] = c;
        }
        if push {
            d.qfrc_applied.fill(0.1);
            if m.nbody > 1 {
                d.xfrc_applied[1] = Vector6::new(0.3, -0.2, 0.1, 0.01, 0.02, -0.01);
            }
            for p in d.mocap_pos.iter_mut() {
                *p += Vector3::repeat(0.001);
            }
            d.userdata.fill(1.0);
        }
        moreau::step(m, d);
    }
}

fn load(case: &Value) -> Model {
    if let Some(p) = case["path"].as_str() {
        return moreau::load(format!("{}/{p}", root())).unwrap();
    }
    if let Some(p) = case["zoo"].as_str() {
        return crate::zoo::load_model(p);
    }
    load_from_str(case["xml"].as_str().unwrap(), &Vfs::default()).unwrap()
}

#[test]
fn every_field_after_a_reset_is_mujocos() {
    let r = oracle_util::reference("reset_fields.json");
    let nstep0 = r["nstep"].as_u64().unwrap() as usize;
    let (mut worst, mut bad, mut ran) = (0.0f64, Vec::new(), 0);
    for case in r["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let m = load(case);
        ran += 1;
        let nstep = case["nstep"].as_u64().map_or(nstep0, |n| n as usize);
        let push = case["push"].as_bool().unwrap_or(true);
        let mut d = Data::new(&m);
        drive(&m, &mut d, nstep, push);
        d.reset(&m);
        bad.extend(compare(
            &format!("{name} reset"),
            &d,
            &case["reset"],
            &mut worst,
        ));
        if let Some(want) = case.get("key_reset") {
            drive(&m, &mut d, nstep, push);
            let k = case["key"].as_u64().unwrap() as usize;
            d.reset_keyframe(&m, k).unwrap();
            bad.extend(compare(&format!("{name} key {k}"), &d, want, &mut worst));
        }
    }
    eprintln!("reset: {ran} cases, worst relative error {worst:.2e}");
    assert!(ran >= 8, "only {ran} cases ran");
    assert!(
        bad.is_empty(),
        "{} differences:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// A reset writes into the arrays `Data::new` sized: after stepping (contacts, rows, islands,
/// sleeping trees), `reset` and `reset_keyframe` allocate nothing, also with the `sleep` flag
/// and its forward pass over `sleep="init"` trees.
#[test]
fn a_reset_does_not_allocate() {
    use crate::alloc_counter::allocations;
    let r = oracle_util::reference("reset_fields.json");
    let nstep0 = r["nstep"].as_u64().unwrap() as usize;
    let mut ran = 0;
    for case in r["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        if case.get("zoo").is_some() {
            continue;
        }
        let m = load(case);
        let nstep = case["nstep"].as_u64().map_or(nstep0, |n| n as usize);
        let push = case["push"].as_bool().unwrap_or(true);
        let mut d = Data::new(&m);
        drive(&m, &mut d, nstep, push);
        let before = allocations();
        d.reset(&m);
        let n = allocations() - before;
        assert_eq!(n, 0, "{name}: reset allocated {n} times");
        drive(&m, &mut d, nstep, push);
        if m.nkey > 0 {
            let before = allocations();
            d.reset_keyframe(&m, m.nkey - 1).unwrap();
            let n = allocations() - before;
            assert_eq!(n, 0, "{name}: reset_keyframe allocated {n} times");
        }
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} cases ran");
}
