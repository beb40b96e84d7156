//! Self-contained HTML pages that draw a moreau [`Model`] in 3-D and play trajectories of it.
//!
//! A page embeds three.js (`assets/three.min.js`, the npm package `three` bundled with its
//! `OrbitControls` by `tools/viewer/fetch_three.sh`), the model's geometry (every geom type:
//! plane, height field, sphere, capsule, ellipsoid, cylinder, box, mesh; colours from `rgba`
//! and materials) and, per trajectory frame, the bodies' world poses `xpos`/`xquat` computed here
//! by forward kinematics, so the page does no physics and needs no network. Contacts come from
//! the trajectory when it recorded them (`moreau simulate --contacts`, [`contacts_json`]) and are
//! otherwise computed here from the recorded state (points from `qpos`; forces when `qvel` and,
//! for actuated models, `ctrl` were recorded).
//!
//! ```no_run
//! let m = moreau::load("models/cartpole.xml").unwrap();
//! let v: serde_json::Value =
//!     serde_json::from_str(&std::fs::read_to_string("traj.json").unwrap()).unwrap();
//! let trajs = moreau_viewer::from_json(&m, &v, "simulate").unwrap();
//! let html = moreau_viewer::page(&m, &trajs, &moreau_viewer::Options::default()).unwrap();
//! std::fs::write("traj.html", html).unwrap();
//! ```

use moreau::model::GeomType;
use moreau::{Data, Model};
use serde_json::{json, Map, Value};

const THREE_JS: &str = include_str!("../assets/three.min.js");
const TEMPLATE: &str = include_str!("page.html");
const APP_JS: &str = include_str!("viewer.js");

/// MuJoCo's default geom colour: a geom whose `rgba` is still this takes its material's colour
/// (MJCF reference, geom/rgba: "If the value of this attribute is different from the internal
/// default, it takes precedence over the material").
const DEFAULT_RGBA: [f64; 4] = [0.5, 0.5, 0.5, 1.0];

/// One contact of a trajectory frame (`mjContact` plus `mj_contactForce`).
#[derive(Clone, Debug, PartialEq)]
pub struct Contact {
    /// The two geoms (`geom1`, `geom2`).
    pub geom: [usize; 2],
    /// Signed distance (negative in penetration).
    pub dist: f64,
    /// Contact point, world frame.
    pub pos: [f64; 3],
    /// Rows: normal (from geom1 to geom2), tangent 1, tangent 2.
    pub frame: [[f64; 3]; 3],
    /// `mj_contactForce`: normal, two tangential forces, torsional and rolling torques, in the
    /// contact frame; `None` when the state did not determine it.
    pub force: Option<[f64; 6]>,
}

impl Contact {
    /// The contact's force in the world frame (`Σᵢ force[i] · frame[i]`, i < 3): the force that
    /// geom1 exerts on geom2.
    pub fn world_force(&self) -> Option<[f64; 3]> {
        let f = self.force?;
        let mut w = [0.0; 3];
        for (i, row) in self.frame.iter().enumerate() {
            for k in 0..3 {
                w[k] += f[i] * row[k];
            }
        }
        Some(w)
    }
}

/// A trajectory to play: rows of `qpos` over `time`, optionally the rest of the state and the
/// recorded contacts.
#[derive(Clone, Debug, Default)]
pub struct Trajectory {
    /// Shown in the page's legend.
    pub name: String,
    /// One time per row (seconds).
    pub time: Vec<f64>,
    pub qpos: Vec<Vec<f64>>,
    pub qvel: Option<Vec<Vec<f64>>>,
    pub act: Option<Vec<Vec<f64>>>,
    /// Controls applied from each row (one row fewer than `qpos` is fine: the last state reuses
    /// the last row).
    pub ctrl: Option<Vec<Vec<f64>>>,
    /// Recorded contacts, one list per row.
    pub contact: Option<Vec<Vec<Contact>>>,
}

