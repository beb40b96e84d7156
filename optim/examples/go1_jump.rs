//! A jump of MuJoCo Menagerie's Unitree Go1 (the public zoo's `unitree_go1/scene.xml`,
//! unchanged) planned through soft contact, from a crouch-and-launch initial guess (the engine's
//! rollout under a scripted servo profile, `common/go1_jump.rs`): by direct collocation with a
//! trunk-height target over the guess's flight (`--method collocation`), by iLQR through the
//! engine's step with the same target as a time-varying reference (`--method ilqr`), or both
//! (default).
//!
//! Run: `cargo run --release -p moreau-optim --example go1_jump [-- --method
//! collocation|ilqr|both --horizon 300 --apex 0.36 --max-iters N --ilqr-iters N --gtol G
//! --defect-tol D --impratio-stages A,B,… --from-ilqr --script default|knees-clear
//! --guess script|standing --window A,B --clearance H,W --soften-stages K,… --apex-stages Z,…
//! --stage-iters N]`
//!
//! From a standing guess: `--guess standing` starts both planners from the engine's rollout with
//! the servos held at `home` (the trunk target then needs `--window A,B`, default 110,200: a
//! standing guess has no flight to take it from); `--clearance H,W` adds the feet's clearance
//! term over the window (each foot's bottom `H` m above the floor, weight `W`; without it a
//! standing robot meets the trunk target by straightening its legs). The jump from standing is
//! `--guess standing --apex 0.37 --clearance 0.04,1e4 --from-ilqr --ilqr-iters 200`: iLQR from
//! the standing controls, then collocation from iLQR's plan (the penalties' targets above what
//! the jump must reach, an apex of 0.36 m and the feet 3 cm up: a penalty stops short of its
//! target). `--require Z,H`: the jump's requirements as hard constraints instead (`Requirements`
//! of `common/go1_jump.rs`: the trunk at least `Z` m up at the window's middle knot, every foot
//! at least `H` m up over the window's middle half, by an augmented-Lagrangian outer loop around
//! LM and as shifted penalties in iLQR; `--margin M` the plan's back-off, default 5e-4 m,
//! `--rho R` the starting penalty, default 1e4, `--al-tol T` the violation accepted, default
//! 1e-4 m, `--al-rounds N` at most N inner solves, default 10): `--guess standing --require
//! 0.36,0.03 --from-ilqr --ilqr-iters 200` is the test's jump; `--apex-window A,B` puts the
//! apex requirement on the trunk's highest knot over `A..=B` instead of the middle knot
//! (`Requirements::apex_window`). `--guess ballistic`: a guess derived from the standing
//! rollout alone by kinematics (`Ballistic` of `common/go1_jump.rs`: a crouch, a push at
//! constant acceleration, a ballistic arc of the trunk, the mirror-image landing, the feet on
//! their standing spots in stance and following the trunk in flight, the legs by inverse
//! kinematics); `--ballistic T,K,Z,L,R[,C,N]` its take-off knot, apex knot, apex height, legs'
//! tuck, the feet's ramp knots, crouch depth and crouch knots; `--support` the supported form
//! (`Ballistic::support`: the push's floor force tapering to zero at take-off, the stance feet
//! sunk to the depth that carries it and rolling, the centre of mass on the ballistic arc in
//! flight); `--guess-forces` prints the guess's inverse-dynamics forces against `forcerange`
//! and its largest unactuated force, knot by knot where beyond the range (`--verbose`: every
//! knot), and stops. `--soften-stages K,…`: a continuation
//! on the contacts' softness (every geom's solref time constant ×K first, from the guess's
//! controls rolled out on that model); `--apex-stages Z,…`: on the trunk's target height;
//! `--stage-iters N`: LM's limit in every stage but the last; `--model-tolerance-only`: replay
//! with the model's solver tolerance only (the replay with the solver run to convergence takes
//! minutes on this model).
//! (`--script knees-clear`: the guess from `Script::knees_clear` of `common/go1_jump.rs`, a crouch that keeps
//! the lower calves off the floor) (`--max-iters`: LM's limit;
//! `--ilqr-iters`: iLQR's, default 300; `--impratio-stages`: a continuation that solves with
//! `opt.impratio` at A, B, … first, from the scripted rollout on the first one's model, each
//! stage from the last one's solution, and ends on the unchanged model; `--from-ilqr`: the collocation starts from iLQR's plan instead of the
//! scripted rollout; `--impratio A`: the whole run on the model with `opt.impratio = A`;
//! `--newton-after X`, `--max-stalls N`: LM's `newton_after` and `max_stalls`; `--marquardt`:
//! LM's damping scaled by the normal matrix's diagonal; `--dynamics-weight W`: the dynamics
//! residual's weight (default 3); `--fd-eps E`:
//! centered differences of step `E` for the inverse-dynamics Jacobians; `--check`: why LM
//! stops, at the guess and at the end of each stage — the residual Jacobian and the
//! Gauss–Newton model against the residual along the steepest descent and along LM's damped
//! steps, and every knot's inverse-dynamics Jacobians against centered differences;
//! `--gn-check`: at the same points, the residual Jacobian knot block by knot block against
//! central differences, and the objective along the undamped Gauss–Newton step against its
//! model, with the knots that carry the model's error and their contact counts).
//!
//! Prints, for the guess and for each plan: knots with no contact, the longest flight, the
//! trunk's apex, the landing's tilt and height; for each planner its iterations, process CPU
//! time, cost, the largest dynamics residual (collocation), and the open-loop replay error of
//! its controls in the engine (with the model's solver tolerance and with the solver run to
//! convergence: on this robot the residual is limited by the forward solver's tolerance).
//! Writes the controls to `target/go1_jump_ctrl.csv` (one row per step) and the plan to
//! `target/go1_jump_qpos.csv` (the last planner's), which `tools/robots/go1_jump_replay.py`
//! replays in MuJoCo.

