//! MJCF loading: parse MuJoCo's XML format and compile it into a [`Model`].
//!
//! Pipeline: [`xml`] parses the text (with `<include>` expansion) into an element tree that keeps
//! every element's file, line and column; [`schema`] validates element and attribute names;
//! [`compile`] resolves default classes, builds the kinematic tree and computes MuJoCo's derived
//! quantities (addresses, inertias from geoms, actuator shortcuts, ...); finally
//! [`crate::setconst::set_const`] fills the constants that need the dynamics at `qpos0`.
//!
//! Limits on hostile or huge input (each refusal is an [`MjcfError`] naming the element):
//! [`MAX_FILE_BYTES`] per file read (only regular files are read, so `/dev/zero` cannot hang
//! the loader), [`MAX_ELEMENT_DEPTH`] nested elements per file and [`MAX_BODY_DEPTH`] nested
//! bodies (both MuJoCo's), [`MAX_INCLUDE_DEPTH`] nested include files, a file included at most
//! once (MuJoCo's "File … already included", which also rules out include cycles), at most six
//! dofs per body (MuJoCo's "more than 6 dofs in body"). Nothing recurses on the element tree,
//! and names resolve through hash maps, so loading is linear in the size of the model.
//!
//! Semantics follow MuJoCo 4.0.0's XML reference and compiler (docs/mujoco-behaviour.md#compiler,
//! #actuators, #defaults); every number a test compares was checked against the real engine
//! (`tools/reference/gen_mjcf_cases.py`).

mod compile;
mod error;
mod math;
pub(crate) mod mesh;
mod schema;
mod vfs;
mod xml;

pub use compile::MAX_BODY_DEPTH;
pub use error::{ErrorKind, MjcfError};
pub(crate) use vfs::read_file;
pub use vfs::{Vfs, MAX_FILE_BYTES};
pub use xml::{MAX_ELEMENT_DEPTH, MAX_INCLUDE_DEPTH};

use crate::model::Model;
use std::path::{Path, PathBuf};

/// A model's MJCF document and every file its loading read (`<include>` files, meshes, height
/// fields, from the VFS or the disk), each under the name it was found by: compiling `xml`
/// with `files` as the VFS ([`load_from_str`]) reads nothing from the disk and gives the same
/// model. What travels when a model is sent to another process or machine.
#[derive(Clone, Debug, Default)]
pub struct MjcfSource {
    /// The main document's text.
    pub xml: String,
    /// The files it references, by the names the loader looks them up by.
    pub files: Vfs,
    /// The warnings compiling it gave (MuJoCo's `mju_warning` texts during compilation, which
    /// its Python `MjSpec.compile` raises as `UserWarning`s): the reset of `sleep="init"`
    /// trees that could not all sleep ([`crate::reset::init_warning`]). Each also went to the
    /// warning handler.
    pub warnings: Vec<String>,
}

impl MjcfSource {
    /// Compiles the document again from its captured files alone.
    pub fn load(&self) -> Result<Model, MjcfError> {
        load_from_str(&self.xml, &self.files)
    }
}

/// Models whose [`crate::Data`] would need more than this in arrays sized by products of model
/// sizes (`crate::data::product_arrays`: `nv × nv`, `ntendon × nv`, ...) are refused with an
/// error naming the largest, rather than aborting when `Data::new` cannot allocate.
pub const MAX_DATA_BYTES: u128 = 8 << 30;

/// Refuses a model whose data would exceed [`MAX_DATA_BYTES`].
fn data_fits(m: &Model, file: &str) -> Result<(), MjcfError> {
    let arrays = crate::data::product_arrays(m);
    let total: u128 = arrays.iter().map(|a| a.2).sum();
    if total <= MAX_DATA_BYTES {
        return Ok(());
    }
    let (name, by, bytes) = arrays
        .iter()
        .max_by_key(|a| a.2)
        .copied()
        .unwrap_or(("", "", 0));
    Err(MjcfError {
        kind: ErrorKind::InvalidValue,
        file: file.to_string(),
        line: 0,
        column: 0,
        element: None,
        attribute: None,
        message: format!(
            "the model is too large: its data would need {:.1} GiB (largest: {name}, sized by \
             {by}: {:.1} GiB; nv = {}, ntendon = {}, nu = {}, ngeom = {}); the limit is \
             mjcf::MAX_DATA_BYTES = {} GiB",
            total as f64 / (1u64 << 30) as f64,
            bytes as f64 / (1u64 << 30) as f64,
            m.nv,
            m.ntendon,
            m.nu,
            m.ngeom,
            MAX_DATA_BYTES >> 30
        ),
    })
}