/// Page settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// The page's title (default: "moreau").
    pub title: Option<String>,
    /// Frames kept per simulated second (the page interpolates poses between them); rows
    /// closer in time than `1 / max_fps` are skipped, the first and last are always kept.
    pub max_fps: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            title: None,
            max_fps: 120.0,
        }
    }
}

type Res<T> = Result<T, String>;

/// The contacts of `d` (after `forward` or `fwd_position`) as JSON, one object per contact with
/// MuJoCo's names: `geom1`, `geom2`, `dist`, `pos`, `frame` (3×3 rows, first the normal) and
/// `force` (`mj_contactForce`: 6 numbers in the contact frame). Contacts listed only because of
/// `gap` (inactive) are left out. This is what `moreau simulate --contacts` writes per row
/// under the key `contact`.
pub fn contacts_json(m: &Model, d: &Data<f64>) -> Value {
    Value::Array(
        active_contacts(m, d, true)
            .into_iter()
            .map(|c| {
                json!({"geom1": c.geom[0], "geom2": c.geom[1], "dist": c.dist, "pos": c.pos,
                       "frame": c.frame, "force": c.force})
            })
            .collect(),
    )
}

/// The active contacts of `d`, with forces when `forces`.
fn active_contacts(m: &Model, d: &Data<f64>, forces: bool) -> Vec<Contact> {
    d.contact
        .iter()
        .enumerate()
        .filter(|(_, c)| c.exclude == 0)
        .map(|(i, c)| {
            let fr = &c.frame;
            Contact {
                geom: c.geom,
                dist: c.dist,
                pos: [c.pos.x, c.pos.y, c.pos.z],
                frame: [0, 1, 2].map(|r| [fr[(r, 0)], fr[(r, 1)], fr[(r, 2)]]),
                force: forces.then(|| moreau::pipeline::contact_force(m, d, i)),
            }
        })
        .collect()
}

/// Reads `key` as rows of `n` numbers (`None` when absent).
fn rows(o: &Map<String, Value>, key: &str, n: usize) -> Res<Option<Vec<Vec<f64>>>> {
    let Some(v) = o.get(key) else {
        return Ok(None);
    };
    let a = v
        .as_array()
        .ok_or_else(|| format!("'{key}' must be an array of rows"))?;
    a.iter()
        .enumerate()
        .map(|(t, r)| {
            let r = r
                .as_array()
                .ok_or_else(|| format!("'{key}'[{t}] must be an array"))?;
            if r.len() != n {
                return Err(format!(
                    "'{key}'[{t}] has {} entries, the model needs {n}",
                    r.len()
                ));
            }
            r.iter()
                .enumerate()
                .map(|(i, x)| {
                    x.as_f64()
                        .filter(|x| x.is_finite())
                        .ok_or_else(|| format!("'{key}'[{t}][{i}] is not a finite number"))
                })
                .collect()
        })
        .collect::<Res<Vec<_>>>()
        .map(Some)
}

fn num_array<const N: usize>(v: &Value, what: &str) -> Res<[f64; N]> {
    let a = v
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| format!("{what} must be an array of {N} numbers"))?;
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = x
            .as_f64()
            .ok_or_else(|| format!("{what} must be an array of {N} numbers"))?;
    }
    Ok(out)
}

/// Parses one recorded contact object (the format of [`contacts_json`]).
fn contact_of(m: &Model, v: &Value, what: &str) -> Res<Contact> {
    let o = v
        .as_object()
        .ok_or_else(|| format!("{what} must be an object"))?;
    let geom = |k: &str| -> Res<usize> {
        o.get(k)
            .and_then(Value::as_u64)
            .map(|g| g as usize)
            .filter(|&g| g < m.ngeom)
            .ok_or_else(|| format!("{what}.{k} must be a geom index below ngeom = {}", m.ngeom))
    };
    let frame = o
        .get("frame")
        .and_then(Value::as_array)
        .filter(|a| a.len() == 3)
        .ok_or_else(|| format!("{what}.frame must be 3 rows of 3 numbers"))?;
    let force = match o.get("force") {
        None | Some(Value::Null) => None,
        Some(f) => Some(num_array::<6>(f, &format!("{what}.force"))?),
    };
    Ok(Contact {
        geom: [geom("geom1")?, geom("geom2")?],
        dist: o.get("dist").and_then(Value::as_f64).unwrap_or(0.0),
        pos: num_array::<3>(o.get("pos").unwrap_or(&Value::Null), &format!("{what}.pos"))?,
        frame: [
            num_array::<3>(&frame[0], &format!("{what}.frame[0]"))?,
            num_array::<3>(&frame[1], &format!("{what}.frame[1]"))?,
            num_array::<3>(&frame[2], &format!("{what}.frame[2]"))?,
        ],
        force,
    })
}

