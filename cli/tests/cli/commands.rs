//! The `moreau` binary against the CLI contract (docs/cli.md): output shapes on
//! models/ files, and bad input giving a non-zero exit with a message naming the file, no panic.

#![allow(clippy::needless_range_loop)]

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_moreau"))
}

fn model(name: &str) -> String {
    format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("moreau-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Non-zero exit, no panic, and stderr mentions `needle`.
fn fails(o: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "should have failed");
    assert!(!err.contains("panicked"), "panic: {err}");
    assert!(err.contains(needle), "stderr lacks '{needle}': {err}");
}

fn json(p: &PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn shape(v: &Value) -> (usize, usize) {
    let a = v.as_array().unwrap();
    (
        a.len(),
        a.first().and_then(|r| r.as_array()).map_or(0, |r| r.len()),
    )
}

#[test]
fn inspect_prints_sizes_and_options() {
    let out = ok(&run(&["inspect", &model("arm7")]));
    for line in [
        "nq 7",
        "nv 7",
        "nu 7",
        "na 4",
        "nbody 9",
        "njnt 7",
        "nkey 1",
        "nsensor 0",
    ] {
        assert!(out.lines().any(|l| l == line), "missing '{line}' in\n{out}");
    }
    assert!(out.contains("timestep 0.002") && out.contains("integrator Euler"));
}

#[test]
fn simulate_shapes_ctrl_and_keyframe() {
    let out = tmp("sim.json");
    let o = out.to_str().unwrap();
    ok(&run(&[
        "simulate",
        &model("pendulum"),
        "--steps",
        "10",
        "--out",
        o,
    ]));
    let v = json(&out);
    assert_eq!(v["time"].as_array().unwrap().len(), 11);
    assert_eq!(shape(&v["qpos"]), (11, 1));
    assert_eq!(shape(&v["qvel"]), (11, 1));
    assert_eq!(v["act"].as_array().unwrap().len(), 11);
    assert_eq!(v["time"][0].as_f64(), Some(0.0));

    // arm7: nu = 7, na = 4, keyframe 0, a control file, each integrator
    let csv = tmp("ctrl.csv");
    let row = "0.1,-0.2,0.3,0.0,0.5,-0.1,0.2\n";
    std::fs::write(&csv, row.repeat(5)).unwrap();
    for integ in ["Euler", "implicit", "implicitfast", "RK4"] {
        ok(&run(&[
            "simulate",
            &model("arm7"),
            "--steps",
            "5",
            "--keyframe",
            "0",
            "--ctrl",
            csv.to_str().unwrap(),
            "--integrator",
            integ,
            "--out",
            o,
        ]));
        let v = json(&out);
        assert_eq!(shape(&v["qpos"]), (6, 7));
        assert_eq!(shape(&v["act"]), (6, 4));
        let t = v["time"][5].as_f64().unwrap();
        assert!((t - 0.01).abs() < 1e-12);
    }
}

#[test]
fn simulate_rejects_bad_input() {
    let out = tmp("bad.json");
    let o = out.to_str().unwrap();
    let csv = tmp("bad.csv");
    let c = csv.to_str().unwrap();
    let arm = model("arm7");
    // wrong column count
    std::fs::write(&csv, "1,2,3\n").unwrap();
    fails(
        &run(&["simulate", &arm, "--steps", "1", "--ctrl", c, "--out", o]),
        "bad.csv",
    );
    // not a number
    std::fs::write(&csv, "1,2,x,4,5,6,7\n").unwrap();
    fails(
        &run(&["simulate", &arm, "--steps", "1", "--ctrl", c, "--out", o]),
        "bad.csv",
    );
    // too few rows
    std::fs::write(&csv, "1,2,3,4,5,6,7\n").unwrap();
    fails(
        &run(&["simulate", &arm, "--steps", "3", "--ctrl", c, "--out", o]),
        "bad.csv",
    );
    // missing control file, missing model, bad keyframe, bad integrator
    let nofile = tmp("nope.csv");
    let n = nofile.to_str().unwrap();
    fails(
        &run(&["simulate", &arm, "--steps", "1", "--ctrl", n, "--out", o]),
        "nope.csv",
    );
    fails(
        &run(&["simulate", "/nonexistent/m.xml", "--steps", "1", "--out", o]),
        "m.xml",
    );
    fails(
        &run(&[
            "simulate",
            &arm,
            "--steps",
            "1",
            "--keyframe",
            "9",
            "--out",
            o,
        ]),
        "keyframe",
    );
    fails(
        &run(&[
            "simulate",
            &arm,
            "--steps",
            "1",
            "--integrator",
            "leapfrog",
            "--out",
            o,
        ]),
        "leapfrog",
    );
    // malformed MJCF: file, line and column in the message
    let xml = tmp("broken.xml");
    std::fs::write(&xml, "<mujoco>\n  <worldbody>\n    <body><joint type=\"hinge\" damping=\"x\"/></body>\n  </worldbody>\n</mujoco>\n").unwrap();
    fails(
        &run(&[
            "simulate",
            xml.to_str().unwrap(),
            "--steps",
            "1",
            "--out",
            o,
        ]),
        "broken.xml:3",
    );
    // usage error (missing --out)
    let u = run(&["simulate", &arm, "--steps", "1"]);
    assert!(!u.status.success() && !String::from_utf8_lossy(&u.stderr).contains("panicked"));
}

#[test]
fn forward_outputs_and_state_checks() {
    let st = tmp("state.json");
    let out = tmp("fwd.json");
    let (s, o) = (st.to_str().unwrap(), out.to_str().unwrap());
    let arm = model("arm7");
    std::fs::write(
        &st,
        r#"{"qpos":[0.1,0.2,0.3,0.4,0.5,0.6,0.7],"qvel":[1,0,0,0,0,0,-1],
            "act":[0.1,0.2,0.3,0.4],"ctrl":[0,0,0,0,0,0,0.5],"qfrc_applied":[0,0,0,1,0,0,0]}"#,
    )
    .unwrap();
    ok(&run(&["forward", &arm, "--state", s, "--out", o]));
    let v = json(&out);
    for (k, n) in [
        ("qacc", 7),
        ("qacc_smooth", 7),
        ("qfrc_bias", 7),
        ("qfrc_passive", 7),
        ("qfrc_actuator", 7),
        ("actuator_force", 7),
        ("act_dot", 4),
    ] {
        assert_eq!(v[k].as_array().map(|a| a.len()), Some(n), "{k}");
    }
    assert_eq!(shape(&v["xpos"]), (9, 3));
    assert_eq!(shape(&v["xquat"]), (9, 4));
    assert_eq!(shape(&v["qM"]), (7, 7));

    // wrong length, missing key, wrong type, invalid JSON
    std::fs::write(
        &st,
        r#"{"qpos":[0.1],"qvel":[0,0,0,0,0,0,0],"act":[0,0,0,0],"ctrl":[0,0,0,0,0,0,0]}"#,
    )
    .unwrap();
    fails(&run(&["forward", &arm, "--state", s, "--out", o]), "qpos");
    std::fs::write(
        &st,
        r#"{"qpos":[0,0,0,0,0,0,0],"act":[0,0,0,0],"ctrl":[0,0,0,0,0,0,0]}"#,
    )
    .unwrap();
    fails(&run(&["forward", &arm, "--state", s, "--out", o]), "qvel");
    std::fs::write(&st, r#"{"qpos":[0,0,0,0,0,0,"a"],"qvel":[0,0,0,0,0,0,0],"act":[0,0,0,0],"ctrl":[0,0,0,0,0,0,0]}"#).unwrap();
    fails(
        &run(&["forward", &arm, "--state", s, "--out", o]),
        "state.json",
    );
    std::fs::write(&st, "{not json").unwrap();
    fails(
        &run(&["forward", &arm, "--state", s, "--out", o]),
        "state.json",
    );
}

#[test]
fn bench_prints_timings() {
    let out = ok(&run(&[
        "bench",
        &model("pendulum"),
        "--steps",
        "20",
        "--batches",
        "3",
    ]));
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines
        .iter()
        .any(|v| v["step_us"].as_f64().is_some_and(|x| x > 0.0)));
    for k in [
        "forward_us",
        "inverse_us",
        "transitionFD_us",
        "inverseFD_us",
    ] {
        assert!(
            lines.iter().any(|v| v[k].as_f64().is_some_and(|x| x > 0.0)),
            "{k}"
        );
    }
}

#[test]
fn inverse_and_derivatives_shapes() {
    let st = tmp("dstate.json");
    let out = tmp("deriv.json");
    let (s, o) = (st.to_str().unwrap(), out.to_str().unwrap());
    let arm = model("arm7");
    std::fs::write(
        &st,
        r#"{"qpos":[0.1,0.2,0.3,0.4,0.5,0.6,0.7],"qvel":[1,0,0,0,0,0,-1],
            "act":[0.1,0.2,0.3,0.4],"ctrl":[0,0,0,0,0,0,0.5],"qacc":[1,2,3,4,5,6,7]}"#,
    )
    .unwrap();
    ok(&run(&["inverse", &arm, "--state", s, "--out", o]));
    let v = json(&out);
    assert_eq!(v["qfrc_inverse"].as_array().map(|a| a.len()), Some(7));
    assert!(v["efc_force"].is_array());

    // nv = 7, na = 4, nu = 7, no sensors
    ok(&run(&[
        "derivatives",
        &arm,
        "--state",
        s,
        "--kind",
        "transition",
        "--method",
        "fd",
        "--out",
        o,
    ]));
    let v = json(&out);
    assert_eq!(shape(&v["A"]), (18, 18));
    assert_eq!(shape(&v["B"]), (18, 7));
    assert_eq!(shape(&v["C"]), (0, 0));
    assert_eq!(shape(&v["D"]), (0, 0));
    ok(&run(&[
        "derivatives",
        &arm,
        "--state",
        s,
        "--kind",
        "inverse",
        "--centered",
        "--eps",
        "1e-5",
        "--out",
        o,
    ]));
    let v = json(&out);
    for k in ["DfDq", "DfDv", "DfDa"] {
        assert_eq!(shape(&v[k]), (7, 7), "{k}");
    }
    for k in ["DsDq", "DsDv", "DsDa"] {
        assert_eq!(shape(&v[k]), (7, 0), "{k}");
    }
    // DfDa is the mass matrix
    let fo = tmp("fwd2.json");
    ok(&run(&[
        "forward",
        &arm,
        "--state",
        s,
        "--out",
        fo.to_str().unwrap(),
    ]));
    let qm = json(&fo)["qM"].clone();
    for i in 0..7 {
        for j in 0..7 {
            let a = v["DfDa"][i][j].as_f64().unwrap();
            let b = qm[i][j].as_f64().unwrap();
            assert!(
                (a - b).abs() < 1e-6 * b.abs().max(1.0),
                "DfDa[{i}][{j}] {a} vs {b}"
            );
        }
    }

    // analytic: DfDa is the mass matrix too; A, B agree with centered FD
    ok(&run(&[
        "derivatives",
        &arm,
        "--state",
        s,
        "--kind",
        "inverse",
        "--method",
        "analytic",
        "--out",
        o,
    ]));
    let v = json(&out);
    for k in ["DfDq", "DfDv", "DfDa"] {
        assert_eq!(shape(&v[k]), (7, 7), "{k}");
    }
    for i in 0..7 {
        for j in 0..7 {
            let a = v["DfDa"][i][j].as_f64().unwrap();
            let b = qm[i][j].as_f64().unwrap();
            assert!(
                (a - b).abs() < 1e-12 * b.abs().max(1.0),
                "analytic DfDa[{i}][{j}]"
            );
        }
    }
    let fdo = tmp("deriv_fd.json");
    for (method, file) in [("analytic", &out), ("fd", &fdo)] {
        let mut args = vec![
            "derivatives",
            &arm,
            "--state",
            s,
            "--kind",
            "transition",
            "--method",
            method,
            "--out",
            file.to_str().unwrap(),
        ];
        if method == "fd" {
            args.push("--centered");
        }
        ok(&run(&args));
    }
    let (va, vf) = (json(&out), json(&fdo));
    assert_eq!(shape(&va["A"]), (18, 18));
    assert_eq!(shape(&va["B"]), (18, 7));
    for k in ["A", "B"] {
        for (ra, rf) in va[k]
            .as_array()
            .unwrap()
            .iter()
            .zip(vf[k].as_array().unwrap())
        {
            for (a, f) in ra.as_array().unwrap().iter().zip(rf.as_array().unwrap()) {
                let (a, f) = (a.as_f64().unwrap(), f.as_f64().unwrap());
                assert!(
                    (a - f).abs() < 1e-5 * f.abs().max(1.0),
                    "{k}: {a} vs FD {f}"
                );
            }
        }
    }
    fails(
        &run(&[
            "derivatives",
            &arm,
            "--state",
            s,
            "--kind",
            "inverse",
            "--method",
            "analytic",
            "--actuation",
            "--out",
            o,
        ]),
        "does not support",
    );
    fails(
        &run(&[
            "derivatives",
            &arm,
            "--state",
            s,
            "--kind",
            "transition",
            "--eps=-1",
            "--out",
            o,
        ]),
        "eps",
    );
    std::fs::write(
        &st,
        r#"{"qpos":[0,0,0,0,0,0,0],"qvel":[0,0,0,0,0,0,0],"act":[0,0,0,0],"ctrl":[0,0,0,0,0,0,0]}"#,
    )
    .unwrap();
    fails(&run(&["inverse", &arm, "--state", s, "--out", o]), "qacc");
}

