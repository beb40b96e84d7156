//! Replays the fuzz target's committed corpus (`fuzz/corpus/mjcf`) and every minimized finding
//! (`fuzz/regressions`) through the target's own code (`fuzz/src/harness.rs`): load, compile,
//! steps, forward, inverse, FD and analytic Jacobians must neither panic nor produce a silent
//! NaN. Each input runs on a thread with the default test stack.

#[path = "../../../fuzz/src/harness.rs"]
mod harness;

use std::path::PathBuf;

fn inputs(dir: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (the fuzz corpus is part of the repository)",
                dir.display()
            )
        })
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

fn replay(dir: &str, at_least: usize) {
    let files = inputs(dir);
    assert!(files.len() >= at_least, "{dir}: {} inputs", files.len());
    for f in files {
        let data = std::fs::read(&f).unwrap();
        let name = f.display().to_string();
        let r = std::thread::Builder::new()
            .name(name.clone())
            .spawn(move || harness::run(&data))
            .unwrap()
            .join();
        assert!(r.is_ok(), "{name}: the fuzz target panicked");
    }
}

#[test]
fn fuzz_corpus_replays_cleanly() {
    replay("fuzz/corpus/mjcf", 10);
}

#[test]
fn fuzz_findings_stay_fixed() {
    replay("fuzz/regressions", 1);
}