/// The trajectories of a JSON object written by `moreau simulate`/`replay` or an optimizer:
/// `qpos` (named `name`) with `time`, `qvel`, `act`, `ctrl` and `contact` when present, then
/// one overlay per other key ending in `_qpos` with as many rows (an optimizer's `plan_qpos`,
/// `pd_tracking_qpos`; named by the key without `_qpos`), sharing `time`. Without `time` the
/// rows are `opt.timestep` apart.
pub fn from_json(m: &Model, v: &Value, name: &str) -> Res<Vec<Trajectory>> {
    let o = v.as_object().ok_or("a trajectory must be a JSON object")?;
    let qpos = rows(o, "qpos", m.nq)?.ok_or("no 'qpos' key")?;
    if qpos.is_empty() {
        return Err("'qpos' has no rows".into());
    }
    let n = qpos.len();
    let time = match o.get("time") {
        None => (0..n).map(|t| t as f64 * m.opt.timestep).collect(),
        Some(t) => {
            let t: Vec<f64> = t
                .as_array()
                .ok_or("'time' must be an array of numbers")?
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    x.as_f64()
                        .filter(|x| x.is_finite())
                        .ok_or_else(|| format!("'time'[{i}] is not a finite number"))
                })
                .collect::<Res<_>>()?;
            if t.len() != n {
                return Err(format!("'time' has {} rows, 'qpos' {n}", t.len()));
            }
            t
        }
    };
    let same = |k: &str, r: Option<Vec<Vec<f64>>>| -> Res<Option<Vec<Vec<f64>>>> {
        match r {
            Some(r) if r.len() != n => Err(format!("'{k}' has {} rows, 'qpos' {n}", r.len())),
            r => Ok(r),
        }
    };
    let qvel = same("qvel", rows(o, "qvel", m.nv)?)?;
    let act = match rows(o, "act", m.na) {
        // optimizers write empty `act` rows for models without activations
        Ok(a) => same("act", a)?,
        Err(_) if m.na == 0 => None,
        Err(e) => return Err(e),
    };
    let ctrl = rows(o, "ctrl", m.nu)?.filter(|c| !c.is_empty());
    let contact = match o.get("contact") {
        None => None,
        Some(c) => {
            let a = c
                .as_array()
                .filter(|a| a.len() == n)
                .ok_or_else(|| format!("'contact' must be {n} lists of contacts, one per row"))?;
            Some(
                a.iter()
                    .enumerate()
                    .map(|(t, row)| {
                        row.as_array()
                            .ok_or_else(|| format!("'contact'[{t}] must be a list"))?
                            .iter()
                            .enumerate()
                            .map(|(i, c)| contact_of(m, c, &format!("'contact'[{t}][{i}]")))
                            .collect::<Res<Vec<_>>>()
                    })
                    .collect::<Res<Vec<_>>>()?,
            )
        }
    };
    let mut out = vec![Trajectory {
        name: name.to_string(),
        time: time.clone(),
        qpos,
        qvel,
        act,
        ctrl,
        contact,
    }];
    let mut extra: Vec<&String> = o
        .keys()
        .filter(|k| k.ends_with("_qpos") && k.len() > 5)
        .collect();
    extra.sort();
    for k in extra {
        let Ok(Some(q)) = rows(o, k, m.nq) else {
            continue;
        };
        if q.len() == n {
            out.push(Trajectory {
                name: k.trim_end_matches("_qpos").replace('_', " "),
                time: time.clone(),
                qpos: q,
                ..Default::default()
            });
        }
    }
    Ok(out)
}

