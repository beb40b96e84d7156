//! The public model zoo against MuJoCo 4.0.0: every model of `tools/zoo/models.txt` (dm_control's
//! suite, Gymnasium's MuJoCo assets, MuJoCo's own test model, MuJoCo Menagerie robots) is loaded
//! with moreau's MJCF loader from the zoo cache (`python3 tools/zoo/fetch.py`) and compared with
//! `tests/reference/zoo/<name>.json` (written by `tools/zoo/generate.py`, format described there).
//!
//! Per model: the sizes, the keyframes as `mj_resetDataKeyframe` loads them, body masses; at each
//! sampled state the smooth dynamics, the contacts and constraint rows, the constraint solve and
//! inverse dynamics; a rollout over MuJoCo's own reproducible horizon; the finite-difference
//! transition and inverse Jacobians at one state. Errors are relative to each quantity's own
//! scale (its largest magnitude in MuJoCo's values), never to `1 + max|b|`.
//!
//! A model whose status in models.txt is `failing REASON` is a known failure: it is run and
//! reported, and the test fails if it stops failing (so the status must then be removed).
//! `pending` models have reference data only. A line may set `opt.ccd_tolerance` or
//! `opt.ccd_iterations` (on MuJoCo's model in the generator and on moreau's here) where MuJoCo's
//! own contacts move with its convex-collision tolerance; models.txt gives the measurement that
//! justifies it above the line.
//!
//! One test per package; `ZOO_MODEL=<part of a name>` restricts a run to the matching models,
//! e.g. `ZOO_MODEL=dm_control/dog cargo test --test engine zoo:: -- --nocapture`; `ZOO_VERBOSE=1` lists
//! every failed check, not the first few. A missing cache is a failure that says how to fetch
//! it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use moreau::model::Model;
use moreau::Data;
use moreau_derivatives::{inverse, transition, InverseOptions, TransitionOptions};
use nalgebra::{DMatrix, Quaternion, Vector3};
use serde_json::Value;

/// Smooth dynamics (`qM`, `qfrc_bias`, `qfrc_passive`, `qfrc_actuator`, `qacc_smooth`, ...).
const TOL_SMOOTH: f64 = 1e-10;
/// Contacts (geoms, dist, pos, frame) and constraint rows (`efc_*` before the solve).
const TOL_CONTACT: f64 = 1e-9;
/// The constraint solve (`qacc`, `qfrc_constraint`, `efc_force`), sensors and inverse dynamics.
const TOL_SOLVE: f64 = 1e-8;
/// Rollouts, over the horizon where MuJoCo reproduces itself under a 1e-14 start perturbation.
const TOL_ROLLOUT: f64 = 1e-8;
/// Finite-difference Jacobians (same scheme and step as MuJoCo's).
const TOL_FD: f64 = 1e-6;
/// Where MuJoCo's inverse FD Jacobians are not reproducible to `TOL_FD` (they move by more
/// under a 1e-14 change of `qacc`: round-off of large contact forces divided by the step), the
/// tolerance is this many times that move.
const FD_NOISE_FACTOR: f64 = 4.0;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The zoo cache: `$MOREAU_ZOO`, else `${XDG_CACHE_HOME:-~/.cache}/moreau/zoo` (as fetch.py).
pub(crate) fn cache_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("MOREAU_ZOO").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
        });
    base.join("moreau").join("zoo")
}

/// The zoo model at `rel` under [`cache_dir`], loaded; a missing file fails the calling test
/// with the command that fetches the zoo (a missing input is a failure, not a skip).
pub(crate) fn load_model(rel: &str) -> moreau::Model {
    let path = cache_dir().join(rel);
    assert!(
        path.exists(),
        "{} is missing: fetch the zoo with `python3 tools/zoo/fetch.py`",
        path.display()
    );
    moreau::load(&path).unwrap()
}

/// One line of `tools/zoo/models.txt`.
struct Entry {
    name: String,
    path: String,
    /// `opt.FIELD=VALUE` options set on the loaded model (by the generator on MuJoCo's)
    opts: Vec<(String, f64)>,
    status: String,
}

