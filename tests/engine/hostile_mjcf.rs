//! Hostile MJCF: deep trees, include bombs and cycles, too many dofs, endless files. Each case
//! is refused with MuJoCo 4.0.0's message (the boundaries were measured with `mujoco==4.0.0`:
//! 498 nested non-empty elements per file load and 499 do not; a body 1023 deep loads and one
//! 1024 deep does not; six dofs per body) or loads without recursion on the element tree (run
//! on a thread with a small stack).

use moreau::{load_from_str, Model, Vfs};
use moreau::{ErrorKind, MjcfError, MAX_BODY_DEPTH, MAX_ELEMENT_DEPTH};

fn err(xml: &str, vfs: &Vfs) -> MjcfError {
    match load_from_str(xml, vfs) {
        Ok(_) => panic!("should have been refused"),
        Err(e) => e,
    }
}

/// Loads on a thread with a 1 MiB stack: recursion per tree level would overflow it.
fn load_small_stack(xml: String, vfs: Vfs) -> Result<Model, MjcfError> {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || load_from_str(&xml, &vfs))
        .unwrap()
        .join()
        .unwrap()
}

fn nested(tag: &str, n: usize, inner: &str) -> String {
    format!(
        "{}{inner}{}",
        format!("<{tag}>").repeat(n),
        format!("</{tag}>").repeat(n)
    )
}

#[test]
fn element_nesting_is_limited_per_file_as_mujoco() {
    // <mujoco><worldbody> + 496 bodies = 498 levels: loads (MuJoCo too)
    let ok = format!(
        "<mujoco><worldbody>{}</worldbody></mujoco>",
        nested("body", MAX_ELEMENT_DEPTH - 2, "<geom size='.1'/>")
    );
    let m = load_small_stack(ok, Vfs::new()).unwrap();
    assert_eq!(m.nbody, MAX_ELEMENT_DEPTH - 1);
    // 499 levels and 10,000 levels: refused at the first element too deep
    for n in [MAX_ELEMENT_DEPTH - 1, 10_000] {
        let xml = format!(
            "<mujoco>\n<worldbody>\n{}</worldbody></mujoco>",
            nested("body\n", n, "")
        );
        let e = err(&xml, &Vfs::new());
        assert_eq!(e.kind, ErrorKind::Syntax);
        assert!(e.message.contains("Element nesting is too deep"), "{e}");
        // MuJoCo reports line 499 for the 497th body on its own line
        assert_eq!(e.line, 499, "{e}");
    }
}

#[test]
fn trees_deeper_than_a_file_load_through_includes_without_recursion() {
    // 1000 nested bodies in three files (MuJoCo loads this too)
    let mut vfs = Vfs::new();
    vfs.add(
        "b.xml",
        format!(
            "<mujoco>{}</mujoco>",
            nested("body", 450, "<include file='c.xml'/>")
        ),
    );
    vfs.add(
        "c.xml",
        format!(
            "<mujoco>{}</mujoco>",
            nested("body", 100, "<geom size='.1'/><frame><site/></frame>")
        ),
    );
    let xml = format!(
        "<mujoco><worldbody>{}</worldbody></mujoco>",
        nested("body", 450, "<include file='b.xml'/>")
    );
    let m = load_small_stack(xml, vfs).unwrap();
    assert_eq!(m.nbody, 1001);
    assert_eq!(m.body_parentid[1000], 999);
    assert_eq!(m.nsite, 1);
}

#[test]
fn body_depth_is_limited_as_mujoco() {
    let chain = |n: usize| {
        let mut vfs = Vfs::new();
        let per = 400;
        let files = n.div_ceil(per);
        for k in 1..files {
            let inner = if k + 1 < files {
                format!("<include file='f{}.xml'/>", k + 1)
            } else {
                String::new()
            };
            let len = if k + 1 < files { per } else { n - per * k };
            vfs.add(
                format!("f{k}.xml"),
                format!("<mujoco>{}</mujoco>", nested("body", len, &inner)),
            );
        }
        let inner = if files > 1 {
            "<include file='f1.xml'/>"
        } else {
            ""
        };
        let xml = format!(
            "<mujoco><worldbody>{}</worldbody></mujoco>",
            nested("body", per.min(n), inner)
        );
        load_small_stack(xml, vfs)
    };
    assert_eq!(chain(MAX_BODY_DEPTH).unwrap().nbody, MAX_BODY_DEPTH + 1);
    let e = chain(MAX_BODY_DEPTH + 1).unwrap_err();
    assert!(
        e.message
            .contains("depth limit exceeded in signature computation (body id 1024"),
        "{e}"
    );
}

