//! The loader's typed error.

use std::fmt;

/// What went wrong while loading a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Malformed XML (unclosed tags, bad syntax, ...).
    Syntax,
    /// An element name that is not valid in its context.
    UnknownElement,
    /// An attribute name the element does not have.
    UnknownAttribute,
    /// A value that is not a number (or not an integer where one is needed).
    BadNumber,
    /// Too many or too few numbers.
    WrongCount,
    /// A file (include, mesh, hfield) that is neither in the VFS nor on disk.
    MissingFile,
    /// A name that refers to no element of the right kind.
    BadReference,
    /// Two elements of the same kind with the same name.
    DuplicateName,
    /// A value outside its domain (negative mass, unknown keyword, inconsistent options ...).
    InvalidValue,
    /// Valid MJCF that moreau does not support (plugins, flex, ...).
    Unsupported,
}

/// A typed loading error, naming the file, line, column, element and attribute involved.
#[derive(Clone, Debug, PartialEq)]
pub struct MjcfError {
    pub kind: ErrorKind,
    /// File name (`"<string>"` for the in-memory main document).
    pub file: String,
    /// 1-based line and column of the element (0 when unknown).
    pub line: usize,
    pub column: usize,
    /// The element involved, if any.
    pub element: Option<String>,
    /// The attribute involved, if any.
    pub attribute: Option<String>,
    pub message: String,
}

impl fmt::Display for MjcfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {:?}", self.file, self.kind)?;
        } else {
            write!(
                f,
                "{}:{}:{}: {:?}",
                self.file, self.line, self.column, self.kind
            )?;
        }
        if let Some(e) = &self.element {
            write!(f, " in element <{e}>")?;
        }
        if let Some(a) = &self.attribute {
            write!(f, ", attribute '{a}'")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for MjcfError {}
