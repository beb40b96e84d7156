//! XML text -> element tree with source locations; `<include>` expansion.

use crate::mjcf::error::{ErrorKind, MjcfError};
use crate::mjcf::vfs::Vfs;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use std::cell::RefCell;
use std::collections::HashSet;
use std::path::PathBuf;
use std::rc::Rc;

/// Source location of an element.
#[derive(Clone, Debug)]
pub struct Loc {
    pub file: Rc<str>,
    pub line: usize,
    pub col: usize,
}

/// One XML element: name, attributes in document order, children, concatenated text.
#[derive(Debug)]
pub struct Elem {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Elem>,
    pub text: String,
    pub loc: Loc,
}

/// Dropping a tree moves the descendants onto a list first: the derived drop would recurse once
/// per level, and trees built through `<include>` can be deeper than the stack allows.
impl Drop for Elem {
    fn drop(&mut self) {
        let mut pending = std::mem::take(&mut self.children);
        while let Some(mut e) = pending.pop() {
            pending.append(&mut e.children);
        }
    }
}

impl Elem {
    /// The raw value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// An error located at this element.
    pub fn err(&self, kind: ErrorKind, attr: Option<&str>, msg: impl Into<String>) -> MjcfError {
        MjcfError {
            kind,
            file: self.loc.file.to_string(),
            line: self.loc.line,
            column: self.loc.col,
            element: Some(self.name.clone()),
            attribute: attr.map(str::to_string),
            message: msg.into(),
        }
    }
}

/// Where referenced files come from: the VFS first, then the disk (relative to `dir`).
pub struct FileSource<'a> {
    pub vfs: &'a Vfs,
    pub dir: Option<PathBuf>,
    /// When present, every file read is added here under the name it was found by (the VFS
    /// key or the path as looked up on disk), so that the same lookups succeed in it alone.
    pub read_log: Option<RefCell<Vfs>>,
    /// The main file's name as its elements' locations give it ([`Loc::file`]); the elements
    /// of included files carry the included file's path relative to `dir` instead.
    pub main: String,
}

impl FileSource<'_> {
    /// Reads `name` (inside `subdir`, MuJoCo's meshdir/assetdir, unless absolute): the VFS
    /// ([`Vfs::key`]), then the disk; else why not, as MuJoCo 4.0.0 says it ("Error opening
    /// file" with the joined name; measured on it: a file beside the main file is not found
    /// when `subdir` is set), or that it is larger than [`crate::mjcf::vfs::MAX_FILE_BYTES`];
    /// anything but a regular file reads as empty ([`crate::mjcf::vfs::read_file`]).
    pub fn fetch(&self, name: &str, subdir: &str) -> Result<Vec<u8>, String> {
        let joined = if subdir.is_empty() || name.starts_with('/') {
            name.to_string()
        } else {
            format!("{}/{}", subdir.trim_end_matches('/'), name)
        };
        if let Some(b) = self.vfs.get(&joined) {
            return Ok(self.logged(&joined, b.to_vec()));
        }
        // `md/../m.obj` is `m.obj` even when `md` does not exist (as MuJoCo 4.0.0)
        let full = self.disk_path(&normalize(&joined));
        match crate::mjcf::vfs::read_file(&full) {
            Ok(b) => Ok(self.logged(&joined, b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(format!("Error opening file '{joined}'"))
            }
            Err(e) => Err(format!("cannot read '{}': {e}", full.display())),
        }
    }

    /// The directory, relative to `dir`, of the included file an element at `loc` comes from;
    /// `None` for the main file or an included file in the main file's directory.
    pub fn included_dir(&self, loc: &Loc) -> Option<String> {
        let file: &str = &loc.file;
        if file == self.main || file == "<string>" || file.starts_with('/') {
            return None;
        }
        let dir = file.rsplit_once('/')?.0;
        (!dir.is_empty()).then(|| dir.to_string())
    }

    /// [`FileSource::fetch`] of a file named in the element at `loc`. Measured on MuJoCo
    /// 4.0.0: a name is looked up relative to the main file's directory (inside `subdir`)
    /// first; when not found there and the element comes from an included file in another
    /// directory, relative to that file's directory (without `subdir`). Returns the bytes and
    /// the name it was found by (relative to `dir`).
    pub fn fetch_near(
        &self,
        name: &str,
        subdir: &str,
        loc: &Loc,
    ) -> Result<(Vec<u8>, String), String> {
        let first = self.fetch(name, subdir);
        match (first, self.included_dir(loc)) {
            (Ok(b), _) => Ok((b, name.to_string())),
            (Err(_), Some(dir)) if !name.starts_with('/') => {
                // MuJoCo names the last path it tried
                let near = normalize(&format!("{dir}/{name}"));
                self.fetch(&near, "").map(|b| (b, near))
            }
            (Err(why), _) => Err(why),
        }
    }

    /// A mesh, height-field or texture file named in the element at `loc`, inside `subdir`
    /// (`meshdir` or `texturedir`), as MuJoCo 4.0.0 finds it (measured on it): relative to the
    /// main file's directory first; when not found there and the element comes from an included
    /// file, the name prefixed with that file's directory as the main file's path gives it
    /// (`dir` joined with the included file's path), which is opened as it is when absolute
    /// (a main file given by its absolute path: Menagerie's `mjx_panda.xml` names
    /// `assets/link0.stl` under `meshdir="assets"`), else again inside `subdir` relative to the
    /// main file's directory (`sub/m.xml` including `sub/i.xml`: "Error opening file
    /// 'md/sub/t.obj'"). Returns the bytes and the name it was found by.
    pub fn fetch_asset(
        &self,
        name: &str,
        subdir: &str,
        loc: &Loc,
    ) -> Result<(Vec<u8>, String), String> {
        let first = self.fetch(name, subdir);
        let file: &str = &loc.file;
        if first.is_ok() || file == self.main || file == "<string>" || name.starts_with('/') {
            return first.map(|b| (b, name.to_string()));
        }
        let inc = file.rsplit_once('/').map_or("", |(d, _)| d);
        let known = match &self.dir {
            Some(d) if !inc.starts_with('/') => d.join(inc),
            _ => PathBuf::from(inc),
        };
        let known = known.to_string_lossy().to_string();
        let near = if known.is_empty() {
            name.to_string()
        } else {
            normalize(&format!("{known}/{name}"))
        };
        let sub = if near.starts_with('/') { "" } else { subdir };
        self.fetch(&near, sub).map(|b| (b, near))
    }

    /// Adds a file read under `key` to the read log, if there is one.
    fn logged(&self, key: &str, bytes: Vec<u8>) -> Vec<u8> {
        if let Some(log) = &self.read_log {
            log.borrow_mut().add(key, bytes.clone());
        }
        bytes
    }

    /// Where `name` would be on disk.
    fn disk_path(&self, name: &str) -> PathBuf {
        let p = PathBuf::from(name);
        match (&self.dir, p.is_absolute()) {
            (Some(d), false) => d.join(&p),
            _ => p,
        }
    }
}