/// Loads and compiles the MJCF file at `path` (includes and assets relative to its directory).
///
/// ```
/// let m = moreau::load("models/cartpole.xml")?;
/// assert_eq!((m.nq, m.nv, m.nu), (2, 2, 1));
/// // errors name the file, line, column and attribute
/// let e = moreau::load("models/no_such_model.xml").unwrap_err();
/// assert!(e.to_string().contains("no_such_model.xml"), "{e}");
/// # Ok::<(), moreau::MjcfError>(())
/// ```
pub fn load(path: impl AsRef<Path>) -> Result<Model, MjcfError> {
    let (text, name, dir) = read_main(path.as_ref())?;
    load_impl(&text, &name, Some(dir), &Vfs::default(), false).map(|(m, ..)| m)
}

/// [`load`], also returning the document and every file read while loading it
/// ([`MjcfSource`]).
pub fn load_with_source(path: impl AsRef<Path>) -> Result<(Model, MjcfSource), MjcfError> {
    let (text, name, dir) = read_main(path.as_ref())?;
    let (model, files, warnings) = load_impl(&text, &name, Some(dir), &Vfs::default(), true)?;
    let xml = text;
    Ok((
        model,
        MjcfSource {
            xml,
            files,
            warnings,
        },
    ))
}

/// The main file's text, its name for messages and its directory.
fn read_main(path: &Path) -> Result<(String, String, PathBuf), MjcfError> {
    let name = path.display().to_string();
    let fail = |kind, message| MjcfError {
        kind,
        file: name.clone(),
        line: 0,
        column: 0,
        element: None,
        attribute: None,
        message,
    };
    let bytes = read_file(path).map_err(|e| {
        fail(
            ErrorKind::MissingFile,
            // MuJoCo 4.0.0's sentence ("Error opening file"), then why
            format!("Error opening file '{name}': cannot open model file: {e}"),
        )
    })?;
    // an empty file, or anything but a regular file (read as empty), as MuJoCo 4.0.0 says it
    if bytes.is_empty() {
        return Err(fail(ErrorKind::Syntax, format!("empty file '{name}'")));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| fail(ErrorKind::Syntax, "model file is not valid UTF-8".into()))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok((text, name, dir))
}

/// Compiles an in-memory MJCF document. Files it references are looked up in `vfs` first, then
/// on disk relative to the current directory.
pub fn load_from_str(xml: &str, vfs: &Vfs) -> Result<Model, MjcfError> {
    load_impl(xml, "<string>", None, vfs, false).map(|(m, ..)| m)
}

/// [`load_from_str`], also returning the document and every file read while loading it
/// ([`MjcfSource`]; only the files of `vfs` the document uses).
pub fn load_from_str_with_source(xml: &str, vfs: &Vfs) -> Result<(Model, MjcfSource), MjcfError> {
    let (model, files, warnings) = load_impl(xml, "<string>", None, vfs, true)?;
    let xml = xml.to_string();
    Ok((
        model,
        MjcfSource {
            xml,
            files,
            warnings,
        },
    ))
}

/// [`load_from_str_with_source`] with the document's files (meshes, height fields, textures)
/// relative to `dir`, as if the document were a file there (an edited `MjSpec` read from a
/// file); the compiler's warnings go to [`MjcfSource::warnings`] only, not to the warning
/// handler (as MuJoCo's Python `MjSpec.compile`).
pub fn load_from_str_in(
    xml: &str,
    dir: Option<&Path>,
    vfs: &Vfs,
) -> Result<(Model, MjcfSource), MjcfError> {
    // the compiler's warnings (`settotalmass`, a `sleep="init"` tree that cannot sleep) are
    // returned, not passed to the warning handler, as MuJoCo's `MjSpec.compile` raises them
    let (res, warnings) = crate::data::warning::capture_messages(|| {
        load_impl(xml, "<string>", dir.map(Path::to_path_buf), vfs, true)
    });
    let (model, files, _) = res?;
    Ok((
        model,
        MjcfSource {
            xml: xml.to_string(),
            files,
            warnings,
        },
    ))
}

/// One element of a parsed MJCF document ([`parse_spec`]): its tag, attributes in document
/// order, text, line, and its parent's index in the list (`None` for the root).
#[derive(Clone, Debug, PartialEq)]
pub struct SpecElement {
    /// The parent's index in [`parse_spec`]'s list; `None` for `<mujoco>`.
    pub parent: Option<usize>,
    /// The tag.
    pub name: String,
    /// The attributes as written, in document order.
    pub attrs: Vec<(String, String)>,
    /// The concatenated text (`<text>`, `<numeric>` data and the like).
    pub text: String,
    /// The 1-based line of the element in its file.
    pub line: usize,
}

/// Whether MuJoCo 4.0.0 raises `e` when it reads the XML (`mujoco.MjSpec.from_string`) rather
/// than when it compiles (measured on it, `python/tests/test_spec.py`): malformed XML, schema
/// violations, numbers that do not read or are too many, unknown keywords and default classes,
/// repeated names and default classes, several orientations or other attributes of which at
/// most one may be given, missing include files. Missing
/// references, sizes, masses, keyframe lengths and asset files are compile errors.
pub fn raised_at_parse(e: &MjcfError) -> bool {
    match e.kind {
        ErrorKind::Syntax
        | ErrorKind::UnknownElement
        | ErrorKind::UnknownAttribute
        | ErrorKind::BadNumber
        | ErrorKind::DuplicateName => true,
        // a keyframe's sizes follow the compiled model's (`nq`, `nu`, ...)
        ErrorKind::WrongCount => e.element.as_deref() != Some("key"),
        ErrorKind::MissingFile => e.element.as_deref() == Some("include"),
        ErrorKind::InvalidValue | ErrorKind::BadReference => {
            let m = e.message.as_str();
            [
                "invalid keyword",
                "unknown default class",
                "repeated default class",
                "multiple orientation",
                "already included",
                "at most one of",
            ]
            .iter()
            .any(|p| m.contains(p))
        }
        _ => false,
    }
}