#[test]
fn repeated_includes_are_refused_without_expanding_them() {
    // 26 files each including the next twice: 2^25 expansions if each include were expanded
    let mut vfs = Vfs::new();
    for i in 0..26 {
        let body = if i < 25 {
            format!(
                "<include file='inc{0}.xml'/><include file='inc{0}.xml'/>",
                i + 1
            )
        } else {
            "<worldbody/>".to_string()
        };
        vfs.add(format!("inc{i}.xml"), format!("<mujoco>{body}</mujoco>"));
    }
    let e = err("<mujoco><include file='inc0.xml'/></mujoco>", &vfs);
    assert!(
        e.message.contains("File 'inc25.xml' already included"),
        "{e}"
    );
    assert_eq!(e.file, "inc24.xml");
    // a cycle, and the same file under two spellings
    let mut vfs = Vfs::new();
    vfs.add("a.xml", "<mujoco><include file='b.xml'/></mujoco>");
    vfs.add("b.xml", "<mujoco><include file='./a.xml'/></mujoco>");
    let e = err("<mujoco><include file='a.xml'/></mujoco>", &vfs);
    assert!(e.message.contains("File 'a.xml' already included"), "{e}");
    let mut vfs = Vfs::new();
    vfs.add("a.xml", "<mujoco><worldbody/></mujoco>");
    let e = err(
        "<mujoco><include file='a.xml'/><include file='a.xml'/></mujoco>",
        &vfs,
    );
    assert!(e.message.contains("already included"), "{e}");
}

