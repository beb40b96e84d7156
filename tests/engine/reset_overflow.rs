//! A stack overflow inside the forward pass a reset runs over `sleep="init"` trees, against
//! MuJoCo 4.0.0 (tests/reference/reset_overflow.json, written by
//! tools/reference/gen_reset_overflow.py): 150 free spheres in a row and one `sleep="init"`
//! sphere under `<size memory>`.
//! - MuJoCo's compiler runs that pass: below the fewest bytes it compiles with, moreau refuses
//!   the model as MuJoCo does, naming `memory`, with MuJoCo's whole message (the site of the
//!   overflow: `setInertia0` far below, `mj_SAP` one byte below); at that memory it compiles and
//!   the init sphere sleeps.
//! - After enlarging the init sphere on the compiled model, the reset's broad phase overflows:
//!   MuJoCo's `mj_resetData` and `mj_makeData` fail with its fatal error; `Data::try_reset` and
//!   `Data::try_new` return the same message, every tree is awake and `time` is 0, as MuJoCo
//!   leaves them, and `Data::reset` keeps the overflow in `stack_overflow`.

use crate::oracle_util;
use moreau::{load_from_str, Data, Model, Vfs};
use serde_json::Value;

fn asleep(v: &Value) -> Vec<i32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap() as i32)
        .collect()
}

/// The compiled model with the init sphere grown as the script does.
fn grown(r: &Value) -> Model {
    let mut m = load_from_str(r["xml_min_memory"].as_str().unwrap(), &Vfs::default()).unwrap();
    let grow = r["grow"].as_f64().unwrap();
    let g = m.ngeom - 1;
    m.geom_size[g][0] = grow;
    m.geom_rbound[g] = grow;
    for k in 3..6 {
        m.geom_aabb[g][k] = grow;
    }
    m
}

#[test]
fn the_compiler_refuses_a_reset_pass_that_overflows_as_mujoco() {
    let r = oracle_util::reference("reset_overflow.json");
    let mem = r["min_memory"].as_u64().unwrap();
    let xml = r["xml_min_memory"].as_str().unwrap();
    let (mut refused, mut loaded) = (0, 0);
    for (k, want) in r["compile"].as_object().unwrap() {
        let sized = xml.replace(&format!("memory='{mem}'"), &format!("memory='{k}'"));
        let got = load_from_str(&sized, &Vfs::default());
        match (want.as_str(), got) {
            (Some(w), Err(e)) => {
                let w = w.strip_prefix("Error: engine error: ").unwrap();
                assert_eq!(e.attribute.as_deref(), Some("memory"), "{k}");
                assert_eq!(e.message, w, "memory {k}");
                refused += 1;
            }
            (None, Ok(m)) => {
                let d = Data::<f64>::try_new(&m).unwrap();
                assert_eq!(d.tree_asleep, asleep(&r["tree_asleep_before"]), "{k}");
                loaded += 1;
            }
            (w, got) => panic!("memory {k}: MuJoCo {w:?}, moreau {:?}", got.err()),
        }
    }
    assert_eq!((refused, loaded), (4, 1));
}

#[test]
fn a_reset_whose_pass_overflows_fails_as_mujoco() {
    let r = oracle_util::reference("reset_overflow.json");
    let want = r["reset_error"].as_str().unwrap();
    let m = grown(&r);
    let mut d = Data::<f64>::try_new(
        &load_from_str(r["xml_min_memory"].as_str().unwrap(), &Vfs::default()).unwrap(),
    )
    .unwrap();
    for _ in 0..5 {
        moreau::step(&m, &mut d);
    }
    let e = d.try_reset(&m).unwrap_err();
    assert_eq!(e.to_string(), want);
    assert_eq!(d.tree_asleep, asleep(&r["tree_asleep_after"]));
    assert_eq!(d.time, r["time_after"].as_f64().unwrap());
    // the infallible reset leaves the same state and says so in `stack_overflow`
    d.reset(&m);
    assert_eq!(
        d.stack_overflow.map(|e| e.to_string()).as_deref(),
        Some(want)
    );
    assert_eq!(d.tree_asleep, asleep(&r["tree_asleep_after"]));
    let e = Data::<f64>::try_new(&m).map(|_| ()).unwrap_err();
    assert_eq!(e.to_string(), r["makedata_error"].as_str().unwrap());
}
