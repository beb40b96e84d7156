//! Constraint islands against MuJoCo 4.0.0 with island discovery on (its default):
//! `tests/reference/island_cases.json` from tools/reference/gen_island_cases.py.
//!
//! Per case (model, state, cone, solver; moreau's own collision, full `forward`):
//! - the island structure exactly: nisland, nidof, dof_island, island_dofadr, island_nv,
//!   island_idofadr, map_idof2dof, efc_island, island_nefc, island_iefcadr, island_ne,
//!   island_nf, map_iefc2efc;
//! - Newton: qacc and efc_force to 1e-9 (error `|a − b| / max(1, |b|)`, forces relative to the
//!   largest |f|), the final row states exactly, solver_niter per island exactly and the
//!   per-iteration improvement and gradient of every island to 1e-6 relative (they are
//!   differences of costs, so round-off is amplified by 1/improvement);
//! - CG: qacc and efc_force to 1e-6 or, where round-off moves its stopping point (one case,
//!   3e-6), no farther from the optimum than max(2 × MuJoCo's CG, 1e-5); niter per island
//!   within ±2 (its iterates are sensitive to round-off on stiff problems; the existing contact
//!   oracle uses the same bound);
//! - PGS: as Newton (qacc, efc_force to 1e-9, niter exactly, improvement to 1e-6), without the
//!   row states (MuJoCo's PGS sweeps, `solver/pgs.rs`; measured 2.9e-11).
//!
//! 500-step Euler rollouts with islands on of the non-chaotic contact models: qpos, qvel to
//! 1e-6.

#![allow(clippy::needless_range_loop)]

use crate::oracle_util;

use moreau::Data;
use oracle_util::{
    case_tag, err, ferr, forward_case, fv, iv, model, reference, set_cone_solver, track_rollout, us,
};
use serde_json::Value;

fn is(x: &[i32]) -> Vec<i64> {
    x.iter().map(|&v| v as i64).collect()
}

/// The island structure of `d` against the case.
fn structure_errors(d: &Data, c: &Value) -> Vec<String> {
    let ni = d.nisland;
    let nefc = d.nefc;
    let nv = d.qacc.len();
    let mut out = Vec::new();
    let mut cmp = |what: &str, ours: Vec<i64>, key: &str| {
        let theirs = iv(&c[key]);
        if ours != theirs {
            out.push(format!("{what}: ours {ours:?} vs {theirs:?}"));
        }
    };
    cmp("nisland", vec![ni as i64], "nisland");
    if ni == 0 {
        return out;
    }
    cmp("nidof", vec![d.nidof as i64], "nidof");
    cmp("dof_island", is(&d.dof_island[..nv]), "dof_island");
    cmp("island_dofadr", us(&d.island_dofadr[..ni]), "island_dofadr");
    cmp("island_nv", us(&d.island_nv[..ni]), "island_nv");
    cmp(
        "island_idofadr",
        us(&d.island_idofadr[..ni]),
        "island_idofadr",
    );
    cmp("map_idof2dof", us(&d.map_idof2dof[..nv]), "map_idof2dof");
    cmp("efc_island", is(&d.efc_island[..nefc]), "efc_island");
    cmp("island_nefc", us(&d.island_nefc[..ni]), "island_nefc");
    cmp(
        "island_iefcadr",
        us(&d.island_iefcadr[..ni]),
        "island_iefcadr",
    );
    cmp("island_ne", us(&d.island_ne[..ni]), "island_ne");
    cmp("island_nf", us(&d.island_nf[..ni]), "island_nf");
    cmp("map_iefc2efc", us(&d.map_iefc2efc[..nefc]), "map_iefc2efc");
    out
}

