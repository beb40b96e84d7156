//! Attribute readers: one element's attributes with its default class, parsed and checked.

use crate::mjcf::compile::ctx::{Lookup, R};
use crate::mjcf::error::{ErrorKind, MjcfError};
use crate::mjcf::xml::Elem;
use std::collections::HashMap;

/// Flattened default attributes of one element kind: name -> (value, defining element).
pub(super) type AttrMap<'a> = HashMap<&'a str, (&'a str, &'a Elem)>;

/// Attribute reader for one element with its default class.
#[derive(Clone, Copy)]
pub(super) struct A<'a> {
    pub(super) el: &'a Elem,
    pub(super) dflt: Option<&'a AttrMap<'a>>,
}

pub(super) fn parse_f64(s: &str) -> Option<f64> {
    let v: f64 = s.parse().ok()?;
    if v.is_finite() {
        Some(v)
    } else {
        None
    }
}

impl<'a> A<'a> {
    pub(super) fn new(el: &'a Elem) -> Self {
        A { el, dflt: None }
    }
    pub(super) fn with(el: &'a Elem, dflt: &'a AttrMap<'a>) -> Self {
        A {
            el,
            dflt: Some(dflt),
        }
    }
    pub(super) fn raw(&self, k: &str) -> Option<(&'a str, &'a Elem)> {
        if let Some(v) = self.el.attr(k) {
            return Some((v, self.el));
        }
        self.dflt.and_then(|d| d.get(k).copied())
    }
    pub(super) fn has(&self, k: &str) -> bool {
        self.raw(k).is_some()
    }
    pub(super) fn own(&self, k: &str) -> bool {
        self.el.attr(k).is_some()
    }
    pub(super) fn err(&self, kind: ErrorKind, k: &str, msg: impl Into<String>) -> MjcfError {
        let el = self.raw(k).map(|(_, e)| e).unwrap_or(self.el);
        el.err(kind, Some(k), msg)
    }
    pub(super) fn str(&self, k: &str) -> Option<&'a str> {
        self.raw(k).map(|(v, _)| v)
    }
    pub(super) fn nums(&self, k: &str) -> R<Option<Vec<f64>>> {
        let Some((v, e)) = self.raw(k) else {
            return Ok(None);
        };
        v.split_whitespace()
            .map(|t| {
                parse_f64(t).ok_or_else(|| {
                    e.err(
                        ErrorKind::BadNumber,
                        Some(k),
                        // MuJoCo 4.0.0's sentence, then why
                        format!("bad format in attribute '{k}': '{t}' is not a finite number"),
                    )
                })
            })
            .collect::<R<Vec<f64>>>()
            .map(Some)
    }
    /// Between `min` and `max` numbers.
    pub(super) fn vec(&self, k: &str, min: usize, max: usize) -> R<Option<Vec<f64>>> {
        let Some(v) = self.nums(k)? else {
            return Ok(None);
        };
        if v.len() < min || v.len() > max {
            let want = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            // MuJoCo 4.0.0's sentences, then the counts
            let what = if v.len() > max {
                "has too much data"
            } else {
                "does not have enough data"
            };
            return Err(self.err(
                ErrorKind::WrongCount,
                k,
                format!(
                    "attribute '{k}' {what}: expected {want} numbers, got {}",
                    v.len()
                ),
            ));
        }
        Ok(Some(v))
    }
    /// Exactly N numbers, or `def` when absent.
    pub(super) fn arr<const N: usize>(&self, k: &str, def: [f64; N]) -> R<[f64; N]> {
        self.arr_min(k, def, N)
    }
    /// At least `min` numbers; the missing tail keeps `def`.
    /// A partial value overwrites only the leading entries of the class default (MuJoCo).
    pub(super) fn arr_min<const N: usize>(
        &self,
        k: &str,
        def: [f64; N],
        min: usize,
    ) -> R<[f64; N]> {
        let mut out = def;
        if self.own(k) {
            if let Some(d) = self.dflt.filter(|d| d.contains_key(k)) {
                let only_default = A {
                    el: d.get(k).map(|(_, e)| *e).unwrap_or(self.el),
                    dflt: None,
                };

                if let Some(v) = only_default.vec(k, min, N)? {
                    out[..v.len()].copy_from_slice(&v);
                }
            }
        }
        if let Some(v) = self.vec(k, min, N)? {
            out[..v.len()].copy_from_slice(&v);
        }
        Ok(out)
    }
    pub(super) fn f64(&self, k: &str) -> R<Option<f64>> {
        Ok(self.vec(k, 1, 1)?.map(|v| v[0]))
    }
    pub(super) fn f64_or(&self, k: &str, d: f64) -> R<f64> {
        Ok(self.f64(k)?.unwrap_or(d))
    }
    pub(super) fn int(&self, k: &str) -> R<Option<i64>> {
        let Some((v, e)) = self.raw(k) else {
            return Ok(None);
        };
        v.trim().parse::<i64>().map(Some).map_err(|_| {
            e.err(
                ErrorKind::BadNumber,
                Some(k),
                format!("bad format in attribute '{k}': '{v}' is not an integer"),
            )
        })
    }
    pub(super) fn int_or(&self, k: &str, d: i64) -> R<i64> {
        Ok(self.int(k)?.unwrap_or(d))
    }
    pub(super) fn bool(&self, k: &str) -> R<Option<bool>> {
        match self.str(k) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(v) => Err(self.err(
                ErrorKind::InvalidValue,
                k,
                format!("invalid keyword: '{v}' (not 'true' or 'false')"),
            )),
        }
    }
    pub(super) fn keyword<T: Copy>(&self, k: &str, table: &[(&str, T)]) -> R<Option<T>> {
        match self.str(k) {
            None => Ok(None),
            Some(v) => table
                .iter()
                .find(|(n, _)| *n == v)
                .map(|(_, t)| Some(*t))
                .ok_or_else(|| {
                    let names: Vec<&str> = table.iter().map(|x| x.0).collect();
                    self.err(
                        ErrorKind::InvalidValue,
                        k,
                        format!("invalid keyword: '{v}' (one of {})", names.join(", ")),
                    )
                }),
        }
    }
    /// "true" / "false" / "auto" -> Some(true) / Some(false) / None.
    pub(super) fn tristate(&self, k: &str) -> R<Option<bool>> {
        match self.str(k) {
            Some("auto") | None => Ok(None),
            _ => self.bool(k),
        }
    }
    pub(super) fn name(&self) -> String {
        self.el.attr("name").unwrap_or("").to_string()
    }
}

pub(super) fn find<L: Lookup + ?Sized>(names: &L, a: &A, k: &str, what: &str) -> R<Option<usize>> {
    match a.str(k) {
        None => Ok(None),
        Some(n) => names
            .id(n)
            .map(Some)
            .ok_or_else(|| a.err(ErrorKind::BadReference, k, format!("unknown {what} '{n}'"))),
    }
}

pub(super) fn need<L: Lookup + ?Sized>(names: &L, a: &A, k: &str, what: &str) -> R<usize> {
    find(names, a, k, what)?.ok_or_else(|| {
        a.err(
            ErrorKind::InvalidValue,
            k,
            format!("missing {what} reference"),
        )
    })
}
