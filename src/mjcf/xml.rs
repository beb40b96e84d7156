//! XML text -> element tree with source locations; `<include>` expansion.

use super::{ErrorKind, MjcfError, Vfs};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
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
#[derive(Clone, Debug)]
pub struct Elem {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Elem>,
    pub text: String,
    pub loc: Loc,
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
}

impl FileSource<'_> {
    /// Reads `name` (optionally inside `subdir`, MuJoCo's meshdir/assetdir). Tries the VFS with
    /// the joined and the plain name, then the disk.
    pub fn read(&self, name: &str, subdir: &str) -> Option<Vec<u8>> {
        let joined = if subdir.is_empty() || name.starts_with('/') {
            name.to_string()
        } else {
            format!("{}/{}", subdir.trim_end_matches('/'), name)
        };
        for cand in [&joined, &name.to_string()] {
            if let Some(b) = self.vfs.get(cand) {
                return Some(b.to_vec());
            }
        }
        for cand in [&joined, &name.to_string()] {
            let p = PathBuf::from(cand);
            let full = match (&self.dir, p.is_absolute()) {
                (Some(d), false) => d.join(&p),
                _ => p,
            };
            if let Ok(b) = std::fs::read(&full) {
                return Some(b);
            }
        }
        None
    }
}

const MAX_INCLUDE_DEPTH: usize = 32;

/// Parses the main document and expands includes. The root must be `<mujoco>`.
pub fn parse_document(text: &str, file: &str, files: &FileSource) -> Result<Elem, MjcfError> {
    let mut root = parse_text(text, file)?;
    if root.name != "mujoco" {
        return Err(root.err(
            ErrorKind::UnknownElement,
            None,
            "the root element must be <mujoco>",
        ));
    }
    expand_includes(&mut root, files, 0)?;
    Ok(root)
}

fn expand_includes(el: &mut Elem, files: &FileSource, depth: usize) -> Result<(), MjcfError> {
    if !el.children.iter().any(|c| c.name == "include") {
        for c in &mut el.children {
            expand_includes(c, files, depth)?;
        }
        return Ok(());
    }
    let old = std::mem::take(&mut el.children);
    for mut c in old {
        if c.name == "include" {
            if depth >= MAX_INCLUDE_DEPTH {
                return Err(c.err(ErrorKind::InvalidValue, None, "include nesting too deep"));
            }
            if let Some((k, _)) = c.attrs.iter().find(|(k, _)| k != "file") {
                let k = k.clone();
                return Err(c.err(ErrorKind::UnknownAttribute, Some(&k), "unknown attribute"));
            }
            if !c.children.is_empty() {
                return Err(c.err(ErrorKind::UnknownElement, None, "include must be empty"));
            }
            let name = c
                .attr("file")
                .ok_or_else(|| c.err(ErrorKind::InvalidValue, Some("file"), "missing file"))?
                .to_string();
            let bytes = files.read(&name, "").ok_or_else(|| {
                c.err(
                    ErrorKind::MissingFile,
                    Some("file"),
                    format!("cannot find '{name}'"),
                )
            })?;
            let text = String::from_utf8(bytes).map_err(|_| {
                c.err(
                    ErrorKind::Syntax,
                    Some("file"),
                    format!("'{name}' is not UTF-8"),
                )
            })?;
            let mut sub = parse_text(&text, &name)?;
            if sub.name != "mujoco" {
                return Err(sub.err(
                    ErrorKind::UnknownElement,
                    None,
                    "an included file's root element must be <mujoco>",
                ));
            }
            for s in &mut sub.children {
                expand_includes(s, files, depth + 1)?;
            }
            // nested includes at the top level of the included file
            let mut wrapper = Elem {
                children: std::mem::take(&mut sub.children),
                ..sub
            };
            expand_includes(&mut wrapper, files, depth + 1)?;
            el.children.extend(wrapper.children);
        } else {
            expand_includes(&mut c, files, depth)?;
            el.children.push(c);
        }
    }
    Ok(())
}

struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        LineIndex { starts }
    }
    fn loc(&self, file: &Rc<str>, text: &str, off: usize) -> Loc {
        let off = off.min(text.len());
        let line = self.starts.partition_point(|&s| s <= off).max(1);
        let start = self.starts[line - 1];
        let col = text
            .get(start..off)
            .map(|s| s.chars().count())
            .unwrap_or(off - start)
            + 1;
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

/// Parses one XML text into its root element.
pub fn parse_text(text: &str, file: &str) -> Result<Elem, MjcfError> {
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
            syntax(&idx.loc(&file, text, off), format!("XML syntax error: {e}"))
        })?;
        let loc = idx.loc(&file, text, pos);
        match ev {
            Event::Start(e) => {
                if root.is_some() {
                    return Err(syntax(&loc, "content after the root element".into()));
                }
                stack.push(start_elem(&e, loc)?);
            }
            Event::Empty(e) => {
                if root.is_some() {
                    return Err(syntax(&loc, "content after the root element".into()));
                }
                let el = start_elem(&e, loc)?;
                match stack.last_mut() {
                    Some(p) => p.children.push(el),
                    None => root = Some(el),
                }
            }
            Event::End(_) => {
                let el = stack
                    .pop()
                    .ok_or_else(|| syntax(&loc, "unexpected closing tag".into()))?;
                match stack.last_mut() {
                    Some(p) => p.children.push(el),
                    None => root = Some(el),
                }
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