/// The rows of the hostile-input table that are include and file errors, against MuJoCo 4.0.0
/// (`tests/reference/include_errors.json` from tools/hostile/include_errors.py): empty files,
/// include roots without child elements, `/dev/zero` and a directory (read as empty), a cycle,
/// a repeated include, 26 files each including the next twice (with the last one empty or
/// not), a missing file, seven dofs in a body, an empty and a missing main file; schema errors
/// (an unknown element or attribute); texture files of an extension MuJoCo does not read; and
/// a `<body>` under the root, which MuJoCo's schema allows and its compiler ignores. moreau's
/// message holds MuJoCo's sentence, and where MuJoCo names a line of the main file moreau's
/// error names the same line of it; where MuJoCo loads the file, moreau loads it to a model of
/// the same nbody, ngeom and njnt.
#[test]
fn include_and_file_errors_are_mujocos() {
    let r = crate::oracle_util::reference("include_errors.json");
    let base = std::env::temp_dir().join(format!("moreau-include-errors-{}", std::process::id()));
    let (mut lines, mut loads) = (0, 0);
    for (k, c) in r["cases"].as_array().unwrap().iter().enumerate() {
        let name = c["name"].as_str().unwrap();
        let dir = base.join(k.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        for (f, text) in c["files"].as_object().unwrap() {
            match text.as_str().unwrap() {
                "@dir" => std::fs::create_dir_all(dir.join(f)).unwrap(),
                text => std::fs::write(dir.join(f), text).unwrap(),
            }
        }
        let main = match c["main"].as_str() {
            Some(text) => {
                std::fs::write(dir.join("main.xml"), text).unwrap();
                "main.xml"
            }
            None => "nope.xml",
        };
        if c["ok"].as_bool().unwrap() {
            // MuJoCo loads it: so does moreau, to the same model
            let m = moreau::load(dir.join(main)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let n = |k: &str| c[k].as_u64().unwrap() as usize;
            assert_eq!(
                (m.nbody, m.ngeom, m.njnt),
                (n("nbody"), n("ngeom"), n("njnt")),
                "{name}"
            );
            loads += 1;
            continue;
        }
        let e = moreau::load(dir.join(main)).expect_err(name);
        let text = e.to_string().replace(&format!("{}/", dir.display()), "");
        let sentence = c["sentence"].as_str().unwrap();
        assert!(
            text.contains(sentence),
            "{name}: {text}\nMuJoCo: {sentence}"
        );
        let line = c["line"].as_u64().unwrap() as usize;
        if line > 0 && e.file.ends_with("main.xml") {
            assert_eq!(e.line, line, "{name}: {text}");
            lines += 1;
        }
    }
    std::fs::remove_dir_all(&base).unwrap();
    assert!(
        lines >= 14 && loads >= 3,
        "{lines} lines compared, {loads} loads"
    );
}

#[test]
fn the_main_file_cannot_include_itself() {
    let dir = std::env::temp_dir().join(format!("moreau-hostile-mjcf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("main.xml"),
        "<mujoco><include file='b.xml'/></mujoco>",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.xml"),
        "<mujoco><include file='main.xml'/></mujoco>",
    )
    .unwrap();
    let e = moreau::load(dir.join("main.xml")).unwrap_err();
    assert!(
        e.message.contains("File 'main.xml' already included"),
        "{e}"
    );
}

/// A spatial tendon's wrapping geom needs a site on each side (a geom next to a geom indexed
/// past the path: a panic in the first kinematics pass before this check). MuJoCo 4.0.0 says
/// "tendon '' (id = 0): geom at pos 1 not bracketed by sites" for this model.
#[test]
fn wrapping_geoms_must_be_bracketed_by_sites() {
    let path = |p: &str| {
        format!(
            "<mujoco><worldbody><geom name='w' type='sphere' size='.1'/><site name='a' pos='0 0 1'/>\
             <site name='b' pos='0 1 0'/></worldbody><tendon><spatial>{p}</spatial></tendon></mujoco>"
        )
    };
    let ok = "<site site='a'/><geom geom='w'/><site site='b'/>";
    assert_eq!(load_from_str(&path(ok), &Vfs::new()).unwrap().ntendon, 1);
    for (p, pos) in [
        (
            "<site site='a'/><geom geom='w'/><geom geom='w'/><site site='b'/>",
            1,
        ),
        ("<geom geom='w'/><site site='a'/><site site='b'/>", 0),
        ("<site site='a'/><site site='b'/><geom geom='w'/>", 2),
    ] {
        let e = err(&path(p), &Vfs::new());
        assert_eq!(
            e.message,
            format!("tendon '' (id = 0): geom at pos {pos} not bracketed by sites"),
            "{e}"
        );
    }
}

/// A fixed tendon lists each joint once: MuJoCo 4.0.0 says "tendon 't' (id = 0): joint 2 is
/// repeated" for this model (the position of the repetition in the path).
#[test]
fn repeated_joints_in_a_fixed_tendon_are_refused() {
    let xml = "<mujoco><worldbody><body><joint name='j0'/><joint name='j1'/><joint name='j2'/>\
               <geom size='.1'/></body></worldbody><tendon><fixed name='t'>\
               <joint joint='j2' coef='1'/><joint joint='j1' coef='1'/><joint joint='j1' coef='2'/>\
               </fixed></tendon></mujoco>";
    let e = err(xml, &Vfs::new());
    assert_eq!(e.message, "tendon 't' (id = 0): joint 2 is repeated", "{e}");
}

#[test]
fn more_than_six_dofs_in_a_body_are_refused() {
    let body = |joints: &str| {
        format!("<mujoco><worldbody><body name='b'><geom size='.1'/>{joints}</body></worldbody></mujoco>")
    };
    let six = body(&"<joint type='slide'/>".repeat(6));
    assert_eq!(load_from_str(&six, &Vfs::new()).unwrap().nv, 6);
    for joints in [
        "<joint type='slide'/>".repeat(1000),
        "<joint/>".repeat(10_000),
        "<freejoint/><joint/>".to_string(),
        "<joint type='ball'/><joint type='ball'/><joint/>".to_string(),
    ] {
        let e = err(&body(&joints), &Vfs::new());
        assert_eq!(e.message, "more than 6 dofs in body 'b'", "{e}");
        assert_eq!(e.element.as_deref(), Some("body"));
    }
}

#[test]
fn unreadable_include_files_are_errors_not_hangs() {
    for dev in ["/dev/zero", "/dev/urandom", "/dev/null"] {
        assert!(
            std::path::Path::new(dev).exists(),
            "{dev} is missing: this test needs a Unix /dev"
        );
        let e = err(
            &format!("<mujoco><include file='{dev}'/></mujoco>"),
            &Vfs::new(),
        );
        assert_eq!(e.kind, ErrorKind::MissingFile, "{e}");
        assert!(e.message.contains(&format!("Empty file '{dev}'")), "{e}");
    }
    let mut vfs = Vfs::new();
    vfs.add("empty.xml", "");
    let e = err("<mujoco><include file='empty.xml'/></mujoco>", &vfs);
    assert!(e.message.contains("Empty file 'empty.xml'"), "{e}");
    let e = moreau::load("/dev/zero").unwrap_err();
    assert!(e.message.contains("empty"), "{e}");
    let e = moreau::load("/no/such/model.xml").unwrap_err();
    assert!(
        e.to_string().starts_with("/no/such/model.xml: MissingFile"),
        "{e}"
    );
}

#[test]
fn deep_frames_and_default_classes_load_without_recursion() {
    // 10,000 nested frames (each 1 mm up) through 25 include files of 400
    let mut vfs = Vfs::new();
    let frames = |inner: &str| {
        format!(
            "{}{inner}{}",
            "<frame pos='0 0 .001'>".repeat(400),
            "</frame>".repeat(400)
        )
    };
    for k in 1..25 {
        let inner = if k < 24 {
            format!("<include file='f{}.xml'/>", k + 1)
        } else {
            "<geom size='.1'/>".to_string()
        };
        vfs.add(
            format!("f{k}.xml"),
            format!("<mujoco>{}</mujoco>", frames(&inner)),
        );
    }
    let xml = format!(
        "<mujoco><worldbody><body><joint/>{}</body></worldbody></mujoco>",
        frames("<include file='f1.xml'/>")
    );
    let m = load_small_stack(xml, vfs).unwrap();
    assert_eq!(m.ngeom, 1);
    assert!(
        (m.geom_pos[0][2] - 10.0).abs() < 1e-9,
        "{:?}",
        m.geom_pos[0]
    );
    // 480 nested default classes
    let mut classes = String::new();
    for i in 0..480 {
        classes.push_str(&format!("<default class='c{i}'>"));
    }
    classes.push_str("<geom size='.25'/>");
    classes.push_str(&"</default>".repeat(480));
    let xml = format!(
        "<mujoco><default>{classes}</default><worldbody><body><joint/>\
         <geom class='c479'/></body></worldbody></mujoco>"
    );
    let m = load_small_stack(xml, Vfs::new()).unwrap();
    assert_eq!(m.geom_size[0][0], 0.25);
}

/// A muscle on a hinge whose length range needs the compile-time simulation.
fn muscles(n: usize, lengthrange: &str) -> String {
    format!(
        "<mujoco><compiler><lengthrange {lengthrange}/></compiler><worldbody><body>\
         <joint name='j' range='-1 1'/><geom type='capsule' size='.1' fromto='0 0 0 0 0 .3'/>\
         </body></worldbody><actuator>{}</actuator></mujoco>",
        "<muscle joint='j'/>".repeat(n)
    )
}

#[test]
fn muscle_length_ranges_are_bounded_and_shared() {
    // MuJoCo 4.0.0 gives ±0.01802323087331373 for one such muscle; the range ends inside the
    // soft joint limit, where the constraint solver stops (measured 1.2e-11 relative)
    let one = load_from_str(&muscles(1, ""), &Vfs::new()).unwrap();
    let r = one.actuator_lengthrange[0];
    let want = 0.01802323087331373;
    assert!(
        (r[0] + want).abs() < 1e-9 * want && (r[1] - want).abs() < 1e-9 * want,
        "{r:?}"
    );
    // 1,500 copies of one transmission: one simulation (1,500 would exceed MAX_STEPS)
    let many = load_from_str(&muscles(1500, ""), &Vfs::new()).unwrap();
    const { assert!(1500.0 * 2000.0 > moreau::LENGTHRANGE_MAX_STEPS) };
    assert!(many.actuator_lengthrange.iter().all(|x| *x == r));
    // a tiny timestep would take 2e8 steps: refused by name instead of compiling for minutes
    let e = err(&muscles(1, "timestep='1e-7'"), &Vfs::new());
    assert!(
        e.to_string()
            .contains("Lengthrange computation in actuator 0 would exceed"),
        "{e}"
    );
}

#[test]
fn a_lengthrange_simulation_that_resets_is_an_error_not_a_hang() {
    // a free body at x = 1e308 puts a huge value in qpos0: every step of the length-range
    // simulation resets the state to it and starts over, so the simulated time never reaches
    // `inttotal` (MuJoCo 4.0.0 printed nothing in 120 s on this; moreau looped forever too)
    let xml = "<mujoco><worldbody><body><joint name='j' range='-1 1'/>\
               <geom type='capsule' size='.1' fromto='0 0 0 0 0 .3'/></body>\
               <body pos='1e308 0 0'><freejoint/><geom size='.1'/></body></worldbody>\
               <actuator><muscle joint='j'/></actuator></mujoco>";
    let e = err(xml, &Vfs::new());
    assert!(
        e.to_string()
            .contains("Unstable lengthrange simulation in actuator 0: Nan, Inf or huge value"),
        "{e}"
    );
}

#[test]
fn primitives_below_the_volume_floor_have_no_mass_as_in_mujoco() {
    // MuJoCo 4.0.0 drops a capsule of radius 1e-308, a sphere of radius 1e-6 and a box
    // 2e-15 thick from the body's mass (explicit masses included) and keeps a sphere of radius
    // 2e-5 (volume 3.4e-14); before, the capsule's inertia per unit mass was 0 / 0 = NaN
    let xml = "<mujoco><worldbody><body><joint type='hinge'/>\
               <geom type='sphere' size='0.1'/>\
               <geom type='capsule' fromto='0 0 0 0.05 0 -0.33' size='1e-308' mass='2'/>\
               <geom type='sphere' size='1e-6' pos='0.3 0 0' mass='2'/>\
               <geom type='box' size='1 1 1e-15' pos='0 0.3 0' mass='2'/>\
               <geom type='sphere' size='2e-5' pos='0 0 0.3' mass='3'/>\
               </body></worldbody></mujoco>";
    let m = load_from_str(xml, &Vfs::new()).unwrap();
    // mujoco.MjModel.from_xml_string(xml).body_mass[1], body_inertia[1], body_ipos[1]
    let want_mass = 7.188790204786391;
    let want_inertia = [
        0.17407973512511543,
        0.17407973512511543,
        0.01675516129914557,
    ];
    let want_ipos = [0.0, 0.0, 0.12519491797114457];
    assert!((m.body_mass[1] - want_mass).abs() < 1e-12 * want_mass);
    for k in 0..3 {
        assert!(
            (m.body_inertia[1][k] - want_inertia[k]).abs() < 1e-12 * want_inertia[0],
            "{:?}",
            m.body_inertia[1]
        );
        assert!(
            (m.body_ipos[1][k] - want_ipos[k]).abs() < 1e-12,
            "{:?}",
            m.body_ipos[1]
        );
    }
}

#[test]
fn a_moving_body_with_nan_inertia_is_refused_as_in_mujoco() {
    // mujoco==4.0.0: the capsule 1e200 long on a hinge is refused ("mass and inertia of
    // moving bodies must be larger than mjMINVAL"); the sphere of radius 1e200 (infinite but
    // diagonal inertia) and the long capsule on a body without dofs load
    let body = |inner: &str| format!("<mujoco><worldbody>{inner}</worldbody></mujoco>");
    let capsule = "<geom type='capsule' fromto='0 0 0 1e200 0 0' size='0.03'/>";
    let e = err(
        &body(&format!("<body><joint/>{capsule}</body>")),
        &Vfs::new(),
    );
    assert!(
        e.to_string().contains("mass and inertia of moving bodies"),
        "{e}"
    );
    for ok in [
        body("<body><joint/><geom size='1e200'/></body>"),
        body(&format!("<body>{capsule}</body>")),
    ] {
        load_from_str(&ok, &Vfs::new()).unwrap();
    }
}

/// A file of the fuzz target's minimized findings (`fuzz/regressions`).
fn regression(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_capsule_of_radius_2_pow_32_gets_mujocos_invalid_lengthrange() {
    // mujoco==4.0.0 refuses it with this message: the capsule's inertia (~1.2e51) leaves the
    // arm's mass matrix singular to one ulp, the LDL pivot is that ulp (1.66e35), the arm
    // barely moves and the simulated range is empty
    // without the length-range simulation it loads; the factor of M equals MuJoCo's bit for
    // bit (mujoco.mj_forward, then d.qLD: row 1 is (L10, D1) in MuJoCo's layout)
    let xml = regression("lengthrange-huge-capsule-radius.xml").replace(
        "<option timestep",
        "<compiler><lengthrange mode='none'/></compiler><option timestep",
    );
    let m = load_from_str(&xml, &Vfs::new()).unwrap();
    let mut d = moreau::Data::<f64>::new(&m);
    moreau::forward(&m, &mut d);
    let (d0, l10, d1) = (
        d.qLD[m.dof_Madr[0]],
        d.qLD[m.dof_Madr[1] + 1],
        d.qLD[m.dof_Madr[1]],
    );
    assert_eq!(d0, 1.661534994731145e35);
    assert_eq!(l10, 0.9999999999999999);
    assert_eq!(d1, 1.2243847486799934e51);
    assert!(d.qacc.iter().all(|x| x.is_finite()), "{:?}", d.qacc);
    assert!(d.warning.iter().all(|w| w.number == 0));
    let e = err(
        &regression("lengthrange-huge-capsule-radius.xml"),
        &Vfs::new(),
    );
    assert!(
        e.to_string()
            .contains("Invalid lengthrange (2.14748e+09, 2.14748e+09) in actuator 0"),
        "{e}"
    );
}

#[test]
fn a_pivot_below_mjminval_is_raised_to_it_with_mujocos_warning() {
    // mujoco==4.0.0, two hinges in a chain: with M's last diagonal entry set to 0, -1 or 1e-16,
    // mj_factorM gives D = 1e-15, qLDiagInv = 999999999999999.9 and one mjWARN_INERTIA at DOF 1; 1e-15
    // itself is kept without a warning; a NaN passes through (no warning, NaN factor)
    let xml = "<mujoco><worldbody><body><joint type='hinge'/><geom size='.1' pos='0 0 1'/>\
               <body><joint type='hinge' axis='0 1 0'/><geom size='.1' pos='0 1 0'/></body>\
               </body></worldbody></mujoco>";
    let m = load_from_str(xml, &Vfs::new()).unwrap();
    for (val, warned) in [(0.0, true), (-1.0, true), (1e-16, true), (1e-15, false)] {
        let mut d = moreau::Data::<f64>::new(&m);
        moreau::forward(&m, &mut d);
        d.qM[m.dof_Madr[1]] = val;
        moreau::pipeline::factor_m(&m, &mut d);
        assert_eq!(d.qLD[m.dof_Madr[1]], 1e-15);
        assert_eq!(d.qLDiagInv[1], 999999999999999.9);
        let w = &d.warning[moreau::Warning::Inertia as usize];
        assert_eq!((w.number, w.lastinfo), if warned { (1, 1) } else { (0, 0) });
        assert!(d.qLD.iter().all(|x| x.is_finite()));
    }
    let mut d = moreau::Data::<f64>::new(&m);
    moreau::forward(&m, &mut d);
    d.qM[m.dof_Madr[1]] = f64::NAN;
    moreau::pipeline::factor_m(&m, &mut d);
    assert!(d.qLD[m.dof_Madr[1]].is_nan());
    assert_eq!(d.warning[moreau::Warning::Inertia as usize].number, 0);
}

#[test]
fn a_capsule_1e308_long_is_refused_for_its_mass_as_in_mujoco() {
    // the fromto length overflows to inf (as MuJoCo's |a − b|): infinite mass, NaN inertia;
    // mujoco==4.0.0 refuses the body before any length-range simulation
    let e = err(&regression("lengthrange-capsule-1e308-z.xml"), &Vfs::new());
    assert!(
        e.to_string().contains(
            "mass and inertia of moving bodies must be larger than mjMINVAL (body 'fore')"
        ),
        "{e}"
    );
}

/// 70 free spheres (the broad phase's grid, above 64 bodies) of which one has radius 1e300: its
/// box spans more cells than an `i64` counts. The grid's cell span overflowed (a panic with
/// overflow checks, and without them a walk over 2⁶⁴ cells); the body is now tested against
/// all others. Every other sphere lies inside the huge one: 69 contacts of 4 pyramidal rows;
/// the step's acceleration is not finite, so it is reset with a `BadQacc` warning at dof 0,
/// once over three steps (as MuJoCo 4.0.0 does on this file,
/// `fuzz/regressions/grid-huge-body.xml`, whose state it also leaves non-finite).
#[test]
fn a_body_wider_than_the_grid_is_tested_against_all() {
    let xml = std::fs::read_to_string(format!(
        "{}/fuzz/regressions/grid-huge-body.xml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let m = load_from_str(&xml, &Vfs::default()).unwrap();
    assert_eq!(m.nbody, 71);
    let mut d = moreau::Data::<f64>::new(&m);
    moreau::forward(&m, &mut d);
    assert_eq!((d.contact.len(), d.nefc), (69, 276));
    for _ in 0..3 {
        moreau::step(&m, &mut d);
        let w = d.warning[moreau::Warning::BadQacc as usize];
        assert_eq!((w.number, w.lastinfo), (1, 0));
    }
}

/// Texture files against MuJoCo 4.0.0 (`tests/reference/texture_files.json` from
/// tools/textures/reference.py): PNG files are decoded, so an empty, truncated or corrupt file
/// (bad CRC, not a PNG, a header claiming 100,000 × 100,000 pixels over 100 bytes of data) is
/// refused where MuJoCo refuses it, with its words up to the decoder's reason ("empty PNG file
/// 'f'", "error decoding PNG file 'f': …"); a cube or skybox from one image whose `gridsize`
/// does not cut it into square cells, or from six faces one of which is not square, is refused
/// with MuJoCo's message; and every file MuJoCo accepts loads (2d, cube and skybox; RGB, grey
/// and RGBA images; one file or six).
#[test]
fn texture_files_are_decoded_and_refused_as_in_mujoco() {
    let r = crate::oracle_util::reference("texture_files.json");
    let (mut refused, mut loaded) = (0, 0);
    for c in r["cases"].as_array().unwrap() {
        let xml = c["xml"].as_str().unwrap();
        let mut vfs = Vfs::default();
        for (name, hex) in c["files"].as_object().unwrap() {
            let hex = hex.as_str().unwrap().as_bytes();
            let bytes: Vec<u8> = hex
                .chunks(2)
                .map(|h| u8::from_str_radix(std::str::from_utf8(h).unwrap(), 16).unwrap())
                .collect();
            vfs.add(name.as_str(), bytes);
        }
        if c["ok"].as_bool().unwrap() {
            load_from_str(xml, &vfs).unwrap_or_else(|e| panic!("{xml}: {e}"));
            loaded += 1;
            continue;
        }
        let want = c["error"].as_str().unwrap().trim_start_matches("Error: ");
        // the decoder's reason after "error decoding PNG file 'f': " is its own
        let want = match want.find("': ") {
            Some(i) if want.starts_with("error decoding PNG file") => &want[..i + 3],
            _ => want,
        };
        let e = err(xml, &vfs);
        assert!(e.message.contains(want), "{xml}: {e} (MuJoCo: {want})");
        assert_eq!(e.element.as_deref(), Some("texture"), "{xml}");
        refused += 1;
    }
    eprintln!("{refused} texture files refused as in MuJoCo, {loaded} loaded");
    assert!(
        refused >= 29 && loaded >= 14,
        "{refused} refused, {loaded} loaded"
    );
}