/// `forward` on a contact scene: the contact list and efc arrays, and qacc matching MuJoCo 4.0.0
/// (tests/reference/sphere_drop.json, islands disabled there; 1e-8 relative as in the
/// constraints tests).
#[test]
fn forward_reports_contacts_and_constraints() {
    let refdata = json(&PathBuf::from(format!(
        "{}/../tests/reference/sphere_drop.json",
        env!("CARGO_MANIFEST_DIR")
    )));
    let st = &refdata["states"][2];
    let state = tmp("contact_state.json");
    let keys = [
        "qpos",
        "qvel",
        "act",
        "ctrl",
        "qfrc_applied",
        "qacc_warmstart",
    ];
    let obj: serde_json::Map<String, Value> = keys
        .iter()
        .map(|k| (k.to_string(), st[*k].clone()))
        .collect();
    std::fs::write(&state, Value::Object(obj).to_string()).unwrap();
    let out = tmp("contact_forward.json");
    ok(&run(&[
        "forward",
        &model("sphere_drop"),
        "--state",
        state.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]));
    let o = json(&out);
    let ncon = st["contact"].as_array().unwrap().len();
    let nefc = st["nefc"].as_u64().unwrap() as usize;
    assert!(ncon > 0 && nefc > 0);
    assert_eq!(o["contact"].as_array().unwrap().len(), ncon);
    for key in ["efc_type", "efc_pos", "efc_R", "efc_aref", "efc_force"] {
        assert_eq!(o[key].as_array().unwrap().len(), nefc, "{key}");
    }
    let c = &o["contact"][0];
    assert_eq!(shape(&c["frame"]), (3, 3));
    for k in ["geom1", "geom2", "dist", "pos"] {
        assert!(!c[k].is_null(), "contact key {k}");
    }
    let want = st["qacc"].as_array().unwrap();
    let got = o["qacc"].as_array().unwrap();
    for (g, w) in got.iter().zip(want) {
        let (g, w) = (g.as_f64().unwrap(), w.as_f64().unwrap());
        assert!((g - w).abs() <= 1e-8 * w.abs().max(1.0), "qacc {g} vs {w}");
    }
}

