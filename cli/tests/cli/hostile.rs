//! Hostile input to the `moreau` binary: every case exits with a message (never a panic), and
//! non-finite values are reported in MuJoCo's wording instead of being written as JSON `null`.
//! Expected values come from independent runs (the reset state evaluated on its own, a replay)
//! or from MuJoCo 4.0.0's warning text (`mju_warningText`, quoted).

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_moreau"))
}

fn model(name: &str) -> String {
    format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("moreau-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "failed: {}", stderr(o));
    assert!(!stderr(o).contains("panicked"), "{}", stderr(o));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Non-zero exit, no panic, and stderr mentions `needle`.
fn fails(o: &Output, needle: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "should have failed: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    assert!(err.contains(needle), "stderr lacks '{needle}': {err}");
}

fn json(p: &PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// No `null` anywhere in a JSON value.
fn no_null(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Array(a) => a.iter().all(no_null),
        Value::Object(o) => o.values().all(no_null),
        _ => true,
    }
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A state file for the humanoid (nq 28, nv 27, nu 21) standing upright.
fn humanoid_state(name: &str, qvel0: f64) -> PathBuf {
    let mut qpos = vec![0.0; 28];
    qpos[2] = 1.4;
    qpos[3] = 1.0;
    let mut qvel = vec![0.0; 27];
    qvel[0] = qvel0;
    let s = serde_json::json!({"qpos": qpos, "qvel": qvel, "act": [], "ctrl": vec![0.0; 21]});
    write(name, &s.to_string())
}

#[test]
fn closed_stdout_is_an_error_not_a_panic() {
    // the reading end is closed before the child writes: every write gets EPIPE
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = bin()
        .args(["inspect", &model("humanoid")])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    fails(&o, "stdout: Broken pipe");
}

#[test]
fn a_missing_model_file_is_named() {
    let o = run(&["inspect", "nope-missing.xml"]);
    fails(&o, "nope-missing.xml");
    fails(&o, "cannot open model file");
    assert!(!stderr(&o).contains(":0:0"), "{}", stderr(&o));
}

#[test]
fn forward_resets_a_huge_velocity_with_mujocos_warning() {
    let m = model("humanoid");
    let (bad, good) = (
        humanoid_state("bad.json", 1e308),
        humanoid_state("good.json", 0.0),
    );
    let (ob, og) = (tmp("fwd_bad.json"), tmp("fwd_good.json"));
    let o = run(&[
        "forward",
        &m,
        "--state",
        bad.to_str().unwrap(),
        "--out",
        ob.to_str().unwrap(),
    ]);
    ok(&o);
    let err = stderr(&o);
    assert!(
        err.contains(
            "WARNING: Nan, Inf or huge value in QVEL at DOF 0. The simulation is unstable. \
             Time = 0.0000."
        ),
        "{err}"
    );
    assert!(err.contains("the state was reset"), "{err}");
    let vb = json(&ob);
    assert!(no_null(&vb));
    assert_eq!(vb["warning"][4]["number"], 1, "BadQvel count");
    assert_eq!(vb["warning"][4]["lastinfo"], 0);
    // the reset state is qpos0 with zero velocity (the first row `simulate` writes): the same
    // as evaluating that state directly
    let sim0 = tmp("sim0.json");
    ok(&run(&[
        "simulate",
        &m,
        "--steps",
        "0",
        "--out",
        sim0.to_str().unwrap(),
    ]));
    let qpos0 = nums(&json(&sim0)["qpos"][0]);
    let s = serde_json::json!({"qpos": qpos0, "qvel": vec![0.0; 27], "act": [],
                               "ctrl": vec![0.0; 21]});
    std::fs::write(&good, s.to_string()).unwrap();
    ok(&run(&[
        "forward",
        &m,
        "--state",
        good.to_str().unwrap(),
        "--out",
        og.to_str().unwrap(),
    ]));
    let vg = json(&og);
    assert_eq!(nums(&vb["qacc"]), nums(&vg["qacc"]));
    assert_eq!(vg["warning"][4]["number"], 0);
}

#[test]
fn inverse_and_derivatives_refuse_an_unstable_state() {
    let m = model("humanoid");
    let bad = humanoid_state("bad_inv.json", 1e308);
    let mut s: Value = json(&bad);
    s["qacc"] = serde_json::json!(vec![0.0; 27]);
    std::fs::write(&bad, s.to_string()).unwrap();
    let out = tmp("inv.json");
    let o = run(&[
        "inverse",
        &m,
        "--state",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    fails(&o, "Nan, Inf or huge value in QVEL at DOF 0");
    for method in ["fd", "analytic"] {
        let o = run(&[
            "derivatives",
            &m,
            "--state",
            bad.to_str().unwrap(),
            "--kind",
            "transition",
            "--method",
            method,
            "--out",
            out.to_str().unwrap(),
        ]);
        fails(&o, "Nan, Inf or huge value in QVEL at DOF 0");
    }
    // a huge given qacc
    let good = humanoid_state("good_inv.json", 0.0);
    let mut s: Value = json(&good);
    let mut qacc = vec![0.0; 27];
    qacc[5] = -1e300;
    s["qacc"] = serde_json::json!(qacc);
    std::fs::write(&good, s.to_string()).unwrap();
    let o = run(&[
        "inverse",
        &m,
        "--state",
        good.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    fails(&o, "Nan, Inf or huge value in QACC at DOF 5");
}

#[test]
fn derivatives_with_a_huge_eps_is_an_error() {
    let m = model("humanoid");
    let st = humanoid_state("eps.json", 0.0);
    let out = tmp("eps_out.json");
    let o = run(&[
        "derivatives",
        &m,
        "--state",
        st.to_str().unwrap(),
        "--kind",
        "transition",
        "--eps",
        "1e308",
        "--out",
        out.to_str().unwrap(),
    ]);
    fails(&o, "--eps 1e308: a perturbed state diverged");
    assert!(!out.exists());
}

#[test]
fn simulate_reports_a_nan_control_and_records_what_was_applied() {
    let m = model("humanoid");
    let mut rows = vec![["0"; 21].join(","); 5];
    rows[2] = std::iter::once("nan")
        .chain(["0"; 20])
        .collect::<Vec<_>>()
        .join(",");
    let csv = write("nan.csv", &rows.join("\n"));
    let out = tmp("sim_nan.json");
    let o = run(&[
        "simulate",
        &m,
        "--steps",
        "5",
        "--ctrl",
        csv.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    ok(&o);
    let err = stderr(&o);
    assert!(
        err.contains(
            "WARNING: Nan, Inf or huge value in CTRL at ACTUATOR 0. The simulation is \
             unstable. Time = 0.0100."
        ),
        "{err}"
    );
    assert!(err.contains("step 2"), "{err}");
    let v = json(&out);
    assert!(no_null(&v));
    assert_eq!(nums(&v["ctrl"][2]), vec![0.0; 21]);
    assert_eq!(v["warning"][6]["number"], 1);
    // the recorded controls reproduce the run exactly
    let o = run(&["replay", out.to_str().unwrap(), "--tol", "0"]);
    let text = ok(&o);
    assert!(text.contains("qpos max_abs_error 0e0"), "{text}");
}

#[test]
fn replay_without_act_or_with_wrong_lengths_is_an_error() {
    // arm7 has activations (na 4): a trajectory without `act` cannot be replayed
    let m = model("arm7");
    let traj = serde_json::json!({"model": m, "qpos": [vec![0.0; 7], vec![0.0; 7]],
                                  "qvel": [vec![0.0; 7], vec![0.0; 7]],
                                  "ctrl": [vec![0.0; 7]]});
    let p = write("noact.json", &traj.to_string());
    fails(
        &run(&["replay", p.to_str().unwrap()]),
        "missing 'act' (na = 4)",
    );
    let traj = serde_json::json!({"model": m, "qpos": [vec![0.0; 6]], "qvel": [vec![0.0; 7]]});
    let p = write("short.json", &traj.to_string());
    fails(
        &run(&["replay", p.to_str().unwrap()]),
        "'qpos'[0] has 6 entries, the model needs 7",
    );
    let p = write("nokeys.json", "{}");
    fails(&run(&["replay", p.to_str().unwrap()]), "no 'model' key");
}

#[test]
fn no_dofs_analytic_jacobians_of_an_implicit_model() {
    let m = write(
        "nv0.xml",
        r#"<mujoco><option integrator="implicit"/></mujoco>"#,
    );
    let st = write(
        "nv0_state.json",
        r#"{"qpos":[],"qvel":[],"act":[],"ctrl":[]}"#,
    );
    for method in ["analytic", "fd"] {
        let out = tmp(&format!("nv0_{method}.json"));
        ok(&run(&[
            "derivatives",
            m.to_str().unwrap(),
            "--state",
            st.to_str().unwrap(),
            "--kind",
            "transition",
            "--method",
            method,
            "--out",
            out.to_str().unwrap(),
        ]));
        let v = json(&out);
        assert_eq!(v["A"], serde_json::json!([]), "{method}");
        assert_eq!(v["B"], serde_json::json!([]), "{method}");
    }
}

#[test]
fn endless_and_binary_input_files_are_errors() {
    let m = model("pendulum");
    let out = tmp("dev.json");
    for dev in ["/dev/zero", "/dev/urandom"] {
        if !std::path::Path::new(dev).exists() {
            panic!("{dev} is missing: this test needs a Unix /dev");
        }
        let o = run(&[
            "forward",
            &m,
            "--state",
            dev,
            "--out",
            out.to_str().unwrap(),
        ]);
        fails(&o, &format!("{dev}: cannot read: not a text file"));
        let o = run(&[
            "simulate",
            &m,
            "--steps",
            "2",
            "--ctrl",
            dev,
            "--out",
            out.to_str().unwrap(),
        ]);
        fails(&o, &format!("{dev}: cannot read"));
    }
    let o = run(&["replay", "/work/this/does/not/exist.json"]);
    fails(&o, "exist.json: cannot read");
}
