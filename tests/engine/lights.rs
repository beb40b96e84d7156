//! Lights against MuJoCo 4.0.0 (tests/reference/light_cases.json, written by
//! tools/reference/gen_light_cases.py from models/lights.xml): the compiled `light_*` fields
//! (MuJoCo's optical properties are float32: compared at float32 precision), and
//! `light_xpos`, `light_xdir` after `forward` at moving states, for the modes fixed, track,
//! trackcom (with and without a target), targetbody and targetbodycom. Error measure
//! `|a − b| / max(1, |b|)`, tolerance 1e-12.

use moreau::data::Data;
use moreau::model::CamMode;
use serde_json::Value;

const TOL: f64 = 1e-12;

fn nums(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().flat_map(nums).collect(),
        Value::Number(x) => vec![x.as_f64().unwrap()],
        Value::Bool(b) => vec![f64::from(u8::from(*b))],
        _ => vec![],
    }
}

fn check(what: &str, got: &[f64], want: &[f64], f32_precision: bool) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        if f32_precision {
            assert_eq!(*g as f32, *w as f32, "{what}[{k}]");
        } else {
            let e = (g - w).abs() / w.abs().max(1.0);
            assert!(e < TOL, "{what}[{k}]: {g} vs {w} ({e:e})");
        }
    }
}

#[test]
fn lights_match_mujoco() {
    let root = env!("CARGO_MANIFEST_DIR");
    let m = moreau::load(format!("{root}/models/lights.xml")).unwrap();
    let text = std::fs::read_to_string(format!("{root}/tests/reference/light_cases.json"))
        .expect("tests/reference/light_cases.json (tools/reference/gen_light_cases.py)");
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(m.nlight as u64, r["nlight"].as_u64().unwrap());
    let flat3 = |v: &[[f64; 3]]| v.iter().flatten().copied().collect::<Vec<f64>>();
    let ints = |v: &[i32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
    let bools = |v: &[bool]| {
        v.iter()
            .map(|&x| f64::from(u8::from(x)))
            .collect::<Vec<f64>>()
    };
    let mode = |v: &[CamMode]| v.iter().map(|&x| x as i32 as f64).collect::<Vec<f64>>();
    let fields: Vec<(&str, Vec<f64>, bool)> = vec![
        ("light_pos", flat3(&m.light_pos), false),
        ("light_dir", flat3(&m.light_dir), false),
        ("light_pos0", flat3(&m.light_pos0), false),
        ("light_poscom0", flat3(&m.light_poscom0), false),
        ("light_dir0", flat3(&m.light_dir0), false),
        ("light_mode", mode(&m.light_mode), false),
        (
            "light_bodyid",
            m.light_bodyid.iter().map(|&b| b as f64).collect(),
            false,
        ),
        ("light_targetbodyid", ints(&m.light_targetbodyid), false),
        ("light_type", ints(&m.light_type), false),
        ("light_texid", ints(&m.light_texid), false),
        ("light_castshadow", bools(&m.light_castshadow), false),
        ("light_active", bools(&m.light_active), false),
        ("light_bulbradius", m.light_bulbradius.clone(), true),
        ("light_intensity", m.light_intensity.clone(), true),
        ("light_range", m.light_range.clone(), true),
        ("light_softness", m.light_softness.clone(), true),
        ("light_cutoff", m.light_cutoff.clone(), true),
        ("light_exponent", m.light_exponent.clone(), true),
        ("light_attenuation", flat3(&m.light_attenuation), true),
        ("light_ambient", flat3(&m.light_ambient), true),
        ("light_diffuse", flat3(&m.light_diffuse), true),
        ("light_specular", flat3(&m.light_specular), true),
    ];
    let names: Vec<&String> = r["fields"].as_object().unwrap().keys().collect();
    assert_eq!(
        names.len(),
        fields.len(),
        "MuJoCo's light fields: {names:?}"
    );
    for (name, got, f32_precision) in &fields {
        check(name, got, &nums(&r["fields"][*name]), *f32_precision);
    }
    let mut d: Data = Data::new(&m);
    let states = r["states"].as_array().unwrap();
    assert!(!states.is_empty());
    for s in states {
        d.qpos.copy_from_slice(&nums(&s["qpos"]));
        moreau::forward(&m, &mut d);
        let v3 = |v: &[nalgebra::Vector3<f64>]| v.iter().flatten().copied().collect::<Vec<f64>>();
        check(
            "light_xpos",
            &v3(&d.light_xpos),
            &nums(&s["light_xpos"]),
            false,
        );
        check(
            "light_xdir",
            &v3(&d.light_xdir),
            &nums(&s["light_xdir"]),
            false,
        );
    }
}

#[test]
fn bad_lights_are_refused_with_mujocos_words() {
    for (attrs, message) in [
        (r#"dir="0 0 0""#, "zero direction in light"),
        (
            r#"mode="targetbody" target="nope""#,
            "unknown target body in light",
        ),
        (r#"color="1 1 1""#, "color"),
    ] {
        let xml = format!(
            r#"<mujoco><worldbody><body name="b"><light {attrs}/></body></worldbody></mujoco>"#
        );
        let e = moreau::load_from_str(&xml, &moreau::Vfs::new()).unwrap_err();
        assert!(e.to_string().contains(message), "{attrs}: {e}");
    }
}
