//! A cloned, never-stepped `Data` still finds every contact: the contact limit lives in the
//! reserved capacity, which `Clone` does not keep, and collision restores it.

#[test]
fn cloned_data_keeps_contacts() {
    let root = env!("CARGO_MANIFEST_DIR");
    let m = moreau::load(format!("{root}/models/sphere_drop.xml")).unwrap();
    let text = std::fs::read_to_string(format!("{root}/tests/reference/sphere_drop.json")).unwrap();
    let refdata: serde_json::Value = serde_json::from_str(&text).unwrap();
    let qpos: Vec<f64> = refdata["states"][2]["qpos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let mut d0 = moreau::Data::<f64>::new(&m);
    let mut d1 = moreau::Data::<f64>::new(&m).clone();
    d0.qpos.copy_from_slice(&qpos);
    d1.qpos.copy_from_slice(&qpos);
    moreau::forward(&m, &mut d0);
    moreau::forward(&m, &mut d1);
    assert!(!d0.contact.is_empty());
    assert_eq!(d0.contact.len(), d1.contact.len());
    assert_eq!(d0.qacc, d1.qacc);
}
