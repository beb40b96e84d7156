//! Stepping is deterministic: identical bits on a rerun, after `Data::clone` (the clone and the
//! original continue identically), and across processes (this test binary re-runs itself).
//! Models with contacts, every integrator.

use moreau::model::Integrator;
use moreau::{Data, Model};

fn model(name: &str) -> Model {
    moreau::load(format!("{}/models/{name}.xml", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The bits of the state and of the main outputs.
fn bits(d: &Data<f64>) -> Vec<u64> {
    d.qpos
        .iter()
        .chain(&d.qvel)
        .chain(&d.act)
        .chain(&d.qacc)
        .chain(&d.qfrc_constraint)
        .chain(&d.sensordata)
        .chain(std::iter::once(&d.time))
        .map(|x| x.to_bits())
        .collect()
}

fn ctrl(d: &mut Data<f64>, k: usize) {
    for (i, c) in d.ctrl.iter_mut().enumerate() {
        *c = (((k * 13 + i * 7) % 17) as f64 / 8.0 - 1.0) * 0.4;
    }
}

/// `steps` steps from the reset state; returns the bits after each 100.
fn run(m: &Model, steps: usize) -> Vec<Vec<u64>> {
    let mut d = Data::<f64>::new(m);
    let mut out = Vec::new();
    for k in 0..steps {
        ctrl(&mut d, k);
        moreau::step(m, &mut d);
        if k % 100 == 99 {
            out.push(bits(&d));
        }
    }
    out
}

const CASES: &[(&str, Integrator)] = &[
    ("humanoid", Integrator::Euler),
    ("humanoid", Integrator::ImplicitFast),
    ("box_stack", Integrator::Implicit),
    ("quadruped", Integrator::Rk4),
];

#[test]
fn reruns_and_clones_are_bit_identical() {
    for &(name, integ) in CASES {
        let mut m = model(name);
        m.opt.integrator = integ;
        let a = run(&m, 1000);
        assert_eq!(a, run(&m, 1000), "{name} {integ:?}: rerun");
        // clone half way: both continue identically, and as the uninterrupted run
        let mut d = Data::<f64>::new(&m);
        for k in 0..500 {
            ctrl(&mut d, k);
            moreau::step(&m, &mut d);
        }
        let mut c = d.clone();
        for k in 500..1000 {
            ctrl(&mut d, k);
            moreau::step(&m, &mut d);
            ctrl(&mut c, k);
            moreau::step(&m, &mut c);
        }
        assert_eq!(bits(&d), bits(&c), "{name} {integ:?}: clone");
        assert_eq!(
            &bits(&d),
            a.last().unwrap(),
            "{name} {integ:?}: clone vs run"
        );
    }
}

/// The child half of [`processes_are_bit_identical`]: prints a digest of the runs.
#[test]
fn determinism_child() {
    if std::env::var("MOREAU_DETERMINISM_CHILD").is_err() {
        return;
    }
    for &(name, integ) in CASES {
        let mut m = model(name);
        m.opt.integrator = integ;
        println!("DIGEST {name} {:?}", run(&m, 300));
    }
}

#[test]
fn processes_are_bit_identical() {
    let exe = std::env::current_exe().unwrap();
    let digest = || {
        let o = std::process::Command::new(&exe)
            .args([
                "--exact",
                "determinism::determinism_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("MOREAU_DETERMINISM_CHILD", "1")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s = String::from_utf8(o.stdout).unwrap();
        // the harness may print "test determinism_child ... " before the first digest
        let lines: Vec<String> = s
            .lines()
            .filter_map(|l| l.find("DIGEST").map(|k| l[k..].to_string()))
            .collect();
        assert_eq!(lines.len(), CASES.len(), "{s}");
        lines
    };
    let first = digest();
    assert_eq!(first, digest());
    // and the same as this process computes
    for (line, &(name, integ)) in first.iter().zip(CASES) {
        let mut m = model(name);
        m.opt.integrator = integ;
        assert_eq!(line, &format!("DIGEST {name} {:?}", run(&m, 300)));
    }
}