/// Include files nested deeper than this are refused. (Cycles cannot occur: a file is included
/// at most once, as in MuJoCo; the bound keeps the include recursion shallow.)
pub const MAX_INCLUDE_DEPTH: usize = 32;

/// Elements nested deeper than this within one file are refused, as by MuJoCo's XML parser
/// (tinyxml2's `XML_ELEMENT_DEPTH_EXCEEDED`; MuJoCo 4.0.0 accepts 498 nested non-empty elements
/// and refuses 499). Trees built from several files through `<include>` may be deeper: nothing
/// downstream recurses on the element tree.
pub const MAX_ELEMENT_DEPTH: usize = 498;

/// Parses the main document and expands includes. The root must be `<mujoco>`.
pub fn parse_document(text: &str, file: &str, files: &FileSource) -> Result<Elem, MjcfError> {
    let mut inc = Includes {
        files,
        seen: HashSet::new(),
    };
    // the main file counts as included (MuJoCo refuses an include of it)
    if file != "<string>" {
        inc.seen.insert(normalize(file));
    }
    let root = parse_text_inc(text, file, Some(&mut inc), 0)?;
    if root.name != "mujoco" {
        return Err(root.err(
            ErrorKind::UnknownElement,
            None,
            // MuJoCo 4.0.0's sentence
            format!("Unrecognized XML model type: '{}'", root.name),
        ));
    }
    Ok(root)
}

/// `<include>` expansion state: where files come from and which were included already.
struct Includes<'a, 'b> {
    files: &'a FileSource<'b>,
    seen: HashSet<String>,
}

