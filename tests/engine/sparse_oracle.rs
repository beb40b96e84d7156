//! The sparse constraint Jacobian (`jacobian="sparse"`, and `"auto"` at nv ≥ 60) against MuJoCo
//! 4.0.0: `tests/reference/sparse_cases.json` from tools/reference/gen_sparse_cases.py.
//!
//! - `mj_isSparse` under `"auto"` at nv = 59, 60, 61.
//! - Per case (models/humanoid.xml forced sparse, models/humanoids.xml with nv 84 under "auto",
//!   models/sparse_patterns.xml with every row kind; moreau's own collision, full `forward`,
//!   contacts put in MuJoCo's order): the rows (efc_type, efc_id) and the compressed layout
//!   (efc_J_rownnz, efc_J_rowadr, efc_J_rowsuper, efc_J_colind) exactly, the efc_J values and
//!   efc_pos to 1e-12 (`|a − b| / max(1, |b|)`), then Newton: qacc, efc_force (relative to the
//!   largest |f|) and qfrc_constraint to 1e-9 and solver_niter exactly, as the dense island
//!   oracle; CG to 1e-6 (round-off sensitive on stiff problems, as there); PGS is printed only
//!   (moreau's sweeps differ from MuJoCo's on pyramidal rows in dense mode too, see
//!   `solver/pgs.rs`).
//! - Sparse against dense moreau at every case, without and with 3 noslip sweeps: the expanded
//!   sparse efc_J equals the dense one bit for bit, and qacc, efc_force, solver_niter are
//!   identical (every solver; the sparse products add the same nonzero terms in the same order).
//! - 200-step Euler rollouts (islands on) of the two humanoid models: qpos, qvel to
//!   1e-12 × the rollout's perturbation gain (MuJoCo's amplification of a 1e-9 qvel change,
//!   recorded by the generator), at least 1e-9.
//! - `step` in sparse mode allocates nothing once the arrays reached their size.

#![allow(clippy::needless_range_loop)]

use crate::alloc_counter;
use crate::oracle_util;

use moreau::model::{JacobianType, Model};
use moreau::pipeline::is_sparse;
use moreau::Data;
use oracle_util::{
    case_tag, cmp, err, ferr, forward_case, fv, iv, model, reference, set_cone_solver, set_inputs,
    track_rollout, us,
};
use serde_json::Value;

/// The case's model in sparse mode (forced where the generator forced it) with its cone and
/// solver.
fn case_model(c: &Value) -> Model {
    let name = c["model"].as_str().unwrap();
    let mut m = model(name);
    if name != "humanoids" {
        m.opt.jacobian = JacobianType::Sparse;
    }
    set_cone_solver(&mut m, c);
    assert!(is_sparse(&m), "{name}: not sparse");
    m
}

#[test]
fn auto_switches_at_mujocos_threshold() {
    let r = reference("sparse_cases.json");
    for nv in [59usize, 60, 61] {
        let bodies: String = (0..nv)
            .map(|i| {
                format!(r#"<body pos="{i} 0 1"><joint type="slide"/><geom size=".1"/></body>"#)
            })
            .collect();
        let xml = format!("<mujoco><worldbody>{bodies}</worldbody></mujoco>");
        let m = moreau::load_from_str(&xml, &Default::default()).unwrap();
        assert_eq!(m.opt.jacobian, JacobianType::Auto);
        let want = r["is_sparse"][nv.to_string()].as_bool().unwrap();
        assert_eq!(is_sparse(&m), want, "nv {nv}");
    }
}

#[test]
fn bad_jacobian_option_is_an_error() {
    let xml = r#"<mujoco><option jacobian="sparsest"/><worldbody/></mujoco>"#;
    let e = moreau::load_from_str(xml, &Default::default()).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("jacobian") && msg.contains(":1:"), "{msg}");
}