/// Standard base64 of little-endian `f32`s.
fn b64_f32(x: impl IntoIterator<Item = f64>) -> String {
    let bytes: Vec<u8> = x
        .into_iter()
        .flat_map(|v| (v as f32).to_le_bytes())
        .collect();
    base64(&bytes)
}

fn b64_u32(x: impl IntoIterator<Item = usize>) -> String {
    let bytes: Vec<u8> = x
        .into_iter()
        .flat_map(|v| (v as u32).to_le_bytes())
        .collect();
    base64(&bytes)
}

fn base64(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(b.len().div_ceil(3) * 4);
    for c in b.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                s.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

fn geom_type_name(t: GeomType) -> &'static str {
    match t {
        GeomType::Plane => "plane",
        GeomType::Hfield => "hfield",
        GeomType::Sphere => "sphere",
        GeomType::Capsule => "capsule",
        GeomType::Ellipsoid => "ellipsoid",
        GeomType::Cylinder => "cylinder",
        GeomType::Box => "box",
        GeomType::Mesh => "mesh",
        GeomType::Sdf => "sdf",
    }
}

/// The colour a geom is drawn with: its `rgba`, or its material's when the geom's is MuJoCo's
/// default.
pub fn geom_color(m: &Model, g: usize) -> [f64; 4] {
    let own = m.geom_rgba[g].map(f64::from);
    match usize::try_from(m.geom_matid[g]) {
        Ok(mat) if own == DEFAULT_RGBA && mat < m.mat_rgba.len() => m.mat_rgba[mat],
        _ => own,
    }
}

fn model_json(m: &Model) -> Value {
    let geoms: Vec<Value> = (0..m.ngeom)
        .map(|g| {
            json!({
                "name": m.geom_name[g], "type": geom_type_name(m.geom_type[g]),
                "body": m.geom_bodyid[g], "size": m.geom_size[g], "pos": m.geom_pos[g],
                "quat": m.geom_quat[g], "rgba": geom_color(m, g), "group": m.geom_group[g],
                "dataid": m.geom_dataid[g],
            })
        })
        .collect();
    let meshes: Vec<Value> = m
        .mesh
        .iter()
        .map(|me| {
            json!({
                "name": me.name,
                "vert": b64_f32(me.vert.iter().flatten().copied()),
                "face": b64_u32(me.face.iter().flatten().copied()),
            })
        })
        .collect();
    let hfields: Vec<Value> = m
        .hfield
        .iter()
        .map(|h| {
            json!({"name": h.name, "nrow": h.nrow, "ncol": h.ncol, "size": h.size,
                   "data": b64_f32(h.data.iter().copied())})
        })
        .collect();
    json!({"nbody": m.nbody, "body_name": m.body_name, "geoms": geoms, "meshes": meshes,
           "hfields": hfields})
}

/// Indices of the rows kept: the first, each row at least `1 / max_fps` after the last kept,
/// and the last.
fn frames(time: &[f64], max_fps: f64) -> Vec<usize> {
    let gap = if max_fps > 0.0 { 1.0 / max_fps } else { 0.0 };
    let mut keep = Vec::new();
    let mut last = f64::NEG_INFINITY;
    for (i, &t) in time.iter().enumerate() {
        if keep.is_empty() || t - last >= gap * (1.0 - 1e-9) || i + 1 == time.len() {
            keep.push(i);
            last = t;
        }
    }
    keep
}

/// Where the contacts of a trajectory come from.
fn contact_source(m: &Model, t: &Trajectory) -> &'static str {
    if t.contact.is_some() {
        "recorded"
    } else if moreau::pipeline::forward_unsupported(m).is_some() {
        "none"
    } else if t.qvel.is_some() && (m.nu == 0 || t.ctrl.is_some()) {
        "computed"
    } else {
        "points"
    }
}

