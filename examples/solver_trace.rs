//! Per step: the solver's iterations per island and, per iteration, the line-search evaluations,
//! improvement and gradient, from keyframe 0 (or the reset state) under the controls of a CSV
//! file. Compare with `tools/reference/solver_trace.py MODEL N CSV` (MuJoCo 4.0.0, same format).
//!
//!     cargo run --release --example solver_trace -- MODEL.xml N CTRL.csv

use moreau::Data;

fn main() -> Result<(), String> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 4 {
        return Err("usage: solver_trace MODEL.xml N CTRL.csv".into());
    }
    let m = moreau::load(&a[1]).map_err(|e| e.to_string())?;
    let n: usize = a[2].parse().map_err(|e| format!("{e}"))?;
    let text = std::fs::read_to_string(&a[3]).map_err(|e| e.to_string())?;
    let ctrl: Vec<Vec<f64>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').map(|x| x.trim().parse::<f64>()).collect())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{}: {e}", a[3]))?;
    let mut d = Data::<f64>::new(&m);
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0).map_err(|e| e.to_string())?;
    } else {
        d.reset(&m);
    }
    if ctrl.len() < n {
        return Err(format!(
            "{}: {} control rows, {n} steps asked",
            a[3],
            ctrl.len()
        ));
    }
    for (k, row) in ctrl.iter().take(n).enumerate() {
        d.ctrl.copy_from_slice(row);
        moreau::step(&m, &mut d);
        let ni = d.nisland.max(1);
        let mut line = format!("{k} nefc {}", d.nefc);
        for i in 0..ni.min(d.solver_niter.len()) {
            line += &format!(" | {}:", d.solver_niter[i]);
            for s in d.solver_stats(i) {
                line += &format!(" {}/{:.3e}/{:.3e}", s.neval, s.improvement, s.gradient);
            }
        }
        println!("{line}");
    }
    Ok(())
}