/// Reads an MJCF document as MuJoCo's XML reader does before compiling (its `MjSpec`): parses
/// it (with `<include>`s expanded, their files relative to `dir`, from `vfs` first), checks
/// the schema, and refuses it with the errors MuJoCo raises while reading
/// ([`raised_at_parse`]; found by compiling the element tree, so a compile error that comes
/// first, such as a missing mesh file, leaves later reading errors to the compile). Returns
/// the elements in document (depth-first) order.
pub fn parse_spec(
    text: &str,
    dir: Option<&Path>,
    vfs: &Vfs,
) -> Result<Vec<SpecElement>, MjcfError> {
    let name = "<string>";
    let files = xml::FileSource {
        vfs,
        dir: dir.map(Path::to_path_buf),
        read_log: None,
        main: name.to_string(),
    };
    let root = xml::parse_document(text, name, &files)?;
    schema::validate(&root)?;
    // MuJoCo's reader gives no compiler warnings: this compile's are dropped
    let (compiled, _) = crate::data::warning::capture_messages(|| compile::compile(&root, &files));
    if let Err(e) = compiled {
        if raised_at_parse(&e) {
            return Err(e);
        }
    }
    // depth-first, without recursion (include trees can be deep)
    let mut out = Vec::new();
    let mut stack: Vec<(Option<usize>, &xml::Elem)> = vec![(None, &root)];
    while let Some((parent, e)) = stack.pop() {
        let id = out.len();
        out.push(SpecElement {
            parent,
            name: e.name.clone(),
            attrs: e.attrs.clone(),
            text: e.text.clone(),
            line: e.loc.line,
        });
        stack.extend(e.children.iter().rev().map(|c| (Some(id), c)));
    }
    Ok(out)
}

/// Loads a document; with `log`, also returns every file read (else an empty VFS); and the
/// compiler's warnings.
fn load_impl(
    text: &str,
    name: &str,
    dir: Option<PathBuf>,
    vfs: &Vfs,
    log: bool,
) -> Result<(Model, Vfs, Vec<String>), MjcfError> {
    let read_log = log.then(Default::default);
    let files = xml::FileSource {
        vfs,
        dir,
        read_log,
        main: name.to_string(),
    };
    let root = xml::parse_document(text, name, &files)?;
    schema::validate(&root)?;
    let lengthrange = compile::read_lengthrange(&root)?;
    let mut model = compile::compile(&root, &files)?;
    model.fill_sparse();
    model.fill_sameframe();
    model.fill_ngeom_collidable();
    model.fill_geom_tree();
    data_fits(&model, name)?;
    model.update_actuator_extras();
    crate::setconst::set_const(&mut model);
    // MuJoCo computes actuator length ranges after mj_setConst
    crate::lengthrange::set_length_range(&mut model, &lengthrange).map_err(|message| {
        MjcfError {
            kind: ErrorKind::InvalidValue,
            file: name.to_string(),
            line: 0,
            column: 0,
            element: Some("lengthrange".into()),
            attribute: None,
            message,
        }
    })?;
    // MuJoCo's compiler makes an mjData of the model, whose reset puts the `sleep="init"`
    // trees to sleep and warns when some cannot sleep (crate::reset): the same warning here;
    // a stack overflow in that reset's forward pass fails the compiler (MuJoCo 4.0.0: "engine
    // error" with the overflow's message; tests/engine/reset_overflow.rs)
    let mut warnings = Vec::new();
    if crate::reset::init_trees(&model) > 0 && crate::forward::unsupported(&model).is_none() {
        let mut d = crate::data::Data::<f64>::alloc(&model);
        warnings.extend(crate::reset::reset_data(&model, &mut d));
        if let Some(e) = d.stack_overflow {
            let memory = root
                .children
                .iter()
                .rev()
                .find(|e| e.name == "size" && e.attr("memory").is_some());
            // MuJoCo's message after its "Error: engine error: " (as the compiler's own stack
            // overflows, `compile::size`)
            return Err(match memory {
                Some(el) => el.err(ErrorKind::InvalidValue, Some("memory"), e.to_string()),
                None => root.err(ErrorKind::InvalidValue, None, e.to_string()),
            });
        }
    }
    let read = files.read_log.map(|l| l.into_inner()).unwrap_or_default();
    Ok((model, read, warnings))
}

#[cfg(test)]
mod tests;
