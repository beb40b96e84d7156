//! The dm_control-style planar models (`models/cheetah.xml`, `walker.xml`,
//! `hopper.xml`) against MuJoCo 4.0.0 (`tests/reference/<model>.json`, written by
//! `tools/reference/generate_contact.py cheetah walker hopper`; islands disabled as there).
//! Compiled fields are checked by `compile_oracle`, MuJoCo's contact lists and constraint rows
//! by `contact_oracle` (both list these models too); this file checks what a user of the suite
//! models sees, with moreau's own collision:
//! - `forward` at every recorded state (qpos0, rollout states with contacts, two randomly
//!   perturbed contact states, one of them without warm start): contacts, `efc_type`/`efc_id`
//!   exactly, `efc_J` to 1e-12, `efc_aref`, `efc_force`, `qacc`, `qfrc_constraint` and
//!   `sensordata` (hopper touch sensors, walker subtreelinvel) to 1e-8 (the contact oracle's
//!   qacc tolerance: Newton stops at `tolerance` 1e-8, so forces agree to round-off only when
//!   the iteration sequences coincide), `qfrc_passive`, `qfrc_actuator`, `qfrc_bias` to 1e-12;
//! - the recorded 500-step rollouts from qpos0 (no keyframe) in qpos and qvel to 1e-6, for all
//!   three models: Euler and implicitfast under sinusoids of 20% of the control range, and
//!   Euler under full-range sinusoids (`Euler_fullrange`: limits and, on the cheetah, up to 4
//!   contacts). None becomes chaotic within 500 steps: the largest perturbation gain
//!   (|Δ state| / 1e-9 for a 1e-9 change of the initial qvel, `perturbation_gain_steps`) is
//!   2.6e3 (hopper, full range, after step 488; walker 2.1e3 after step 435; hopper 1.2e3 at
//!   20% after step 274), so round-off (1e-16) stays far below the tolerance. The contact
//!   oracle calls a gain above 1e3 chaotic and skips those rollouts; this file compares them;
//! - `step` allocates nothing once the models are in contact.
//!
//! Errors are `|a − b| / max(1, |b|)` ([`oracle_util::err`]).

use crate::alloc_counter;
use crate::oracle_util;

use moreau::model::{disable, Integrator, Model};
use moreau::Data;
use oracle_util::{cmp_case, err, forward_case, fv, iv, reference, track_rollout, us};
use serde_json::{json, Value};

const MODELS: [&str; 3] = ["cheetah", "walker", "hopper"];
const TOL_SMOOTH: f64 = 1e-12;
const TOL_SOLVED: f64 = 1e-8;
const TOL_ROLLOUT: f64 = 1e-6;

/// The reference and the model compiled by moreau, islands disabled as in the generator.
fn load(name: &str) -> (Value, Model) {
    let r = reference(&format!("{name}.json"));
    let mut m = oracle_util::model(name);
    m.opt.disableflags |= disable::ISLAND;
    assert_eq!(
        r["opt"]["disableflags"].as_u64().unwrap() as u32,
        m.opt.disableflags,
        "{name}: disable flags"
    );
    (r, m)
}

/// A recorded state in the layout [`forward_case`] reads (`contacts`: geom1, geom2, pos).
fn case(s: &Value) -> Value {
    let contacts: Vec<Value> = s["contact"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let p = fv(&c["pos"]);
            json!([c["geom1"], c["geom2"], p[0], p[1], p[2]])
        })
        .collect();
    let mut c = s.clone();
    c["contacts"] = Value::Array(contacts);
    c
}

