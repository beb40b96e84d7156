//! `step` on f64 allocates nothing on the camera, body-transmission and length-range models
//! (cameras with every tracking mode and camera sensors, rangefinders with invisible geoms,
//! adhesion with contacts, inside wraps).

use crate::alloc_counter;
use alloc_counter::allocations;
use serde_json::Value;

#[test]
fn phys8c_step_does_not_allocate() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/phys8c_cases.json"
    );
    let all: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    for key in ["cameras", "rays", "adhesion", "inside"] {
        let xml = all[key]["xml"].as_str().unwrap();
        let m = moreau::load_from_str(xml, &Default::default()).unwrap();
        let mut d = moreau::Data::<f64>::new(&m);
        d.ctrl.iter_mut().for_each(|c| *c = 0.5);
        // warm up (contact lists and solver scratch reach their working size)
        for _ in 0..3 {
            moreau::step(&m, &mut d);
        }
        let before = allocations();
        for _ in 0..5 {
            moreau::step(&m, &mut d);
        }
        let n = allocations() - before;
        assert_eq!(n, 0, "{key}: {n} allocations");
        if key == "adhesion" {
            assert!(!d.contact.is_empty(), "adhesion model should be in contact");
        }
    }
}
