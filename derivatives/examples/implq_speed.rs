//! Thread CPU time of the analytic transition Jacobians (`A, B`; then with the sensor Jacobians
//! `C, D`) against centered-free FD (`mjd_transitionFD` semantics, forward differences, eps
//! 1e-6, with sensors) at a settled state, under the model's integrator (or `implicitfast` with
//! `--implicitfast`): `cargo run --release -p moreau-derivatives --example implq_speed --
//! models/tendon_velocity.xml [STEPS] [--implicitfast]`. Median of 15 batches of 20 calls,
//! interleaved.

use moreau::model::Integrator;
use moreau::pipeline::thread_cpu_us;
use moreau::{step, Data};
use moreau_derivatives::fd::FdWorkspace;
use moreau_derivatives::{TransitionOptions, Workspace};

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(|a, b| a.total_cmp(b));
    x[x.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .map_or("models/tendon_velocity.xml", |s| s.as_str());
    let settle: usize = args.get(2).map_or(Ok(300), |s| s.parse())?;
    let mut m = moreau::load(path)?;
    if args.iter().any(|a| a == "--implicitfast") {
        m.opt.integrator = Integrator::ImplicitFast;
    }
    let mut d = Data::new(&m);
    if m.nkey > 0 {
        d.reset_keyframe(&m, 0)?;
    }
    for _ in 0..settle {
        step(&m, &mut d);
    }
    let d0 = d.clone();
    let mut w = Workspace::default();
    let mut fd = FdWorkspace::new(&m);
    let (batches, n) = (15, 20);
    let (mut ab, mut abcd, mut fdt) = (Vec::new(), Vec::new(), Vec::new());
    let time = |f: &mut dyn FnMut()| {
        let t = thread_cpu_us().unwrap_or(0.0);
        for _ in 0..n {
            f();
        }
        (thread_cpu_us().unwrap_or(0.0) - t) / n as f64
    };
    for _ in 0..batches {
        ab.push(time(&mut || {
            d.clone_from(&d0);
            w.transition(
                &m,
                &mut d,
                &TransitionOptions::analytic().with_sensors(false),
            )
            .cloned()
            .unwrap();
        }));
        abcd.push(time(&mut || {
            d.clone_from(&d0);
            w.transition(
                &m,
                &mut d,
                &TransitionOptions::analytic().with_sensors(true),
            )
            .cloned()
            .unwrap();
        }));
        fdt.push(time(&mut || {
            d.clone_from(&d0);
            fd.transition(&m, &mut d, 1e-6, false);
        }));
    }
    let (ab, abcd, fdt) = (median(ab), median(abcd), median(fdt));
    println!(
        "{path} ({:?}, nv {}, nu {}, nsensordata {}, nefc {}): analytic A,B {ab:.1} us, \
         A,B,C,D {abcd:.1} us, FD A,B,C,D {fdt:.1} us (CPU, median); ratios A,B / FD {:.3}, \
         A,B,C,D / FD {:.3}",
        m.opt.integrator,
        m.nv,
        m.nu,
        m.nsensordata,
        d0.nefc,
        ab / fdt,
        abcd / fdt
    );
    Ok(())
}
