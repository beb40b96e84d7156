//! The arena's contact and constraint capacity against MuJoCo 4.0.0:
//! `tests/reference/arena_cases.json` from tools/arena/reference.py.
//!
//! - `narena` of every model of `models/` MuJoCo loads, and of constructed models with
//!   `nstack`, tendons, equalities, `nconmax` and `njmax`, equals `mjModel.narena` (the default
//!   arena rule, `moreau::data::default_narena`);
//! - per step of piles of touching spheres that overflow `<size memory>` (1M, 600K, 1000000,
//!   100K) or, with a dense Jacobian, the default arena: `narena`, `ncon`, `nefc`, and the count
//!   and last info of `ContactFull` and `CnstrFull`, all exactly; and a pile that fits
//!   (ncon and warnings exactly; its nefc is the contact rows of moreau's own collision);
//! - the dual solvers' arrays (`efc_AR` of PGS or noslip) counted with the rows: 30 spheres
//!   overflow the default arena dense under PGS and with noslip iterations, not under Newton,
//!   and 15 overflow `memory="750K"` sparse under PGS, not under Newton;
//! - the fuzzer's concentric convex pile, whose contacts fit the default arena and whose rows
//!   do not: nefc 0 and the warnings exactly (its contact count is the narrow phase's on
//!   degenerate concentric pairs, 6,926 against MuJoCo's 7,969, not compared).

use crate::oracle_util::{reference, root};
use moreau::{load_from_str, step, Data, Vfs, Warning};

#[test]
fn default_narena_matches_mujoco() {
    let r = reference("arena_cases.json");
    let (mut exact, mut sized) = (0, 0);
    for c in r["models"].as_array().unwrap() {
        let want = c["narena"].as_u64().unwrap() as usize;
        let (what, m) = if let Some(file) = c["file"].as_str() {
            // (every file MuJoCo loads, the fragment models/zoo_part.xml too)
            let m = moreau::load(format!("{}/{file}", root()))
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            (file.to_string(), m)
        } else {
            let xml = c["xml"].as_str().unwrap();
            sized += 1;
            (
                xml.to_string(),
                load_from_str(xml, &Vfs::default()).unwrap(),
            )
        };
        assert_eq!(m.narena, want, "{what}");
        exact += 1;
    }
    eprintln!("{exact} models compared exactly, {sized} of them constructed");
    assert!(
        exact >= 55 && sized >= 11,
        "{exact} models compared exactly"
    );
}

#[test]
fn overflowing_piles_keep_and_warn_as_mujoco() {
    let r = reference("arena_cases.json");
    for c in r["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let m = load_from_str(c["xml"].as_str().unwrap(), &Vfs::default()).unwrap();
        assert_eq!(
            m.narena as u64,
            c["narena"].as_u64().unwrap(),
            "{name}: narena"
        );
        let mut d: Data = Data::new(&m);
        for (k, s) in c["steps"].as_array().unwrap().iter().enumerate() {
            step(&m, &mut d);
            let at = format!("{name}, step {k}");
            if c["ncon_exact"].as_bool().unwrap() {
                let want = s["ncon"].as_u64().unwrap();
                assert_eq!(d.contact.len() as u64, want, "{at}: ncon");
            }
            for (w, key) in [
                (Warning::ContactFull, "contactfull"),
                (Warning::CnstrFull, "cnstrfull"),
            ] {
                let st = d.warning[w as usize];
                let want = &s[key];
                assert_eq!(st.number, want[0].as_u64().unwrap(), "{at}: {key} count");
                assert_eq!(st.lastinfo, want[1].as_i64().unwrap(), "{at}: {key} info");
            }
            if s["nefc"].as_u64().unwrap() == 0 {
                assert_eq!(d.nefc, 0, "{at}: nefc");
                // the step goes on without constraints: free fall
                assert!(d.qacc.iter().all(|a| a.is_finite()), "{at}: qacc");
                assert!((d.qacc[2] + 9.81).abs() < 1e-12, "{at}: qacc {}", d.qacc[2]);
            } else {
                assert!(d.nefc > 0, "{at}: nefc");
            }
        }
    }
}

#[test]
fn cnstrfull_names_the_arena_as_mujoco() {
    // mju_warningText's byte count, as the oracle printed it for these arenas
    for (info, text) in [
        (1 << 20, "1M"),
        (614_400, "600K"),
        (48_234_496, "46M"),
        (1_000_000, "1000000"),
    ] {
        let t = Warning::CnstrFull.text(info);
        assert!(t.ends_with(&format!("above {text} bytes.")), "{t}");
    }
}

