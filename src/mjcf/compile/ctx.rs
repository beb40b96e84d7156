//! What every part of the compiler shares: the result type, MuJoCo's default solver and fluid
//! parameters, and name lookups (name → id, repeated names).

use crate::mjcf::error::{ErrorKind, MjcfError};
use crate::mjcf::xml::Elem;
use crate::model::Model;
use std::collections::HashMap;

pub(super) type R<T> = Result<T, MjcfError>;

pub(super) const DEFAULT_SOLREF: [f64; 2] = [0.02, 1.0];
/// MuJoCo's `fluidcoef` default: blunt drag, slender drag, angular drag, Kutta lift, Magnus lift.
pub(super) const DEFAULT_FLUIDCOEF: [f64; 5] = [0.5, 0.25, 1.5, 1.0, 1.0];
pub(super) const DEFAULT_SOLIMP: [f64; 5] = [0.9, 0.95, 0.001, 0.5, 2.0];
pub(super) const MINVAL: f64 = 1e-15;

/// Name → id: a linear scan of a name list, or an [`Index`] (hash map) for lookups in bulk.
pub(super) trait Lookup {
    /// The id of the first element named `name`.
    fn id(&self, name: &str) -> Option<usize>;
}

impl Lookup for [String] {
    fn id(&self, name: &str) -> Option<usize> {
        self.iter().position(|x| x == name)
    }
}

impl Lookup for Vec<String> {
    fn id(&self, name: &str) -> Option<usize> {
        self.as_slice().id(name)
    }
}

/// The names of one element kind, hashed (first occurrence wins, as a scan would find).
#[derive(Default)]
pub(super) struct Index(HashMap<String, usize>);

impl Index {
    pub(super) fn new(names: &[String]) -> Self {
        let mut map = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            map.entry(n.clone()).or_insert(i);
        }
        Index(map)
    }
}

impl Lookup for Index {
    fn id(&self, name: &str) -> Option<usize> {
        self.0.get(name).copied()
    }
}

/// Indexes of the element kinds that references resolve to, built from the model compiled so
/// far (kinds not compiled yet are empty): loading stays linear in the number of references.
pub(super) struct Names {
    pub(super) body: Index,
    pub(super) jnt: Index,
    pub(super) geom: Index,
    pub(super) site: Index,
    pub(super) cam: Index,
    pub(super) tendon: Index,
    pub(super) actuator: Index,
}

impl Names {
    pub(super) fn of(m: &Model) -> Self {
        Names {
            body: Index::new(&m.body_name),
            jnt: Index::new(&m.jnt_name),
            geom: Index::new(&m.geom_name),
            site: Index::new(&m.site_name),
            cam: Index::new(&m.cam_name),
            tendon: Index::new(&m.tendon_name),
            actuator: Index::new(&m.actuator_name),
        }
    }
}

/// The names used so far by one element kind, to refuse a repeated name in constant time.
#[derive(Default)]
pub(super) struct Unique(std::collections::HashSet<String>);

impl Unique {
    /// Error if `name` (non-empty) was used before by this kind (`what`), at element `el`.
    pub(super) fn check(&mut self, name: &str, el: &Elem, what: &str) -> R<()> {
        if !name.is_empty() && !self.0.insert(name.to_string()) {
            return Err(el.err(
                ErrorKind::DuplicateName,
                Some("name"),
                format!("repeated name '{name}' in {what}"),
            ));
        }
        Ok(())
    }
}
