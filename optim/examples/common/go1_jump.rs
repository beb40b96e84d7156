//! A jump of MuJoCo Menagerie's Unitree Go1 (the public zoo's `unitree_go1/scene.xml`,
//! unchanged: 12 position servos kp 100 with `forcerange`, soft contacts, elliptic cones,
//! impratio 100), shared by `examples/go1_jump.rs` and its test.
//!
//! - [`Script`]: a crouch-and-launch servo profile (crouch, hold, extend the legs fast, back to
//!   `home`); the engine's rollout under it leaves the ground, which shows the jump is within
//!   the actuators' `ctrlrange` and `forcerange`. It is the initial guess of both planners.
//! - [`solve_collocation`]: direct collocation ([`Collocation`], the servos' affine bias,
//!   `ctrlrange`/`forcerange` as penalties) with a trunk-height target over the guess's flight,
//!   the trunk level and at its start, the joints near `home`, `home` at rest at the end.
//! - [`solve_ilqr`]: the same task by iLQR through the engine's step (analytic transition
//!   Jacobians, controls as offsets from `home`, box-constrained by `ctrlrange`) with a
//!   time-varying reference ([`TrackingCost`]; with the feet's [`Clearance`] term,
//!   [`JumpCost`]).
//! - From a standing guess (the rollout with the servos at `home`): [`Goal::over_window`] with
//!   a [`Clearance`] term or the jump's [`Requirements`] (apex and feet clearance as inequality
//!   constraints, by augmented-Lagrangian rounds: [`solve_ilqr_al`], [`AlSettings`]); iLQR from
//!   the standing controls, then collocation from its plan.

use moreau::{differentiate_pos, Data, Model};
use moreau_optim::collocation::{Collocation, Task, Weights};
use moreau_optim::ilqr::{ilqr, Dynamics, IlqrOptions, StageCost, TrackingCost};
use moreau_optim::lm::{solve_lm, LevenbergMarquardt};
use moreau_optim::system::{ControlOffset, MoreauSystem};
use nalgebra::{DMatrix, DVector};

/// The Go1's model (unchanged) and its `home` keyframe.
pub fn load() -> Result<(Model, Vec<f64>, Vec<f64>), String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = moreau_optim::zoo::fetch_if_missing(&root, moreau_optim::zoo::GO1)?;
    let model = moreau::load(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let key = model
        .key_name
        .iter()
        .position(|k| k == "home")
        .ok_or("no home keyframe")?;
    let (q, u) = (model.key_qpos[key].clone(), model.key_ctrl[key].clone());
    Ok((model, q, u))
}

/// A crouch-and-launch servo profile (targets of the 12 position servos, in the actuator order
/// FR, FL, RR, RL × hip, thigh, calf). Steps `0..crouch`: a linear ramp from `home` to the crouch
/// (thigh `crouch_thigh`, calf `crouch_calf`); until `push`: hold; `push..release`: the launch
/// targets (front thighs `launch_front`, rear thighs `launch_rear`, calves `launch_calf`; far
/// from the crouch, so the servos saturate at `forcerange`); then `home` again for the landing.
#[derive(Clone, Debug)]
pub struct Script {
    pub crouch: usize,
    pub push: usize,
    pub release: usize,
    pub crouch_thigh: f64,
    pub crouch_calf: f64,
    pub launch_front: f64,
    pub launch_rear: f64,
    pub launch_calf: f64,
}

impl Default for Script {
    /// Tuned on MuJoCo 4.0.0's rollout: about 90 steps (0.18 s) off the ground, apex 0.33 m,
    /// landing within 1° of upright. The front thighs push further forward than the rear ones
    /// to cancel the pitch the launch would give.
    fn default() -> Self {
        Script {
            crouch: 40,
            push: 60,
            release: 85,
            crouch_thigh: 1.0,
            crouch_calf: -2.2,
            launch_front: 1.2,
            launch_rear: 0.6,
            launch_calf: -1.4,
        }
    }
}

impl Script {
    /// A profile whose crouch keeps the lower calves off the floor: the default's launch
    /// timing with a shallower crouch (calf −1.9 instead of −2.2) and the launch thighs at 1.0
    /// and 0.6. In the default's crouch the capsules on the lower calves (geoms 19, 30, 42, 54)
    /// touch the floor and leave it at the launch, and their contact forces appear and vanish
    /// there (a jump of the inverse dynamics that collocation's Gauss–Newton model cannot
    /// follow); here only the four feet touch the floor before the flight. Tuned on MuJoCo
    /// 4.0.0's rollout: about 118 steps off the ground from step 93, apex 0.374 m, landing
    /// within 3° of upright.
    pub fn knees_clear() -> Self {
        Script {
            crouch_calf: -1.9,
            launch_front: 1.0,
            ..Script::default()
        }
    }

    /// The servo targets at step `t` (`home`: the keyframe's `ctrl`).
    pub fn ctrl(&self, home: &[f64], t: usize) -> Vec<f64> {
        let mut u = home.to_vec();
        for leg in 0..4 {
            let (thigh, calf) = if t < self.crouch {
                let s = t as f64 / self.crouch as f64;
                (
                    (1.0 - s) * home[3 * leg + 1] + s * self.crouch_thigh,
                    (1.0 - s) * home[3 * leg + 2] + s * self.crouch_calf,
                )
            } else if t < self.push {
                (self.crouch_thigh, self.crouch_calf)
            } else if t < self.release {
                let front = leg < 2;
                (
                    if front {
                        self.launch_front
                    } else {
                        self.launch_rear
                    },
                    self.launch_calf,
                )
            } else {
                (home[3 * leg + 1], home[3 * leg + 2])
            };
            u[3 * leg + 1] = thigh;
            u[3 * leg + 2] = calf;
        }
        u
    }

    /// The controls of `horizon` steps.
    pub fn controls(&self, home: &[f64], horizon: usize) -> Vec<Vec<f64>> {
        (0..horizon).map(|t| self.ctrl(home, t)).collect()
    }
}

/// The engine's open-loop rollout of `u` from `(q0, 0)`: qpos at knots `0..=T`.
pub fn rollout(m: &Model, q0: &[f64], u: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let mut d = Data::new(m);
    d.qpos.copy_from_slice(q0);
    let mut qs = vec![q0.to_vec()];
    for ut in u {
        d.ctrl.copy_from_slice(ut);
        moreau::step(m, &mut d);
        qs.push(d.qpos.clone());
    }
    qs
}

/// A jump's initial guess derived from the standing robot alone, kinematically: no dynamics,
/// no controls (collocation's inverse dynamics gives those). Up to the crouch the
/// configurations are the standing rollout's; from there the trunk (x, y and orientation kept
/// from the rollout at that knot) goes down `crouch` m over `crouch_knots` knots (a quintic
/// smoothstep, at rest at both ends), rises with constant upward acceleration to the take-off
/// height at knot `takeoff`, flies a ballistic arc under the model's gravity whose top is
/// `apex` at knot `apex_knot`, lands at `2·apex_knot − takeoff`, and then runs the same profile
/// backwards in time (decelerating down to the crouch, back up to standing) and holds its
/// standing height. The push starts where constant acceleration from rest at the crouch reaches
/// the take-off height with the ballistic take-off speed (`2Δz/(v h)` knots before take-off).
/// The feet stay at their standing world positions on the floor until take-off and from
/// landing on; in flight each foot's height is its standing one plus
/// `S(x)·(z_trunk − z_takeoff + lift)`, where `S` is the quintic smoothstep of
/// `x = min(t − takeoff, landing − t)/ramp` (clamped to 1): the foot leaves the floor at rest,
/// then follows the trunk's arc with the legs tucked `lift` m. The 12 leg joints come from the
/// feet's positions by inverse kinematics at every knot (Newton on each foot's 3×3
/// translational Jacobian, `mj_jac` at the foot sphere's centre, from the previous knot's
/// joints).
#[derive(Clone, Debug)]
pub struct Ballistic {
    pub takeoff: usize,
    pub apex_knot: usize,
    pub apex: f64,
    pub lift: f64,
    pub ramp: usize,
    pub crouch: f64,
    pub crouch_knots: usize,
    /// A push whose force the contacts can give ([`Ballistic::support`]): the trunk's
    /// acceleration rises smoothly from rest and falls to free fall at take-off, and the stance
    /// feet sink to the depth at which the floor carries it. Off: the constant-acceleration push
    /// with the feet on their standing spots.
    pub support: bool,
}

impl Default for Ballistic {
    /// Take-off at knot 115, the top of the arc 0.365 m at knot 155 (the requirements' knot;
    /// 4.5 mm above their 0.3605 m bound), landing at knot 195, the legs tucked 3 cm in flight
    /// over 20-knot ramps (with 2 cm the feet are 3.6 mm short of the requirement at knots 132
    /// and 178), no crouch (the push starts from the standing height at knot 31).
    fn default() -> Self {
        Ballistic {
            takeoff: 115,
            apex_knot: 155,
            apex: 0.365,
            lift: 0.03,
            ramp: 20,
            crouch: 0.0,
            crouch_knots: 0,
            support: false,
        }
    }
}

/// `∫₀¹ f` and `∫₀¹ (1 − x) f(x) dx` by composite Simpson on 512 intervals (the velocity and
/// displacement a unit-time acceleration profile `f` gives from rest).
fn moments(f: impl Fn(f64) -> f64) -> (f64, f64) {
    let n = 512;
    let (mut a, mut b) = (0.0, 0.0);
    for i in 0..=n {
        let x = i as f64 / n as f64;
        let w = if i == 0 || i == n {
            1.0
        } else if i % 2 == 1 {
            4.0
        } else {
            2.0
        };
        a += w * f(x);
        b += w * (1.0 - x) * f(x);
    }
    (a / (3.0 * n as f64), b / (3.0 * n as f64))
}

/// `∫₀ˣ (x − y) f(y) dy` by composite Simpson on 64 intervals (the displacement at `x`).
fn displacement(f: &impl Fn(f64) -> f64, x: f64) -> f64 {
    let n = 64;
    let mut out = 0.0;
    for i in 0..=n {
        let y = x * i as f64 / n as f64;
        let w = if i == 0 || i == n {
            1.0
        } else if i % 2 == 1 {
            4.0
        } else {
            2.0
        };
        out += w * (x - y) * f(y);
    }
    out * x / (3.0 * n as f64)
}

/// The supported push (`Ballistic::support`): the trunk's vertical acceleration over the push
/// of `tp` s, as a function of `x = s/tp ∈ [0, 1]`, `−g·S(x) + A sin²(πx) + B sin²(πx)(2x − 1)`
/// with `S` the quintic smoothstep: 0 at the start (at rest on the floor) and `−g` at take-off
/// (the floor's force falls to zero there), with `A`, `B` such that the push ends at speed `v`
/// after rising `dz`. Returns `(A, B)`.
fn push_profile(g: f64, tp: f64, v: f64, dz: f64) -> Option<(f64, f64)> {
    let bump = |x: f64| (std::f64::consts::PI * x).sin().powi(2);
    let (s1, s2) = moments(smoothstep5);
    let (a1, a2) = moments(bump);
    let (b1, b2) = moments(|x| bump(x) * (2.0 * x - 1.0));
    // tp·(−g s1 + A a1 + B b1) = v, tp²·(−g s2 + A a2 + B b2) = dz
    let (r1, r2) = (v / tp + g * s1, dz / (tp * tp) + g * s2);
    let det = a1 * b2 - a2 * b1;
    if det.abs() < 1e-12 || !r1.is_finite() || !r2.is_finite() {
        return None;
    }
    Some(((r1 * b2 - r2 * b1) / det, (a1 * r2 - a2 * r1) / det))
}

/// The quintic smoothstep `6x⁵ − 15x⁴ + 10x³` of `x` clamped to `[0, 1]` (zero first and second
/// derivatives at both ends).
fn smoothstep5(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    x * x * x * (10.0 + x * (-15.0 + 6.0 * x))
}