/// Error and step of the `replay` stdout line for `field`.
fn replay_dev(out: &str, field: &str) -> (f64, usize) {
    let l = out
        .lines()
        .find(|l| l.starts_with(&format!("{field} max_abs_error ")))
        .unwrap_or_else(|| panic!("no {field} line in\n{out}"));
    let w: Vec<&str> = l.split_whitespace().collect();
    (w[2].parse().unwrap(), w[4].parse().unwrap())
}

#[test]
fn replay_reproduces_simulate_and_reports_deviations() {
    // arm7: nu = 7, na = 4 (activations), from keyframe 0 under a control file
    let traj = tmp("replay_traj.json");
    let csv = tmp("replay_ctrl.csv");
    let rows: String = (0..40)
        .map(|t| {
            let x = 0.3 * (t as f64 * 0.2).sin();
            format!("{x},-0.2,0.3,{},0.5,-0.1,0.2\n", -x)
        })
        .collect();
    std::fs::write(&csv, rows).unwrap();
    ok(&run(&[
        "simulate",
        &model("arm7"),
        "--steps",
        "40",
        "--keyframe",
        "0",
        "--ctrl",
        csv.to_str().unwrap(),
        "--out",
        traj.to_str().unwrap(),
    ]));
    let v = json(&traj);
    assert_eq!(shape(&v["ctrl"]), (40, 7));
    assert!(v["model"].as_str().unwrap().ends_with("arm7.xml"));

    // The engine is deterministic and the JSON round trip is exact (shortest round-trip output,
    // serde_json's `float_roundtrip` parser): re-simulating from the first state reproduces the
    // file bit for bit.
    let again = tmp("replay_again.json");
    let out = ok(&run(&[
        "replay",
        traj.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
        "--tol",
        "1e-13",
    ]));
    assert!(out.contains("steps 40"));
    for f in ["qpos", "qvel", "act", "time"] {
        assert_eq!(replay_dev(&out, f).0, 0.0, "{f}:\n{out}");
    }
    let w = json(&again);
    assert_eq!(shape(&w["qpos"]), (41, 7));
    assert_eq!(shape(&w["act"]), (41, 4));
    assert_eq!(w["ctrl"], v["ctrl"]);
    assert_eq!(w["max_error"]["qvel"].as_f64(), Some(0.0));

    // A recorded state off by 1e-3 is reported as such, at its step; --tol turns it into an
    // error naming the field.
    let mut bad = v.clone();
    let q = bad["qpos"][17][3].as_f64().unwrap();
    bad["qpos"][17][3] = serde_json::json!(q + 1e-3);
    let badp = tmp("replay_bad.json");
    std::fs::write(&badp, bad.to_string()).unwrap();
    let out = ok(&run(&["replay", badp.to_str().unwrap()]));
    let (e, t) = replay_dev(&out, "qpos");
    assert!((e - 1e-3).abs() < 1e-13 && t == 17, "{e} at {t}");
    assert!(replay_dev(&out, "qvel").0 < 1e-13);
    fails(
        &run(&["replay", badp.to_str().unwrap(), "--tol", "1e-6"]),
        "qpos deviates",
    );

    // A changed control changes the re-simulated states from the next step on.
    let mut bad = v.clone();
    bad["ctrl"][10][0] = serde_json::json!(5.0);
    std::fs::write(&badp, bad.to_string()).unwrap();
    let out = ok(&run(&["replay", badp.to_str().unwrap()]));
    let (e, t) = replay_dev(&out, "qvel");
    assert!(e > 1e-6 && t > 10, "{e} at {t}");

    // --plot writes PNGs with the `plot` feature and is refused clearly without it.
    let dir = tmp("replay_plots");
    let o = run(&[
        "replay",
        traj.to_str().unwrap(),
        "--plot",
        dir.to_str().unwrap(),
    ]);
    if cfg!(feature = "plot") {
        ok(&o);
        assert!(dir.join("replay_qpos.png").exists() && dir.join("replay_qvel.png").exists());
    } else {
        fails(&o, "plot");
    }
}