/// A path with `.` components and `dir/..` pairs removed, so that `./a.xml` and `a.xml` are
/// one file.
fn normalize(name: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in name.split('/') {
        match c {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            _ => parts.push(c),
        }
    }
    let joined = parts.join("/");
    if name.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

impl Includes<'_, '_> {
    /// The name under which a file is remembered as included: its normalized disk path, or
    /// its normalized VFS name.
    fn key(&self, name: &str) -> String {
        match &self.files.dir {
            Some(_) => normalize(&self.files.disk_path(name).to_string_lossy()),
            None => normalize(name),
        }
    }

    /// The children of the `<mujoco>` root of the file named by the `<include>` element `c`.
    fn expand(&mut self, c: &Elem, depth: usize) -> Result<Vec<Elem>, MjcfError> {
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(c.err(
                ErrorKind::InvalidValue,
                None,
                format!("include nesting deeper than {MAX_INCLUDE_DEPTH} files"),
            ));
        }
        if let Some((k, _)) = c.attrs.iter().find(|(k, _)| k != "file") {
            let k = k.clone();
            let msg = format!("Schema violation: unrecognized attribute: '{k}'");
            return Err(c.err(ErrorKind::UnknownAttribute, Some(&k), msg));
        }
        let given = c
            .attr("file")
            .ok_or_else(|| c.err(ErrorKind::InvalidValue, Some("file"), "missing file"))?
            .to_string();
        // a file already included (under any spelling) is refused before it is read
        if self.seen.contains(&self.key(&given)) {
            return Err(c.err(
                ErrorKind::InvalidValue,
                Some("file"),
                format!("File '{}' already included", normalize(&given)),
            ));
        }
        // an include inside an included file: relative to the main file's directory, else to
        // the including file's (`FileSource::fetch_near`)
        let (bytes, name) = self
            .files
            .fetch_near(&given, "", &c.loc)
            .map_err(|why| c.err(ErrorKind::MissingFile, Some("file"), why))?;
        if !self.seen.insert(self.key(&name)) {
            return Err(c.err(
                ErrorKind::InvalidValue,
                Some("file"),
                format!("File '{}' already included", normalize(&name)),
            ));
        }
        if bytes.is_empty() {
            return Err(c.err(
                ErrorKind::MissingFile,
                Some("file"),
                format!("Empty file '{name}'"),
            ));
        }
        let text = String::from_utf8(bytes).map_err(|_| {
            c.err(
                ErrorKind::Syntax,
                Some("file"),
                format!("'{name}' is not UTF-8"),
            )
        })?;
        // MuJoCo splices the children of the included file's root element whatever its name
        // (`<mujoco>`, or the `<mujocoinclude>` of older model files).
        let mut sub = parse_text_inc(&text, &name, Some(self), depth + 1)?;
        // a root without child elements is refused as MuJoCo 4.0.0 refuses it (measured)
        if sub.children.is_empty() {
            return Err(c.err(
                ErrorKind::MissingFile,
                Some("file"),
                format!("Empty include file '{name}'"),
            ));
        }
        Ok(std::mem::take(&mut sub.children))
    }
}

struct LineIndex {
    starts: Vec<usize>,
    /// The last location given: (line, byte offset, column). Elements are located in document
    /// order, so the next column is counted on from it instead of from the line's start (a
    /// document on one line would otherwise cost its length squared).
    last: std::cell::Cell<(usize, usize, usize)>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        LineIndex {
            starts,
            last: std::cell::Cell::new((0, 0, 0)),
        }
    }
    fn loc(&self, file: &Rc<str>, text: &str, off: usize) -> Loc {
        let off = off.min(text.len());
        let line = self.starts.partition_point(|&s| s <= off).max(1);
        let start = self.starts[line - 1];
        let (last_line, last_off, last_col) = self.last.get();
        // characters from `from` (a character boundary of the line, at column `col0`) to `off`
        let count = |from: usize, col0: usize| {
            crate::work::add(crate::work::Loop::Parse, off.saturating_sub(from));
            text.get(from..off)
                .map(|s| col0 + s.chars().count())
                .unwrap_or(off - start + 1)
        };
        let col = if last_line == line && last_off <= off && text.is_char_boundary(last_off) {
            count(last_off, last_col)
        } else {
            count(start, 1)
        };
        self.last.set((line, off, col));
        Loc {
            file: file.clone(),
            line,
            col,
        }
    }
}

fn syntax(loc: &Loc, msg: String) -> MjcfError {
    MjcfError {
        kind: ErrorKind::Syntax,
        file: loc.file.to_string(),
        line: loc.line,
        column: loc.col,
        element: None,
        attribute: None,
        message: msg,
    }
}

fn start_elem(e: &BytesStart, loc: Loc) -> Result<Elem, MjcfError> {
    let name = e.name().as_ref().to_string();
    let mut attrs: Vec<(String, String)> = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|err| syntax(&loc, format!("bad attribute in <{name}>: {err}")))?;
        let key = a.key.as_ref().to_string();
        let val = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|err| syntax(&loc, format!("bad value of '{key}' in <{name}>: {err}")))?
            .into_owned();
        if attrs.iter().any(|(k, _)| *k == key) {
            return Err(MjcfError {
                kind: ErrorKind::Syntax,
                file: loc.file.to_string(),
                line: loc.line,
                column: loc.col,
                element: Some(name),
                attribute: Some(key),
                message: "repeated attribute".into(),
            });
        }
        attrs.push((key, val));
    }
    Ok(Elem {
        name,
        attrs,
        children: Vec::new(),
        text: String::new(),
        loc,
    })
}