impl Ballistic {
    /// The guess (qpos at knots `0..=T`, `T = standing.len() − 1`) from the standing rollout
    /// `standing` of the model `m` (the four foot spheres `feet`), and the knots where the
    /// crouch and the push start.
    pub fn guess(
        &self,
        m: &Model,
        standing: &[Vec<f64>],
        feet: &[usize],
    ) -> Result<(Vec<Vec<f64>>, usize, usize), String> {
        use std::cmp::Ordering::Greater;
        let horizon = standing.len() - 1;
        let h = m.opt.timestep;
        let g = -m.opt.gravity[2];
        let land = 2 * self.apex_knot - self.takeoff.min(self.apex_knot);
        if self.takeoff >= self.apex_knot || g.partial_cmp(&0.0) != Some(Greater) || self.ramp == 0
        {
            return Err(format!(
                "ballistic guess: take-off {} must come before the apex knot {}, gravity {g} \
                 must pull down and the ramp {} be positive",
                self.takeoff, self.apex_knot, self.ramp
            ));
        }
        let th = (self.apex_knot - self.takeoff) as f64 * h;
        let v = g * th;
        let z_to = self.apex - 0.5 * g * th * th;
        let zs = standing[horizon][2];
        let zc = zs - self.crouch;
        if z_to.partial_cmp(&zc) != Some(Greater) {
            return Err(format!(
                "ballistic guess: take-off height {z_to:.4} m not above the crouch {zc:.4} m"
            ));
        }
        let accel = |ab: (f64, f64), x: f64| {
            let bump = (std::f64::consts::PI * x).sin().powi(2);
            -g * smoothstep5(x) + ab.0 * bump + ab.1 * bump * (2.0 * x - 1.0)
        };
        let (n_push, ab) = if self.support {
            // the push duration with the lowest peak force among those whose floor force
            // stays ≥ 0 (the acceleration ≥ −g) throughout
            let mut best: Option<(f64, usize, (f64, f64))> = None;
            // (the landing's mirror image of crouch and push must fit before the horizon)
            let longest = self
                .takeoff
                .min((horizon + 1).saturating_sub(land))
                .saturating_sub(self.crouch_knots);
            for n in 5..longest {
                let Some(ab) = push_profile(g, n as f64 * h, v, z_to - zc) else {
                    continue;
                };
                let xs = (0..=200).map(|i| accel(ab, i as f64 / 200.0));
                let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(l, u), a| (l.min(a), u.max(a)));
                if lo >= -g - 1e-9 && best.is_none_or(|b| hi < b.0) {
                    best = Some((hi, n, ab));
                }
            }
            let (_, n, ab) =
                best.ok_or("ballistic guess: no supported push fits before take-off")?;
            (n, ab)
        } else {
            ((2.0 * (z_to - zc) / (v * h)).round() as usize, (0.0, 0.0))
        };
        let before = n_push + self.crouch_knots;
        let after = land + before;
        if before + 1 > self.takeoff || after > horizon {
            return Err(format!(
                "ballistic guess: crouch and push need {before} knots before take-off {} and \
                 after landing {land} (horizon {horizon})",
                self.takeoff
            ));
        }
        let push = self.takeoff - n_push;
        let c0 = push - self.crouch_knots;
        let z0 = standing[c0][2];
        let tp = n_push as f64 * h;
        // with support, the crouch and the push start from the height at the crouch's knot
        // (the standing rollout has not quite settled there), the push refitted to it
        let (zc, ab) = if self.support {
            let zc = z0 - self.crouch;
            let ab = push_profile(g, tp, v, z_to - zc).ok_or("ballistic guess: no push")?;
            (zc, ab)
        } else {
            (zc, ab)
        };
        let acc = 2.0 * (z_to - zc) / (tp * tp);
        let base = standing[c0].clone();
        // the feet's standing world positions (centres of the spheres)
        let mut d = Data::new(m);
        d.qpos.copy_from_slice(&base);
        moreau::pipeline::kinematics(m, &mut d);
        let p0: Vec<[f64; 3]> = feet
            .iter()
            .map(|&f| [d.geom_xpos[f][0], d.geom_xpos[f][1], d.geom_xpos[f][2]])
            .collect();
        // each foot's leg: the (qpos, dof) of the hinges on its body's path to the root
        let legs: Vec<Vec<(usize, usize)>> = feet
            .iter()
            .map(|&f| {
                let mut out = vec![];
                let mut b = m.geom_bodyid[f];
                while b != 0 {
                    for j in m.body_jntadr[b]..m.body_jntadr[b] + m.body_jntnum[b] {
                        if m.jnt_type[j] == moreau::model::JointType::Hinge {
                            out.push((m.jnt_qposadr[j], m.jnt_dofadr[j]));
                        }
                    }
                    b = m.body_parentid[b];
                }
                out
            })
            .collect();
        if legs.iter().any(|l| l.len() != 3) {
            return Err("ballistic guess: each foot needs 3 hinges to its root".into());
        }
        // the trunk's height before the apex (the landing is its mirror image)
        let rise = |t: usize| -> f64 {
            if t <= c0 {
                z0
            } else if t <= push {
                z0 + (zc - z0) * smoothstep5((t - c0) as f64 / self.crouch_knots as f64)
            } else if t <= self.takeoff && self.support {
                let x = (t - push) as f64 / n_push as f64;
                zc + tp * tp * displacement(&|y| accel(ab, y), x)
            } else if t <= self.takeoff {
                let s = (t - push) as f64 * h;
                zc + 0.5 * acc * s * s
            } else {
                let s = (t as f64 - self.apex_knot as f64) * h;
                self.apex - 0.5 * g * s * s
            }
        };
        let height = |t: usize| -> f64 {
            if t <= self.apex_knot {
                rise(t)
            } else if t <= after {
                rise(2 * self.apex_knot - t)
            } else {
                z0
            }
        };
        let nv = m.nv;
        // with support, each stance knot's sink `e` (m below the standing spots): where the
        // floor's force on the standing configuration lowered by `e`, at rest (inverse dynamics
        // at v = a = 0: the trunk's vertical force with the robot lifted clear less that at
        // `e`), is the standing one times `1 + z̈/g` (z̈ the trunk's second difference)
        let sink: Vec<f64> = if self.support {
            let mut tau = vec![0.0; nv];
            let zero = vec![0.0; nv];
            let mut dq = Data::new(m);
            let mut lifted = |e: f64| {
                let mut q = base.clone();
                q[2] -= e;
                moreau_optim::collocation::inverse_force(m, &mut dq, &q, &zero, &zero, &mut tau);
                tau[2]
            };
            let free = lifted(-0.1);
            let floor = |e: f64, lifted: &mut dyn FnMut(f64) -> f64| free - lifted(e);
            let f0 = floor(0.0, &mut lifted);
            if f0.partial_cmp(&0.0) != Some(Greater) {
                return Err("ballistic guess: the standing rollout is not on the floor".into());
            }
            (0..=horizon)
                .map(|t| {
                    if t <= c0 || t == horizon || (t > self.takeoff && t < land) {
                        return 0.0;
                    }
                    let zdd = (height(t + 1) - 2.0 * height(t) + height(t - 1)) / (h * h);
                    // just above the margin where the force would be zero
                    let target = (f0 * (1.0 + zdd / g)).max(1e-6 * f0);
                    let (mut lo, mut hi) = (-0.01, 0.02);
                    for _ in 0..60 {
                        let mid = 0.5 * (lo + hi);
                        if floor(mid, &mut lifted) < target {
                            lo = mid;
                        } else {
                            hi = mid;
                        }
                    }
                    0.5 * (lo + hi)
                })
                .collect()
        } else {
            vec![0.0; horizon + 1]
        };
        let sink_to = sink[self.takeoff];
        let mut jp = vec![0.0; 3 * nv];
        let mut qs: Vec<Vec<f64>> = standing[..=c0].to_vec();
        let mut q = base.clone();
        // with support, the stance feet roll on the floor instead of sliding: each sphere's
        // centre moves by `radius · (φ_y, −φ_x)` for a rotation `φ` of its body between knots
        // (the contact point at rest), from where it was at the last knot; they land where they
        // took off
        let mut xy: Vec<[f64; 2]> = p0.iter().map(|p| [p[0], p[1]]).collect();
        let mut rot: Vec<nalgebra::Matrix3<f64>> =
            feet.iter().map(|&f| d.xmat[m.geom_bodyid[f]]).collect();
        // with support, the whole robot's centre of mass flies the discrete ballistic arc
        // (`c_{t+1} − 2c_t + c_{t−1} = −g h²`) from its take-off height back to it at landing,
        // at its take-off x: the trunk moves (x and z) against the legs' tuck
        let mut com_to = [[0.0; 3]; 2];
        let mut shift = [0.0, 0.0];
        for t in c0 + 1..=horizon {
            let z = height(t);
            let stance = t <= self.takeoff || t >= land;
            let up = if !stance {
                let x = (t - self.takeoff).min(land - t) as f64 / self.ramp as f64;
                smoothstep5(x) * (z - z_to + self.lift) - sink_to
            } else {
                -sink[t]
            };
            let passes = if self.support && !stance { 20 } else { 1 };
            for pass in 0..passes {
                q[0] = base[0] + if stance { 0.0 } else { shift[0] };
                q[2] = z + if stance { 0.0 } else { shift[1] };
                self.place_feet(
                    m,
                    &mut d,
                    &mut q,
                    (feet, &p0, &legs),
                    (&mut xy, &mut rot),
                    (up, stance && t != land),
                    t,
                    &mut jp,
                )?;
                if passes == 1 {
                    break;
                }
                moreau::pipeline::com_pos(m, &mut d);
                let c = d.subtree_com[1];
                let (k, n) = ((t - self.takeoff) as f64, (land - self.takeoff) as f64);
                let cx = com_to[1][0];
                let cz = com_to[1][2] + 0.5 * g * h * h * k * (n - k);
                let (ex, ez) = (cx - c[0], cz - c[2]);
                shift[0] += ex;
                shift[1] += ez;
                if ex.abs().max(ez.abs()) < 1e-12 || pass + 1 == passes {
                    break;
                }
            }
            if self.support && (t + 1 == self.takeoff || t == self.takeoff) {
                moreau::pipeline::com_pos(m, &mut d);
                let c = d.subtree_com[1];
                com_to[usize::from(t == self.takeoff)] = [c[0], c[1], c[2]];
            }
            qs.push(q.clone());
        }
        Ok((qs, c0, push))
    }

    /// The leg joints of `q` (trunk as given) that put each foot sphere's centre at its target
    /// by Newton's method on the foot's 3×3 translational Jacobian: height `p0 + up` (`p0` the
    /// standing spot), and horizontally `xy` (with support in stance, rolled on from the last
    /// knot's `xy` and body rotation `rot`, which are updated).
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn place_feet(
        &self,
        m: &Model,
        d: &mut Data,
        q: &mut [f64],
        (feet, p0, legs): (&[usize], &[[f64; 3]], &[Vec<(usize, usize)>]),
        (xy, rot): (&mut [[f64; 2]], &mut [nalgebra::Matrix3<f64>]),
        (up, stance): (f64, bool),
        t: usize,
        jp: &mut [f64],
    ) -> Result<(), String> {
        use std::cmp::Ordering::Less;
        let nv = m.nv;
        for (k, &f) in feet.iter().enumerate() {
            let mut target = [xy[k][0], xy[k][1], p0[k][2] + up];
            let mut err = f64::INFINITY;
            for _ in 0..30 {
                d.qpos.copy_from_slice(q);
                moreau::pipeline::kinematics(m, d);
                if self.support && stance {
                    let r = d.xmat[m.geom_bodyid[f]] * rot[k].transpose();
                    let (px, py) = (0.5 * (r[(2, 1)] - r[(1, 2)]), 0.5 * (r[(0, 2)] - r[(2, 0)]));
                    let radius = m.geom_size[f][0];
                    target[0] = xy[k][0] + radius * py;
                    target[1] = xy[k][1] - radius * px;
                }
                let e: Vec<f64> = (0..3).map(|a| target[a] - d.geom_xpos[f][a]).collect();
                err = e.iter().fold(0.0f64, |a, x| a.max(x.abs()));
                if err < 1e-12 {
                    break;
                }
                moreau::pipeline::com_pos(m, d);
                let pt = d.geom_xpos[f];
                moreau::jac(m, d, &pt, m.geom_bodyid[f], Some(&mut *jp), None);
                let jl = nalgebra::Matrix3::from_fn(|a, c| jp[a * nv + legs[k][c].1]);
                let step = jl
                    .lu()
                    .solve(&nalgebra::Vector3::new(e[0], e[1], e[2]))
                    .ok_or_else(|| format!("ballistic guess: singular leg {k} at knot {t}"))?;
                for c in 0..3 {
                    q[legs[k][c].0] += step[c];
                }
            }
            if err.partial_cmp(&1e-9) != Some(Less) {
                return Err(format!(
                    "ballistic guess: foot {k} misses its target by {err:.2e} m at knot {t}"
                ));
            }
            if self.support && stance {
                xy[k] = [target[0], target[1]];
            }
            rot[k] = d.xmat[m.geom_bodyid[f]];
        }
        Ok(())
    }
}

