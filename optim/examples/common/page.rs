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
    let out = path.with_extension("html");
    let file = std::fs::File::create(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    // streamed into the file: a long run's page is megabytes, not held twice in memory
    let mut w = std::io::BufWriter::new(file);
    moreau_viewer::write_page(m, &trajs, &opts, &mut w).map_err(|e| format!("{json_path}: {e}"))?;
    std::io::Write::flush(&mut w).map_err(|e| format!("{}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(out)
}