#[path = "common/go1_jump.rs"]
#[allow(dead_code)] // `Summary::jumped` is the test's
mod jump;

use moreau::Model;

fn main() {
    if let Err(e) = run() {
        eprintln!("go1_jump: {e}");
        std::process::exit(1);
    }
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> Result<T, String> {
    match args.iter().position(|a| a == name) {
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or(format!("{name} needs a value")),
        None => Ok(default),
    }
}

/// The comma-separated numbers after `name` (none without the flag).
fn list(args: &[String], name: &str) -> Result<Vec<f64>, String> {
    match args.iter().position(|a| a == name) {
        Some(i) => args
            .get(i + 1)
            .ok_or(format!("{name} needs a list"))?
            .split(',')
            .map(|x| match x.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                _ => Err(format!("{name}: bad value {x}")),
            })
            .collect(),
        None => Ok(Vec::new()),
    }
}

/// Process CPU time (user + system, s).
fn cpu_seconds() -> f64 {
    moreau_optim::mpc::process_cpu_secs().unwrap_or(f64::NAN)
}

fn describe(what: &str, s: &jump::Summary) {
    println!(
        "{what}: {} knots without contact, longest flight {} knots from knot {}; apex {:.4} m; \
         max tilt {:.2} deg; final tilt {:.2} deg, final height {:.4} m{}",
        s.airborne,
        s.flight.0,
        s.flight.1,
        s.apex,
        s.max_tilt.to_degrees(),
        s.final_tilt.to_degrees(),
        s.final_z,
        if s.landed { "" } else { " (not landed)" }
    );
}

/// Open-loop replay of `plan.u` from `home`: the largest `|q_t − plan_t|` with the model's
/// solver tolerance and with the solver run to convergence (tolerance 0, 10⁴ iterations).
fn replay_errors(m: &Model, home: &[f64], plan: &jump::Plan) -> (f64, f64) {
    if std::env::args().any(|a| a == "--model-tolerance-only") {
        let q = jump::rollout(m, home, &plan.u);
        return (moreau_problems::max_diff(&q, &plan.q), f64::NAN);
    }
    let err = |m: &Model| {
        let q = jump::rollout(m, home, &plan.u);
        moreau_problems::max_diff(&q, &plan.q)
    };
    let mut tight = m.clone();
    tight.opt.tolerance = 0.0;
    tight.opt.iterations = 10_000;
    (err(m), err(&tight))
}