/// The inverse-dynamics forces of a guess (qpos at knots `0..=T`) in the collocation `c`:
/// per knot `t < T`, the largest excess of an actuator's force beyond its `forcerange`
/// (N·m; 0 inside) and the largest unactuated force `|Nᵀτ_t|` (N). The guess's controls are
/// what collocation's inverse dynamics gives; a force beyond `forcerange` is a penalty LM has
/// to remove, so this is a cheap check of a guess before LM runs.
pub fn guess_forces(c: &Collocation, guess: &[Vec<f64>]) -> Vec<(f64, f64)> {
    let z: Vec<f64> = guess[1..].iter().flatten().copied().collect();
    let ev = c.evaluate(&z);
    let m = &c.model;
    ev.force
        .iter()
        .zip(&ev.defect)
        .map(|(f, d)| {
            let excess = f
                .iter()
                .enumerate()
                .filter(|&(i, _)| m.actuator_forcelimited[i])
                .map(|(i, &x)| {
                    let [lo, hi] = m.actuator_forcerange[i];
                    (x - hi).max(lo - x).max(0.0)
                })
                .fold(0.0f64, f64::max);
            (excess, d.iter().fold(0.0f64, |a, x| a.max(x.abs())))
        })
        .collect()
}

/// Angle between the trunk's z axis and the world's (rad) of a free-base configuration.
pub fn tilt(q: &[f64]) -> f64 {
    let (w, x, y, z) = (q[3], q[4], q[5], q[6]);
    let n2 = w * w + x * x + y * y + z * z;
    (1.0 - 2.0 * (x * x + y * y) / n2).clamp(-1.0, 1.0).acos()
}

/// What a jump trajectory (qpos at knots `0..=T`) achieved.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Knots with no contact at all (all four feet and the body off the ground).
    pub airborne: usize,
    /// The longest run of consecutive airborne knots, and its first knot.
    pub flight: (usize, usize),
    /// Highest trunk position (m; `home` 0.27).
    pub apex: f64,
    /// Largest and last trunk tilt (rad).
    pub max_tilt: f64,
    pub final_tilt: f64,
    /// Last trunk height (m).
    pub final_z: f64,
    /// Contacts after the flight (the robot came down on the floor).
    pub landed: bool,
}

pub fn summarize(m: &Model, qs: &[Vec<f64>]) -> Summary {
    let ncon = moreau_problems::contact_counts(m, qs);
    let (mut best, mut run) = ((0, 0), 0);
    for (t, &n) in ncon.iter().enumerate() {
        run = if n == 0 { run + 1 } else { 0 };
        if run > best.0 {
            best = (run, t + 1 - run);
        }
    }
    Summary {
        airborne: ncon.iter().filter(|&&n| n == 0).count(),
        flight: best,
        apex: qs.iter().map(|q| q[2]).fold(f64::MIN, f64::max),
        max_tilt: qs.iter().map(|q| tilt(q)).fold(0.0, f64::max),
        final_tilt: qs.last().map_or(f64::NAN, |q| tilt(q)),
        final_z: qs.last().map_or(f64::NAN, |q| q[2]),
        landed: best.0 > 0 && ncon[best.1 + best.0..].iter().any(|&n| n > 0),
    }
}

impl Summary {
    /// A jump: at least `min_flight` consecutive knots off the ground, back on the floor, and
    /// upright at the end (tilt below `max_tilt`, trunk above `min_z`).
    pub fn jumped(&self, min_flight: usize, max_tilt: f64, min_z: f64) -> bool {
        self.flight.0 >= min_flight
            && self.landed
            && self.final_tilt < max_tilt
            && self.final_z > min_z
    }
}

/// The jump's task: a trunk height `apex` over the knots `window`, the trunk at its start
/// position (x, y) and level, the joints near `home`, and `home` at rest at the last knot. The
/// weights per dof of `q ⊖ q*`: `w` = (x and y, z inside the window, rotation, joints); at the
/// last knot `wf` = (`q ⊖ home`, `v`).
#[derive(Clone, Debug)]
pub struct Goal {
    pub home: Vec<f64>,
    pub apex: f64,
    pub window: (usize, usize),
    pub w: [f64; 4],
    pub wf: (f64, f64),
    /// Optionally, the feet off the floor inside the window ([`Clearance`]).
    pub clearance: Option<Clearance>,
    /// Optionally, the jump's hard requirements as inequality constraints ([`Requirements`]).
    pub requirements: Option<Requirements>,
    scratch: Scratch,
}

/// The feet's clearance term of a [`Goal`]: inside the window, for each foot (the spheres
/// `FR`, `FL`, `RR`, `RL`), `√weight · max(0, height − (z − radius))` with `z` the sphere's
/// centre height: zero once the sphere's bottom is `height` above the floor (z = 0). A standing
/// robot reaches a trunk target by straightening its legs; this term asks for a flight.
#[derive(Clone, Debug)]
pub struct Clearance {
    pub geoms: Vec<usize>,
    pub height: f64,
    pub weight: f64,
}

