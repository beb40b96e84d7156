//! MuJoCo's virtual file system and the loader's one way of reading a file from the disk.

use std::collections::HashMap;
use std::path::Path;

/// MuJoCo's virtual file system: file names mapped to their bytes. `<include>` files and mesh /
/// hfield files are looked up here first (by the name as written, then by the name joined with
/// `meshdir`/`assetdir`), then on disk.
#[derive(Clone, Debug, Default)]
pub struct Vfs {
    files: HashMap<String, Vec<u8>>,
}

impl Vfs {
    /// An empty file system.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds (or replaces) a file.
    pub fn add(&mut self, name: impl Into<String>, bytes: impl Into<Vec<u8>>) -> &mut Self {
        self.files.insert(name.into(), bytes.into());
        self
    }
    /// Removes a file, returning true if it was present.
    pub fn remove(&mut self, name: &str) -> bool {
        self.files.remove(name).is_some()
    }
    /// The bytes stored under `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.files.get(name).map(|v| v.as_slice())
    }
    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }
    /// True if no file is stored.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
    /// The files as (name, bytes), in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }
}

/// Files larger than this (the model, includes, meshes, height fields) are refused before they
/// are read.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// Reads a file the loader references: only regular files (a device such as `/dev/zero` or a
/// FIFO has no size and might never end; MuJoCo reports such a file as empty) of at most
/// [`MAX_FILE_BYTES`].
pub(crate) fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind as K, Read};
    let f = std::fs::File::open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(K::InvalidInput, "not a regular file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(Error::new(
            K::InvalidInput,
            format!(
                "{} bytes, more than the limit of {} (mjcf::MAX_FILE_BYTES)",
                meta.len(),
                MAX_FILE_BYTES
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // a file that grows while it is read stops at the limit
    f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::new(
            K::InvalidInput,
            "larger than mjcf::MAX_FILE_BYTES",
        ));
    }
    Ok(bytes)
}