/// The feet's bottoms (m above the floor) of the configurations `qs` at the window's middle
/// knot, and the lowest foot over the middle half of the window.
fn feet_line(m: &Model, goal: &jump::Goal, qs: &[Vec<f64>]) -> Option<String> {
    let c = goal.clearance.as_ref()?;
    let (a, b) = goal.window;
    let mid = (a + b) / 2;
    let (lo, hi) = (a + (b - a) / 4, b - (b - a) / 4);
    let mut scratch = (moreau::Data::new(m), Vec::new());
    let mut bottom = vec![0.0; c.geoms.len()];
    let mut at = |t: usize, bottom: &mut Vec<f64>| {
        jump::feet_bottoms(m, &mut scratch, &c.geoms, &qs[t], bottom, None);
        bottom.iter().copied().fold(f64::MAX, f64::min)
    };
    let lowest = (lo..=hi)
        .map(|t| at(t, &mut bottom))
        .fold(f64::MAX, f64::min);
    at(mid, &mut bottom);
    Some(format!(
        "feet bottoms at knot {mid}: {} m; lowest foot over knots {lo}..={hi}: {lowest:.4} m",
        bottom
            .iter()
            .map(|x| format!("{x:.4}"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The requirements' lowest values along `qs`: the trunk's height at the apex knot and the
/// lowest foot over the feet window (without the margin), against the requirements.
fn requirements_line(m: &Model, goal: &jump::Goal, qs: &[Vec<f64>]) -> Option<String> {
    let r = goal.requirements.as_ref()?;
    let g = r.values(m, qs);
    let n = g.len();
    let feet = g[..n - 1].iter().fold(f64::MAX, |a, &x| a.min(x)) + r.margin;
    let apex = g[n - 1] + r.margin;
    Some(format!(
        "trunk at knot {} {:.5} m (required {}), lowest foot over knots {}..={} {:.5} m (required {})",
        r.apex_knot,
        apex + r.apex,
        r.apex,
        r.feet_window.0,
        r.feet_window.1,
        feet + r.clearance,
        r.clearance
    ))
}

fn report(m: &Model, home: &[f64], name: &str, plan: &jump::Plan, cpu: f64, goal: &jump::Goal) {
    println!(
        "{name}: {} iterations ({}{}), CPU {cpu:.2} s, cost {:.5}{}",
        plan.iterations,
        if plan.converged {
            "converged: "
        } else {
            "not converged: "
        },
        plan.termination,
        plan.cost,
        if name == "collocation" {
            format!(", max |unactuated τ| {:.2e} N", plan.defect)
        } else {
            String::new()
        }
    );
    describe(&format!("{name} plan"), &jump::summarize(m, &plan.q));
    if let Some(line) = feet_line(m, goal, &plan.q) {
        println!("{name} plan: {line}");
    }
    if let Some(line) = requirements_line(m, goal, &plan.q) {
        println!(
            "{name} plan: {line}; largest violation (with the margin) {:.2e} m",
            plan.violation
        );
        let per_round: Vec<String> = plan
            .round_violations
            .iter()
            .map(|v| format!("{v:.2e}"))
            .collect();
        println!(
            "{name}: largest violation after each augmented-Lagrangian round (m): {}",
            per_round.join(", ")
        );
        if name == "collocation" {
            let lmax = plan.multipliers.iter().fold(0.0f64, |a, &x| a.max(x));
            println!(
                "{name}: {} augmented-Lagrangian rounds, ρ {:.0e}, {} positive multipliers \
                 (largest {lmax:.4e}, apex {:.4e}); LM certified: {} (gain ratio {:.3} at step \
                 fraction {:.0e})",
                plan.rounds,
                plan.rho,
                plan.multipliers.iter().filter(|&&x| x > 0.0).count(),
                plan.multipliers.last().copied().unwrap_or(f64::NAN),
                plan.certified,
                plan.model_ratio,
                plan.model_step
            );
        }
    }
    let (e, et) = replay_errors(m, home, plan);
    let tight = if et.is_nan() {
        "not run".to_string()
    } else {
        format!("{et:.3e}")
    };
    println!(
        "{name}: open-loop replay in the engine: max |q − plan| {e:.3e} (model's tolerance), \
         {tight} (solver to convergence)"
    );
    let replayed = jump::rollout(m, home, &plan.u);
    describe(&format!("{name} replay"), &jump::summarize(m, &replayed));
    if let Some(line) = feet_line(m, goal, &replayed) {
        println!("{name} replay: {line}");
    }
    if let Some(line) = requirements_line(m, goal, &replayed) {
        println!("{name} replay: {line}");
    }
}

fn write_csv(plan: &jump::Plan) -> Result<(), String> {
    let rows = |x: &[Vec<f64>]| -> String {
        x.iter()
            .map(|u| {
                let cells: Vec<String> = u.iter().map(|x| format!("{x:.17e}")).collect();
                cells.join(",") + "\n"
            })
            .collect()
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target");
    let (uf, qf) = (dir.join("go1_jump_ctrl.csv"), dir.join("go1_jump_qpos.csv"));
    std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(&uf, rows(&plan.u)))
        .and_then(|_| std::fs::write(&qf, rows(&plan.q)))
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    println!(
        "controls in {}, planned qpos (knots 0..=T) in {}",
        uf.display(),
        qf.display()
    );
    Ok(())
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let method: String = arg(&args, "--method", "both".to_string())?;
    if !["collocation", "ilqr", "both"].contains(&method.as_str()) {
        return Err(format!(
            "--method must be collocation, ilqr or both, not {method}"
        ));
    }
    let horizon: usize = arg(&args, "--horizon", 300)?;
    let apex: f64 = arg(&args, "--apex", 0.36)?;
    let max_iters: u64 = arg(&args, "--max-iters", 300)?;
    let ilqr_iters: usize = arg(&args, "--ilqr-iters", 300)?;
    let settings = jump::CollocationSettings {
        max_iters,
        stage_iters: arg(&args, "--stage-iters", 0)?,
        gtol: arg(&args, "--gtol", 0.03)?,
        defect_tol: arg(&args, "--defect-tol", 1e-3)?,
        impratio_stages: list(&args, "--impratio-stages")?,
        soften_stages: list(&args, "--soften-stages")?,
        apex_stages: list(&args, "--apex-stages")?,
        check: args.iter().any(|a| a == "--check"),
        gn_check: args.iter().any(|a| a == "--gn-check"),
        fd_eps: arg(&args, "--fd-eps", 0.0)?,
        newton_after: arg(&args, "--newton-after", 0.0)?,
        max_stalls: arg(&args, "--max-stalls", 20)?,
        marquardt: args.iter().any(|a| a == "--marquardt"),
        dynamics_weight: arg(&args, "--dynamics-weight", 0.0)?,
        al: jump::AlSettings {
            tol: arg(&args, "--al-tol", 1e-4)?,
            max_rounds: arg(&args, "--al-rounds", 10)?,
            ..Default::default()
        },
    };
    let (mut m, home, home_ctrl) = jump::load()?;
    if let Some(i) = args.iter().position(|a| a == "--impratio") {
        // a modified model: the guess, the plans and the replays all use it
        m.opt.impratio = args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or("--impratio needs a value")?;
        println!("model changed: opt.impratio = {}", m.opt.impratio);
    }
    let script = match arg(&args, "--script", "default".to_string())?.as_str() {
        "default" => jump::Script::default(),
        "knees-clear" => jump::Script::knees_clear(),
        other => {
            return Err(format!(
                "--script must be default or knees-clear, not {other}"
            ))
        }
    };
    let (standing, ballistic) = match arg(&args, "--guess", "script".to_string())?.as_str() {
        "script" => (false, false),
        "standing" => (true, false),
        "ballistic" => (true, true),
        other => {
            return Err(format!(
                "--guess must be script, standing or ballistic, not {other}"
            ))
        }
    };
    let window = list(&args, "--window")?;
    let window = match window[..] {
        [] => None,
        [a, b] if a <= b && b < horizon as f64 && a.fract() == 0.0 && b.fract() == 0.0 => {
            Some((a as usize, b as usize))
        }
        _ => {
            return Err(format!(
                "--window needs two knots a,b with a ≤ b < {horizon}"
            ))
        }
    };
    // iLQR starts from the script's controls, or from `home`'s for the standing guess
    let u0 = if standing {
        vec![home_ctrl.clone(); horizon]
    } else {
        script.controls(&home_ctrl, horizon)
    };
    let mut guess = jump::rollout(&m, &home, &u0);
    if ballistic {
        let mut b = jump::Ballistic::default();
        let knots = |x: f64| x.fract() == 0.0 && x >= 0.0;
        match list(&args, "--ballistic")?[..] {
            [] => {}
            [t, k, z, l, r] if [t, k, r].into_iter().all(knots) => {
                b = jump::Ballistic {
                    takeoff: t as usize,
                    apex_knot: k as usize,
                    apex: z,
                    lift: l,
                    ramp: r as usize,
                    ..b
                };
            }
            [t, k, z, l, r, c, n] if [t, k, r, n].into_iter().all(knots) => {
                b = jump::Ballistic {
                    takeoff: t as usize,
                    apex_knot: k as usize,
                    apex: z,
                    lift: l,
                    ramp: r as usize,
                    crouch: c,
                    crouch_knots: n as usize,
                    ..b
                };
            }
            _ => {
                return Err(
                    "--ballistic needs take-off knot, apex knot, apex height, feet \
                            lift and ramp knots, then optionally crouch depth and knots"
                        .into(),
                )
            }
        }
        b.support = args.iter().any(|a| a == "--support");
        let feet = jump::Clearance::feet(&m, 0.0, 0.0)?.geoms;
        let (g, crouch, push) = b.guess(&m, &guess, &feet)?;
        println!(
            "ballistic guess from the standing rollout: {b:?}; crouch from knot {crouch}, push \
             from knot {push}, landing at knot {}",
            2 * b.apex_knot - b.takeoff
        );
        guess = g;
    }
    let gs = jump::summarize(&m, &guess);
    if standing {
        println!(
            "Go1 jump: {horizon} knots of {} s; guess: standing (the engine's rollout with \
             the servos at `home`)",
            m.opt.timestep
        );
    } else {
        println!(
            "Go1 jump: {horizon} knots of {} s; guess: the engine's rollout of a scripted \
             crouch-and-launch servo profile ({script:?})",
            m.opt.timestep
        );
    }
    describe("guess", &gs);
    let mut goal = match window {
        Some(w) => jump::Goal::over_window(&home, w, apex),
        None if standing => jump::Goal::over_window(&home, (110, 200), apex),
        None if gs.flight.0 == 0 => {
            return Err("the scripted guess does not leave the ground".into())
        }
        None => jump::Goal::over_flight(&home, &gs, apex),
    };
    match list(&args, "--clearance")?[..] {
        [] => {}
        [h, w] => goal.clearance = Some(jump::Clearance::feet(&m, h, w)?),
        _ => return Err("--clearance needs a height and a weight".into()),
    }
    match list(&args, "--require")?[..] {
        [] => {}
        [z, h] => {
            let (a, b) = goal.window;
            goal.requirements = Some(jump::Requirements::go1(
                &m,
                (z, (a + b) / 2),
                (h, (a + (b - a) / 4, b - (b - a) / 4)),
                arg(&args, "--margin", 5e-4)?,
                arg(&args, "--rho", 1e4)?,
            )?);
        }
        _ => return Err("--require needs an apex height and a clearance".into()),
    }
    let apex_window = list(&args, "--apex-window")?;
    match (&apex_window[..], goal.requirements.as_mut()) {
        ([], _) => {}
        (&[a, b], Some(r)) if a <= b && a.fract() == 0.0 && b.fract() == 0.0 => {
            r.apex_window = Some((a as usize, b as usize))
        }
        _ => return Err("--apex-window needs two knots a ≤ b and --require".into()),
    }
    if let Some(r) = &goal.requirements {
        println!(
            "requirements: trunk ≥ {} m at knot {}, feet ≥ {} m over knots {}..={} (back-off {} m, ρ {:e})",
            r.apex, r.apex_knot, r.clearance, r.feet_window.0, r.feet_window.1, r.margin, r.rho
        );
    }
    println!(
        "target: trunk at {apex} m over knots {}..={} (weight {:e}){}",
        goal.window.0,
        goal.window.1,
        goal.w[1],
        goal.clearance.as_ref().map_or(String::new(), |c| format!(
            ", feet {} m up (weight {:e})",
            c.height, c.weight
        ))
    );
    if args.iter().any(|a| a == "--guess-forces") {
        // the guess's inverse-dynamics forces against `forcerange`, then stop
        let c = jump::collocation(m.clone(), &goal, horizon)?;
        let f = jump::guess_forces(&c, &guess);
        let z: Vec<f64> = guess[1..].iter().flatten().copied().collect();
        let ev = c.evaluate(&z);
        println!(
            "guess cost: task {:.4e}, control {:.4e}, limits {:.4e}",
            ev.task_cost, ev.control_cost, ev.limit_cost
        );
        let over: Vec<usize> = (0..f.len()).filter(|&t| f[t].0 > 0.0).collect();
        let worst = f.iter().map(|x| x.0).fold(0.0f64, f64::max);
        let defect = f.iter().map(|x| x.1).fold(0.0f64, f64::max);
        println!(
            "guess forces: {} knots beyond forcerange (largest excess {worst:.3} N·m), \
             largest unactuated force {defect:.3e} N",
            over.len()
        );
        for (t, (excess, unactuated)) in f.iter().enumerate() {
            if *excess > 0.0 || args.iter().any(|a| a == "--verbose") {
                println!("  knot {t}: excess {excess:.3} N·m, unactuated {unactuated:.3e} N");
            }
        }
        return Ok(());
    }
    let from_ilqr = args.iter().any(|a| a == "--from-ilqr");
    let mut last: Option<jump::Plan> = None;
    let collocate = |guess: &[Vec<f64>]| -> Result<jump::Plan, String> {
        let cpu0 = cpu_seconds();
        let plan = jump::solve_collocation(&m, &goal, guess, &settings, |st, line| {
            println!("collocation stage ({st}): {line}")
        })?;
        report(&m, &home, "collocation", &plan, cpu_seconds() - cpu0, &goal);
        println!(
            "collocation: cost {:.5} at the (last stage's) start, max |q − guess| {:.3e}",
            plan.history.first().copied().unwrap_or(f64::NAN),
            moreau_problems::max_diff(&plan.q, guess)
        );
        Ok(plan)
    };
    if method != "ilqr" && !from_ilqr {
        // with a continuation, the guess is the scripted rollout on the first stage's model
        // with a continuation on impratio or softness, the guess is the rollout of its
        // controls on the first stage's model (a standing or crouching robot settles deeper
        // on softer contacts)
        let stage = settings.stages(&m, &goal)[0];
        let first = if stage.impratio != m.opt.impratio || stage.soften != 1.0 {
            let mut soft = jump::softened(&m, stage.soften);
            soft.opt.impratio = stage.impratio;
            let g = jump::rollout(&soft, &home, &u0);
            describe(
                &format!("guess on the first stage's model ({stage})"),
                &jump::summarize(&m, &g),
            );
            g
        } else {
            guess.clone()
        };
        last = Some(collocate(&first)?);
    }
    if method != "collocation" || from_ilqr {
        let cpu0 = cpu_seconds();
        let al = jump::IlqrAl {
            rounds: arg(&args, "--ilqr-al-rounds", 10)?,
            iters: arg(&args, "--ilqr-al-iters", 40)?,
            tol: arg(&args, "--ilqr-al-tol", 2e-5)?,
        };
        let plan = jump::solve_ilqr_al(&m, &goal, &home_ctrl, &u0, ilqr_iters, &al, |k, c| {
            if k % 10 == 0 {
                println!("ilqr iteration {k}: cost {c:.6}")
            }
        })?;
        report(&m, &home, "ilqr", &plan, cpu_seconds() - cpu0, &goal);
        if goal.requirements.is_some() {
            println!(
                "ilqr: {} augmented-Lagrangian rounds, largest violation {:.2e} m, apex multiplier \
                 {:.4e} (shift {:.3e} m)",
                plan.rounds,
                plan.violation,
                plan.multipliers.last().copied().unwrap_or(f64::NAN),
                plan.multipliers.last().copied().unwrap_or(f64::NAN) / plan.rho
            );
        }
        if from_ilqr {
            // the collocation from iLQR's plan (a rollout of the engine), with the
            // requirements' multipliers iLQR ended with
            let mut goal = goal.clone();
            if let Some(r) = goal.requirements.as_mut() {
                r.lambda = plan.multipliers.clone();
            }
            let cpu0 = cpu_seconds();
            let p = jump::solve_collocation(&m, &goal, &plan.q, &settings, |st, line| {
                println!("collocation stage ({st}): {line}")
            })?;
            report(&m, &home, "collocation", &p, cpu_seconds() - cpu0, &goal);
            println!(
                "collocation: cost {:.5} at the (last stage's) start, max |q − guess| {:.3e}",
                p.history.first().copied().unwrap_or(f64::NAN),
                moreau_problems::max_diff(&p.q, &plan.q)
            );
            last = Some(p);
        } else {
            last = Some(plan);
        }
    }
    if let Some(plan) = last {
        write_csv(&plan)?;
    }
    Ok(())
}