impl Clearance {
    /// The four feet of the Go1's model.
    pub fn feet(m: &Model, height: f64, weight: f64) -> Result<Clearance, String> {
        let geoms = ["FR", "FL", "RR", "RL"]
            .iter()
            .map(|n| {
                m.geom_name
                    .iter()
                    .position(|g| g == n)
                    .ok_or(format!("no geom {n}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Clearance {
            geoms,
            height,
            weight,
        })
    }
}

/// The jump's hard requirements as inequality constraints `g ≥ 0` on the configurations: the
/// trunk at least `apex` m high at knot `apex_knot` (`g = z − apex − margin`), and every foot's
/// bottom ([`feet_bottoms`]) at least `clearance` m above the floor at every knot of
/// `feet_window` (`g = bottom − clearance − margin`).
///
/// Enforced by the augmented Lagrangian of Powell–Hestenes–Rockafellar for inequalities
/// (`Nocedal & Wright 2006`, §17.4, in docs/references.md): each constraint `i` contributes the
/// residual row `√ρ · max(0, λ_i/ρ − g_i)` (the penalty `½ρ max(0, λ_i/ρ − g_i)²`; with `λ = 0`
/// a plain one-sided penalty like [`Clearance`]'s), and between inner solves the multipliers
/// are updated, `λ_i ← max(0, λ_i − ρ g_i)` ([`Requirements::update`]). At the solution an
/// active constraint's row sits at `λ_i/√ρ > 0` and an inactive one's at 0 with `g_i > 0`:
/// neither on the hinge's kink, unlike a penalty whose target is met exactly.
///
/// `margin` backs the plan's bounds off the requirements so that the engine's open-loop replay
/// of the plan's controls, which differs from the plan by the plan's residual dynamics
/// (`defect_tol`) and the forward solver's tolerance, meets them too: the plan is accepted with
/// `g_i ≥ −tol` ([`AlSettings::tol`]), so a replay within `margin − tol` of the plan meets the
/// requirements.
///
/// With `apex_window`, the apex requirement is on the trunk's *highest* knot over that window
/// ("at least one knot of the window is at least `apex` high"): the constraint is kept on one
/// knot, `apex_knot`, which moves to the knot where the plan's trunk is highest in the window
/// after every inner solve, before the violation is measured and the multipliers are updated
/// ([`Requirements::select_apex`]; the apex multiplier goes with it). Each inner solve is a
/// smooth problem with one fixed apex row, and a plan that meets it at its highest knot meets
/// `max_t z_t ≥ apex + margin` over the window: the disjunction "some knot is high enough" is
/// met through its best candidate, without the kinks of a max or the conservatism of a smooth
/// max's lower bound.
#[derive(Clone, Debug)]
pub struct Requirements {
    pub apex: f64,
    pub apex_knot: usize,
    /// The knots over which the apex requirement asks for the maximum (`None`: `apex_knot`
    /// fixed).
    pub apex_window: Option<(usize, usize)>,
    pub clearance: f64,
    pub feet_window: (usize, usize),
    /// The feet's sphere geoms (`FR`, `FL`, `RR`, `RL`).
    pub geoms: Vec<usize>,
    pub margin: f64,
    /// The penalty `ρ` (per m²).
    pub rho: f64,
    /// The multipliers: the feet's rows knot by knot (`(t − feet_window.0)·nf + k`), then the
    /// apex row; zero at the start.
    pub lambda: Vec<f64>,
}

impl Requirements {
    /// The Go1's requirements: the trunk at least `apex` at `apex_knot`, the four feet at least
    /// `clearance` up over `feet_window`, with the back-off `margin` and the penalty `rho`.
    pub fn go1(
        m: &Model,
        (apex, apex_knot): (f64, usize),
        (clearance, feet_window): (f64, (usize, usize)),
        margin: f64,
        rho: f64,
    ) -> Result<Requirements, String> {
        let bad = |x: f64| !x.is_finite() || x < 0.0;
        if feet_window.0 > feet_window.1 || bad(rho) || rho == 0.0 || bad(margin) {
            return Err(format!(
                "requirements: bad feet window {feet_window:?}, penalty {rho} or margin {margin}"
            ));
        }
        let geoms = Clearance::feet(m, clearance, 0.0)?.geoms;
        let n = geoms.len() * (feet_window.1 - feet_window.0 + 1) + 1;
        Ok(Requirements {
            apex,
            apex_knot,
            apex_window: None,
            clearance,
            feet_window,
            geoms,
            margin,
            rho,
            lambda: vec![0.0; n],
        })
    }

    fn nfeet(&self, t: usize) -> usize {
        if t >= self.feet_window.0 && t <= self.feet_window.1 {
            self.geoms.len()
        } else {
            0
        }
    }

    /// The number of constraint rows at knot `t`.
    pub fn dim(&self, t: usize) -> usize {
        self.nfeet(t) + usize::from(t == self.apex_knot)
    }

    /// The constraint values `g` (`dim(t)` of them) at knot `t` and configuration `q`, and with
    /// `jac` (`dim(t) × nv`) their tangent Jacobian; the index of the first one in `lambda`.
    fn values_at(
        &self,
        m: &Model,
        s: &mut (Data, Vec<f64>),
        t: usize,
        q: &[f64],
        g: &mut [f64],
        jac: Option<&mut DMatrix<f64>>,
    ) -> usize {
        let nf = self.nfeet(t);
        if nf > 0 {
            let mut fj = jac.as_ref().map(|_| DMatrix::zeros(nf, m.nv));
            feet_bottoms(m, s, &self.geoms, q, &mut g[..nf], fj.as_mut());
            for x in &mut g[..nf] {
                *x -= self.clearance + self.margin;
            }
            if let (Some(j), Some(fj)) = (jac, fj) {
                j.fill(0.0);
                j.rows_mut(0, nf).copy_from(&fj);
                if t == self.apex_knot {
                    j[(nf, 2)] = 1.0;
                }
            }
        } else if let Some(j) = jac {
            j.fill(0.0);
            if t == self.apex_knot {
                j[(0, 2)] = 1.0;
            }
        }
        if t == self.apex_knot {
            g[nf] = q[2] - self.apex - self.margin;
        }
        if nf > 0 {
            (t - self.feet_window.0) * nf
        } else {
            self.lambda.len() - 1
        }
    }

    /// The residual rows `√ρ max(0, λ_i/ρ − g_i)` at knot `t` into `r` (`dim(t)`), and with
    /// `jac` their Jacobian `−√ρ ∂g_i` where the row is active (zero where it is not; at the
    /// kink the zero side).
    fn rows_at(
        &self,
        m: &Model,
        s: &mut (Data, Vec<f64>),
        t: usize,
        q: &[f64],
        r: &mut [f64],
        mut jac: Option<&mut DMatrix<f64>>,
    ) {
        let i0 = self.values_at(m, s, t, q, r, jac.as_deref_mut());
        let sr = self.rho.sqrt();
        for (k, x) in r.iter_mut().enumerate() {
            let e = self.lambda[i0 + k] / self.rho - *x;
            *x = sr * e.max(0.0);
            if let Some(j) = jac.as_deref_mut() {
                let f = if e > 0.0 { -sr } else { 0.0 };
                j.row_mut(k).scale_mut(f);
            }
        }
    }

    /// Every constraint's value `g` along the configurations `qs` (knots `0..=T`), in the
    /// multipliers' order.
    pub fn values(&self, m: &Model, qs: &[Vec<f64>]) -> Vec<f64> {
        let mut s = (Data::new(m), vec![0.0; 3 * m.nv]);
        let mut out = vec![0.0; self.lambda.len()];
        let mut g = vec![0.0; self.geoms.len() + 1];
        for (t, q) in qs.iter().enumerate() {
            let n = self.dim(t);
            if n > 0 {
                let i0 = self.values_at(m, &mut s, t, q, &mut g[..n], None);
                let nf = self.nfeet(t);
                out[i0..i0 + nf].copy_from_slice(&g[..nf]);
                if t == self.apex_knot {
                    out[self.lambda.len() - 1] = g[nf];
                }
            }
        }
        out
    }

    /// With an `apex_window`, moves `apex_knot` to the window's knot where the trunk of `qs`
    /// (knots `0..=T`) is highest (the first such knot); without one, or with the window beyond
    /// `qs`, leaves it. Returns whether it moved.
    pub fn select_apex(&mut self, qs: &[Vec<f64>]) -> bool {
        let Some((a, b)) = self.apex_window else {
            return false;
        };
        if a > b || b >= qs.len() {
            return false;
        }
        let mut best = a;
        for t in a..=b {
            if qs[t][2] > qs[best][2] {
                best = t;
            }
        }
        let moved = best != self.apex_knot;
        self.apex_knot = best;
        moved
    }

    /// The largest violation `max(0, −g_i)` (m).
    pub fn violation(g: &[f64]) -> f64 {
        g.iter().fold(0.0f64, |a, &x| a.max(-x))
    }

    /// The multiplier update `λ_i ← max(0, λ_i − ρ g_i)`.
    pub fn update(&mut self, g: &[f64]) {
        for (l, &x) in self.lambda.iter_mut().zip(g) {
            *l = (*l - self.rho * x).max(0.0);
        }
    }
}

/// The augmented-Lagrangian outer loop of [`solve_collocation`] on a [`Goal`]'s
/// [`Requirements`]: at most `max_rounds` inner LM solves; after each, the multipliers are
/// updated and, where the largest violation fell by less than ×`decrease` from the last round,
/// the penalty `ρ` grows ×`growth` (at most to `max_rho`). Converged when an inner solve is
/// certified by LM ([`LevenbergMarquardt::gtol`]'s model check) with every constraint
/// violated by at most `tol` (m).
#[derive(Clone, Debug)]
pub struct AlSettings {
    pub max_rounds: usize,
    pub tol: f64,
    pub growth: f64,
    pub decrease: f64,
    pub max_rho: f64,
}

impl Default for AlSettings {
    fn default() -> Self {
        AlSettings {
            max_rounds: 10,
            tol: 1e-4,
            growth: 10.0,
            decrease: 0.25,
            max_rho: 1e6,
        }
    }
}

/// Kinematics scratch of a [`Goal`] and a [`JumpCost`]: a `Data` and a `3 × nv` point
/// Jacobian (a clone starts empty).
#[derive(Debug, Default)]
struct Scratch(std::cell::RefCell<Option<(Data, Vec<f64>)>>);

/// Each foot's bottom height above the floor, `z − radius` of the sphere `geoms[k]` (the floor
/// is `z = 0`), at the configuration `q`; with `jac` (`geoms.len() × nv`) also its Jacobian in
/// the tangent space of `mj_integratePos`: the `z` row of the translational Jacobian of the
/// sphere's centre, a point fixed on the geom's body (`mj_jac` at `geom_xpos`, Computation
/// "General framework": `∂p/∂q̇ = Σ_dof lin(cdof) + ang(cdof) × (p − subtree_com)` over the
/// body's path to the root; needs `com_pos` after the kinematics).
pub fn feet_bottoms(
    m: &Model,
    scratch: &mut (Data, Vec<f64>),
    geoms: &[usize],
    q: &[f64],
    bottom: &mut [f64],
    jac: Option<&mut DMatrix<f64>>,
) {
    let (d, jp) = scratch;
    d.qpos.copy_from_slice(q);
    moreau::pipeline::kinematics(m, d);
    for (k, &g) in geoms.iter().enumerate() {
        bottom[k] = d.geom_xpos[g][2] - m.geom_size[g][0];
    }
    if let Some(jac) = jac {
        let nv = m.nv;
        moreau::pipeline::com_pos(m, d);
        jp.resize(3 * nv, 0.0);
        for (k, &g) in geoms.iter().enumerate() {
            moreau::jac(m, d, &d.geom_xpos[g], m.geom_bodyid[g], Some(jp), None);
            for j in 0..nv {
                jac[(k, j)] = jp[2 * nv + j];
            }
        }
    }
}

impl Scratch {
    /// The scratch for `m` (made on first use).
    fn get<'a>(&'a self, m: &Model) -> std::cell::RefMut<'a, (Data, Vec<f64>)> {
        std::cell::RefMut::map(self.0.borrow_mut(), |s| {
            s.get_or_insert_with(|| (Data::new(m), vec![0.0; 3 * m.nv]))
        })
    }
}

impl Clone for Scratch {
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

impl Goal {
    /// The goal over the flight of a guess (its longest airborne run), at height `apex`.
    pub fn over_flight(home: &[f64], guess: &Summary, apex: f64) -> Goal {
        Goal {
            home: home.to_vec(),
            apex,
            window: (guess.flight.1, guess.flight.1 + guess.flight.0.max(1) - 1),
            w: [1e2, 1e3, 1e2, 1.0],
            wf: (1e3, 1e1),
            clearance: None,
            requirements: None,
            scratch: Scratch::default(),
        }
    }

    /// Reference configuration and the weight of its height at knot `t`.
    fn target(&self, t: usize) -> (Vec<f64>, f64) {
        let mut q = self.home.clone();
        if t >= self.window.0 && t <= self.window.1 {
            q[2] = self.apex;
            (q, self.w[1])
        } else {
            (q, 0.0)
        }
    }

    /// The goal over the fixed knots `window` (a standing guess has no flight to take it from),
    /// with the weights of [`Goal::over_flight`].
    pub fn over_window(home: &[f64], window: (usize, usize), apex: f64) -> Goal {
        Goal {
            home: home.to_vec(),
            apex,
            window,
            w: [1e2, 1e3, 1e2, 1.0],
            wf: (1e3, 1e1),
            clearance: None,
            requirements: None,
            scratch: Scratch::default(),
        }
    }

    /// The weight of tangent dof `i` (of 18) at a knot before the last.
    fn weight(&self, i: usize, wz: f64) -> f64 {
        match i {
            0 | 1 => self.w[0],
            2 => wz,
            3..=5 => self.w[2],
            _ => self.w[3],
        }
    }
}

impl Goal {
    /// The number of [`Requirements`] rows at knot `t` (after the clearance rows).
    fn nreq(&self, t: usize) -> usize {
        self.requirements.as_ref().map_or(0, |r| r.dim(t))
    }

