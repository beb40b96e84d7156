//! MuJoCo's virtual file system and the loader's one way of reading a file from the disk.

use std::collections::HashMap;
use std::path::Path;

/// MuJoCo's virtual file system: file names mapped to their bytes. `<include>` files and mesh /
/// hfield files are looked up here first, then on disk. As in MuJoCo 4.0.0 (measured on it), a
/// file is found by its name without directories (`/` or `\`) and without case: `md/Box.OBJ`
/// is found as `box.obj`, `other/box.obj` or `md/box.obj`, whatever `meshdir` says. The exact
/// name is tried first, so files that MuJoCo's VFS could not hold together (the same name in
/// two directories, as a pickled model's files may be) stay apart.
#[derive(Clone, Debug, Default)]
pub struct Vfs {
    files: HashMap<String, Vec<u8>>,
    /// [`Vfs::key`] → the name of the file last added under it
    keys: HashMap<String, String>,
}

impl Vfs {
    /// An empty file system.
    pub fn new() -> Self {
        Self::default()
    }
    /// The name a file is also found by: without directories, in lower case.
    pub fn key(name: &str) -> String {
        name.rsplit(['/', '\\'])
            .next()
            .unwrap_or(name)
            .to_ascii_lowercase()
    }
    /// Adds (or replaces) a file.
    pub fn add(&mut self, name: impl Into<String>, bytes: impl Into<Vec<u8>>) -> &mut Self {
        let name = name.into();
        self.keys.insert(Self::key(&name), name.clone());
        self.files.insert(name, bytes.into());
        self
    }
    /// Removes a file, returning true if it was present.
    pub fn remove(&mut self, name: &str) -> bool {
        let key = Self::key(name);
        if self.keys.get(&key).is_some_and(|n| n == name) {
            self.keys.remove(&key);
        }
        self.files.remove(name).is_some()
    }
    /// The bytes stored under `name`, else under a name with its [`Vfs::key`].
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.files
            .get(name)
            .or_else(|| self.files.get(self.keys.get(&Self::key(name))?))
            .map(|v| v.as_slice())
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

/// Reads a file the loader references, of at most [`MAX_FILE_BYTES`]. Anything but a regular
/// file (a device such as `/dev/zero`, a FIFO, a directory) is not read and gives no bytes: it
/// has no size and might never end, and MuJoCo 4.0.0 reports it as empty (measured: an include
/// of `/dev/zero` or of a directory is "Empty file").
pub(crate) fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind as K, Read};
    let f = std::fs::File::open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Ok(Vec::new());
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
