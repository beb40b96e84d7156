//! `<custom>`: the `<numeric>` fields (user data the engine keeps but does not read); of
//! `<text>` and `<tuple>` only the names are kept (MuJoCo's `names`).

use crate::mjcf::compile::attr::A;
use crate::mjcf::compile::ctx::{Unique, R};
use crate::mjcf::error::ErrorKind;
use crate::mjcf::xml::Elem;
use crate::model::Model;

pub(super) fn compile_numerics(root: &Elem, m: &mut Model) -> R<()> {
    let mut seen = Unique::default();
    for sec in root.children.iter().filter(|e| e.name == "custom") {
        for el in sec.children.iter().filter(|e| e.name == "numeric") {
            let a = A::new(el);
            for (k, _) in &el.attrs {
                if !["name", "size", "data"].contains(&k.as_str()) {
                    return Err(el.err(
                        ErrorKind::UnknownAttribute,
                        Some(k),
                        format!("unrecognized attribute '{k}' of numeric"),
                    ));
                }
            }
            let Some(name) = a.str("name") else {
                return Err(el.err(
                    ErrorKind::InvalidValue,
                    Some("name"),
                    "required attribute missing: 'name'",
                ));
            };
            seen.check(name, el, "numeric")?;
            let data = a.nums("data")?.unwrap_or_default();
            let size = match a.int("size")? {
                None | Some(-1) => data.len() as i64,
                Some(s) => s,
            };
            if size <= 0 {
                return Err(a.err(
                    ErrorKind::InvalidValue,
                    "size",
                    "custom field size must be positive",
                ));
            }
            let size = size as usize;
            if data.len() > size {
                return Err(a.err(
                    ErrorKind::WrongCount,
                    "data",
                    "attribute 'data' has too much data",
                ));
            }
            m.numeric_name.push(name.to_string());
            m.numeric_adr.push(m.numeric_data.len());
            m.numeric_size.push(size);
            m.numeric_data.extend_from_slice(&data);
            m.numeric_data
                .resize(m.numeric_data.len() + size - data.len(), 0.0);
        }
    }
    m.nnumeric = m.numeric_name.len();
    for sec in root.children.iter().filter(|e| e.name == "custom") {
        for el in &sec.children {
            let name = A::new(el).name();
            match el.name.as_str() {
                "text" => m.text_name.push(name),
                "tuple" => m.tuple_name.push(name),
                _ => {}
            }
        }
    }
    Ok(())
}