#[test]
fn islands_match_mujoco() {
    let r = reference("island_cases.json");
    let mut failures = Vec::new();
    let mut worst = std::collections::BTreeMap::<String, f64>::new();
    let mut ncase = 0;
    let mut newton_qacc = std::collections::HashMap::new();
    for c in r["cases"].as_array().unwrap() {
        let name = c["model"].as_str().unwrap();
        if c["solver"] == "Newton" {
            newton_qacc.insert(
                format!("{name} {} {}", c["label"], c["cone"]),
                fv(&c["qacc"]),
            );
        }
        let mut m = model(name);
        let solver = set_cone_solver(&mut m, c);
        let tag = case_tag(c);
        let Some(d) = forward_case(&m, c, &tag, &mut failures) else {
            continue;
        };
        let ty: Vec<i64> = d.efc_type.iter().map(|t| *t as i64).collect();
        let id: Vec<i64> = d.efc_id.iter().map(|&t| t as i64).collect();
        if ty != iv(&c["efc_type"]) || id != iv(&c["efc_id"]) {
            failures.push(format!(
                "{tag}: constraint rows differ (nefc {} vs {})",
                d.nefc, c["nefc"]
            ));
            continue;
        }
        ncase += 1;
        for e in structure_errors(&d, c) {
            failures.push(format!("{tag}: {e}"));
        }
        let nisl = d.nisland.max(1);
        let niter_ref = iv(&c["solver_niter"]);
        let niter: Vec<i64> = d.solver_niter[..niter_ref.len()]
            .iter()
            .map(|&x| x as i64)
            .collect();
        let eq = err(&d.qacc, &fv(&c["qacc"]));
        let ef = ferr(&d.efc_force, &fv(&c["efc_force"]));
        let key = format!("{solver} {}", c["cone"].as_str().unwrap());
        let w = worst.entry(key).or_insert(0.0);
        *w = w.max(eq.max(ef));
        match solver {
            "Newton" => {
                if eq > 1e-9 || ef > 1e-9 {
                    failures.push(format!("{tag}: qacc err {eq:.1e}, efc_force err {ef:.1e}"));
                }
                if niter != niter_ref {
                    failures.push(format!("{tag}: solver_niter {niter:?} vs {niter_ref:?}"));
                }
                let st: Vec<i64> = d.efc_state.iter().map(|s| *s as i64).collect();
                if st != iv(&c["efc_state_final"]) {
                    failures.push(format!("{tag}: efc_state differs"));
                }
                for k in 0..nisl.min(niter_ref.len()) {
                    let s = &c["solver_stats"][k];
                    let (imp, grad) = (fv(&s["improvement"]), fv(&s["gradient"]));
                    for (i, (a, b)) in d
                        .solver_stats(k)
                        .iter()
                        .zip(imp.iter().zip(&grad))
                        .enumerate()
                    {
                        // relative 1e-6, absolute 1e-10 (round-off of cost differences and of
                        // gradients at the solution)
                        let e1 = (a.improvement - b.0).abs();
                        let e2 = (a.gradient - b.1).abs();
                        if e1 > 1e-6 * b.0.abs() + 1e-10 || e2 > 1e-6 * b.1.abs() + 1e-10 {
                            failures.push(format!(
                                "{tag}: island {k} iteration {i}: improvement {} vs {}, \
                                 gradient {} vs {}",
                                a.improvement, b.0, a.gradient, b.1
                            ));
                        }
                    }
                }
            }
            "CG" => {
                // CG stops on its relative improvement (tolerance 1e-8), so both CGs end only
                // tolerance-close to the optimum (MuJoCo's Newton qacc of the same case), and a
                // round-off change (1 ulp in the state) moves where they stop: agreement with
                // MuJoCo's CG to 1e-6, or else no farther from the optimum than
                // max(2 × MuJoCo's CG, 1e-5).
                let opt = &newton_qacc[&format!("{name} {} {}", c["label"], c["cone"])];
                let (mj, ours) = (err(&fv(&c["qacc"]), opt), err(&d.qacc, opt));
                if (eq > 1e-6 || ef > 1e-6) && ours > (2.0 * mj).max(1e-5) {
                    failures.push(format!(
                        "{tag}: qacc err {eq:.1e}, efc_force err {ef:.1e}; distance to the \
                         optimum {ours:.1e} vs MuJoCo's {mj:.1e}"
                    ));
                } else if eq > 1e-6 || ef > 1e-6 {
                    println!(
                        "CG {tag}: qacc err {eq:.1e}, efc_force err {ef:.1e}; distance to the \
                         optimum {ours:.1e} vs MuJoCo's {mj:.1e}"
                    );
                }
                for (a, b) in niter.iter().zip(&niter_ref) {
                    if (a - b).abs() > 2 {
                        failures.push(format!("{tag}: solver_niter {niter:?} vs {niter_ref:?}"));
                        break;
                    }
                }
            }
            _ => {
                // PGS: MuJoCo 4.0.0's sweeps (shuffled blocks, momentum; solver/pgs.rs), so
                // qacc and efc_force to 1e-9, niter per island exactly, the improvement of
                // every sweep to 1e-6 relative + 1e-10 absolute (as Newton's, above)
                if eq > 1e-9 || ef > 1e-9 {
                    failures.push(format!("{tag}: qacc err {eq:.1e}, efc_force err {ef:.1e}"));
                }
                if niter != niter_ref {
                    failures.push(format!("{tag}: solver_niter {niter:?} vs {niter_ref:?}"));
                }
                for k in 0..nisl.min(niter_ref.len()) {
                    let imp = fv(&c["solver_stats"][k]["improvement"]);
                    for (i, (a, b)) in d.solver_stats(k).iter().zip(&imp).enumerate() {
                        if (a.improvement - b).abs() > 1e-6 * b.abs() + 1e-10 {
                            failures.push(format!(
                                "{tag}: island {k} iteration {i}: improvement {} vs {b}",
                                a.improvement
                            ));
                        }
                    }
                }
            }
        }
    }
    for (k, w) in &worst {
        println!("{k:20} max err (qacc, efc_force) {w:.1e}");
    }
    println!("{ncase} cases compared");
    for f in &failures {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
    assert!(ncase > 50);
}

#[test]
fn island_rollouts_track_mujoco() {
    let r = reference("island_cases.json");
    let mut failures = Vec::new();
    for ro in r["rollouts"].as_array().unwrap() {
        let name = ro["model"].as_str().unwrap();
        if ro["chaotic"].as_bool().unwrap() {
            println!(
                "{name:22} chaotic (gain {:.1e}), not compared",
                ro["perturbation_gain"].as_f64().unwrap()
            );
            continue;
        }
        let m = model(name);
        let mut d = Data::new(&m);
        d.qpos.copy_from_slice(&fv(&ro["qpos"][0]));
        d.qvel.copy_from_slice(&fv(&ro["qvel"][0]));
        if m.nkey > 0 {
            d.act.copy_from_slice(&m.key_act[0]);
        }
        let nisland = iv(&ro["nisland"]);
        let nstep = ro["nstep"].as_u64().unwrap() as usize;
        let mut nisl_bad = 0;
        let (worst, at) = track_rollout(&m, &mut d, ro, |k, d| {
            nisl_bad += (d.nisland as i64 != nisland[k]) as usize;
        });
        println!("{name:22} {nstep} steps: max err {worst:.1e} (step {at}), nisland differs in {nisl_bad} steps");
        if worst > 1e-6 || nisl_bad > 0 {
            failures.push(format!(
                "{name}: rollout err {worst:.1e} at step {at}, nisland differs in {nisl_bad} steps"
            ));
        }
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// The island structure of `d` as integer lists (every field [`structure_errors`] checks).
fn structure(d: &Data) -> Vec<Vec<i64>> {
    let (ni, nv, nefc) = (d.nisland, d.qacc.len(), d.nefc);
    let mut s = vec![vec![ni as i64, d.nidof as i64]];
    if ni > 0 {
        s.extend([
            is(&d.dof_island[..nv]),
            us(&d.island_dofadr[..ni]),
            us(&d.island_nv[..ni]),
            us(&d.island_idofadr[..ni]),
            us(&d.map_idof2dof[..nv]),
            is(&d.efc_island[..nefc]),
            us(&d.island_nefc[..ni]),
            us(&d.island_iefcadr[..ni]),
            us(&d.island_ne[..ni]),
            us(&d.island_nf[..ni]),
            us(&d.map_iefc2efc[..nefc]),
        ]);
    }
    s
}

/// `solver::island` reuses its last results when the rows' trees and the trees' roots are
/// unchanged: one `Data` per model carried through every case (each after a forward without
/// rows, which clears `nisland`, and forwarded twice) has the islands of a fresh `Data`.
#[test]
fn islands_of_reused_data_match_fresh() {
    let r = reference("island_cases.json");
    let mut reused = std::collections::HashMap::<String, Data>::new();
    let mut n = 0;
    for c in r["cases"].as_array().unwrap() {
        let name = c["model"].as_str().unwrap();
        let mut m = model(name);
        set_cone_solver(&mut m, c);
        let mut fresh = Data::new(&m);
        oracle_util::set_inputs(&mut fresh, c);
        moreau::forward(&m, &mut fresh);
        let d = reused
            .entry(name.to_string())
            .or_insert_with(|| Data::new(&m));
        let mut off = m.clone();
        off.opt.disableflags |= moreau::model::disable::CONSTRAINT;
        oracle_util::set_inputs(d, c);
        moreau::forward(&off, d);
        assert_eq!((d.nefc, d.nisland), (0, 0));
        for pass in 0..2 {
            oracle_util::set_inputs(d, c);
            moreau::forward(&m, d);
            assert_eq!(
                structure(d),
                structure(&fresh),
                "{} pass {pass}",
                case_tag(c)
            );
        }
        n += usize::from(fresh.nisland > 0);
    }
    assert!(n >= 5, "only {n} cases with islands");
}
