use moreau::Data;
use moreau_derivatives::{contact, pos, rnea};
use std::time::Instant;
fn t<F: FnMut()>(name: &str, n: usize, mut f: F) {
    let mut v = vec![];
    for _ in 0..7 {
        let s = Instant::now();
        for _ in 0..n { f(); }
        v.push(s.elapsed().as_secs_f64() * 1e6 / n as f64);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("{name}: {:.1} us (min {:.1})", v[3], v[0]);
}
fn main() {
    let m = moreau::mjcf::load("models/humanoid.xml").unwrap();
    let mut d = Data::new(&m);
    d.reset_keyframe(&m, 0).ok();
    moreau::forward::forward(&m, &mut d);
    println!("nefc {}", d.nefc);
    let mut w = rnea::Work::default();
    let mut out = nalgebra::DMatrix::zeros(m.nv, m.nv);
    t("forward", 200, || moreau::forward::forward(&m, &mut d));
    t("d_smooth_pos", 200, || rnea::d_smooth_pos(&m, &d, Some(&d.qacc), rnea::Terms::default(), &mut w, &mut out));
    let mut dm = nalgebra::DMatrix::zeros(m.nv, m.nM);
    t("d_mass_pos", 200, || rnea::d_mass_pos(&m, &d, &mut w, &mut dm));
    t("d_pos residual", 20, || { let _ = pos::d_pos(&m, &d, pos::Output::Residual, &mut w); });
    t("transition_analytic", 20, || { let _ = contact::transition_analytic(&m, &mut d); });
}