/// Puts a finished element into its parent (the top of `stack`), or makes it the root; an
/// `<include>` (with `inc`) is replaced by the included file's content.
fn place(
    stack: &mut [Elem],
    root: &mut Option<Elem>,
    el: Elem,
    inc: Option<&mut Includes>,
    depth: usize,
) -> Result<(), MjcfError> {
    let Some(parent) = stack.last_mut() else {
        *root = Some(el);
        return Ok(());
    };
    match inc {
        Some(i) if el.name == "include" => {
            if let Some(c) = el.children.first() {
                return Err(c.err(ErrorKind::UnknownElement, None, "include must be empty"));
            }
            let kids = i.expand(&el, depth)?;
            parent.children.extend(kids);
        }
        _ => parent.children.push(el),
    }
    Ok(())
}

/// Parses one XML text; with `inc`, each `<include>` is replaced by the children of the included
/// file's root, parsed the same way (`depth` = include nesting of this file). Iterative over
/// the elements (an explicit stack): only include nesting recurses.
fn parse_text_inc(
    text: &str,
    file: &str,
    mut inc: Option<&mut Includes>,
    depth: usize,
) -> Result<Elem, MjcfError> {
    let file: Rc<str> = Rc::from(file);
    let idx = LineIndex::new(text);
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Elem> = Vec::new();
    let mut root: Option<Elem> = None;
    loop {
        let pos = reader.buffer_position() as usize;
        let ev = reader.read_event().map_err(|e| {
            let off = reader.error_position() as usize;
            syntax(&idx.loc(&file, text, off), format!("XML parse error: {e}"))
        })?;
        let loc = idx.loc(&file, text, pos);
        match ev {
            Event::Start(e) => {
                if root.is_some() {
                    return Err(syntax(&loc, "content after the root element".into()));
                }
                if stack.len() >= MAX_ELEMENT_DEPTH {
                    return Err(syntax(
                        &loc,
                        format!(
                            "XML_ELEMENT_DEPTH_EXCEEDED: Element nesting is too deep (more than \
                             {MAX_ELEMENT_DEPTH} levels)"
                        ),
                    ));
                }
                stack.push(start_elem(&e, loc)?);
            }
            Event::Empty(e) => {
                if root.is_some() {
                    return Err(syntax(&loc, "content after the root element".into()));
                }
                let el = start_elem(&e, loc)?;
                place(&mut stack, &mut root, el, inc.as_deref_mut(), depth)?;
            }
            Event::End(_) => {
                let el = stack
                    .pop()
                    .ok_or_else(|| syntax(&loc, "unexpected closing tag".into()))?;
                place(&mut stack, &mut root, el, inc.as_deref_mut(), depth)?;
            }
            Event::Text(t) => {
                let s = t.xml10_content();
                if let Some(p) = stack.last_mut() {
                    p.text.push_str(&s);
                } else if !s.trim().is_empty() {
                    return Err(syntax(&loc, "text outside the root element".into()));
                }
            }
            Event::CData(t) => {
                if let Some(p) = stack.last_mut() {
                    p.text.push_str(&t.into_inner());
                }
            }
            Event::GeneralRef(r) => {
                let name = r.into_inner().into_owned();
                let rep = match name.as_str() {
                    "lt" => "<".to_string(),
                    "gt" => ">".to_string(),
                    "amp" => "&".to_string(),
                    "apos" => "'".to_string(),
                    "quot" => "\"".to_string(),
                    _ => {
                        let code = name
                            .strip_prefix("#x")
                            .and_then(|h| u32::from_str_radix(h, 16).ok())
                            .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                            .and_then(char::from_u32);
                        match code {
                            Some(c) => c.to_string(),
                            None => return Err(syntax(&loc, format!("unknown entity '&{name};'"))),
                        }
                    }
                };
                if let Some(p) = stack.last_mut() {
                    p.text.push_str(&rep);
                }
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    if let Some(open) = stack.last() {
        return Err(syntax(
            &open.loc,
            format!("element <{}> is not closed", open.name),
        ));
    }
    root.ok_or_else(|| {
        syntax(
            &Loc {
                file,
                line: 1,
                col: 1,
            },
            "empty document".into(),
        )
    })
}