    /// The number of clearance rows at knot `t`.
    fn nfeet(&self, t: usize) -> usize {
        match &self.clearance {
            Some(c) if t >= self.window.0 && t <= self.window.1 => c.geoms.len(),
            _ => 0,
        }
    }
}

impl Task for Goal {
    fn dim(&self, t: usize, horizon: usize) -> usize {
        if t == 0 {
            0
        } else if t == horizon {
            36
        } else {
            18 + self.nfeet(t) + self.nreq(t)
        }
    }
    fn residual(&self, m: &Model, t: usize, horizon: usize, q: &[f64], v: &[f64], r: &mut [f64]) {
        if t == 0 {
            return;
        }
        let (target, wz) = self.target(t);
        differentiate_pos(m, &mut r[..18], 1.0, &target, q);
        for (i, x) in r[..18].iter_mut().enumerate() {
            let w = if t == horizon {
                self.wf.0
            } else {
                self.weight(i, wz)
            };
            *x *= w.sqrt();
        }
        if t == horizon {
            for i in 0..18 {
                r[18 + i] = self.wf.1.sqrt() * v[i];
            }
        } else if let (Some(c), true) = (&self.clearance, self.nfeet(t) > 0) {
            let nf = c.geoms.len();
            let mut s = self.scratch.get(m);
            feet_bottoms(m, &mut s, &c.geoms, q, &mut r[18..18 + nf], None);
            for x in &mut r[18..18 + nf] {
                *x = c.weight.sqrt() * (c.height - *x).max(0.0);
            }
        }
        if let (Some(req), true) = (&self.requirements, t < horizon && self.nreq(t) > 0) {
            let a = 18 + self.nfeet(t);
            let mut s = self.scratch.get(m);
            req.rows_at(m, &mut s, t, q, &mut r[a..a + req.dim(t)], None);
        }
    }
    /// Analytic: `q ⊖ q*` has the identity as its tangent derivative for the translations and
    /// the hinges and `Jr⁻¹(φ)` for a rotation `φ = log(q*⁻¹ q)` (`mjd_subQuat`, API
    /// Reference); the feet rows are `−√weight` times [`feet_bottoms`]' Jacobian where the foot
    /// is below `height` (zero above it; the one-sided kink at `height` takes the zero side).
    /// The [`Requirements`] rows are `−√ρ ∂g` where active ([`Requirements`]).
    fn jacobian(
        &self,
        m: &Model,
        t: usize,
        horizon: usize,
        q: &[f64],
        _v: &[f64],
        jq: &mut DMatrix<f64>,
        jv: &mut DMatrix<f64>,
    ) {
        jq.fill(0.0);
        jv.fill(0.0);
        if t == 0 {
            return;
        }
        let (target, wz) = self.target(t);
        let quat = |x: &[f64], a: usize| {
            let n = (x[a] * x[a] + x[a + 1] * x[a + 1] + x[a + 2] * x[a + 2] + x[a + 3] * x[a + 3])
                .sqrt();
            [x[a] / n, x[a + 1] / n, x[a + 2] / n, x[a + 3] / n]
        };
        for j in 0..m.njnt {
            let (pa, va) = (m.jnt_qposadr[j], m.jnt_dofadr[j]);
            let rot = match m.jnt_type[j] {
                moreau::model::JointType::Free => {
                    for k in 0..3 {
                        jq[(va + k, va + k)] = 1.0;
                    }
                    Some((pa + 3, va + 3))
                }
                moreau::model::JointType::Ball => Some((pa, va)),
                _ => {
                    jq[(va, va)] = 1.0;
                    None
                }
            };
            if let Some((pa, va)) = rot {
                let (da, _) = moreau::pipeline::mjd_sub_quat(&quat(q, pa), &quat(&target, pa));
                for a in 0..3 {
                    for b in 0..3 {
                        jq[(va + a, va + b)] = da[a][b];
                    }
                }
            }
        }
        for i in 0..18 {
            let w = if t == horizon {
                self.wf.0
            } else {
                self.weight(i, wz)
            };
            for j in 0..18 {
                jq[(i, j)] *= w.sqrt();
            }
        }
        if t == horizon {
            for i in 0..18 {
                jv[(18 + i, i)] = self.wf.1.sqrt();
            }
        } else if let (Some(c), true) = (&self.clearance, self.nfeet(t) > 0) {
            let nf = c.geoms.len();
            let mut bottom = vec![0.0; nf];
            let mut jac = DMatrix::zeros(nf, m.nv);
            let mut s = self.scratch.get(m);
            feet_bottoms(m, &mut s, &c.geoms, q, &mut bottom, Some(&mut jac));
            for k in 0..nf {
                if c.height - bottom[k] > 0.0 {
                    for j in 0..m.nv {
                        jq[(18 + k, j)] = -c.weight.sqrt() * jac[(k, j)];
                    }
                }
            }
        }
        if let (Some(req), true) = (&self.requirements, t < horizon && self.nreq(t) > 0) {
            let (a, n) = (18 + self.nfeet(t), req.dim(t));
            let mut r = vec![0.0; n];
            let mut jac = DMatrix::zeros(n, m.nv);
            let mut s = self.scratch.get(m);
            req.rows_at(m, &mut s, t, q, &mut r, Some(&mut jac));
            jq.rows_mut(a, n).copy_from(&jac);
        }
    }
}

/// `model` with every contact softer: each geom's solref time constant times `factor` (MuJoCo's
/// "Solver parameters": a longer time constant lowers the stiffness `k ∝ 1/timeconst²` and the
/// damping `b ∝ 1/timeconst` of the reference acceleration, so the contact force changes more
/// slowly with penetration and velocity). Geoms with direct (negative) solref are unchanged.
pub fn softened(model: &Model, factor: f64) -> Model {
    let mut m = model.clone();
    if factor != 1.0 {
        for r in m.geom_solref.iter_mut() {
            if r[0] > 0.0 {
                r[0] *= factor;
            }
        }
    }
    m
}

/// A planner's result: qpos at knots `0..=T`, the controls, iterations, whether it converged
/// and the largest dynamics residual (collocation; 0 for iLQR, whose plan is a rollout).
pub struct Plan {
    pub q: Vec<Vec<f64>>,
    pub u: Vec<Vec<f64>>,
    pub iterations: usize,
    pub converged: bool,
    pub termination: String,
    pub defect: f64,
    pub cost: f64,
    /// The cost of the guess, then after each iteration.
    pub history: Vec<f64>,
    /// Collocation with [`Requirements`]: the largest violation `max(0, −g_i)` (m) at the plan,
    /// the multipliers `λ` and penalty `ρ` it ended with, and the augmented-Lagrangian rounds
    /// (inner LM solves) of the last stage; 0, empty, NaN and 0 otherwise.
    pub violation: f64,
    pub multipliers: Vec<f64>,
    pub rho: f64,
    pub rounds: usize,
    /// With [`Requirements`]: the largest violation (m) after each augmented-Lagrangian round
    /// (iLQR: after the first solve and after each update's solve; collocation: after each
    /// inner solve of the last stage); empty otherwise.
    pub round_violations: Vec<f64>,
    /// Collocation: LM's certification of the last inner solve (`CollocationResult::certified`:
    /// converged with the model check made and passed; its gain ratio and the step fraction
    /// where it passed, NaN if not; `CollocationResult::model_ratio`).
    pub certified: bool,
    pub model_ratio: f64,
    pub model_step: f64,
}

/// Collocation settings: LM's limits and, optionally, a continuation (each stage warm-started
/// from the last; the last stage is the unchanged model and goal): first on `opt.impratio`
/// (`impratio_stages`), then on the contacts' softness (`soften_stages`: the solref time
/// constant times each factor, [`softened`]), then on the trunk's target height
/// (`apex_stages`).
pub struct CollocationSettings {
    pub max_iters: u64,
    /// LM's iteration limit in every stage but the last (0: `max_iters`).
    pub stage_iters: u64,
    pub gtol: f64,
    pub defect_tol: f64,
    pub impratio_stages: Vec<f64>,
    pub soften_stages: Vec<f64>,
    pub apex_stages: Vec<f64>,
    /// Print [`diagnose`] at the guess and at the end of each stage.
    pub check: bool,
    /// Print [`gauss_newton_check`] at the guess and at the end of each stage.
    pub gn_check: bool,
    /// LM's switch to the Newton matrix with the forces' second-order terms
    /// ([`LevenbergMarquardt::newton_after`]; 0: never) and its stall limit
    /// ([`LevenbergMarquardt::max_stalls`]).
    pub newton_after: f64,
    pub max_stalls: usize,
    /// LM's damping scaled by the normal matrix's diagonal (variable scaling;
    /// [`LevenbergMarquardt::marquardt`]).
    pub marquardt: bool,
    /// The dynamics residual's weight (the augmented-Lagrangian penalty's start; 0: the
    /// problem's 3, [`collocation`]).
    pub dynamics_weight: f64,
    /// Centered finite differences of this step for the inverse-dynamics Jacobians instead of
    /// the analytic ones (0: analytic).
    pub fd_eps: f64,
    /// The augmented-Lagrangian outer loop on the goal's [`Requirements`] (if any).
    pub al: AlSettings,
}

impl Default for CollocationSettings {
    fn default() -> Self {
        CollocationSettings {
            max_iters: 300,
            stage_iters: 0,
            gtol: 0.03,
            defect_tol: 1e-3,
            impratio_stages: Vec::new(),
            soften_stages: Vec::new(),
            apex_stages: Vec::new(),
            check: false,
            gn_check: false,
            fd_eps: 0.0,
            newton_after: 0.0,
            max_stalls: 20,
            marquardt: false,
            dynamics_weight: 0.0,
            al: AlSettings::default(),
        }
    }
}

/// One stage of [`solve_collocation`]'s continuation: the model's `opt.impratio`, the contact
/// softness factor ([`softened`]) and the trunk's target height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stage {
    pub impratio: f64,
    pub soften: f64,
    pub apex: f64,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "impratio {}, solref time constant ×{}, apex {} m",
            self.impratio, self.soften, self.apex
        )
    }
}

impl CollocationSettings {
    /// The stages on the model `m` and `goal`, the last one unchanged.
    pub fn stages(&self, m: &Model, goal: &Goal) -> Vec<Stage> {
        let last = Stage {
            impratio: m.opt.impratio,
            soften: 1.0,
            apex: goal.apex,
        };
        let mut out: Vec<Stage> = self
            .impratio_stages
            .iter()
            .map(|&impratio| Stage { impratio, ..last })
            .collect();
        out.extend(
            self.soften_stages
                .iter()
                .map(|&soften| Stage { soften, ..last }),
        );
        out.extend(self.apex_stages.iter().map(|&apex| Stage { apex, ..last }));
        out.push(last);
        out
    }
}

/// The collocation problem of `goal` on `m` over `horizon` knots from `home` at rest: control
/// effort 1e-3, dynamics weight 3, limit weight 1e2.
pub fn collocation(m: Model, goal: &Goal, horizon: usize) -> Result<Collocation, String> {
    let weights = Weights {
        control: vec![1e-3; m.nu],
        dynamics: 3.0,
        limits: 1e2,
    };
    let nv = m.nv;
    Collocation::new(
        m,
        horizon,
        goal.home.clone(),
        vec![0.0; nv],
        Box::new(goal.clone()),
        weights,
    )
}

/// Collocation of `goal` from the configurations `guess` (knots `0..=T`, starting at `home` at
/// rest), through the stages of [`CollocationSettings::stages`]. `on_stage(stage, result line)`
/// reports each stage. With the goal's [`Requirements`], each stage is the augmented-Lagrangian
/// outer loop of [`AlSettings`] around LM (the multipliers carried from stage to stage, the
/// problem's dynamics multipliers kept across rounds); the plan is converged when the last
/// inner solve is certified and every requirement is violated by at most `s.al.tol`.
pub fn solve_collocation(
    m: &Model,
    goal: &Goal,
    guess: &[Vec<f64>],
    s: &CollocationSettings,
    mut on_stage: impl FnMut(&Stage, String),
) -> Result<Plan, String> {
    let horizon = guess.len() - 1;
    let mut z: Vec<f64> = guess[1..].iter().flatten().copied().collect();
    let stages = s.stages(m, goal);
    let (mut iterations, mut last) = (0, None);
    let mut req = goal.requirements.clone();
    let (mut violation, mut rounds) = (f64::NAN, 0);
    let mut round_violations = Vec::new();
    for (i, stage) in stages.iter().enumerate() {
        let mut model = softened(m, stage.soften);
        model.opt.impratio = stage.impratio;
        let g = Goal {
            apex: stage.apex,
            requirements: req.clone(),
            ..goal.clone()
        };
        let mut c = collocation(model, &g, horizon)?;
        if s.dynamics_weight > 0.0 {
            c.weights.dynamics = s.dynamics_weight;
        }
        if s.fd_eps > 0.0 {
            c.set_jacobian_provider(Box::new(moreau_optim::collocation::FiniteDifference::new(
                s.fd_eps, s.fd_eps, true,
            )));
        }
        if s.check {
            on_stage(stage, format!("at the start: {}", diagnose(&c, &z)));
            on_stage(stage, format!("at the start: {}", inverse_check(&c, &z)));
        }
        if s.gn_check {
            on_stage(
                stage,
                format!("at the start: {}", gauss_newton_check(&c, &z)?),
            );
        }
        let max_iters = if i + 1 < stages.len() && s.stage_iters > 0 {
            s.stage_iters
        } else {
            s.max_iters
        };
        let mut c = c;
        let mut last_violation = f64::INFINITY;
        rounds = 0;
        round_violations.clear();
        let r = loop {
            let mut lm = LevenbergMarquardt::default();
            lm.defect_tol = s.defect_tol;
            lm.max_al_updates = max_iters as usize;
            lm.gtol = s.gtol;
            lm.newton_after = s.newton_after;
            lm.max_stalls = s.max_stalls;
            lm.marquardt = s.marquardt;
            let (cn, r) = solve_lm(c, z, lm, max_iters, |e| e).map_err(|e| e.to_string())?;
            c = cn;
            z = r.z.clone();
            iterations += r.iterations as usize;
            rounds += 1;
            let qs: Vec<Vec<f64>> = (0..=horizon).map(|t| c.config(&r.z, t).to_vec()).collect();
            let apex = qs.iter().map(|q| q[2]).fold(f64::MIN, f64::max);
            let mut line = format!(
                "{} iterations ({}), cost {:.5}, max |unactuated τ| {:.2e} N, apex {apex:.4} m, \
                 scaled gradient {:.1e}, model check: gain ratio {:.3} at step fraction {:.0e}",
                r.iterations,
                r.termination,
                r.eval.cost(),
                r.eval.max_defect(),
                r.optimality,
                r.model_ratio,
                r.model_step
            );
            let Some(rq) = req.as_mut() else {
                on_stage(stage, line);
                break r;
            };
            rq.select_apex(&qs);
            let gv = rq.values(&c.model, &qs);
            violation = Requirements::violation(&gv);
            round_violations.push(violation);
            let lmax = rq.lambda.iter().fold(0.0f64, |a, &x| a.max(x));
            let nact = rq.lambda.iter().filter(|&&x| x > 0.0).count();
            line += &format!(
                "; requirements round {rounds}: largest violation {violation:.2e} m, ρ {:.0e}, \
                 {nact} positive multipliers (largest {lmax:.3e}, apex {:.3e} at knot {})",
                rq.rho,
                rq.lambda[rq.lambda.len() - 1],
                rq.apex_knot
            );
            on_stage(stage, line);
            if (r.certified && violation <= s.al.tol) || rounds >= s.al.max_rounds {
                break r;
            }
            rq.update(&gv);
            if violation > s.al.decrease * last_violation {
                rq.rho = (rq.rho * s.al.growth).min(s.al.max_rho);
            }
            last_violation = violation;
            c.task = Box::new(Goal {
                apex: stage.apex,
                requirements: Some(rq.clone()),
                ..goal.clone()
            });
        };
        if s.check {
            on_stage(stage, format!("at the end: {}", diagnose(&c, &r.z)));
            on_stage(stage, format!("at the end: {}", inverse_check(&c, &r.z)));
        }
        if s.gn_check {
            on_stage(
                stage,
                format!("at the end: {}", gauss_newton_check(&c, &r.z)?),
            );
        }
        last = Some((c, r));
    }
    let (c, r) = last.ok_or("no stage")?;
    let feasible = req.is_none() || violation <= s.al.tol;
    Ok(Plan {
        q: (0..=horizon).map(|t| c.config(&r.z, t).to_vec()).collect(),
        u: r.eval.u.clone(),
        iterations,
        // with requirements, the AL's test: certified (not merely converged) and feasible
        converged: if req.is_some() {
            r.certified && feasible
        } else {
            r.converged
        },
        termination: if feasible && req.is_some() && r.converged && !r.certified {
            format!(
                "{}; not certified: LM's model check was not made (predicted decrease negligible) \
                 or failed at the last stall",
                r.termination
            )
        } else if feasible {
            r.termination.clone()
        } else {
            format!(
                "requirements violated by {violation:.2e} m > {:.0e} after {rounds} rounds; {}",
                s.al.tol, r.termination
            )
        },
        defect: r.eval.max_defect(),
        cost: r.eval.cost(),
        history: r.cost_history.clone(),
        violation: if req.is_some() { violation } else { 0.0 },
        multipliers: req.as_ref().map_or(Vec::new(), |r| r.lambda.clone()),
        rho: req.as_ref().map_or(f64::NAN, |r| r.rho),
        rounds,
        round_violations,
        certified: r.certified,
        model_ratio: r.model_ratio,
        model_step: r.model_step,
    })
}