#[test]
fn replay_reads_optimizer_trajectories() {
    // The optimizers' format (moreau_optim::trajectory::Trajectory::sampled: `act` as empty rows,
    // `ctrl`, extra keys) replays on the cart-pole up to the JSON round trip (see above).
    let m = moreau::load(model("cartpole_swingup")).unwrap();
    let us: Vec<Vec<f64>> = (0..60).map(|t| vec![(t as f64 * 0.1).cos()]).collect();
    let (qs, vs) = moreau_problems::replay(&m, &[0.0, 3.0], &[0.0, 0.0], &us);
    let v = moreau_optim::trajectory::Trajectory::sampled(m.opt.timestep, &qs, &vs, &us)
        .to_json(serde_json::json!({ "solver": "test", "cost_history": [1.0, 0.5] }));
    let p = tmp("replay_opt.json");
    std::fs::write(&p, v.to_string()).unwrap();
    let out = ok(&run(&[
        "replay",
        p.to_str().unwrap(),
        "--model",
        &model("cartpole_swingup"),
    ]));
    for f in ["qpos", "qvel"] {
        assert!(replay_dev(&out, f).0 < 1e-13, "{f}:\n{out}");
    }
    // time: the optimizers write t·dt, the engine accumulates dt (a few ulps apart)
    assert!(replay_dev(&out, "time").0 < 1e-12);
}