#[test]
fn sparse_rows_match_mujoco() {
    let r = reference("sparse_cases.json");
    let mut failures = Vec::new();
    let mut worst = std::collections::BTreeMap::<String, f64>::new();
    let mut ncase = 0;
    for c in r["cases"].as_array().unwrap() {
        let m = case_model(c);
        let solver = c["solver"].as_str().unwrap();
        let tag = case_tag(c);
        let Some(d) = forward_case(&m, c, &tag, &mut failures) else {
            continue;
        };
        assert!(d.efc_J_sparse);
        let n = d.nefc;
        let ty: Vec<i64> = d.efc_type.iter().map(|t| *t as i64).collect();
        let id: Vec<i64> = d.efc_id.iter().map(|&t| t as i64).collect();
        if ty != iv(&c["efc_type"]) || id != iv(&c["efc_id"]) {
            failures.push(format!("{tag}: rows differ (nefc {n} vs {})", c["nefc"]));
            continue;
        }
        for (key, got) in [
            ("efc_J_rownnz", us(&d.efc_J_rownnz[..n])),
            ("efc_J_rowadr", us(&d.efc_J_rowadr[..n])),
            ("efc_J_rowsuper", us(&d.efc_J_rowsuper[..n])),
            ("efc_J_colind", us(&d.efc_J_colind)),
        ] {
            if got != iv(&c[key]) {
                failures.push(format!(
                    "{tag}: {key} differs\n got  {got:?}\n want {:?}",
                    iv(&c[key])
                ));
            }
        }
        if d.efc_J.len() != d.efc_J_colind.len() {
            failures.push(format!("{tag}: efc_J has {} values", d.efc_J.len()));
        }
        let mut w = 0.0f64;
        cmp("efc_J", &d.efc_J, &fv(&c["efc_J"]), 1e-12, &mut w);
        cmp("efc_pos", &d.efc_pos, &fv(&c["efc_pos"]), 1e-12, &mut w);
        let e = worst.entry("efc_J, efc_pos".into()).or_default();
        *e = e.max(w);
        let eq = err(&d.qacc, &fv(&c["qacc"]));
        let ef = ferr(&d.efc_force, &fv(&c["efc_force"]));
        let eqc = err(&d.qfrc_constraint, &fv(&c["qfrc_constraint"]));
        let tol = match solver {
            "Newton" => 1e-9,
            "CG" => 1e-6,
            _ => f64::INFINITY,
        };
        let e = worst.entry(format!("{solver} qacc/force")).or_default();
        *e = e.max(eq.max(ef).max(eqc));
        if solver == "PGS" {
            println!("{tag}: PGS qacc err {eq:.1e} (printed only)");
        }
        if eq > tol || ef > tol || eqc > tol {
            failures.push(format!(
                "{tag}: qacc {eq:.1e} efc_force {ef:.1e} qfrc_constraint {eqc:.1e}"
            ));
        }
        let niter: Vec<i64> = d.solver_niter[..iv(&c["solver_niter"]).len()]
            .iter()
            .map(|&x| x as i64)
            .collect();
        if solver == "Newton" && niter != iv(&c["solver_niter"]) {
            failures.push(format!(
                "{tag}: solver_niter {niter:?} vs {:?}",
                iv(&c["solver_niter"])
            ));
        }
        ncase += 1;
    }
    for (k, v) in &worst {
        println!("worst {k:20} {v:.1e}");
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
    assert!(ncase >= 40);
}

#[test]
fn sparse_equals_dense() {
    let r = reference("sparse_cases.json");
    for (c, noslip) in r["cases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| [(c, 0), (c, 3)])
    {
        let mut ms = case_model(c);
        ms.opt.noslip_iterations = noslip;
        let mut md = ms.clone();
        md.opt.jacobian = JacobianType::Dense;
        let tag = format!(
            "{} [{}] {} noslip {noslip}",
            c["model"], c["label"], c["solver"]
        );
        let run = |m: &Model| {
            let mut d = Data::new(m);
            set_inputs(&mut d, c);
            moreau::forward(m, &mut d);
            d
        };
        let (ds, dd) = (run(&ms), run(&md));
        assert!(ds.efc_J_sparse && !dd.efc_J_sparse);
        assert_eq!(ds.nefc, dd.nefc, "{tag}");
        let nv = ms.nv;
        assert!(
            ds.efc_J_dense(nv) == dd.efc_J[..dd.nefc * nv],
            "{tag}: efc_J"
        );
        assert!(
            ds.efc_J_dense(nv) == dd.efc_J_dense(nv),
            "{tag}: efc_J_dense"
        );
        assert_eq!(ds.qacc, dd.qacc, "{tag}: qacc");
        assert_eq!(ds.efc_force, dd.efc_force, "{tag}: efc_force");
        assert_eq!(ds.efc_state, dd.efc_state, "{tag}: efc_state");
        assert_eq!(
            ds.qfrc_constraint, dd.qfrc_constraint,
            "{tag}: qfrc_constraint"
        );
        assert_eq!(ds.solver_niter, dd.solver_niter, "{tag}: niter");
        // inverse dynamics reads the rows through the same accessor
        let (mut ds, mut dd) = (ds, dd);
        moreau::inverse(&ms, &mut ds);
        moreau::inverse(&md, &mut dd);
        assert_eq!(ds.qfrc_inverse, dd.qfrc_inverse, "{tag}: qfrc_inverse");
    }
}

#[test]
fn sparse_rollouts_track_mujoco() {
    let r = reference("sparse_cases.json");
    let mut failures = Vec::new();
    for ro in r["rollouts"].as_array().unwrap() {
        let name = ro["model"].as_str().unwrap();
        let mut m = model(name);
        m.opt.jacobian = JacobianType::Sparse;
        let mut d = Data::new(&m);
        d.qpos.copy_from_slice(&fv(&ro["qpos"][0]));
        d.qvel.copy_from_slice(&fv(&ro["qvel"][0]));
        let nstep = ro["nstep"].as_u64().unwrap() as usize;
        let gain = ro["perturbation_gain"].as_f64().unwrap();
        let tol = (1e-12 * gain).max(1e-9);
        let (worst, at) = track_rollout(&m, &mut d, ro, |_, d| assert!(d.efc_J_sparse));
        println!("{name:12} {nstep} steps: max err {worst:.1e} (step {at}), tol {tol:.1e} (gain {gain:.1e})");
        if worst > tol {
            failures.push(format!("{name}: rollout err {worst:.1e} at step {at}"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

#[test]
fn sparse_step_does_not_allocate() {
    let m = model("humanoids");
    assert!(is_sparse(&m));
    let mut d: Data = Data::new(&m);
    d.reset_keyframe(&m, 0).unwrap();
    for _ in 0..100 {
        moreau::step(&m, &mut d);
    }
    // the same 20 steps twice: the first run brings the arrays to their size
    let (q, v, w, t) = (
        d.qpos.clone(),
        d.qvel.clone(),
        d.qacc_warmstart.clone(),
        d.time,
    );
    for counted in [false, true] {
        d.qpos.copy_from_slice(&q);
        d.qvel.copy_from_slice(&v);
        d.qacc_warmstart.copy_from_slice(&w);
        d.time = t;
        let before = alloc_counter::allocations();
        let mut max_nefc = 0;
        for _ in 0..20 {
            moreau::step(&m, &mut d);
            max_nefc = max_nefc.max(d.nefc);
        }
        let n = alloc_counter::allocations() - before;
        assert!(max_nefc > 30 && d.efc_J_sparse);
        if counted {
            assert_eq!(n, 0, "{n} allocations in 20 sparse steps");
        }
    }
}
