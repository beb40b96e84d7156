use moreau::Data;
use moreau_derivatives::rnea;
use std::time::Instant;
fn cpu() -> f64 {
    #[repr(C)]
    struct Ts { s: i64, n: i64 }
    extern "C" { fn clock_gettime(c: i32, t: *mut Ts) -> i32; }
    let mut t = Ts { s: 0, n: 0 };
    unsafe { clock_gettime(3, &mut t) };
    t.s as f64 * 1e6 + t.n as f64 * 1e-3
}
fn t<F: FnMut()>(name: &str, n: usize, mut f: F) {
    let mut v = vec![];
    for _ in 0..9 {
        let s = cpu();
        let _w = Instant::now();
        for _ in 0..n { f(); }
        v.push((cpu() - s) / n as f64);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("{name}: cpu {:.2} us (min {:.2})", v[4], v[0]);
}
fn main() {
    let m = moreau::mjcf::load("models/humanoid.xml").unwrap();
    let mut d = Data::new(&m);
    d.reset_keyframe(&m, 0).ok();
    for i in 0..m.nv { d.qvel[i] = 0.1 * i as f64; d.qacc[i] = 0.05 * i as f64 - 0.3; }
    moreau::forward::fwd_position(&m, &mut d);
    moreau::forward::fwd_velocity(&m, &mut d);
    let mut w = rnea::Work::default();
    let mut out = nalgebra::DMatrix::zeros(m.nv, m.nv);
    let mut dv = vec![0.0; m.nv * m.nv];
    let qacc = d.qacc.clone();
    t("kinematics", 500, || moreau::kinematics::kinematics(&m, &mut d));
    t("com_pos", 500, || moreau::com::com_pos(&m, &mut d));
    t("crb", 500, || moreau::crb::crb(&m, &mut d));
    t("com_vel", 500, || moreau::com::com_vel(&m, &mut d));
    t("d_smooth_pos", 500, || rnea::d_smooth_pos(&m, &d, Some(&qacc), rnea::Terms::default(), &mut w, &mut out));
    t("d_rne_vel", 500, || { dv.iter_mut().for_each(|x| *x = 0.0); moreau::derivative::d_rne_vel(&m, &mut d, 0..m.nv, &mut dv) });
    t("rnea_derivatives", 500, || rnea::rnea_derivatives(&m, &mut d, &qacc, &mut w, &mut out, &mut dv));
    let mut dm = nalgebra::DMatrix::zeros(m.nv, m.nM);
    t("d_mass_pos", 500, || rnea::d_mass_pos(&m, &d, &mut w, &mut dm));
}