#[test]
fn replay_rejects_bad_input() {
    let p = tmp("replay_in.json");
    let p_s = p.to_str().unwrap();
    let pend = model("pendulum");
    fails(&run(&["replay", "/nonexistent/traj.json"]), "traj.json");
    std::fs::write(&p, "{").unwrap();
    fails(&run(&["replay", p_s, "--model", &pend]), "invalid JSON");
    std::fs::write(&p, r#"{"qpos": [[0.1],[0.2]], "qvel": [[0],[0]]}"#).unwrap();
    fails(&run(&["replay", p_s]), "no 'model' key");
    std::fs::write(&p, r#"{"qpos": [[0.1, 2],[0.2]], "qvel": [[0],[0]]}"#).unwrap();
    fails(&run(&["replay", p_s, "--model", &pend]), "'qpos'[0]");
    std::fs::write(&p, r#"{"qpos": [[0.1],[0.2]], "qvel": [[0]]}"#).unwrap();
    fails(&run(&["replay", p_s, "--model", &pend]), "must be equal");
    std::fs::write(&p, r#"{"qpos": [[0.1],["x"]], "qvel": [[0],[0]]}"#).unwrap();
    fails(&run(&["replay", p_s, "--model", &pend]), "is not a number");
    // cart-pole has nu = 1: controls are required
    std::fs::write(
        &p,
        r#"{"qpos": [[0, 0.1],[0, 0.2]], "qvel": [[0, 0],[0, 0]]}"#,
    )
    .unwrap();
    fails(
        &run(&["replay", p_s, "--model", &model("cartpole_swingup")]),
        "no 'ctrl'",
    );
    std::fs::write(
        &p,
        r#"{"qpos": [[0, 0.1],[0, 0.2],[0, 0]], "qvel": [[0, 0],[0, 0],[0, 0]], "ctrl": [[1]]}"#,
    )
    .unwrap();
    fails(
        &run(&["replay", p_s, "--model", &model("cartpole_swingup")]),
        "1 control rows for 2 steps",
    );
}

/// Counts too large to hold the results and a NaN tolerance: errors naming the option, not a
/// capacity-overflow panic (`usize::MAX` overflows deterministically, whatever the allocator).
#[test]
fn huge_counts_and_bad_tolerance_are_errors() {
    let out = tmp("huge.json");
    let o = out.to_str().unwrap();
    let pend = model("pendulum");
    let max = usize::MAX.to_string();
    fails(
        &run(&["simulate", &pend, "--steps", &max, "--out", o]),
        "--steps",
    );
    fails(
        &run(&["bench", &pend, "--steps", "1", "--batches", &max]),
        "--batches",
    );
    ok(&run(&["simulate", &pend, "--steps", "2", "--out", o]));
    for tol in ["--tol=NaN", "--tol=-1"] {
        fails(&run(&["replay", o, tol]), "--tol");
    }
    ok(&run(&["replay", o, "--tol", "0"]));
}

/// A singular implicitfast `M − h qDeriv` (velocity feedback `h·2 = 2·0.5` cancelling the unit
/// mass exactly) makes `--method analytic` fail with a message, not a panic (MuJoCo 4.0.0 warns
/// "Inertia matrix is too close to singular" and steps to ~1e15).
#[test]
fn analytic_derivatives_refuse_a_singular_implicit_matrix() {
    let xml = tmp("singular.xml");
    std::fs::write(
        &xml,
        r#"<mujoco><option timestep="0.5" integrator="implicitfast" gravity="0 0 0"/>
  <worldbody><body><joint name="s" type="slide" axis="1 0 0"/>
    <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body></worldbody>
  <actuator><general joint="s" biastype="affine" biasprm="0 0 2"/></actuator></mujoco>"#,
    )
    .unwrap();
    let st = tmp("singular_state.json");
    std::fs::write(&st, r#"{"qpos":[0],"qvel":[1],"act":[],"ctrl":[0]}"#).unwrap();
    let out = tmp("singular_out.json");
    let args = [
        "derivatives",
        xml.to_str().unwrap(),
        "--state",
        st.to_str().unwrap(),
        "--kind",
        "transition",
        "--method",
        "analytic",
        "--out",
        out.to_str().unwrap(),
    ];
    fails(&run(&args), "singular");
}

/// `derivatives --method analytic` writes the sensor Jacobians `C`, `D`: at the contact state of
/// tests/reference/sensor_jac_cases.json (models/tendon_velocity.xml, 26 rows) against MuJoCo
/// 4.0.0's centered `mjd_transitionFD` there, 1e-5 relative to each matrix's largest entry (the
/// CLI keeps the model's solver tolerance, 1e-8; MuJoCo's FD ran at 1e-12).
#[test]
fn derivatives_analytic_writes_sensor_jacobians() {
    let refdata = json(&PathBuf::from(format!(
        "{}/../tests/reference/sensor_jac_cases.json",
        env!("CARGO_MANIFEST_DIR")
    )));
    let case = &refdata["cases"][0];
    assert_eq!(case["label"], "contact");
    let state = tmp("sensor_state.json");
    std::fs::write(&state, case["state"].to_string()).unwrap();
    let out = tmp("sensor_jac.json");
    ok(&run(&[
        "derivatives",
        &model("tendon_velocity"),
        "--state",
        state.to_str().unwrap(),
        "--kind",
        "transition",
        "--method",
        "analytic",
        "--out",
        out.to_str().unwrap(),
    ]));
    let o = json(&out);
    for k in ["C", "D"] {
        let (got, want) = (o[k].as_array().unwrap(), case[k].as_array().unwrap());
        assert_eq!(shape(&o[k]), shape(&case[k]), "{k} shape");
        let f = |v: &Value| v.as_f64().unwrap();
        let scale = want
            .iter()
            .flat_map(|r| r.as_array().unwrap())
            .fold(0.0f64, |s, x| s.max(f(x).abs()));
        for (rg, rw) in got.iter().zip(want) {
            for (g, w) in rg.as_array().unwrap().iter().zip(rw.as_array().unwrap()) {
                assert!(
                    (f(g) - f(w)).abs() <= 1e-5 * scale,
                    "{k}: {g} vs MuJoCo {w}"
                );
            }
        }
    }
}

/// `simulate --contacts`: the same trajectory as without, one contact list per row (MuJoCo's
/// names plus `force`); once the boxes rest, the contact forces carry their weight
/// (Σ f_z = M g, a statics check independent of the solver).
#[test]
fn simulate_records_contacts() {
    let (a, b) = (tmp("plain.json"), tmp("contacts.json"));
    let m = model("box_drop");
    ok(&run(&[
        "simulate",
        &m,
        "--steps",
        "1500",
        "--out",
        a.to_str().unwrap(),
    ]));
    ok(&run(&[
        "simulate",
        &m,
        "--steps",
        "1500",
        "--contacts",
        "--out",
        b.to_str().unwrap(),
    ]));
    let (a, b) = (json(&a), json(&b));
    assert_eq!(
        a["qpos"], b["qpos"],
        "recording contacts changed the trajectory"
    );
    assert!(a.get("contact").is_none());
    let rows = b["contact"].as_array().unwrap();
    assert_eq!(rows.len(), 1501);
    assert!(
        rows[0].as_array().unwrap().is_empty(),
        "the boxes start in the air"
    );
    let last = rows[1500].as_array().unwrap();
    assert!(!last.is_empty());
    let mut fz = 0.0;
    for c in last {
        for k in ["geom1", "geom2", "dist", "pos", "frame", "force"] {
            assert!(c.get(k).is_some(), "contact lacks {k}: {c}");
        }
        let f: Vec<f64> = serde_json::from_value(c["force"].clone()).unwrap();
        let fr: Vec<Vec<f64>> = serde_json::from_value(c["frame"].clone()).unwrap();
        fz += (0..3).map(|i| f[i] * fr[i][2]).sum::<f64>();
    }
    // four boxes 0.2 × 0.14 × 0.1 m of density 600; gravity 9.81
    let weight = 4.0 * 0.2 * 0.14 * 0.1 * 600.0 * 9.81;
    assert!(
        (fz - weight).abs() < 1e-3 * weight,
        "Σ f_z = {fz}, weight {weight}"
    );
}

/// The page's embedded data (`<script id="moreau-data">`).
fn page_data(p: &PathBuf) -> Value {
    let html = std::fs::read_to_string(p).unwrap();
    let start = html.find(r#"id="moreau-data">"#).unwrap() + 17;
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end].replace("<\\/", "</")).unwrap()
}

/// `view`: one self-contained page (three.js inline, no external script or network address)
/// with every geom and the trajectories, overlays from `*_qpos` keys; bad input is refused
/// with the file named.
#[test]
fn view_writes_a_self_contained_page() {
    let (traj, page) = (tmp("view.json"), tmp("view.html"));
    let m = model("viewer_geoms");
    ok(&run(&[
        "simulate",
        &m,
        "--steps",
        "50",
        "--out",
        traj.to_str().unwrap(),
    ]));
    // an optimizer-style overlay: the same rows under `plan_qpos`
    let mut v = json(&traj);
    v["plan_qpos"] = v["qpos"].clone();
    std::fs::write(&traj, v.to_string()).unwrap();
    ok(&run(&[
        "view",
        &m,
        traj.to_str().unwrap(),
        "--out",
        page.to_str().unwrap(),
        "--max-fps",
        "0",
    ]));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("var THREE="), "three.js not inlined");
    // (the browser test also fails any network request the page makes)
    for bad in ["<script src", "src=\"http", "<link", "import("] {
        assert!(
            !html.contains(bad),
            "the page refers to outside resources ({bad})"
        );
    }
    let d = page_data(&page);
    assert_eq!(d["title"], "viewer_geoms");
    let geoms = d["model"]["geoms"].as_array().unwrap();
    assert_eq!(geoms.len(), 9);
    let names: Vec<&str> = d["trajectories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["view", "plan"]);
    let t0 = &d["trajectories"][0];
    assert_eq!(t0["time"].as_array().unwrap().len(), 51);
    assert_eq!(t0["contact_source"], "computed");
    assert_eq!(d["trajectories"][1]["contact_source"], "points");
    // the trajectory's `model` key names the model; at most 120 frames per second by default
    // (rows 0.004 s apart: every third row, and the last)
    ok(&run(&[
        "view",
        traj.to_str().unwrap(),
        "--out",
        page.to_str().unwrap(),
    ]));
    let d = page_data(&page);
    let t: Vec<f64> = serde_json::from_value(d["trajectories"][0]["time"].clone()).unwrap();
    assert_eq!(t.len(), 18);
    assert!(t[..17]
        .windows(2)
        .all(|w| w[1] - w[0] >= 1.0 / 120.0 - 1e-12));
    assert!((t[17] - 0.2).abs() < 1e-12);
    // bad input
    let bad = tmp("bad.json");
    std::fs::write(&bad, r#"{"qpos": [[1, 2]]}"#).unwrap();
    fails(
        &run(&[
            "view",
            &m,
            bad.to_str().unwrap(),
            "--out",
            page.to_str().unwrap(),
        ]),
        "bad.json",
    );
    fails(
        &run(&["view", &m, "--out", page.to_str().unwrap(), "--max-fps=-1"]),
        "--max-fps",
    );
}

/// `state` writes the state file forward, inverse and derivatives read: a keyframe's values as
/// the MJCF gives them (cart-pole's `hanging`: qpos "0 3.0"), qpos0 with zero velocity and
/// controls without `--keyframe`, and `forward` on it gives what it gives on the same state
/// written by hand.
#[test]
fn state_writes_keyframes_and_qpos0() {
    let cart = model("cartpole");
    let st = tmp("state_key.json");
    let s = st.to_str().unwrap();
    ok(&run(&["state", &cart, "--keyframe", "0", "--out", s]));
    let v = json(&st);
    let nums = |k: &str| -> Vec<f64> {
        v[k].as_array()
            .unwrap_or_else(|| panic!("{k} missing"))
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    assert_eq!(nums("qpos"), [0.0, 3.0]);
    assert_eq!(nums("qvel"), [0.0, 0.0]);
    assert_eq!(nums("act"), Vec::<f64>::new());
    assert_eq!(nums("ctrl"), [0.0]);
    assert_eq!(nums("qacc_warmstart"), [0.0, 0.0]);
    assert_eq!(v["time"].as_f64(), Some(0.0));
    // forward reads it, and agrees with the hand-written state
    let by_hand = tmp("state_hand.json");
    std::fs::write(
        &by_hand,
        r#"{"qpos":[0,3.0],"qvel":[0,0],"act":[],"ctrl":[0]}"#,
    )
    .unwrap();
    let (f1, f2) = (tmp("fwd_key.json"), tmp("fwd_hand.json"));
    ok(&run(&[
        "forward",
        &cart,
        "--state",
        s,
        "--out",
        f1.to_str().unwrap(),
    ]));
    let h = by_hand.to_str().unwrap();
    ok(&run(&[
        "forward",
        &cart,
        "--state",
        h,
        "--out",
        f2.to_str().unwrap(),
    ]));
    assert_eq!(json(&f1)["qacc"], json(&f2)["qacc"]);
    assert!(json(&f1)["qacc"][1].as_f64().unwrap() != 0.0);

    // qpos0: the model's reference configuration, at rest
    ok(&run(&["state", &cart, "--out", s]));
    let v = json(&st);
    assert_eq!(v["qpos"], serde_json::json!([0.0, 0.0]));
    assert_eq!(v["qvel"], serde_json::json!([0.0, 0.0]));
    assert_eq!(v["ctrl"], serde_json::json!([0.0]));

    fails(
        &run(&["state", &cart, "--keyframe", "5", "--out", s]),
        "keyframe 5 out of range",
    );
    fails(
        &run(&["state", "/nonexistent/model.xml", "--out", s]),
        "model.xml",
    );
}
