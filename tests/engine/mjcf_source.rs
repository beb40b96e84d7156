//! `load_with_source` / `load_from_str_with_source`: the captured document and files
//! (`MjcfSource`) hold every file the loader read (here an `<include>` and two meshes under
//! `meshdir`) and nothing else, and compiling the source alone, without the disk, gives a model
//! that steps bit for bit as the original.

use moreau::{Data, MjcfSource, Model, Vfs};
use std::collections::BTreeSet;

fn path(name: &str) -> String {
    format!("{}/models/{name}.xml", env!("CARGO_MANIFEST_DIR"))
}

fn names(s: &MjcfSource) -> BTreeSet<String> {
    s.files.iter().map(|(k, _)| k.to_string()).collect()
}

/// qpos, qvel and act after 300 steps from `qvel = 0.3` with a constant control, as bits.
fn run(m: &Model) -> Vec<u64> {
    let mut d: Data = Data::new(m);
    d.qvel.iter_mut().for_each(|v| *v = 0.3);
    d.ctrl.iter_mut().for_each(|u| *u = 0.2);
    for _ in 0..300 {
        moreau::step(m, &mut d);
    }
    let state = d.qpos.iter().chain(d.qvel.iter()).chain(d.act.iter());
    state.map(|v: &f64| v.to_bits()).collect()
}

#[test]
fn the_source_of_a_file_holds_its_include_and_meshes() {
    let p = path("zoo");
    let (m, src) = moreau::load_with_source(&p).unwrap();
    let want: BTreeSet<String> = ["zoo_part.xml", "assets/wedge.obj", "assets/prism.stl"]
        .map(String::from)
        .into();
    assert_eq!(names(&src), want);
    assert_eq!(src.xml, std::fs::read_to_string(&p).unwrap());
    let dir = format!("{}/models", env!("CARGO_MANIFEST_DIR"));
    for (k, bytes) in src.files.iter() {
        assert_eq!(bytes, std::fs::read(format!("{dir}/{k}")).unwrap(), "{k}");
    }
    // the files are found in the source alone (the disk, relative to the working directory,
    // the crate root, has none of them)
    assert!(std::fs::metadata("zoo_part.xml").is_err());
    let again = src.load().unwrap();
    assert_eq!(run(&again), run(&m));
    assert_eq!(run(&m), run(&moreau::load(&p).unwrap()));
}

#[test]
fn the_source_of_a_string_keeps_the_vfs_files_it_used() {
    let dir = format!("{}/models", env!("CARGO_MANIFEST_DIR"));
    let xml = std::fs::read_to_string(path("mesh_drop")).unwrap();
    let mut vfs = Vfs::new();
    for f in ["tetra.obj", "hexprism.obj"] {
        vfs.add(
            format!("assets/{f}"),
            std::fs::read(format!("{dir}/assets/{f}")).unwrap(),
        );
    }
    vfs.add("unused.obj", b"v 0 0 0".to_vec());
    let (m, src) = moreau::load_from_str_with_source(&xml, &vfs).unwrap();
    let want: BTreeSet<String> = ["assets/tetra.obj", "assets/hexprism.obj"]
        .map(String::from)
        .into();
    assert_eq!(names(&src), want);
    assert_eq!(run(&src.load().unwrap()), run(&m));
}

#[test]
fn a_model_without_files_has_an_empty_source() {
    let (_, src) = moreau::load_with_source(path("cartpole")).unwrap();
    assert!(src.files.is_empty());
}
