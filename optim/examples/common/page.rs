//! The examples' trajectory pages: each trajectory JSON an example writes gets a
//! self-contained HTML page of the same name beside it (`moreau_viewer`; open it in any
//! browser, no network needed), drawing the model and playing the trajectory with every
//! `*_qpos` key of the file (plan, tracking, measurement) overlaid.

use std::path::{Path, PathBuf};

/// Writes `<json_path without .json>.html` for the trajectory `v` of model `m`, titled `title`.
pub fn write(
    m: &moreau::Model,
    json_path: &str,
    v: &serde_json::Value,
    title: &str,
) -> Result<PathBuf, String> {
    let path = Path::new(json_path);
    let name = path
        .file_stem()
        .map_or_else(|| "trajectory".into(), |s| s.to_string_lossy().into_owned());
    let trajs = moreau_viewer::from_json(m, v, &name).map_err(|e| format!("{json_path}: {e}"))?;
    let opts = moreau_viewer::Options {
        title: Some(title.to_string()),
        ..Default::default()
    };
    let html = moreau_viewer::page(m, &trajs, &opts).map_err(|e| format!("{json_path}: {e}"))?;
    let out = path.with_extension("html");
    std::fs::write(&out, html).map_err(|e| format!("{}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(out)
}