fn traj_json(m: &Model, t: &Trajectory, opts: &Options) -> Res<Value> {
    let n = t.qpos.len();
    if n == 0 {
        return Err(format!("trajectory '{}': no rows", t.name));
    }
    if t.time.len() != n {
        return Err(format!(
            "trajectory '{}': {} times for {n} rows",
            t.name,
            t.time.len()
        ));
    }
    for (i, q) in t.qpos.iter().enumerate() {
        if q.len() != m.nq || q.iter().any(|x| !x.is_finite()) {
            return Err(format!(
                "trajectory '{}': qpos[{i}] must be {} finite numbers",
                t.name, m.nq
            ));
        }
    }
    let keep = frames(&t.time, opts.max_fps);
    let source = contact_source(m, t);
    let mut d = Data::<f64>::new(m);
    let (mut xpos, mut xquat) = (Vec::new(), Vec::new());
    let mut coff = vec![0usize];
    let mut cdat: Vec<f64> = Vec::new();
    let mut cgeom: Vec<usize> = Vec::new();
    let mut push_contacts = |cs: &[Contact], cdat: &mut Vec<f64>| {
        for c in cs {
            let f = c.world_force().unwrap_or([f64::NAN; 3]);
            cdat.extend_from_slice(&c.pos);
            cdat.extend_from_slice(&f);
            cgeom.extend_from_slice(&c.geom);
        }
    };
    for &i in &keep {
        d.qpos.copy_from_slice(&t.qpos[i]);
        d.time = t.time[i];
        match source {
            "computed" => {
                let row = |r: &Option<Vec<Vec<f64>>>| r.as_ref().and_then(|r| r.get(i).cloned());
                if let Some(v) = row(&t.qvel) {
                    d.qvel.copy_from_slice(&v);
                }
                if let Some(a) = row(&t.act) {
                    d.act.copy_from_slice(&a);
                }
                if let Some(c) = &t.ctrl {
                    if let Some(u) = c.get(i).or(c.last()) {
                        d.ctrl.copy_from_slice(u);
                    }
                }
                moreau::forward(m, &mut d);
                push_contacts(&active_contacts(m, &d, true), &mut cdat);
            }
            "points" => {
                moreau::pipeline::fwd_position(m, &mut d);
                push_contacts(&active_contacts(m, &d, false), &mut cdat);
            }
            "recorded" => {
                moreau::pipeline::kinematics(m, &mut d);
                if let Some(c) = &t.contact {
                    push_contacts(&c[i], &mut cdat);
                }
            }
            _ => moreau::pipeline::kinematics(m, &mut d),
        }
        coff.push(cdat.len() / 6);
        for b in 0..m.nbody {
            let (p, q) = (&d.xpos[b], &d.xquat[b]);
            xpos.extend_from_slice(&[p.x, p.y, p.z]);
            xquat.extend_from_slice(&[q.w, q.i, q.j, q.k]);
        }
    }
    if xpos.iter().any(|x| !x.is_finite()) {
        return Err(format!(
            "trajectory '{}': forward kinematics gave non-finite body positions",
            t.name
        ));
    }
    let mut fnorm: Vec<f64> = cdat
        .chunks(6)
        .map(|c| (c[3] * c[3] + c[4] * c[4] + c[5] * c[5]).sqrt())
        .filter(|f| f.is_finite() && *f > 0.0)
        .collect();
    fnorm.sort_by(f64::total_cmp);
    let fmax = fnorm.last().copied().unwrap_or(0.0);
    // the arrows' scale: the 95th percentile of the force magnitudes, so that an impact's
    // spike does not shrink the forces of the rest of the motion to dots
    let fscale = fnorm
        .get((fnorm.len() * 95 / 100).min(fnorm.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0);
    Ok(json!({
        "name": t.name,
        "time": keep.iter().map(|&i| t.time[i]).collect::<Vec<_>>(),
        "xpos": b64_f32(xpos),
        "xquat": b64_f32(xquat),
        "contact_source": source,
        "contact_offset": b64_u32(coff),
        "contact_data": b64_f32(cdat),
        "contact_geom": b64_u32(cgeom),
        "force_max": fmax,
        "force_scale": fscale,
    }))
}

fn html_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c => o.push(c),
        }
    }
    o
}

