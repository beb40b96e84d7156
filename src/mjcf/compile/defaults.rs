//! Default classes: `<default>` trees flattened per element kind, and each element's class.

use crate::mjcf::compile::attr::{AttrMap, A};
use crate::mjcf::compile::ctx::R;
use crate::mjcf::error::ErrorKind;
use crate::mjcf::xml::Elem;
use std::collections::HashMap;

pub(super) const DEFAULT_KINDS: &[&str] = &[
    "joint", "geom", "site", "camera", "light", "tendon", "mesh", "pair", "equality", "material",
];

pub(super) struct Class<'a> {
    pub(super) maps: HashMap<&'static str, AttrMap<'a>>,
    /// Actuator default elements of this class and its ancestors, in order.
    pub(super) acts: Vec<&'a Elem>,
}

pub(super) struct Defaults<'a> {
    pub(super) classes: Vec<Class<'a>>,
    pub(super) index: HashMap<String, usize>,
    pub(super) empty: AttrMap<'a>,
}

impl<'a> Defaults<'a> {
    pub(super) fn build(root: &'a Elem) -> R<Self> {
        let mut d = Defaults {
            classes: vec![Class {
                maps: HashMap::new(),
                acts: Vec::new(),
            }],
            index: HashMap::from([("main".to_string(), 0)]),
            empty: HashMap::new(),
        };
        for el in root.children.iter().filter(|e| e.name == "default") {
            // a top-level default is class "main" (its class attribute may rename it)
            if let Some(c) = el.attr("class") {
                if c != "main" {
                    d.index.insert(c.to_string(), 0);
                }
            }
            d.fill(el, 0)?;
        }
        Ok(d)
    }

    /// Fills class `id` from `el`, then its nested classes depth first in document order (each
    /// starts as a copy of its parent, complete by then). An explicit stack replaces recursion.
    pub(super) fn fill(&mut self, el: &'a Elem, id: usize) -> R<()> {
        let mut stack = vec![(el, id)];
        while let Some((el, id)) = stack.pop() {
            self.fill_own(el, id);
            let first = stack.len();
            for c in el.children.iter().filter(|c| c.name == "default") {
                let name = c.attr("class").unwrap_or("");
                if self.index.contains_key(name) {
                    return Err(c.err(
                        ErrorKind::DuplicateName,
                        Some("class"),
                        format!("repeated default class name '{name}'"),
                    ));
                }
                let child = Class {
                    maps: self.classes[id].maps.clone(),
                    acts: self.classes[id].acts.clone(),
                };
                self.classes.push(child);
                let cid = self.classes.len() - 1;
                self.index.insert(name.to_string(), cid);
                stack.push((c, cid));
            }
            stack[first..].reverse();
        }
        Ok(())
    }

    /// The element defaults (`<joint>`, `<geom>`, actuators, ...) given directly in `el`.
    fn fill_own(&mut self, el: &'a Elem, id: usize) {
        for c in &el.children {
            if let Some(&kind) = DEFAULT_KINDS.iter().find(|k| **k == c.name) {
                let map = self.classes[id].maps.entry(kind).or_default();
                for (k, v) in &c.attrs {
                    map.insert(k.as_str(), (v.as_str(), c));
                }
            } else if crate::mjcf::schema::actuator_extra(&c.name).is_some() {
                self.classes[id].acts.push(c);
            }
        }
    }
    /// Class id of an element given the inherited childclass.
    pub(super) fn class_of(&self, el: &Elem, inherited: usize) -> R<usize> {
        match el.attr("class") {
            None => Ok(inherited),
            Some(c) => self.index.get(c).copied().ok_or_else(|| {
                el.err(
                    ErrorKind::BadReference,
                    Some("class"),
                    format!("unknown default class name '{c}'"),
                )
            }),
        }
    }
    pub(super) fn map(&self, class: usize, kind: &str) -> &AttrMap<'a> {
        self.classes[class].maps.get(kind).unwrap_or(&self.empty)
    }
    pub(super) fn reader(&'a self, el: &'a Elem, class: usize, kind: &str) -> A<'a> {
        A::with(el, self.map(class, kind))
    }
}