#[test]
fn forward_matches_at_recorded_states() {
    let mut failures = Vec::new();
    let (mut nstate, mut ncontact) = (0, 0);
    for name in MODELS {
        let (r, m) = load(name);
        let (mut worst_smooth, mut worst_solved) = (0.0f64, 0.0f64);
        for s in r["states"].as_array().unwrap() {
            let tag = format!("{name} [{}]", s["label"].as_str().unwrap());
            let c = case(s);
            let Some(d) = forward_case(&m, &c, &tag, &mut failures) else {
                continue;
            };
            nstate += 1;
            ncontact += d.contact.len();
            let efc_type: Vec<i64> = d.efc_type.iter().map(|t| *t as i32 as i64).collect();
            assert_eq!(efc_type, iv(&s["efc_type"]), "{tag}: efc_type");
            assert_eq!(us(&d.efc_id), iv(&s["efc_id"]), "{tag}: efc_id");
            let jac = d.efc_J_dense(m.nv);
            cmp_case(
                &tag,
                s,
                &[
                    ("efc_J", &jac),
                    ("qfrc_bias", d.qfrc_bias.as_slice()),
                    ("qfrc_passive", d.qfrc_passive.as_slice()),
                    ("qfrc_actuator", d.qfrc_actuator.as_slice()),
                ],
                TOL_SMOOTH,
                &mut worst_smooth,
            );
            cmp_case(
                &tag,
                s,
                &[
                    ("efc_aref", d.efc_aref.as_slice()),
                    ("efc_force", d.efc_force.as_slice()),
                    ("qacc", d.qacc.as_slice()),
                    ("qfrc_constraint", d.qfrc_constraint.as_slice()),
                    ("sensordata", d.sensordata.as_slice()),
                ],
                TOL_SOLVED,
                &mut worst_solved,
            );
        }
        println!("{name:8} forward: max err smooth {worst_smooth:.1e}, solved {worst_solved:.1e}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // the states exercise contacts (3 models × 7 states, most of them in contact)
    assert!(
        nstate == 21 && ncontact >= 20,
        "{nstate} states, {ncontact} contacts"
    );
}

#[test]
fn rollouts_track_mujoco() {
    for name in MODELS {
        let (r, mut m) = load(name);
        for (key, ro) in r["rollouts"].as_object().unwrap() {
            m.opt.integrator = match ro["integrator_enum"].as_u64() {
                Some(0) => Integrator::Euler,
                Some(3) => Integrator::ImplicitFast,
                k => panic!("{name} {key}: unexpected integrator {k:?}"),
            };
            assert_eq!(ro["timestep"].as_f64(), Some(m.opt.timestep));
            let mut d = Data::new(&m);
            d.qpos.copy_from_slice(&fv(&ro["qpos0"]));
            d.qvel.copy_from_slice(&fv(&ro["qvel0"]));
            let ncon = fv(&ro["ncon"]);
            let mut ncon_err = 0usize;
            // ncon of step k's forward pass is stored at index k + 1 (all steps recorded)
            let (worst, at) = track_rollout(&m, &mut d, ro, |k, d| {
                ncon_err = ncon_err.max((d.contact.len() as f64 - ncon[k + 1]).abs() as usize);
            });
            let gain = fv(&ro["perturbation_gain_steps"])
                .into_iter()
                .fold(0.0, f64::max);
            println!(
                "{name:8} {key:12} {} steps: max err {worst:.1e} (step {at}), max perturbation \
                 gain {gain:.2e}",
                ro["nstep"]
            );
            assert!(
                worst <= TOL_ROLLOUT,
                "{name} {key}: err {worst:.2e} at step {at}"
            );
            assert_eq!(ncon_err, 0, "{name} {key}: contact counts differ");
            let fin = fv(&ro["qpos"][ro["qpos"].as_array().unwrap().len() - 1]);
            assert!(err(&d.qpos, &fin) <= TOL_ROLLOUT);
        }
    }
}

#[test]
fn step_in_contact_does_not_allocate() {
    for name in MODELS {
        let (r, m) = load(name);
        let ro = &r["rollouts"]["Euler"];
        let mut d = Data::new(&m);
        d.qpos.copy_from_slice(&fv(&ro["qpos0"]));
        for c in ro["ctrl"].as_array().unwrap().iter().take(200) {
            d.ctrl.copy_from_slice(&fv(c));
            moreau::step(&m, &mut d);
        }
        assert!(!d.contact.is_empty(), "{name}: not in contact");
        let before = alloc_counter::allocations();
        for _ in 0..50 {
            moreau::step(&m, &mut d);
        }
        let n = alloc_counter::allocations() - before;
        assert_eq!(n, 0, "{name}: {n} allocations in 50 steps");
    }
}