/// The page: one self-contained HTML document (three.js, the model and the trajectories
/// inside; no network needed) drawing `m` and playing `trajs` overlaid, the first in the
/// model's colours, the others tinted. Without trajectories it draws the model at `qpos0`.
pub fn page(m: &Model, trajs: &[Trajectory], opts: &Options) -> Res<String> {
    let mut out = Vec::with_capacity(THREE_JS.len() + APP_JS.len() + 8192);
    write_page(m, trajs, opts, &mut out)?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// [`page`] written into `w` as it is made, the same bytes: the page's data (model and
/// trajectories, several megabytes for a long trajectory of a robot with meshes) is serialized
/// straight into `w` instead of into a string that is then escaped and copied into the page.
pub fn write_page(
    m: &Model,
    trajs: &[Trajectory],
    opts: &Options,
    w: &mut impl std::io::Write,
) -> Res<()> {
    let still;
    let trajs = if trajs.is_empty() {
        still = [Trajectory {
            name: "qpos0".into(),
            time: vec![0.0],
            qpos: vec![m.qpos0.clone()],
            ..Default::default()
        }];
        &still[..]
    } else {
        trajs
    };
    let tj: Vec<Value> = trajs
        .iter()
        .map(|t| traj_json(m, t, opts))
        .collect::<Res<_>>()?;
    let title = opts.title.clone().unwrap_or_else(|| "moreau".into());
    let data = json!({"title": title, "model": model_json(m), "trajectories": tj,
                      "generator": format!("moreau-viewer {}", env!("CARGO_PKG_VERSION"))});
    let io = |e: std::io::Error| e.to_string();
    let mut rest = TEMPLATE;
    for marker in ["{{TITLE}}", "{{THREE}}", "{{DATA}}", "{{APP}}"] {
        let at = rest
            .find(marker)
            .ok_or_else(|| format!("page template: no {marker}"))?;
        w.write_all(&rest.as_bytes()[..at]).map_err(io)?;
        match marker {
            "{{TITLE}}" => w.write_all(html_escape(&title).as_bytes()).map_err(io)?,
            "{{THREE}}" => w.write_all(THREE_JS.as_bytes()).map_err(io)?,
            "{{DATA}}" => {
                let mut esc = ScriptEscape {
                    w: &mut *w,
                    lt: false,
                };
                serde_json::to_writer(&mut esc, &data).map_err(|e| e.to_string())?;
            }
            _ => w.write_all(APP_JS.as_bytes()).map_err(io)?,
        }
        rest = &rest[at + marker.len()..];
    }
    w.write_all(rest.as_bytes()).map_err(io)
}

/// Writes JSON into a script element: `</` inside one would end it, so every `</` becomes the
/// escaped `<\/` JSON allows, also where the two characters arrive in separate writes (`lt`:
/// the last byte written was `<`).
struct ScriptEscape<'a, W: std::io::Write> {
    w: &'a mut W,
    lt: bool,
}