/// The iLQR form of `goal` on the state `(qpos, qvel)`: per knot the reference `(q*_t, 0)` and
/// the same weights on `q ⊖ q*_t` (times `dt` in the sum), `wv` on the velocities before the
/// last knot; at the last knot `home` at rest with `goal.wf`.
pub fn tracking_cost(m: &Model, goal: &Goal, horizon: usize, wv: f64, r: f64) -> TrackingCost {
    let nv = m.nv;
    let mut xref = Vec::with_capacity(horizon + 1);
    let mut w = Vec::with_capacity(horizon + 1);
    for t in 0..=horizon {
        let (q, wz) = goal.target(t);
        let mut x = DVector::zeros(m.nq + nv);
        x.rows_mut(0, m.nq).copy_from_slice(&q);
        xref.push(x);
        w.push(DVector::from_fn(2 * nv, |i, _| {
            if t == horizon {
                if i < nv {
                    goal.wf.0
                } else {
                    goal.wf.1
                }
            } else if i < nv {
                goal.weight(i, wz)
            } else {
                wv
            }
        }));
    }
    TrackingCost {
        xref,
        w,
        r: DMatrix::identity(m.nu, m.nu) * r,
        dt: m.opt.timestep,
    }
}

/// iLQR's cost with a [`Goal`]'s clearance term and [`Requirements`]: [`TrackingCost`] plus, at
/// the window's knots, `dt · ½ weight · Σ_feet max(0, height − bottom)²` on the configuration,
/// and at the requirements' knots `dt · ½ Σ_i r_i²` of their rows `r_i = √ρ max(0, λ_i/ρ − g_i)`
/// (Gauss–Newton Hessian; the feet heights' Jacobian analytic, [`feet_bottoms`]).
pub struct JumpCost {
    pub track: TrackingCost,
    pub model: Model,
    pub window: (usize, usize),
    pub clearance: Option<Clearance>,
    pub requirements: Option<Requirements>,
    scratch: Scratch,
}

impl JumpCost {
    /// `max(0, height − bottom)` of each foot at the configuration `q`, and with `jac` the
    /// Jacobian of `height − bottom` ([`feet_bottoms`]' with the sign turned).
    fn feet(&self, c: &Clearance, q: &[f64], out: &mut [f64], jac: Option<&mut DMatrix<f64>>) {
        let m = &self.model;
        let mut s = self.scratch.get(m);
        match jac {
            Some(j) => {
                feet_bottoms(m, &mut s, &c.geoms, q, out, Some(&mut *j));
                j.neg_mut();
            }
            None => feet_bottoms(m, &mut s, &c.geoms, q, out, None),
        }
        for x in out.iter_mut() {
            *x = (c.height - *x).max(0.0);
        }
    }

    /// The requirements' rows at knot `t` (empty if none), and with `jac` their Jacobian.
    fn requirement_rows(
        &self,
        t: usize,
        q: &[f64],
        out: &mut Vec<f64>,
        jac: Option<&mut DMatrix<f64>>,
    ) {
        let m = &self.model;
        out.clear();
        let Some(r) = self.requirements.as_ref().filter(|r| r.dim(t) > 0) else {
            return;
        };
        out.resize(r.dim(t), 0.0);
        let mut jac = jac;
        if let Some(j) = jac.as_deref_mut() {
            *j = DMatrix::zeros(r.dim(t), m.nv);
        }
        let mut s = self.scratch.get(m);
        r.rows_at(m, &mut s, t, q, out, jac);
    }

    fn in_window(&self, t: usize) -> bool {
        t >= self.window.0 && t <= self.window.1
    }

    /// The clearance term's and the requirements' value, tangent gradient and Gauss–Newton
    /// Hessian (in `q` only, the first `nv` of `ndx`) at knot `t` and state `x`, without the
    /// factor `dt`.
    fn terms(&self, t: usize, x: &DVector<f64>, ndx: usize) -> (f64, DVector<f64>, DMatrix<f64>) {
        let m = &self.model;
        let q = &x.as_slice()[..m.nq];
        let mut g = DVector::zeros(ndx);
        let mut h = DMatrix::zeros(ndx, ndx);
        let mut value = 0.0;
        if let Some(c) = self.clearance.as_ref().filter(|_| self.in_window(t)) {
            let (nf, w) = (c.geoms.len(), c.weight);
            let mut r = vec![0.0; nf];
            let mut jac = DMatrix::zeros(nf, m.nv);
            self.feet(c, q, &mut r, Some(&mut jac));
            value += 0.5 * w * r.iter().map(|x| x * x).sum::<f64>();
            for k in 0..nf {
                if r[k] > 0.0 {
                    for i in 0..m.nv {
                        g[i] += w * r[k] * jac[(k, i)];
                        for j in 0..m.nv {
                            h[(i, j)] += w * jac[(k, i)] * jac[(k, j)];
                        }
                    }
                }
            }
        }
        let mut r = Vec::new();
        let mut jac = DMatrix::zeros(0, 0);
        self.requirement_rows(t, q, &mut r, Some(&mut jac));
        value += 0.5 * r.iter().map(|x| x * x).sum::<f64>();
        for (k, &rk) in r.iter().enumerate() {
            if rk > 0.0 {
                for i in 0..m.nv {
                    g[i] += rk * jac[(k, i)];
                    for j in 0..m.nv {
                        h[(i, j)] += jac[(k, i)] * jac[(k, j)];
                    }
                }
            }
        }
        (value, g, h)
    }
}

impl StageCost for JumpCost {
    fn check(&self, nx: usize, ndx: usize, nu: usize, horizon: usize) -> Result<(), String> {
        self.track.check(nx, ndx, nu, horizon)
    }
    fn total_on<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        xs: &[DVector<f64>],
        us: &[DVector<f64>],
    ) -> f64 {
        let mut c = self.track.total_on(dynm, xs, us);
        let mut r = Vec::new();
        for (t, x) in xs.iter().enumerate().take(us.len()) {
            let q = &x.as_slice()[..self.model.nq];
            if let Some(cl) = self.clearance.as_ref().filter(|_| self.in_window(t)) {
                r.resize(cl.geoms.len(), 0.0);
                self.feet(cl, q, &mut r, None);
                c += self.track.dt * 0.5 * cl.weight * r.iter().map(|x| x * x).sum::<f64>();
            }
            self.requirement_rows(t, q, &mut r, None);
            if !r.is_empty() {
                c += self.track.dt * 0.5 * r.iter().map(|x| x * x).sum::<f64>();
            }
        }
        c
    }
    fn stage<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        t: usize,
        x: &DVector<f64>,
        u: &DVector<f64>,
    ) -> (DVector<f64>, DVector<f64>, DMatrix<f64>, DMatrix<f64>) {
        let (mut lx, lu, mut lxx, luu) = self.track.stage(dynm, t, x, u);
        let active = self.clearance.is_some() && self.in_window(t)
            || self.requirements.as_ref().is_some_and(|r| r.dim(t) > 0);
        if active {
            let (_, g, h) = self.terms(t, x, lx.len());
            lx += g * self.track.dt;
            lxx += h * self.track.dt;
        }
        (lx, lu, lxx, luu)
    }
    fn terminal<D: Dynamics + ?Sized>(
        &self,
        dynm: &D,
        x: &DVector<f64>,
    ) -> (DVector<f64>, DMatrix<f64>) {
        self.track.terminal(dynm, x)
    }
}

/// iLQR of `goal` from the controls `u0` (analytic transition Jacobians; controls as offsets
/// from `home_ctrl`, boxed by `ctrlrange`). `on_iter(k, cost)` after each iteration.
pub fn solve_ilqr(
    m: &Model,
    goal: &Goal,
    home_ctrl: &[f64],
    u0: &[Vec<f64>],
    max_iter: usize,
    on_iter: impl FnMut(usize, f64),
) -> Result<Plan, String> {
    let horizon = u0.len();
    let sys = MoreauSystem::new(m.clone())?.analytic()?;
    let mut sys = ControlOffset::new(sys, home_ctrl.to_vec())?;
    let track = tracking_cost(m, goal, horizon, 1e-2, 1e-1);
    let range = (
        m.actuator_ctrlrange.iter().map(|r| r[0]).collect(),
        m.actuator_ctrlrange.iter().map(|r| r[1]).collect(),
    );
    let opt = IlqrOptions {
        max_iter,
        tol: 1e-6,
        bounds: Some(sys.bounds(&range)),
        ..Default::default()
    };
    let mut x0 = DVector::zeros(m.nq + m.nv);
    x0.rows_mut(0, m.nq).copy_from_slice(&goal.home);
    let du: Vec<DVector<f64>> = u0
        .iter()
        .map(|u| DVector::from_iterator(m.nu, u.iter().zip(home_ctrl).map(|(a, b)| a - b)))
        .collect();
    let r = if goal.clearance.is_none() && goal.requirements.is_none() {
        ilqr(&mut sys, &track, &x0, du, &opt, on_iter)?
    } else {
        let cost = JumpCost {
            track,
            model: m.clone(),
            window: goal.window,
            clearance: goal.clearance.clone(),
            requirements: goal.requirements.clone(),
            scratch: Scratch::default(),
        };
        ilqr(&mut sys, &cost, &x0, du, &opt, on_iter)?
    };
    let xs: Vec<Vec<f64>> = r.xs.iter().map(|x| x.as_slice()[..m.nq].to_vec()).collect();
    Ok(Plan {
        q: xs.clone(),
        u: r.us.iter().map(|du| sys.control(du.as_slice())).collect(),
        iterations: r.iterations,
        converged: r.converged,
        termination: if r.converged {
            "relative decrease below 1e-6, or no descent at the largest regularization".into()
        } else {
            "iteration limit".into()
        },
        defect: 0.0,
        cost: r.cost_history.last().copied().unwrap_or(f64::NAN),
        history: r.cost_history,
        violation: goal
            .requirements
            .as_ref()
            .map_or(0.0, |q| Requirements::violation(&q.values(m, &xs))),
        multipliers: Vec::new(),
        rho: f64::NAN,
        rounds: 0,
        round_violations: Vec::new(),
        certified: false,
        model_ratio: f64::NAN,
        model_step: f64::NAN,
    })
}