#[test]
fn memory_attribute_errors() {
    let load = |size: &str| load_from_str(&format!("<mujoco>{size}</mujoco>"), &Vfs::default());
    assert_eq!(load(r#"<size memory="3G"/>"#).unwrap().narena, 3 << 30);
    assert_eq!(load(r#"<size memory="-1"/>"#).unwrap().narena, 13 << 20);
    for bad in [
        r#"<size memory="1.5M"/>"#,
        r#"<size memory="0"/>"#,
        r#"<size memory="1Q"/>"#,
    ] {
        let e = load(bad).unwrap_err();
        assert_eq!(e.attribute.as_deref(), Some("memory"), "{bad}");
    }
}

/// MuJoCo's compiler runs the model on the arena's stack (mj_setConst): with a `<size memory>`
/// below what it needs MuJoCo 4.0.0 fails with "mj_stackAlloc: out of memory". moreau's bound,
/// `24 + max(104 nv, 96 nbody)` (`arena::compile_stack_bytes`), is a lower bound of the
/// oracle's threshold on every model (`min_memory` of tests/reference/arena_cases.json: the
/// fewest bytes MuJoCo loads with), so a model moreau refuses MuJoCo refuses too; moreau loads
/// every model at MuJoCo's threshold, and refuses it one byte below wherever the bound is
/// exact (constructed chains, free, ball and jointless bodies, and most of `models/`), with
/// MuJoCo's words and the attribute named.
#[test]
fn a_memory_below_the_compilers_stack_fails_as_in_mujoco() {
    let r = reference("arena_cases.json");
    let (mut exact, mut below) = (0, 0);
    for c in r["stack"].as_array().unwrap() {
        let min = c["min_memory"].as_u64().unwrap();
        assert!(
            c["error"]
                .as_str()
                .unwrap()
                .contains("mj_stackAlloc: out of memory"),
            "{c}"
        );
        let (what, xml, dir) = if let Some(f) = c["file"].as_str() {
            let path = format!("{}/{f}", root());
            let xml = std::fs::read_to_string(&path).unwrap();
            let dir = std::path::Path::new(&path).parent().unwrap().to_path_buf();
            (f.to_string(), xml, Some(dir))
        } else {
            let xml = c["xml"].as_str().unwrap().to_string();
            (xml.clone(), xml, None)
        };
        let at = |mem: u64| {
            // `<size>` as the first child of the root element
            let i = xml.find("<mujoco").unwrap();
            let j = i + xml[i..].find('>').unwrap() + 1;
            let sized = format!("{}<size memory=\"{mem}\"/>{}", &xml[..j], &xml[j..]);
            match &dir {
                Some(d) => {
                    let tmp = d.join(format!(".arena_stack_{}.xml", std::process::id()));
                    std::fs::write(&tmp, &sized).unwrap();
                    let r = moreau::load(&tmp);
                    std::fs::remove_file(&tmp).unwrap();
                    r
                }
                None => load_from_str(&sized, &Vfs::default()),
            }
        };
        let m = at(min).unwrap_or_else(|e| panic!("{what}: refused at MuJoCo's {min}: {e}"));
        let need = moreau::data::arena::compile_stack_bytes(&m) as u64;
        assert!(need <= min, "{what}: bound {need} above MuJoCo's {min}");
        if need == min {
            let e = at(min - 1).expect_err(&what);
            assert_eq!(e.attribute.as_deref(), Some("memory"), "{what}");
            assert!(
                e.message.contains("mj_stackAlloc: out of memory"),
                "{what}: {e}"
            );
            exact += 1;
        } else {
            below += 1;
        }
    }
    eprintln!("{exact} thresholds exact, {below} above moreau's bound");
    assert!(exact >= 50, "{exact} exact");
}

/// MuJoCo 4.0.0's message for a `<size memory>` below what its compiler takes on the stack
/// (`tests/reference/arena_compile_stack.json` from tools/arena/compile_stack.py): chains of
/// hinges, free, ball and static bodies (3, 10 and 40) at every `<size memory>` from 1 up where
/// the compiler's next request (`setBound`, `setInertia0`, `mj_rne`) starts to fit and one byte
/// below. moreau refuses the model exactly where MuJoCo does, naming the attribute, with
/// MuJoCo's whole message (site, line, max, available, requested, narena), and loads it where
/// MuJoCo does. Every case is asserted.
#[test]
fn a_memory_below_the_compilers_stack_gives_mujocos_message() {
    let r = reference("arena_compile_stack.json");
    let models = r["models"].as_array().unwrap();
    let (mut refused, mut loaded) = (0, 0);
    let mut sites = std::collections::BTreeSet::new();
    for c in r["cases"].as_array().unwrap() {
        let model = &models[c["model"].as_u64().unwrap() as usize];
        let xml = model["xml"]
            .as_str()
            .unwrap()
            .replace("MEMORY", &c["memory"].to_string());
        let what = format!("{}, memory {}", model["name"], c["memory"]);
        let got = load_from_str(&xml, &Vfs::default());
        match c["message"].as_str() {
            None => {
                got.unwrap_or_else(|e| panic!("{what}: {e}"));
                loaded += 1;
            }
            Some(msg) => {
                let e = got.expect_err(&what);
                assert_eq!(e.attribute.as_deref(), Some("memory"), "{what}");
                assert_eq!(e.message, msg, "{what}");
                sites.insert(msg.lines().next().unwrap().to_string());
                refused += 1;
            }
        }
    }
    eprintln!(
        "{refused} refusals with MuJoCo's message ({} distinct sites), {loaded} loads",
        sites.len()
    );
    assert!(
        refused >= 100 && loaded >= 12 && sites.len() == 9,
        "{refused}, {loaded}, {sites:?}"
    );
}

/// MuJoCo 4.0.0's fatal stack overflow during a step (`tests/reference/arena_step_stack.json`
/// from tools/arena/step_stack.py): the collision stage takes a frame, one `int` per body pair
/// and its broad phase's arrays on the arena's stack (`arena::collision_overflow`). Rows of 60
/// to 200 bodies, mocap bodies and a 100-hinge chain at `<size memory>` around the body-pair
/// list's size, 3,000 bodies at the default arena, and ten chains and rows (collidable or not,
/// with world, static and mocap geoms) at every `<size memory>` where MuJoCo's next request
/// starts to fit and one byte below: moreau's `try_step` fails exactly where MuJoCo fails, with
/// MuJoCo's whole message (site, line, max, requested, available, narena, nefc, ncon), and
/// leaves the state where it was (time 0, no contacts or rows, as MuJoCo's data after the
/// error); it steps wherever MuJoCo steps (with the contact or constraint stage disabled, past
/// the last request, and on every model of `models/` at its default arena). Every case is
/// asserted.
#[test]
fn a_step_overflows_the_collision_stack_as_in_mujoco() {
    let r = reference("arena_step_stack.json");
    let (mut fatal, mut ok) = (0, 0);
    let mut sites = std::collections::BTreeSet::new();
    for c in r["cases"].as_array().unwrap() {
        let (what, m) = match c["file"].as_str() {
            Some(f) => {
                let m = moreau::load(format!("{}/{f}", root())).unwrap();
                (f.to_string(), m)
            }
            None => {
                let xml = step_stack_model(c);
                (
                    format!("{}…, memory {}", &xml[..xml.len().min(120)], c["memory"]),
                    load_from_str(&xml, &Vfs::default()).unwrap(),
                )
            }
        };
        let mut d = Data::new(&m);
        let got = moreau::try_step(&m, &mut d).and_then(|()| moreau::try_step(&m, &mut d));
        if c["ok"].as_bool().unwrap() {
            assert!(got.is_ok(), "{what}: {:?}", got.err());
            ok += 1;
            continue;
        }
        let e = got.expect_err(&what);
        let n = |k: &str| c[k].as_u64().unwrap() as usize;
        assert_eq!(
            (e.site, e.line as usize, e.max, e.requested, e.available),
            (
                c["site"].as_str().unwrap(),
                n("line"),
                n("max"),
                n("requested"),
                n("available")
            ),
            "{what}"
        );
        assert_eq!(
            (e.narena, e.nefc, e.ncon),
            (n("narena"), n("nefc"), n("ncon"))
        );
        assert_eq!(e.to_string(), c["message"].as_str().unwrap(), "{what}");
        assert_eq!(d.stack_overflow, Some(e), "{what}");
        assert_eq!(d.time, c["time"].as_f64().unwrap(), "{what}: time");
        assert_eq!((d.contact.len(), d.nefc), (0, 0), "{what}");
        // a plain step stops at the same place and leaves the state as it is
        let qpos = d.qpos.clone();
        step(&m, &mut d);
        assert_eq!((d.stack_overflow, d.time), (Some(e), 0.0), "{what}");
        assert_eq!(d.qpos, qpos, "{what}");
        sites.insert((e.site, e.line));
        fatal += 1;
    }
    eprintln!("{fatal} overflows (at {sites:?}), {ok} steps that run");
    assert!(
        fatal >= 190 && ok >= 70 && sites.len() == 9,
        "{fatal} fatal, {ok} ok"
    );
}

/// MuJoCo 4.0.0's fatal stack overflow at the broad phase's body-pair output and in the narrow
/// phase (`tests/reference/arena_narrow_stack.json` from tools/arena/narrow_stack.py): piles of
/// touching spheres (concentric, on a line, in 3-D, with planes, world spheres, margins, masks,
/// excluded body pairs and every joint type) at every `<size memory>` where MuJoCo's next stack request starts to
/// fit and one byte below. Where MuJoCo stops before any contact exists (`ncon` 0) at a
/// request `arena::collision_overflow` reproduces (its frames, `mj_collision`,
/// `mj_broadphase`, `mj_SAP`, `mj_narrowphase`), moreau stops with MuJoCo's whole message;
/// where MuJoCo steps, or stops later in the step (contacts, rows, the next candidates), moreau
/// steps (those later requests are not reproduced). Every case is asserted exactly (message,
/// site, line, max, bytes, time and state), but on the 3-D piles: there the body pairs the
/// sweep keeps (line 1894) may differ by a pair whose boxes meet within about 10⁻³ of their
/// edge, which moves line 1894's threshold by 4 bytes and the first step's outcome with it, so
/// a pile's case may differ, at most one in five of them.
#[test]
fn a_step_overflows_in_the_narrow_phase_as_in_mujoco() {
    let r = reference("arena_narrow_stack.json");
    let models = r["models"].as_array().unwrap();
    let reproduced = [
        "",
        "mj_collision",
        "mj_broadphase",
        "mj_SAP",
        "mj_narrowphase",
    ];
    let (mut fatal, mut ok, mut later) = (0, 0, 0);
    let (mut pile_cases, mut pile_differ) = (0, 0);
    let mut sites = std::collections::BTreeSet::new();
    for c in r["cases"].as_array().unwrap() {
        let model = &models[c["model"].as_u64().unwrap() as usize];
        let kind = model["kind"].as_str().unwrap();
        let xml = model["xml"]
            .as_str()
            .unwrap()
            .replace("MEMORY", &c["memory"].to_string());
        let what = format!("{kind} {}, memory {}", c["model"], c["memory"]);
        let m = load_from_str(&xml, &Vfs::default()).unwrap();
        let mut d: Data = Data::new(&m);
        let got = moreau::try_step(&m, &mut d).and_then(|()| moreau::try_step(&m, &mut d));
        let n = |k: &str| c[k].as_u64().unwrap() as usize;
        let theirs = if c["ok"].as_bool().unwrap() {
            None
        } else {
            Some((c["site"].as_str().unwrap(), n("line"), n("ncon"), n("nefc")))
        };
        let expect_fatal = theirs.is_some_and(|(site, _, ncon, nefc)| {
            ncon == 0 && nefc == 0 && reproduced.contains(&site)
        });
        if kind == "pile" {
            pile_cases += 1;
        }
        if !expect_fatal {
            if kind == "pile" && got.is_err() {
                pile_differ += 1;
                continue;
            }
            assert!(got.is_ok(), "{what}: {:?}, MuJoCo {theirs:?}", got.err());
            if theirs.is_some() {
                later += 1;
            } else {
                ok += 1;
            }
            continue;
        }
        let same = got.as_ref().err().is_some_and(|e| {
            (e.site, e.line as usize, e.max, e.requested, e.available)
                == (
                    c["site"].as_str().unwrap(),
                    n("line"),
                    n("max"),
                    n("requested"),
                    n("available"),
                )
                && (e.narena, e.nefc, e.ncon) == (n("narena"), n("nefc"), n("ncon"))
                && e.to_string() == c["message"].as_str().unwrap()
                && d.time == c["time"].as_f64().unwrap()
        });
        if kind == "pile" && !same {
            pile_differ += 1;
            continue;
        }
        let e = got.expect_err(&what);
        assert!(same, "{what}: {e}\nMuJoCo: {}", c["message"]);
        assert_eq!(d.stack_overflow, Some(e), "{what}");
        assert_eq!(d.time, c["time"].as_f64().unwrap(), "{what}: time");
        assert_eq!((d.contact.len(), d.nefc), (0, 0), "{what}");
        sites.insert((e.site, e.line));
        fatal += 1;
    }
    eprintln!(
        "{fatal} overflows equal to MuJoCo's (at {sites:?}), {ok} steps that run, {later} \
         overflows later in MuJoCo's step that moreau steps through; 3-D piles: {pile_differ} \
         of {pile_cases} cases differ"
    );
    assert!(
        pile_differ * 5 <= pile_cases,
        "{pile_differ} of {pile_cases} pile cases differ"
    );
    assert!(
        fatal >= 100 && sites.contains(&("mj_narrowphase", 2424)),
        "{fatal} fatal at {sites:?}"
    );
    assert!(sites.contains(&("mj_narrowphase", 2455)) && sites.contains(&("mj_broadphase", 1894)));
}

/// The constructed model of a case of `arena_step_stack.json`: `row`, `chain` and `mix` of
/// tools/arena/step_stack.py with the case's arguments.
fn step_stack_model(c: &serde_json::Value) -> String {
    if c["kind"] == "mix" {
        return step_stack_mix(c["memory"].as_u64().unwrap(), &c["args"]);
    }
    let n = c["n"].as_u64().unwrap() as usize;
    let size = match c["memory"].as_u64() {
        Some(mem) => format!("<size memory=\"{mem}\"/>"),
        None => String::new(),
    };
    if c["kind"] == "chain" {
        let b = "<body pos=\"0 0 -.1\"><joint type=\"hinge\" axis=\"0 1 0\"/>\
                 <geom type=\"capsule\" size=\".02\" fromto=\"0 0 0 0 0 -.1\"/>"
            .repeat(n)
            + &"</body>".repeat(n);
        return format!("<mujoco>{size}<worldbody>{b}</worldbody></mujoco>");
    }
    let body = c["body"].as_str().unwrap();
    let b: String = (0..n)
        .map(|i| format!("<body pos=\"{i} 0 0\" {body}><geom size=\".01\"/></body>"))
        .collect();
    let option = c["option"].as_str().unwrap();
    format!("<mujoco>{size}<option>{option}</option><worldbody>{b}</worldbody></mujoco>")
}

/// `mix` of tools/arena/step_stack.py: `n` spheres in a hinge chain (or a row of static
/// bodies), `alt` added to the geoms of the odd ones, then `static` static and `mocap` mocap
/// spheres, and `world` spheres on the world.
fn step_stack_mix(memory: u64, a: &serde_json::Value) -> String {
    let int = |k: &str| a[k].as_u64().unwrap_or(0) as usize;
    let (n, alt) = (int("n"), a["alt"].as_str().unwrap_or(""));
    let alt = |i: usize| if i % 2 == 1 { alt } else { "" };
    let mut b: String = if a["chain"].as_bool().unwrap_or(true) {
        (0..n)
            .map(|i| {
                format!(
                    "<body pos=\"0 0 -.1\"><joint axis=\"0 1 0\"/><geom size=\".01\" {}/>",
                    alt(i)
                )
            })
            .collect::<String>()
            + &"</body>".repeat(n)
    } else {
        (0..n)
            .map(|i| {
                format!(
                    "<body pos=\"{i} 0 0\"><geom size=\".01\" {}/></body>",
                    alt(i)
                )
            })
            .collect()
    };
    for i in 0..int("static") {
        b += &format!("<body pos=\"{i} 3 0\"><geom size=\".01\"/></body>");
    }
    for i in 0..int("mocap") {
        b += &format!("<body pos=\"{i} 4 0\" mocap=\"true\"><geom size=\".01\"/></body>");
    }
    let w: String = (0..int("world"))
        .map(|i| format!("<geom size=\".01\" pos=\"{i} 9 0\"/>"))
        .collect();
    format!("<mujoco><size memory=\"{memory}\"/><worldbody>{w}{b}</worldbody></mujoco>")
}