impl<W: std::io::Write> std::io::Write for ScriptEscape<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut start = 0;
        for (i, &c) in buf.iter().enumerate() {
            let after_lt = if i == 0 { self.lt } else { buf[i - 1] == b'<' };
            if c == b'/' && after_lt {
                self.w.write_all(&buf[start..i])?;
                self.w.write_all(b"\\")?;
                start = i;
            }
        }
        self.w.write_all(&buf[start..])?;
        self.lt = buf.last() == Some(&b'<');
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        // RFC 4648, section 10
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    #[test]
    fn frames_keep_first_last_and_spacing() {
        let t: Vec<f64> = (0..=100).map(|i| i as f64 * 0.002).collect();
        let k = frames(&t, 100.0);
        assert_eq!(k.first(), Some(&0));
        assert_eq!(k.last(), Some(&100));
        // 0.2 s at 100 frames per second: every fifth row
        assert_eq!(k.len(), 21);
        assert!(k.windows(2).all(|w| w[1] - w[0] == 5));
        assert_eq!(frames(&t, 0.0).len(), 101);
    }

    /// Contacts written by [`contacts_json`] read back by [`from_json`] unchanged, with the
    /// world force the frame-weighted sum of the contact-frame force.
    #[test]
    fn recorded_contacts_round_trip() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/box_drop.xml");
        let m = moreau::load(path).unwrap();
        let mut d = Data::<f64>::new(&m);
        for _ in 0..200 {
            moreau::step(&m, &mut d);
        }
        moreau::forward(&m, &mut d);
        let cj = contacts_json(&m, &d);
        assert!(!cj.as_array().unwrap().is_empty());
        let v = json!({"time": [d.time], "qpos": [d.qpos], "contact": [cj]});
        let t = from_json(&m, &v, "t").unwrap();
        assert_eq!(t.len(), 1);
        let got = &t[0].contact.as_ref().unwrap()[0];
        let want = active_contacts(&m, &d, true);
        assert_eq!(got, &want);
        for c in got {
            let f = c.force.unwrap();
            let w = c.world_force().unwrap();
            for (k, wk) in w.iter().enumerate() {
                let e = f[0] * c.frame[0][k] + f[1] * c.frame[1][k] + f[2] * c.frame[2][k];
                assert_eq!(*wk, e);
            }
        }
        // a page of it: the data block parses and names the trajectory
        let html = page(&m, &t, &Options::default()).unwrap();
        assert!(html.contains(r#""contact_source":"recorded""#));
    }

    /// `</` inside the page's data becomes `<\/` also when `<` and `/` come in separate
    /// writes, and a title that would close the data's script element is escaped there.
    #[test]
    fn page_data_cannot_close_its_script_element() {
        use std::io::Write as _;
        let mut out = vec![];
        let mut esc = ScriptEscape {
            w: &mut out,
            lt: false,
        };
        for part in ["a<", "/b</c<", "<", "/", "/d"] {
            esc.write_all(part.as_bytes()).unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), r"a<\/b<\/c<<\//d");
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/box_drop.xml");
        let m = moreau::load(path).unwrap();
        let with = |title: &str| {
            let opts = Options {
                title: Some(title.into()),
                ..Default::default()
            };
            page(&m, &[], &opts).unwrap()
        };
        let (plain, odd) = (with("plain"), with("x</script>y"));
        assert_eq!(
            odd.matches("</script>").count(),
            plain.matches("</script>").count()
        );
        assert!(odd.contains(r#""title":"x<\/script>y""#));
        let mut streamed = vec![];
        write_page(&m, &[], &Options::default(), &mut streamed).unwrap();
        assert_eq!(
            streamed,
            page(&m, &[], &Options::default()).unwrap().into_bytes()
        );
    }

    #[test]
    fn bad_trajectories_are_refused() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/box_drop.xml");
        let m = moreau::load(path).unwrap();
        let q = m.qpos0.clone();
        let e = from_json(&m, &json!({"qpos": [[1.0]]}), "t").unwrap_err();
        assert!(e.contains("'qpos'[0] has 1 entries"), "{e}");
        let e = from_json(&m, &json!({"qpos": [q], "time": [0.0, 1.0]}), "t").unwrap_err();
        assert!(e.contains("'time' has 2 rows"), "{e}");
        let e = from_json(&m, &json!({"time": [0.0]}), "t").unwrap_err();
        assert!(e.contains("no 'qpos'"), "{e}");
        let c = json!({"geom1": 99, "geom2": 0, "pos": [0, 0, 0],
                       "frame": [[0, 0, 1], [1, 0, 0], [0, 1, 0]]});
        let e = from_json(&m, &json!({"qpos": [q], "contact": [[c]]}), "t").unwrap_err();
        assert!(e.contains("geom index"), "{e}");
    }
}