/// iLQR of `goal` with its [`Requirements`] enforced by an augmented-Lagrangian outer loop: the
/// first solve from `u0` with `first_iters` iterations (the requirements as one-sided penalties,
/// `λ = 0`), then after each solve the multipliers are updated (`λ_i ← max(0, λ_i − ρ g_i)` on
/// the solve's rollout, [`Requirements::update`]: each violated requirement's target moves up by
/// its violation) and iLQR continues from the last controls for `al.iters` iterations, at most
/// `al.rounds` times, until every requirement is violated by at most `al.tol`. The plan carries
/// the requirements' multipliers and `ρ` (the same shifts `λ/ρ` serve the collocation, whose rows
/// are iLQR's without the factor `dt`). Without requirements, [`solve_ilqr`].
pub fn solve_ilqr_al(
    m: &Model,
    goal: &Goal,
    home_ctrl: &[f64],
    u0: &[Vec<f64>],
    first_iters: usize,
    al: &IlqrAl,
    mut on_iter: impl FnMut(usize, f64),
) -> Result<Plan, String> {
    let mut g = goal.clone();
    let mut plan = solve_ilqr(m, &g, home_ctrl, u0, first_iters, &mut on_iter)?;
    let (mut iterations, mut rounds) = (plan.iterations, 1);
    let Some(mut req) = g.requirements.take() else {
        return Ok(plan);
    };
    let mut history = plan.history.clone();
    let mut violations = Vec::new();
    loop {
        req.select_apex(&plan.q);
        let gv = req.values(m, &plan.q);
        plan.violation = Requirements::violation(&gv);
        violations.push(plan.violation);
        if plan.violation <= al.tol || rounds > al.rounds {
            break;
        }
        req.update(&gv);
        g.requirements = Some(req.clone());
        let next = solve_ilqr(m, &g, home_ctrl, &plan.u, al.iters, &mut on_iter)?;
        iterations += next.iterations;
        rounds += 1;
        history.extend_from_slice(&next.history[1..]);
        plan = next;
    }
    plan.iterations = iterations;
    plan.rounds = rounds;
    plan.round_violations = violations;
    plan.history = history;
    plan.multipliers = req.lambda.clone();
    plan.rho = req.rho;
    if plan.violation > al.tol {
        plan.converged = false;
        plan.termination = format!(
            "requirements violated by {:.2e} m > {:.0e} after {rounds} rounds; {}",
            plan.violation, al.tol, plan.termination
        );
    }
    Ok(plan)
}

/// The augmented-Lagrangian rounds of [`solve_ilqr_al`]: at most `rounds` multiplier updates,
/// each followed by `iters` iLQR iterations; done when the largest violation is at most `tol`
/// (m).
#[derive(Clone, Debug)]
pub struct IlqrAl {
    pub rounds: usize,
    pub iters: usize,
    pub tol: f64,
}

impl Default for IlqrAl {
    /// At most 10 updates of 40 iterations each, until the violation is at most 2e-5 m. The
    /// Go1 jump from standing (`go1_jump --guess standing --require 0.36,0.03`) needs 6: the
    /// largest violation after the first solve and each update's solve is 6.71e-3, 3.81e-3,
    /// 3.26e-3, 2.87e-3, 2.18e-3, 5.84e-5 and 0 m. The decrease is slow (×0.57–0.88 per round,
    /// each 40-iteration solve is inexact) until the active set settles, then sudden; the cap
    /// leaves 4 rounds of headroom over that path.
    fn default() -> Self {
        IlqrAl {
            rounds: 10,
            iters: 40,
            tol: 2e-5,
        }
    }
}

/// Calls `f(row, variable, value)` for every entry of the residual Jacobian's knot blocks
/// ([`Collocation::jacobian`]; variables: the configurations' tangents, knot-major).
fn for_each_entry(
    c: &Collocation,
    blocks: &[moreau_optim::collocation::KnotJacobian],
    mut f: impl FnMut(usize, usize, f64),
) {
    let nv = c.model.nv;
    let n = c.n_config_vars();
    for (t, b) in blocks.iter().enumerate() {
        let base = t as isize * nv as isize - 2 * nv as isize;
        for col in 0..3 * nv {
            let gi = base + col as isize;
            if gi >= 0 && (gi as usize) < n {
                for k in 0..b.mat.nrows() {
                    f(b.row + k, gi as usize, b.mat[(k, col)]);
                }
            }
        }
    }
}

/// `J δ` for a tangent direction `δ` of the configurations.
fn jacobian_times(
    c: &Collocation,
    blocks: &[moreau_optim::collocation::KnotJacobian],
    d: &[f64],
    out: &mut [f64],
) {
    out.iter_mut().for_each(|x| *x = 0.0);
    for_each_entry(c, blocks, |i, j, v| out[i] += v * d[j]);
}

/// Why Gauss–Newton fails at `z`: along the steepest-descent direction `−g` (`g = Jᵀr`, the
/// direction of LM's steps at a large damping) the central difference of the residual, at
/// steps `s`, against `J g`; and the objective's actual decrease against the linear model's.
/// A Jacobian/residual mismatch shows as a difference that does not shrink with `s`; curvature
/// as one that shrinks like `s`; noise (a residual computed to a tolerance) as one that grows
/// like `1/s`.
pub fn diagnose(c: &Collocation, z: &[f64]) -> String {
    let (ev, blocks) = c.jacobian(z);
    let n = c.n_config_vars();
    let nres = ev.r.len();
    // g = Jᵀ r
    let mut g = vec![0.0; n];
    for_each_entry(c, &blocks, |i, j, v| g[j] += v * ev.r[i]);
    let gn = g.iter().map(|x| x * x).sum::<f64>().sqrt();
    let dir: Vec<f64> = g.iter().map(|x| -x / gn).collect();
    let mut jd = vec![0.0; nres];
    jacobian_times(c, &blocks, &dir, &mut jd);
    let jdn = jd.iter().map(|x| x * x).sum::<f64>().sqrt();
    let f0 = 0.5 * ev.r.iter().map(|x| x * x).sum::<f64>();
    let mut out = format!("f {f0:.6e}, |g| {gn:.3e}, |J d| {jdn:.3e} (d = −g/|g|); ");
    // the rows of the largest mismatch, by kind
    let kinds = row_kinds(c);
    for s in [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9] {
        let rp = c.evaluate(&c.retract(z, &dir, s)).r;
        let rm = c.evaluate(&c.retract(z, &dir, -s)).r;
        let mut err = 0.0;
        let (mut worst, mut wi) = (0.0, 0);
        for i in 0..nres {
            let e = (rp[i] - rm[i]) / (2.0 * s) - jd[i];
            err += e * e;
            if e.abs() > worst {
                (worst, wi) = (e.abs(), i);
            }
        }
        let fp = 0.5 * rp.iter().map(|x| x * x).sum::<f64>();
        // the Gauss–Newton model's change of f along d: s gᵀd + ½ s² |J d|²
        let pred = -s * gn + 0.5 * s * s * jdn * jdn;
        out += &format!(
            "\n  s {s:.0e}: |fd − J d| {:.3e} (rel {:.2e}), worst row {wi} ({}) {:.3e}; \
             f(z + s d) − f {:.4e}, Gauss–Newton model {pred:.4e}, ratio {:.4}",
            err.sqrt(),
            err.sqrt() / jdn,
            kinds[wi],
            worst,
            fp - f0,
            (fp - f0) / pred
        );
    }
    // LM's damped steps δ = −(JᵀJ + μI)⁻¹ g: the model's error r(z ⊕ δ) − (r + J δ), by the
    // kind of row it is largest in
    for mu in [1e15, 1e13, 1e11, 1e9] {
        let Some(f) = moreau_optim::lm::TangentObjective::preconditioner(c, z, mu) else {
            continue;
        };
        let mut delta: Vec<f64> = g.iter().map(|x| -x).collect();
        f.solve(&mut delta);
        let smax = delta.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        jacobian_times(c, &blocks, &delta, &mut jd);
        let rn = c.evaluate(&c.retract(z, &delta, 1.0)).r;
        let lin: Vec<f64> = (0..nres).map(|i| ev.r[i] + jd[i]).collect();
        let fm = 0.5 * lin.iter().map(|x| x * x).sum::<f64>();
        let fa = 0.5 * rn.iter().map(|x| x * x).sum::<f64>();
        let mut by_kind: std::collections::BTreeMap<String, f64> = Default::default();
        for i in 0..nres {
            let e = rn[i] - lin[i];
            let kind = kinds[i]
                .split_whitespace()
                .nth(2)
                .unwrap_or("?")
                .to_string();
            *by_kind.entry(kind).or_default() += e * e;
        }
        let (mut worst, mut wi) = (0.0, 0);
        for i in 0..nres {
            let e = (rn[i] - lin[i]).abs();
            if e > worst {
                (worst, wi) = (e, i);
            }
        }
        out += &format!(
            "\n  LM step μ {mu:.0e}: max |δ| {smax:.2e}; f {f0:.6e} → {fa:.6e} (model {fm:.6e}, gain ratio {:.3}); model error² by row kind {}; worst row {} {worst:.3e}",
            (f0 - fa) / (f0 - fm),
            by_kind
                .iter()
                .map(|(k, v)| format!("{k} {v:.2e}"))
                .collect::<Vec<_>>()
                .join(", "),
            kinds[wi]
        );
    }
    out
}

/// The kind and knot of every residual row (the layout of [`Collocation::evaluate`]).
fn row_kinds(c: &Collocation) -> Vec<String> {
    let m = &c.model;
    let horizon = c.horizon;
    let nlim = (0..m.njnt)
        .filter(|&j| {
            m.jnt_limited[j]
                && matches!(
                    m.jnt_type[j],
                    moreau::model::JointType::Hinge | moreau::model::JointType::Slide
                )
        })
        .count();
    let nfl = (0..m.nu).filter(|&k| m.actuator_forcelimited[k]).count();
    let mut out = Vec::new();
    for t in 0..=horizon {
        for i in 0..c.task.dim(t, horizon) {
            out.push(format!("knot {t} task {i}"));
        }
        if t < horizon {
            for k in 0..m.nu {
                out.push(format!("knot {t} control {k}"));
            }
            for k in 0..c.nr() {
                out.push(format!("knot {t} dynamics {k}"));
            }
            for k in 0..m.nu {
                out.push(format!("knot {t} ctrlrange {k}"));
            }
            for k in 0..nfl {
                out.push(format!("knot {t} forcerange {k}"));
            }
        }
        for k in 0..nlim {
            out.push(format!("knot {t} joint range {k}"));
        }
    }
    out
}

/// One knot of [`knot_jacobian_errors`]: the relative differences at the steps 1e-6 and 1e-8
/// (`∂τ/∂q`, `∂τ/∂v`, `∂τ/∂a`), the contacts and the constraint states.
pub struct KnotCheck {
    pub e6: [f64; 3],
    pub e8: [f64; 3],
    pub ncon: usize,
    pub states: Vec<String>,
}

/// The analytic inverse-dynamics Jacobians (`∂τ/∂q`, `∂τ/∂v`, `∂τ/∂a`) that the collocation
/// uses at every knot of `z`, against centered differences of the inverse dynamics at steps 1e-6
/// and 1e-8: per knot the relative differences `max |A − F| / max(1, max |F|)` of the three
/// matrices at each step, the number of contacts and the constraint states. A derivative error
/// shows at both steps; a kink of the contact forces (a row's zone boundary) within a step of
/// the point only at the larger one.
pub fn knot_jacobian_errors(c: &Collocation, z: &[f64]) -> Vec<KnotCheck> {
    use moreau_optim::collocation::{Analytic, FiniteDifference, InverseJacobian};
    let m = &c.model;
    let nv = m.nv;
    let ev = c.evaluate(z);
    let mut d = Data::new(m);
    let mut an = Analytic::new();
    let z3 = || {
        [
            DMatrix::zeros(nv, nv),
            DMatrix::zeros(nv, nv),
            DMatrix::zeros(nv, nv),
        ]
    };
    let mut out = Vec::with_capacity(c.horizon);
    for t in 0..c.horizon {
        let q = c.config(z, t);
        let (v, a) = (&ev.v[t], &ev.a[t]);
        let mut ja = z3();
        let [x, y, w] = &mut ja;
        an.jacobians(m, &mut d, q, v, a, x, y, w);
        let mut states: Vec<String> = (0..d.nefc)
            .map(|r| format!("{:?}", d.efc_state[r]))
            .collect();
        states.dedup();
        let ncon = d.contact.len();
        let mut errs = [[0.0; 3]; 2];
        for (e, eps) in errs.iter_mut().zip([1e-6, 1e-8]) {
            let mut fd = FiniteDifference::new(eps, eps, true);
            let mut jf = z3();
            let [x, y, w] = &mut jf;
            fd.jacobians(m, &mut d, q, v, a, x, y, w);
            for k in 0..3 {
                e[k] = (&ja[k] - &jf[k]).amax() / jf[k].amax().max(1.0);
            }
        }
        out.push(KnotCheck {
            e6: errs[0],
            e8: errs[1],
            ncon,
            states,
        });
    }
    out
}