fn manifest() -> Vec<Entry> {
    let p = root().join("tools/zoo/models.txt");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .filter_map(|l| {
            let l = l.split('#').next().unwrap().trim();
            let mut it = l.split_whitespace();
            let name = it.next()?;
            let path = it.next().expect("models.txt: a name without a path");
            let mut it = it.peekable();
            let mut opts = Vec::new();
            while let Some(o) = it.next_if(|t| t.starts_with("opt.")) {
                let (k, v) = o[4..]
                    .split_once('=')
                    .unwrap_or_else(|| panic!("models.txt: {name}: `{o}` is not opt.FIELD=VALUE"));
                let v = v
                    .parse()
                    .unwrap_or_else(|e| panic!("models.txt: {name}: `{o}`: {e}"));
                opts.push((k.to_string(), v));
            }
            Some(Entry {
                name: name.into(),
                path: path.into(),
                opts,
                status: it.collect::<Vec<_>>().join(" "),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Reference data

fn b64(s: &str) -> Vec<u8> {
    fn val(c: u8) -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad base64 character {c}"),
        }
    }
    let s = s.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    for chunk in s.chunks(4) {
        let mut acc = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            acc |= val(c) << (18 - 6 * k);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

/// A float array of the reference: `{"shape", "f64"}` or the sparse `{"shape", "idx", "f64"}`.
fn arr(v: &Value) -> Vec<f64> {
    let n: usize = v["shape"]
        .as_array()
        .expect("array shape")
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .product();
    let vals: Vec<f64> = b64(v["f64"].as_str().unwrap())
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    match v.get("idx") {
        None => {
            assert_eq!(vals.len(), n, "array length");
            vals
        }
        Some(idx) => {
            let mut out = vec![0.0; n];
            for (c, x) in b64(idx.as_str().unwrap()).chunks_exact(4).zip(vals) {
                out[u32::from_le_bytes(c.try_into().unwrap()) as usize] = x;
            }
            out
        }
    }
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .flat_map(|x| match x.as_array() {
            Some(a) => a.iter().map(|y| y.as_i64().unwrap()).collect(),
            None => vec![x.as_i64().unwrap()],
        })
        .collect()
}

fn fnv1a64(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

fn max_abs(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |w, v| w.max(v.abs()))
}

// ---------------------------------------------------------------------------------------------
// Comparison and report

/// Worst relative error per quantity of one model, and what failed.
struct Report {
    name: String,
    sizes: String,
    horizon: String,
    worst: BTreeMap<&'static str, f64>,
    failures: Vec<String>,
    notes: Vec<String>,
}

impl Report {
    /// `max |got − want| / scale ≤ tol`; `scale` is the quantity's own (see [`own`]).
    fn check(
        &mut self,
        what: &'static str,
        at: &str,
        got: &[f64],
        want: &[f64],
        scale: f64,
        tol: f64,
    ) {
        if got.len() != want.len() {
            self.failures.push(format!(
                "{at}: {what} has {} entries, MuJoCo {}",
                got.len(),
                want.len()
            ));
            self.worst.insert(what, f64::INFINITY);
            return;
        }
        let mut worst = (0.0f64, 0usize);
        for (k, (a, b)) in got.iter().zip(want).enumerate() {
            let e = (a - b).abs() / scale;
            let e = if e.is_nan() { f64::INFINITY } else { e };
            if e > worst.0 {
                worst = (e, k);
            }
        }
        let w = self.worst.entry(what).or_insert(0.0);
        *w = w.max(worst.0);
        if worst.0 > tol {
            let k = worst.1;
            self.failures.push(format!(
                "{at}: {what} off by {:.1e} of its scale {scale:.1e} (tolerance {tol:.0e}); worst entry [{k}]: moreau {:e}, MuJoCo {:e}",
                worst.0, got[k], want[k]
            ));
        }
    }

    fn fail(&mut self, what: &'static str, msg: String) {
        self.worst.insert(what, f64::INFINITY);
        self.failures.push(msg);
    }
}

/// The scale of a reference quantity: its largest magnitude, else `fallback` (a related
/// quantity's scale) when MuJoCo's values are all zero.
fn own(want: &[f64], fallback: f64) -> f64 {
    let s = max_abs(want);
    if s > 0.0 {
        s
    } else {
        fallback.max(f64::MIN_POSITIVE)
    }
}

// ---------------------------------------------------------------------------------------------
// Model checks

/// The model's reference data, checked to belong to the cached MJCF file.
fn check_reference(e: &Entry) -> Result<Value, String> {
    let ref_path = root()
        .join("tests/reference/zoo")
        .join(format!("{}.json", e.name));
    let text = std::fs::read_to_string(&ref_path).map_err(|err| {
        format!(
            "{}: {err}; generate it with `python3 tools/zoo/generate.py {}`",
            ref_path.display(),
            e.name
        )
    })?;
    let refd: Value =
        serde_json::from_str(&text).map_err(|err| format!("{}: {err}", ref_path.display()))?;
    let path = cache_dir().join(&e.path);
    let xml = std::fs::read(&path).map_err(|err| format!("{}: {err}", path.display()))?;
    if fnv1a64(&xml) != refd["xml_fnv1a64"].as_str().unwrap_or_default() {
        return Err(format!(
            "{} is not the file the reference was made from: re-run `python3 tools/zoo/fetch.py`",
            path.display()
        ));
    }
    Ok(refd)
}

fn check_model(e: &Entry, r: &mut Report) {
    let refd = match check_reference(e) {
        Ok(v) => v,
        Err(msg) => return r.fail("load", msg),
    };
    let path = cache_dir().join(&e.path);
    let loaded = moreau::load(&path);
    if let Some(msg) = e.status.strip_prefix("refused") {
        let msg = msg.trim();
        match loaded {
            Ok(_) => r.fail(
                "load",
                format!("loads, but the manifest says moreau refuses it ({msg})"),
            ),
            Err(err) if err.to_string().contains(msg) => r.notes.push(format!("refused: {err}")),
            Err(err) => r.fail("load", format!("refused with `{err}`, expected `{msg}`")),
        }
        return;
    }
    let mut m = match loaded {
        Ok(m) => m,
        Err(err) => return r.fail("load", format!("load error: {err}")),
    };
    for (k, v) in &e.opts {
        match k.as_str() {
            "ccd_tolerance" => m.opt.ccd_tolerance = *v,
            "ccd_iterations" => m.opt.ccd_iterations = *v as usize,
            _ => return r.fail("load", format!("models.txt: unknown option opt.{k}")),
        }
        let want = refd["opt"][k.as_str()].as_f64();
        if want != Some(*v) {
            return r.fail(
                "load",
                format!("opt.{k}={v} in models.txt, {want:?} in the reference: regenerate it"),
            );
        }
    }
    let m = m;
    if !check_sizes(&m, &refd, r) {
        return;
    }
    check_compiled(&m, &refd, r);
    let ro = &refd["rollout"];
    let mocap_pos = arr(&ro["mocap_pos"]);
    let mocap_quat = arr(&ro["mocap_quat"]);
    let states = refd["states"].as_array().unwrap();
    r.sizes = format!(
        "{}/{}/{}",
        m.nq,
        m.nv,
        states
            .iter()
            .map(|s| s["ncon"].as_u64().unwrap())
            .max()
            .unwrap_or(0)
    );
    let sensors = SensorScales::new(&refd);
    for s in states {
        let mut d = Data::<f64>::new(&m);
        set_state(&m, &mut d, s, &mocap_pos, &mocap_quat);
        check_state(&m, &mut d, s, &sensors, r);
    }
    let fd = &refd["fd"];
    let s = &states[fd["state"].as_u64().unwrap() as usize];
    check_fd(&m, s, fd, &mocap_pos, &mocap_quat, r);
    check_rollout(&m, ro, r);
}

fn check_sizes(m: &Model, refd: &Value, r: &mut Report) -> bool {
    let got: BTreeMap<&str, usize> = [
        ("nq", m.nq),
        ("nv", m.nv),
        ("nu", m.nu),
        ("na", m.na),
        ("nbody", m.nbody),
        ("njnt", m.njnt),
        ("ngeom", m.ngeom),
        ("nsite", m.nsite),
        ("ntendon", m.ntendon),
        ("nwrap", m.nwrap),
        ("neq", m.neq),
        ("nkey", m.nkey),
        ("nsensor", m.nsensor),
        ("nsensordata", m.nsensordata),
        ("nmocap", m.nmocap),
        ("nmesh", m.nmesh),
        ("nhfield", m.nhfield),
        ("npair", m.npair),
        ("nexclude", m.nexclude),
    ]
    .into_iter()
    .collect();
    let mut ok = true;
    for (k, v) in refd["sizes"].as_object().unwrap() {
        let want = v.as_u64().unwrap() as usize;
        match got.get(k.as_str()) {
            Some(&g) if g == want => {}
            Some(&g) => {
                r.fail("sizes", format!("{k} = {g}, MuJoCo {want}"));
                ok = false;
            }
            None if want == 0 => {}
            None => {
                r.fail(
                    "sizes",
                    format!("{k} = {want} in MuJoCo, which moreau should refuse"),
                );
                ok = false;
            }
        }
    }
    if ok {
        r.worst.insert("sizes", 0.0);
    }
    ok
}

/// Keyframes as `mj_resetDataKeyframe` loads them, and the compiled body masses.
fn check_compiled(m: &Model, refd: &Value, r: &mut Report) {
    let k = &refd["keyframes"];
    let (qpos, qvel, act, ctrl) = (
        arr(&k["key_qpos"]),
        arr(&k["key_qvel"]),
        arr(&k["key_act"]),
        arr(&k["key_ctrl"]),
    );
    let (mpos, mquat, time) = (
        arr(&k["key_mpos"]),
        arr(&k["key_mquat"]),
        arr(&k["key_time"]),
    );
    for key in 0..m.nkey {
        let mut d = Data::<f64>::new(m);
        d.reset_keyframe(m, key).unwrap();
        let at = format!("keyframe {key}");
        let sl = |x: &[f64], n: usize| x[key * n..(key + 1) * n].to_vec();
        r.check("keyframes", &at, &[d.time], &[time[key]], 1.0, 0.0);
        r.check("keyframes", &at, &d.qpos, &sl(&qpos, m.nq), 1.0, 1e-15);
        r.check("keyframes", &at, &d.qvel, &sl(&qvel, m.nv), 1.0, 1e-15);
        r.check("keyframes", &at, &d.act, &sl(&act, m.na), 1.0, 1e-15);
        r.check("keyframes", &at, &d.ctrl, &sl(&ctrl, m.nu), 1.0, 1e-15);
        let mp: Vec<f64> = d.mocap_pos.iter().flat_map(|p| p.iter().copied()).collect();
        let mq: Vec<f64> = d
            .mocap_quat
            .iter()
            .flat_map(|q| [q.w, q.i, q.j, q.k])
            .collect();
        r.check("keyframes", &at, &mp, &sl(&mpos, 3 * m.nmocap), 1.0, 1e-15);
        r.check("keyframes", &at, &mq, &sl(&mquat, 4 * m.nmocap), 1.0, 1e-15);
    }
    let mass = arr(&refd["body_mass"]);
    r.check(
        "body_mass",
        "compiled",
        &m.body_mass,
        &mass,
        own(&mass, 1.0),
        TOL_SMOOTH,
    );
    let sub = arr(&refd["body_subtreemass"]);
    r.check(
        "body_mass",
        "compiled",
        &m.body_subtreemass,
        &sub,
        own(&sub, 1.0),
        TOL_SMOOTH,
    );
    // the inertia tensor in the body frame, R diag(I) Rᵀ (the principal frame itself is not
    // unique), and its centre
    let tensor = |ipos: &[f64], iquat: &[f64], inertia: &[f64]| -> (Vec<f64>, Vec<f64>) {
        let mut t = Vec::new();
        for b in 0..inertia.len() / 3 {
            let q = &iquat[4 * b..4 * b + 4];
            let r =
                nalgebra::UnitQuaternion::new_unchecked(Quaternion::new(q[0], q[1], q[2], q[3]))
                    .to_rotation_matrix()
                    .into_inner();
            let d = nalgebra::Matrix3::from_diagonal(&Vector3::new(
                inertia[3 * b],
                inertia[3 * b + 1],
                inertia[3 * b + 2],
            ));
            t.extend((r * d * r.transpose()).iter().copied());
        }
        (t, ipos.to_vec())
    };
    let flat = |x: &[[f64; 3]]| x.iter().flatten().copied().collect::<Vec<f64>>();
    let flat4 = |x: &[[f64; 4]]| x.iter().flatten().copied().collect::<Vec<f64>>();
    let (got_t, got_c) = tensor(
        &flat(&m.body_ipos),
        &flat4(&m.body_iquat),
        &flat(&m.body_inertia),
    );
    let (want_t, want_c) = tensor(
        &arr(&refd["body_ipos"]),
        &arr(&refd["body_iquat"]),
        &arr(&refd["body_inertia"]),
    );
    r.check(
        "body_mass",
        "compiled body inertia",
        &got_t,
        &want_t,
        own(&want_t, 1.0),
        TOL_SMOOTH,
    );
    r.check(
        "body_mass",
        "compiled body_ipos",
        &got_c,
        &want_c,
        own(&want_c, 1.0),
        TOL_SMOOTH,
    );
    // the principal frame itself, as MuJoCo's compiler picks it (also for two equal moments),
    // up to the quaternion's sign
    let want_q = arr(&refd["body_iquat"]);
    let mut got_q = flat4(&m.body_iquat);
    for (g, w) in got_q.chunks_mut(4).zip(want_q.chunks(4)) {
        if g.iter().zip(w).map(|(a, b)| a * b).sum::<f64>() < 0.0 {
            g.iter_mut().for_each(|x| *x = -*x);
        }
    }
    r.check(
        "body_mass",
        "compiled body_iquat",
        &got_q,
        &want_q,
        1.0,
        TOL_SMOOTH,
    );
}

fn set_state(m: &Model, d: &mut Data, s: &Value, mocap_pos: &[f64], mocap_quat: &[f64]) {
    d.time = s["time"].as_f64().unwrap();
    d.qpos.copy_from_slice(&arr(&s["qpos"]));
    d.qvel.copy_from_slice(&arr(&s["qvel"]));
    d.act.copy_from_slice(&arr(&s["act"]));
    d.ctrl.copy_from_slice(&arr(&s["ctrl"]));
    d.qacc_warmstart.copy_from_slice(&arr(&s["qacc_warmstart"]));
    set_mocap(m, d, mocap_pos, mocap_quat);
}

fn set_mocap(m: &Model, d: &mut Data, mocap_pos: &[f64], mocap_quat: &[f64]) {
    for i in 0..m.nmocap {
        let p = &mocap_pos[3 * i..3 * i + 3];
        let q = &mocap_quat[4 * i..4 * i + 4];
        d.mocap_pos[i] = Vector3::new(p[0], p[1], p[2]);
        d.mocap_quat[i] = Quaternion::new(q[0], q[1], q[2], q[3]);
    }
}

/// Puts moreau's contacts into MuJoCo's order (same geom pair, nearest point) and re-runs the
/// constraint stages, so that the efc rows line up. `Err` names the first contact moreau
/// lacks.
fn mujoco_contact_order(m: &Model, d: &mut Data, geoms: &[i64], pos: &[f64]) -> Result<(), String> {
    let n = geoms.len() / 2;
    let mut used = vec![false; d.contact.len()];
    let mut order = Vec::with_capacity(n);
    for k in 0..n {
        let g = [geoms[2 * k] as usize, geoms[2 * k + 1] as usize];
        let p = Vector3::new(pos[3 * k], pos[3 * k + 1], pos[3 * k + 2]);
        let best = (0..d.contact.len())
            .filter(|&i| !used[i] && d.contact[i].geom == g)
            .min_by(|&a, &b| {
                (d.contact[a].pos - p)
                    .norm()
                    .total_cmp(&(d.contact[b].pos - p).norm())
            });
        let Some(i) = best else {
            return Err(format!(
                "MuJoCo's contact {k} (geoms {g:?} at {p:?}) has no match in moreau"
            ));
        };
        used[i] = true;
        order.push(i);
    }
    if order.iter().enumerate().any(|(k, &i)| k != i) {
        let old = d.contact.clone();
        d.contact.clear();
        d.contact.extend(order.iter().map(|&i| old[i].clone()));
        reassemble(m, d);
    }
    Ok(())
}

/// Re-runs the stages after collision (constraint rows, solve, acceleration sensors) on the
/// contacts in `d`.
fn reassemble(m: &Model, d: &mut Data) {
    moreau::pipeline::make_constraint(m, d);
    moreau::pipeline::reference_constraint(m, d);
    moreau::pipeline::fwd_constraint(m, d);
    moreau::pipeline::sensor_acc(m, d);
}

/// Gives moreau's contacts (already in MuJoCo's order) MuJoCo's geometry (`dist`, `pos`,
/// `frame`) and re-runs the stages after collision: where the collision itself differs, the
/// constraint rows, the solve and inverse dynamics are still compared, on MuJoCo's contacts.
fn inject_contact_geometry(m: &Model, d: &mut Data, dist: &[f64], pos: &[f64], frame: &[f64]) {
    for (k, c) in d.contact.iter_mut().enumerate() {
        c.dist = dist[k];
        c.pos = Vector3::new(pos[3 * k], pos[3 * k + 1], pos[3 * k + 2]);
        c.frame = nalgebra::Matrix3::from_row_slice(&frame[9 * k..9 * k + 9]);
    }
    reassemble(m, d);
}

/// Each sensor's scale: its largest magnitude over the sampled states (sensors mix units, and
/// one at rest reads round-off).
struct SensorScales {
    dim: Vec<usize>,
    scale: Vec<f64>,
}

impl SensorScales {
    fn new(refd: &Value) -> Self {
        let dim: Vec<usize> = refd["sensor_dim"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect();
        let data: Vec<Vec<f64>> = refd["states"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| arr(&s["sensordata"]))
            .collect();
        let mut scale = Vec::new();
        let mut adr = 0;
        for &n in &dim {
            scale.push(
                data.iter()
                    .fold(0.0f64, |w, x| w.max(max_abs(&x[adr..adr + n])))
                    .max(f64::MIN_POSITIVE),
            );
            adr += n;
        }
        SensorScales { dim, scale }
    }

    fn check(&self, r: &mut Report, at: &str, got: &[f64], want: &[f64]) {
        if got.len() != want.len() {
            return r.check("sensordata", at, got, want, 1.0, TOL_SOLVE);
        }
        let mut adr = 0;
        for (&n, &s) in self.dim.iter().zip(&self.scale) {
            r.check(
                "sensordata",
                at,
                &got[adr..adr + n],
                &want[adr..adr + n],
                s,
                TOL_SOLVE,
            );
            adr += n;
        }
    }
}

/// Relative distance within which a contact's activation (`dist < includemargin`) is decided
/// by round-off.
const TIE: f64 = 1e-12;

/// True if the contacts of moreau and MuJoCo differ only by contacts (on either side) whose
/// distance is within round-off ([`TIE`] of the contacts' length scale) of their activation
/// distance: e.g. a sphere that slides on the floor at exactly its radius.
fn activation_tie(d: &Data, geoms: &[i64], pos: &[f64], s: &Value) -> bool {
    let dist = arr(&s["contact_dist"]);
    let margin = arr(&s["contact_includemargin"]);
    let length = own(pos, 1.0).max(max_abs(&dist));
    let tie = |dist: f64, margin: f64| (dist - margin).abs() <= TIE * length;
    let mut used = vec![false; d.contact.len()];
    for k in 0..dist.len() {
        let g = [geoms[2 * k] as usize, geoms[2 * k + 1] as usize];
        let p = Vector3::new(pos[3 * k], pos[3 * k + 1], pos[3 * k + 2]);
        let best = (0..d.contact.len())
            .filter(|&i| !used[i] && d.contact[i].geom == g)
            .min_by(|&a, &b| {
                (d.contact[a].pos - p)
                    .norm()
                    .total_cmp(&(d.contact[b].pos - p).norm())
            });
        match best {
            Some(i) => used[i] = true,
            None if tie(dist[k], margin[k]) => {}
            None => return false,
        }
    }
    d.contact
        .iter()
        .zip(&used)
        .all(|(c, &u)| u || tie(c.dist, c.includemargin))
}

fn check_state(m: &Model, d: &mut Data, s: &Value, sensors: &SensorScales, r: &mut Report) {
    let at = s["label"].as_str().unwrap().to_string();
    moreau::forward(m, d);
    let nv = m.nv;

    // smooth dynamics
    let mut qm = vec![0.0; nv * nv];
    moreau::full_m(m, &d.qM, &mut qm);
    let want_qm = arr(&s["qM"]);
    r.check("qM", &at, &qm, &want_qm, own(&want_qm, 1.0), TOL_SMOOTH);
    // generalized forces: each against its own scale, or, when MuJoCo's is all zero, the
    // largest of bias, passive, actuator and inverse forces
    let forces: Vec<Vec<f64>> = ["qfrc_bias", "qfrc_passive", "qfrc_actuator", "qfrc_inverse"]
        .iter()
        .map(|f| arr(&s[*f]))
        .collect();
    let force_scale = forces.iter().fold(0.0f64, |w, f| w.max(max_abs(f)));
    for (what, got) in [
        ("qfrc_bias", &d.qfrc_bias),
        ("qfrc_passive", &d.qfrc_passive),
        ("qfrc_actuator", &d.qfrc_actuator),
    ] {
        let want = arr(&s[what]);
        r.check(what, &at, got, &want, own(&want, force_scale), TOL_SMOOTH);
    }
    let want = arr(&s["actuator_force"]);
    r.check(
        "qfrc_actuator",
        &at,
        &d.actuator_force,
        &want,
        own(&want, 1.0),
        TOL_SMOOTH,
    );
    let want = arr(&s["act_dot"]);
    r.check(
        "act_dot",
        &at,
        &d.act_dot,
        &want,
        own(&want, 1.0),
        TOL_SMOOTH,
    );
    let want_smooth = arr(&s["qacc_smooth"]);
    r.check(
        "qacc_smooth",
        &at,
        &d.qacc_smooth,
        &want_smooth,
        own(&want_smooth, 1.0),
        TOL_SMOOTH,
    );

    // contacts: count, then MuJoCo's order, geoms, dist, pos, frame
    let ncon = s["ncon"].as_u64().unwrap() as usize;
    let geoms = ints(&s["contact_geom"]);
    let pos = arr(&s["contact_pos"]);
    let mut injected = false;
    let contacts_ok = if d.contact.len() != ncon {
        let got: Vec<[usize; 2]> = d.contact.iter().map(|c| c.geom).collect();
        if activation_tie(d, &geoms, &pos, s) {
            // which side of the threshold round-off puts a contact decides whether it exists:
            // the constraint stages (and inverse dynamics, which has the same contacts) cannot
            // be compared
            r.notes.push(format!(
                "{at}: contacts {got:?} vs MuJoCo's {geoms:?} differ only by contacts within round-off of their activation distance; constraints not compared"
            ));
            return;
        }
        r.fail(
            "contact",
            format!(
                "{at}: {} contacts, MuJoCo {ncon}: moreau's geoms {got:?}, MuJoCo's {geoms:?}",
                d.contact.len()
            ),
        );
        false
    } else if let Err(msg) = mujoco_contact_order(m, d, &geoms, &pos) {
        r.fail("contact", format!("{at}: {msg}"));
        false
    } else {
        let dist = arr(&s["contact_dist"]);
        let length = own(&pos, 1.0).max(max_abs(&dist));
        let got_dist: Vec<f64> = d.contact.iter().map(|c| c.dist).collect();
        let got_pos: Vec<f64> = d
            .contact
            .iter()
            .flat_map(|c| c.pos.iter().copied().collect::<Vec<_>>())
            .collect();
        let got_frame: Vec<f64> = d
            .contact
            .iter()
            .flat_map(|c| c.frame.transpose().iter().copied().collect::<Vec<_>>())
            .collect();
        let frame = arr(&s["contact_frame"]);
        let before = r.failures.len();
        r.check("contact", &at, &got_dist, &dist, length, TOL_CONTACT);
        r.check("contact", &at, &got_pos, &pos, length, TOL_CONTACT);
        r.check("contact", &at, &got_frame, &frame, 1.0, TOL_CONTACT);
        if r.failures.len() > before {
            // the collision failed (reported above); the later stages are compared on
            // MuJoCo's contact geometry, so that their own errors show
            inject_contact_geometry(m, d, &dist, &pos, &frame);
            injected = true;
            r.notes.push(format!(
                "{at}: contact geometry differs; efc, solve, sensors and inverse compared on MuJoCo's contacts"
            ));
        }
        true
    };

    // constraint rows
    let nefc = s["nefc"].as_u64().unwrap() as usize;
    let rows_ok = contacts_ok && d.nefc == nefc && {
        let ty: Vec<i64> = d.efc_type.iter().map(|t| *t as i64).collect();
        let id: Vec<i64> = d.efc_id.iter().map(|&t| t as i64).collect();
        ty == ints(&s["efc_type"]) && id == ints(&s["efc_id"])
    };
    if contacts_ok && !rows_ok {
        let ty: Vec<i64> = d.efc_type.iter().map(|t| *t as i64).collect();
        r.fail(
            "efc",
            format!(
                "{at}: constraint rows (type) {ty:?}, MuJoCo {:?} (efc_id too must agree)",
                ints(&s["efc_type"])
            ),
        );
    }
    if rows_ok {
        let p = arr(&s["efc_pos"]);
        let mg = arr(&s["efc_margin"]);
        let len = own(&p, 1.0).max(max_abs(&mg));
        r.check("efc", &at, &d.efc_pos, &p, len, TOL_CONTACT);
        r.check("efc", &at, &d.efc_margin, &mg, len, TOL_CONTACT);
        let jw = arr(&s["efc_J"]);
        r.check(
            "efc",
            &at,
            &d.efc_J_dense(m.nv),
            &jw,
            own(&jw, 1.0),
            TOL_CONTACT,
        );
        for (what, got) in [("efc_R", &d.efc_R), ("efc_aref", &d.efc_aref)] {
            let want = arr(&s[what]);
            r.check("efc", &at, got, &want, own(&want, 1.0), TOL_CONTACT);
        }
        // constraint forces balance the smooth forces: those set their scale too (at rest
        // MuJoCo's limit and contact forces can be round-off)
        let want = arr(&s["efc_force"]);
        let scale = own(&want, 0.0).max(force_scale);
        r.check("efc_force", &at, &d.efc_force, &want, scale, TOL_SOLVE);
    }

    // the solve; qacc = qacc_smooth + M⁻¹ qfrc_constraint, whose terms set its scale (at rest
    // qacc is round-off while qacc_smooth is gravity)
    let want_qacc = arr(&s["qacc"]);
    let want_con = arr(&s["qfrc_constraint"]);
    if contacts_ok {
        let scale = own(&want_qacc, 0.0).max(max_abs(&want_smooth));
        r.check(
            "qacc",
            &at,
            &d.qacc,
            &want_qacc,
            own(&[scale], 1.0),
            TOL_SOLVE,
        );
        let scale = own(&want_con, 0.0).max(force_scale);
        r.check(
            "qfrc_constraint",
            &at,
            &d.qfrc_constraint,
            &want_con,
            scale,
            TOL_SOLVE,
        );
        sensors.check(r, &at, &d.sensordata, &arr(&s["sensordata"]));
    }

    // inverse dynamics at MuJoCo's qacc: qfrc_inverse = M qacc + qfrc_bias − qfrc_passive −
    // qfrc_constraint, whose terms set its scale
    d.qacc.copy_from_slice(&want_qacc);
    if injected {
        // on MuJoCo's contacts: the position and velocity stages are not re-run
        moreau::pipeline::inverse_skip(m, d, moreau::pipeline::Skip::Vel, false);
    } else {
        moreau::inverse(m, d);
    }
    let scale = force_scale.max(max_abs(&want_con));
    r.check(
        "qfrc_inverse",
        &at,
        &d.qfrc_inverse,
        &forces[3],
        own(&[scale], 1.0),
        TOL_SOLVE,
    );
}

fn check_fd(
    m: &Model,
    s: &Value,
    fd: &Value,
    mocap_pos: &[f64],
    mocap_quat: &[f64],
    r: &mut Report,
) {
    let eps = fd["eps"].as_f64().unwrap();
    let at = format!("FD at {}", s["label"].as_str().unwrap());
    let mut d = Data::<f64>::new(m);
    set_state(m, &mut d, s, mocap_pos, mocap_quat);
    moreau::forward(m, &mut d);
    if d.contact.len() != s["ncon"].as_u64().unwrap() as usize {
        // an activation tie (see check_state): the differences straddle the threshold
        r.notes.push(format!(
            "{at}: contacts differ by a round-off tie; FD Jacobians not compared"
        ));
        return;
    }
    set_state(m, &mut d, s, mocap_pos, mocap_quat);
    let t = transition(
        m,
        &mut d,
        &TransitionOptions::fd(eps, fd["centered"].as_bool().unwrap()),
    )
    .unwrap();
    let rows = |x: &DMatrix<f64>| x.transpose().iter().copied().collect::<Vec<f64>>();
    for (what, got) in [("A", &t.A), ("B", &t.B)] {
        let (got, want) = reproducible(
            fd,
            (what, "fd_transition"),
            (rows(got), arr(&fd[what])),
            TOL_FD,
            &at,
            r,
        );
        r.check("fd_transition", &at, &got, &want, own(&want, 1.0), TOL_FD);
    }
    let mut d = Data::<f64>::new(m);
    set_state(m, &mut d, s, mocap_pos, mocap_quat);
    moreau::forward(m, &mut d);
    if m.opt.noslip_iterations == 0 {
        d.qacc.copy_from_slice(&arr(&s["qacc"]));
    } else {
        // mjd_inverseFD refuses the noslip post-pass: the generator differentiates at the qacc
        // of a forward pass without it, not at the recorded qacc (which the noslip pass moved,
        // by 7.2 on the dog at step 300); the same here
        let mut mi = m.clone();
        mi.opt.noslip_iterations = 0;
        set_state(&mi, &mut d, s, mocap_pos, mocap_quat);
        moreau::forward(&mi, &mut d);
    }
    let inv = inverse(
        m,
        &mut d,
        &InverseOptions::fd(eps, fd["inverse_flg_actuation"].as_bool().unwrap(), false),
    )
    .unwrap();
    for (what, got) in [
        ("DfDq", &inv.DfDq),
        ("DfDv", &inv.DfDv),
        ("DfDa", &inv.DfDa),
    ] {
        // where MuJoCo's own differences move by more under a 1e-14 change of qacc (their
        // round-off, `inverse_noise` of the generator), the tolerance is four times that move
        let noise = fd["inverse_noise"][what].as_f64().unwrap_or(0.0);
        let tol = TOL_FD.max(FD_NOISE_FACTOR * noise);
        let (got, want) = reproducible(
            fd,
            (what, "fd_inverse"),
            (rows(got), arr(&fd[what])),
            tol,
            &at,
            r,
        );
        if tol > TOL_FD {
            r.notes.push(format!(
                "{at}: {what}: MuJoCo's own FD moves by {noise:.1e} under a 1e-14 change of \
                 qacc; compared to {tol:.1e}"
            ));
        }
        r.check(
            "fd_inverse",
            &format!("{at}: {what}"),
            &got,
            &want,
            own(&want, 1.0),
            tol,
        );
    }
}

/// The FD Jacobian `what` (row-major, moreau's and MuJoCo's) without the entries MuJoCo does not
/// reproduce itself: those its own differences move beyond the tolerance when the state moves by
/// 1e-14 of each field's scale (`state_noise` of the generator: a contact whose result takes
/// one of a few values at one of the ±eps nudges), set to 0 in both; those entries are asserted
/// here instead, against the values MuJoCo gives them. In a column of a qpos nudge the
/// collision runs at each nudged qpos and takes its value there independently at +eps and at
/// −eps (`branches`: MuJoCo's step results at each nudge, from 49 states 1e-14 apart): moreau's
/// column must be (plus − minus)/den for one of each, to `tol` of the other entries' scale.
/// Every other such entry must be within `tol` of one of MuJoCo's own values of it: the
/// recorded one or those at 16 states 1e-14 away (`state_values`). `kind` names the check.
fn reproducible(
    fd: &Value,
    (what, kind): (&str, &'static str),
    (mut got, mut want): (Vec<f64>, Vec<f64>),
    tol: f64,
    at: &str,
    r: &mut Report,
) -> (Vec<f64>, Vec<f64>) {
    let mut skip: Vec<usize> = fd["state_noise"][what]
        .as_array()
        .map(|v| {
            v.iter()
                .filter_map(|i| i.as_u64())
                .map(|i| i as usize)
                .filter(|&i| i < want.len())
                .collect()
        })
        .unwrap_or_default();
    if skip.is_empty() || got.len() != want.len() {
        return (got, want);
    }
    let nskip = skip.len();
    let mut kept = want.clone();
    for &i in &skip {
        kept[i] = 0.0;
    }
    let scale = own(&kept, 1.0);
    // MuJoCo's values of the skipped entries at the moved states, one row per state
    let values = fd
        .get("state_values")
        .and_then(|v| v.get(what))
        .map(arr)
        .unwrap_or_default();
    let nstate = values.len() / skip.len();
    let value_of = |j: usize| {
        std::iter::once(want[skip[j]])
            .chain((0..nstate).map(|s| values[s * skip.len() + j]))
            .collect::<Vec<f64>>()
    };
    let mut nearest: Vec<(usize, Vec<f64>)> =
        (0..skip.len()).map(|j| (skip[j], value_of(j))).collect();
    // the qpos columns: the nearest (plus − minus)/den over MuJoCo's values at the two nudges
    let ncol = fd[what]["shape"][1].as_u64().unwrap_or(1) as usize;
    let branches = fd
        .get("branches")
        .and_then(|b| b.get(what))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let (mut nbranch, mut worst_branch) = (0, 0.0f64);
    for rec in &branches {
        let c = rec["col"].as_u64().unwrap() as usize;
        let rows: Vec<usize> = rec["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap() as usize)
            .collect();
        let den = rec["den"].as_f64().unwrap();
        let (plus, minus) = (arr(&rec["plus"]), arr(&rec["minus"]));
        let col: Vec<f64> = rows.iter().map(|&row| got[row * ncol + c]).collect();
        let mut best = (f64::INFINITY, Vec::new());
        for p in plus.chunks(rows.len()) {
            for q in minus.chunks(rows.len()) {
                let diff: Vec<f64> = p.iter().zip(q).map(|(p, q)| (p - q) / den).collect();
                let err = col
                    .iter()
                    .zip(&diff)
                    .map(|(g, w)| (g - w).abs())
                    .fold(0.0, f64::max);
                if err < best.0 {
                    best = (err, diff);
                }
            }
        }
        worst_branch = worst_branch.max(best.0 / scale);
        r.check(
            kind,
            &format!("{at}: {what} column {c}, MuJoCo's nearest values at the ±eps nudges"),
            &col,
            &best.1,
            scale,
            tol,
        );
        let entries: Vec<usize> = rows.iter().map(|&row| row * ncol + c).collect();
        nbranch += entries.len();
        nearest.retain(|(i, _)| !entries.contains(i));
    }
    // every other entry: the nearest of MuJoCo's values of it
    let (mut off, mut worst_value) = (Vec::new(), 0.0f64);
    for (i, vals) in &nearest {
        let err = vals
            .iter()
            .map(|v| (got[*i] - v).abs())
            .fold(f64::INFINITY, f64::min);
        worst_value = worst_value.max(err / scale);
        if err > tol * scale {
            off.push((*i, err / scale));
        }
    }
    r.notes.push(format!(
        "{at}: {what}: {nskip} of {} entries move beyond the tolerance in MuJoCo's own FD under a \
         1e-14 change of the state; {nbranch} asserted as differences of MuJoCo's values at the \
         ±eps nudges (worst {worst_branch:.1e}), {} as one of MuJoCo's values at {} such states \
         (worst {worst_value:.1e})",
        want.len(),
        nearest.len(),
        nstate + 1,
    ));
    if !off.is_empty() {
        r.fail(
            kind,
            format!(
                "{at}: {what}: {} entries are none of MuJoCo's values (entry, distance / scale): {off:?}",
                off.len()
            ),
        );
    }
    for i in skip.drain(..) {
        got[i] = 0.0;
        want[i] = 0.0;
    }
    (got, want)
}

fn check_rollout(m: &Model, ro: &Value, r: &mut Report) {
    let mut d = Data::<f64>::new(m);
    d.qpos.copy_from_slice(&arr(&ro["qpos0"]));
    d.qvel.copy_from_slice(&arr(&ro["qvel0"]));
    d.act.copy_from_slice(&arr(&ro["act0"]));
    set_mocap(m, &mut d, &arr(&ro["mocap_pos"]), &arr(&ro["mocap_quat"]));
    let nstep = ro["nstep"].as_u64().unwrap() as usize;
    let horizon = ro["horizon"].as_u64().unwrap() as usize;
    let ctrl = arr(&ro["ctrl"]);
    let nseg = ctrl.len() / m.nu.max(1);
    let steps: Vec<usize> = ro["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    let (q, v, a) = (arr(&ro["qpos"]), arr(&ro["qvel"]), arr(&ro["act"]));
    let (sq, sv, sa) = (own(&q, 1.0), own(&v, 1.0), own(&a, 1.0));
    let mut k = 0;
    for (i, &step) in steps.iter().enumerate().filter(|(_, &s)| s <= horizon) {
        while k < step {
            if m.nu > 0 {
                let seg = (k * nseg / nstep).min(nseg - 1);
                d.ctrl.copy_from_slice(&ctrl[seg * m.nu..(seg + 1) * m.nu]);
            }
            moreau::step(m, &mut d);
            k += 1;
        }
        let at = format!("rollout step {step} (horizon {horizon})");
        r.check(
            "rollout",
            &at,
            &d.qpos,
            &q[i * m.nq..(i + 1) * m.nq],
            sq,
            TOL_ROLLOUT,
        );
        r.check(
            "rollout",
            &at,
            &d.qvel,
            &v[i * m.nv..(i + 1) * m.nv],
            sv,
            TOL_ROLLOUT,
        );
        r.check(
            "rollout",
            &at,
            &d.act,
            &a[i * m.na..(i + 1) * m.na],
            sa,
            TOL_ROLLOUT,
        );
    }
    r.horizon = format!("{horizon}/{nstep}");
}

// ---------------------------------------------------------------------------------------------
// Driver

const COLUMNS: [(&str, &str); 17] = [
    ("qM", "qM"),
    ("qfrc_bias", "bias"),
    ("qfrc_passive", "passive"),
    ("qfrc_actuator", "actuator"),
    ("act_dot", "act_dot"),
    ("qacc_smooth", "qacc_sm"),
    ("contact", "contact"),
    ("efc", "efc"),
    ("efc_force", "efc_frc"),
    ("qacc", "qacc"),
    ("qfrc_constraint", "qfrc_con"),
    ("sensordata", "sensor"),
    ("qfrc_inverse", "inverse"),
    ("rollout", "rollout"),
    ("fd_transition", "fd_A_B"),
    ("fd_inverse", "fd_inv"),
    ("body_mass", "mass"),
];

/// Runs every model of `package` (the first component of its name), prints a table of the
/// worst errors and fails listing every model that does not match.
fn run_package(package: &str) {
    let cache = cache_dir();
    assert!(
        cache.join("ZOO_STAMP").is_file(),
        "the model zoo cache is missing ({}): fetch it with `python3 tools/zoo/fetch.py` \
         (set MOREAU_ZOO to put it elsewhere)",
        cache.display()
    );
    let filter = std::env::var("ZOO_MODEL").unwrap_or_default();
    let entries: Vec<Entry> = manifest()
        .into_iter()
        .filter(|e| e.name.split('/').next() == Some(package))
        .filter(|e| e.name.contains(filter.as_str()))
        .collect();
    let mut table = String::new();
    let _ = write!(
        table,
        "{:<36} {:>11} {:>8}",
        "model", "nq/nv/ncon", "horizon"
    );
    for (_, h) in COLUMNS {
        let _ = write!(table, " {h:>8}");
    }
    table.push('\n');
    let mut failed = Vec::new();
    let mut pending = Vec::new();
    let mut pending_bad = Vec::new();
    let mut notes = Vec::new();
    let mut known = Vec::new();
    for e in &entries {
        if e.status == "pending" {
            // reference data only: it must exist and belong to the cached file
            if let Err(msg) = check_reference(e) {
                pending_bad.push(format!("{}: {msg}", e.name));
            }
            pending.push(e.name.clone());
            continue;
        }
        let mut r = Report {
            name: e.name.clone(),
            sizes: String::new(),
            horizon: String::new(),
            worst: BTreeMap::new(),
            failures: Vec::new(),
            notes: Vec::new(),
        };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| check_model(e, &mut r))) {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            r.fail("load", format!("panicked: {msg}"));
        }
        let _ = write!(table, "{:<36} {:>11} {:>8}", r.name, r.sizes, r.horizon);
        for (key, _) in COLUMNS {
            match r.worst.get(key) {
                Some(w) => {
                    let _ = write!(table, " {w:>8.1e}");
                }
                None => {
                    let _ = write!(table, " {:>8}", "-");
                }
            }
        }
        table.push('\n');
        notes.extend(r.notes.iter().map(|n| format!("{}: {n}", r.name)));
        if let Some(why) = e.status.strip_prefix("failing") {
            // a known failure (tools/zoo/models.txt says why): it must still fail, so that
            // the list shrinks as models are fixed
            if r.failures.is_empty() {
                r.failures.push(format!(
                    "now matches MuJoCo: remove its `failing` status in tools/zoo/models.txt ({})",
                    why.trim()
                ));
                failed.push(r);
            } else {
                if std::env::var_os("ZOO_VERBOSE").is_some() {
                    r.failures.iter().for_each(|f| println!("{}: {f}", r.name));
                }
                let first = r.failures[0].clone();
                known.push(format!(
                    "{}: {} ({} failures; first: {first})",
                    r.name,
                    why.trim(),
                    r.failures.len()
                ));
            }
        } else if !r.failures.is_empty() {
            failed.push(r);
        }
    }
    println!("{table}");
    for n in &notes {
        println!("{n}");
    }
    for k in &known {
        println!("known failure (status `failing` in tools/zoo/models.txt): {k}");
    }
    if !pending.is_empty() {
        println!(
            "reference data only (status `pending` in tools/zoo/models.txt): {}",
            pending.join(", ")
        );
    }
    let mut msg = String::new();
    for p in &pending_bad {
        let _ = writeln!(msg, "{p}");
    }
    let shown = if std::env::var_os("ZOO_VERBOSE").is_some() {
        usize::MAX
    } else {
        6
    };
    for r in &failed {
        let _ = writeln!(msg, "{} ({} failures):", r.name, r.failures.len());
        for f in r.failures.iter().take(shown) {
            let _ = writeln!(msg, "    {f}");
        }
    }
    assert!(
        failed.is_empty() && pending_bad.is_empty(),
        "{} of {} {package} models differ from MuJoCo 4.0.0:\n{msg}\n{table}",
        failed.len(),
        entries.len() - pending.len()
    );
}

#[test]
fn dm_control() {
    run_package("dm_control");
}

#[test]
fn gymnasium() {
    run_package("gymnasium");
}

#[test]
fn mujoco_testdata() {
    run_package("mujoco");
}

#[test]
fn menagerie() {
    run_package("menagerie");
}