/// [`knot_jacobian_errors`] as text: the worst knots and how many exceed 1e-4.
pub fn inverse_check(c: &Collocation, z: &[f64]) -> String {
    let errs = knot_jacobian_errors(c, z);
    let worst = |e: &KnotCheck| e.e6.iter().chain(&e.e8).fold(0.0f64, |a, &b| a.max(b));
    let mut order: Vec<usize> = (0..errs.len()).collect();
    order.sort_by(|&a, &b| worst(&errs[b]).total_cmp(&worst(&errs[a])));
    let mut out = String::from(
        "analytic ∂τ/∂(q, v, a) against centered differences (eps 1e-6 | 1e-8), worst knots:",
    );
    for &t in order.iter().take(6) {
        let KnotCheck {
            e6,
            e8,
            ncon,
            states: st,
        } = &errs[t];
        out += &format!(
            "\n  knot {t}: {:.2e} (q {:.1e} v {:.1e} a {:.1e} | q {:.1e} v {:.1e} a {:.1e}), {ncon} contacts, states {st:?}",
            worst(&errs[t]), e6[0], e6[1], e6[2], e8[0], e8[1], e8[2]
        );
    }
    let n_bad = errs.iter().filter(|e| worst(e) > 1e-4).count();
    out += &format!("\n  {n_bad} of {} knots above 1e-4", errs.len());
    out
}

/// One point along the undamped Gauss–Newton step of [`gauss_newton_check`].
pub struct AlongStep {
    /// The step's fraction.
    pub s: f64,
    /// The objective at `z ⊕ sδ` and the model's `½|r + s J δ|²`.
    pub f: f64,
    pub model: f64,
    /// Actual over predicted decrease.
    pub gain_ratio: f64,
    /// `Σ (r(z ⊕ sδ) − r − s J δ)²` by row kind (`dynamics`, `forcerange`, `task`, …).
    pub error_by_kind: std::collections::BTreeMap<String, f64>,
    /// The four knots with the largest model error: (knot, share of the error, contacts at
    /// `z`, contacts at `z ⊕ sδ`).
    pub worst_knots: Vec<(usize, f64, usize, usize)>,
    /// Knots whose contact count differs between `z` and `z ⊕ sδ`.
    pub contact_changes: usize,
}

/// What [`gauss_newton_check`] measured.
pub struct GaussNewtonCheck {
    /// Per knot `t` (1..=T): the residual Jacobian's block of that knot's configuration against
    /// central differences of the residual, `|fd − J u_t| / |J u_t|` at steps 1e-6 and 1e-8.
    pub blocks: Vec<(usize, f64, f64)>,
    /// The mismatch at step 1e-8 by row kind (relative², summed over the knots).
    pub block_error_by_kind: std::collections::BTreeMap<String, f64>,
    /// The objective at `z` and the undamped step's largest entry (rad or m).
    pub f0: f64,
    pub step: f64,
    /// Along `s δ` for `s` = 1, 0.3, 0.1, 1e-2, …, 1e-6.
    pub along: Vec<AlongStep>,
}

impl AlongStep {
    /// The share of the model error in rows of `kind`.
    pub fn share(&self, kind: &str) -> f64 {
        let total: f64 = self.error_by_kind.values().sum();
        self.error_by_kind.get(kind).copied().unwrap_or(0.0) / total.max(1e-300)
    }
}

fn kinds_text(k: &std::collections::BTreeMap<String, f64>) -> String {
    k.iter()
        .map(|(k, v)| format!("{k} {v:.1e}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl std::fmt::Display for GaussNewtonCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let both = self
            .blocks
            .iter()
            .filter(|w| w.1 > 1e-4 && w.2 > 1e-4)
            .count();
        let max8 = self.blocks.iter().map(|w| w.2).fold(0.0, f64::max);
        let mut worst = self.blocks.clone();
        worst.sort_by(|a, b| b.1.total_cmp(&a.1));
        write!(
            f,
            "residual Jacobian by knot block against central differences (|fd − J u|/|J u|): \
             largest at step 1e-8 {max8:.2e}; knots above 1e-4 at both steps {both}; worst at 1e-6:"
        )?;
        for (t, e6, e8) in worst.iter().take(5) {
            write!(f, " knot {t} {e6:.1e} (1e-8: {e8:.1e});")?;
        }
        write!(
            f,
            " at 1e-8 by row kind (relative², summed over knots): {}",
            kinds_text(&self.block_error_by_kind)
        )?;
        write!(
            f,
            "\n  undamped Gauss–Newton step: max |δ| {:.3e}, f {:.6e}",
            self.step, self.f0
        )?;
        for a in &self.along {
            write!(
                f,
                "\n  s {:.0e}: f {:.6e} (model {:.6e}, gain ratio {:.3e}); model error² {:.2e} \
                 by kind {}; knots with another contact count {}; worst knots",
                a.s,
                a.f,
                a.model,
                a.gain_ratio,
                a.error_by_kind.values().sum::<f64>(),
                kinds_text(&a.error_by_kind),
                a.contact_changes
            )?;
            for (t, share, n0, ns) in &a.worst_knots {
                write!(f, " {t} ({:.0}%, contacts {n0} → {ns})", 100.0 * share)?;
            }
        }
        Ok(())
    }
}

/// Why LM's model check fails at `z` (its undamped Gauss–Newton step, "When LM stops" in
/// docs/optimization.md), in two parts.
///
/// 1. The residual Jacobian block by block: for each knot `t`, the central difference of the
///    whole residual along a fixed direction `u_t` of that knot's configuration (steps 1e-6
///    and 1e-8) against `J u_t`, relative to `|J u_t|`. A wrong block shows at both steps; a
///    kink of the residual within the step (a contact's zone boundary, a limit penalty's
///    hinge) only at the larger one, or, at a point on the kink, as a difference that does not
///    shrink with the step in the rows of that kink only.
/// 2. The undamped Gauss–Newton step `δ = −(JᵀJ + εI)⁻¹ g` (ε = 1e-12 of the largest diagonal
///    entry, as LM's check): along `s δ` for `s` from 1 down to 1e-6, the objective against the
///    model's `½|r + s J δ|²`, the gain ratio, the model error `r(z ⊕ sδ) − r − s J δ` by row
///    kind and the knots that carry it, with their contact counts at `z` and at `z ⊕ sδ`.
///    Curvature gives an error ∝ s²; a kink crossed at `s₀` an error ∝ s for `s > s₀` and none
///    below; a Jacobian that is not the residual's derivative an error ∝ s at every `s`.
pub fn gauss_newton_check(c: &Collocation, z: &[f64]) -> Result<GaussNewtonCheck, String> {
    let m = &c.model;
    let nv = m.nv;
    let (ev, blocks) = c.jacobian(z);
    let n = c.n_config_vars();
    let nres = ev.r.len();
    let kinds = row_kinds(c);
    let kind_of = |i: usize| -> String {
        kinds[i]
            .split_whitespace()
            .nth(2)
            .unwrap_or("?")
            .to_string()
    };
    let knot_of = |i: usize| -> usize {
        kinds[i]
            .split_whitespace()
            .nth(1)
            .and_then(|x| x.parse().ok())
            .unwrap_or(0)
    };
    // 1. block by block
    let mut jd = vec![0.0; nres];
    let mut out_blocks = Vec::with_capacity(c.horizon);
    let mut block_error_by_kind: std::collections::BTreeMap<String, f64> = Default::default();
    for t in 1..=c.horizon {
        let mut dir = vec![0.0; n];
        for k in 0..nv {
            dir[(t - 1) * nv + k] = ((k as f64 + 1.0) * 0.7 + t as f64).sin();
        }
        jacobian_times(c, &blocks, &dir, &mut jd);
        let jn2 = jd.iter().map(|x| x * x).sum::<f64>().max(1e-300);
        let mut errs = [0.0; 2];
        for (e, s) in errs.iter_mut().zip([1e-6, 1e-8]) {
            let rp = c.evaluate(&c.retract(z, &dir, s)).r;
            let rm = c.evaluate(&c.retract(z, &dir, -s)).r;
            let mut d2 = 0.0;
            for i in 0..nres {
                let e = ((rp[i] - rm[i]) / (2.0 * s) - jd[i]).powi(2);
                d2 += e;
                if s < 1e-7 {
                    *block_error_by_kind.entry(kind_of(i)).or_default() += e / jn2;
                }
            }
            *e = (d2 / jn2).sqrt();
        }
        out_blocks.push((t, errs[0], errs[1]));
    }
    // 2. the undamped Gauss–Newton step
    let mut g = vec![0.0; n];
    let mut diag = vec![0.0; n];
    for_each_entry(c, &blocks, |i, j, v| {
        g[j] += v * ev.r[i];
        diag[j] += v * v;
    });
    let eps = 1e-12 * diag.iter().fold(0.0f64, |a, &x| a.max(x));
    let f = moreau_optim::lm::TangentObjective::preconditioner(c, z, eps)
        .ok_or("JᵀJ + εI is not positive definite")?;
    let mut delta: Vec<f64> = g.iter().map(|x| -x).collect();
    f.solve(&mut delta);
    let step = delta.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let f0 = 0.5 * ev.r.iter().map(|x| x * x).sum::<f64>();
    jacobian_times(c, &blocks, &delta, &mut jd);
    let q0: Vec<Vec<f64>> = (0..=c.horizon).map(|t| c.config(z, t).to_vec()).collect();
    let n0 = moreau_problems::contact_counts(m, &q0);
    let mut along = Vec::new();
    for s in [1.0, 0.3, 0.1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6] {
        let zs = c.retract(z, &delta, s);
        let rs = c.evaluate(&zs).r;
        let fs = 0.5 * rs.iter().map(|x| x * x).sum::<f64>();
        let fm = 0.5
            * (0..nres)
                .map(|i| (ev.r[i] + s * jd[i]).powi(2))
                .sum::<f64>();
        let mut by_knot = vec![0.0; c.horizon + 1];
        let mut error_by_kind: std::collections::BTreeMap<String, f64> = Default::default();
        for i in 0..nres {
            let e = (rs[i] - ev.r[i] - s * jd[i]).powi(2);
            by_knot[knot_of(i)] += e;
            *error_by_kind.entry(kind_of(i)).or_default() += e;
        }
        let total: f64 = by_knot.iter().sum();
        let mut order: Vec<usize> = (0..=c.horizon).collect();
        order.sort_by(|&a, &b| by_knot[b].total_cmp(&by_knot[a]));
        let qs: Vec<Vec<f64>> = (0..=c.horizon).map(|t| c.config(&zs, t).to_vec()).collect();
        let ns = moreau_problems::contact_counts(m, &qs);
        along.push(AlongStep {
            s,
            f: fs,
            model: fm,
            gain_ratio: (f0 - fs) / (f0 - fm),
            error_by_kind,
            worst_knots: order
                .iter()
                .take(4)
                .map(|&t| (t, by_knot[t] / total.max(1e-300), n0[t], ns[t]))
                .collect(),
            contact_changes: (0..=c.horizon).filter(|&t| ns[t] != n0[t]).count(),
        });
    }
    Ok(GaussNewtonCheck {
        blocks: out_blocks,
        block_error_by_kind,
        f0,
        step,
        along,
    })
}
