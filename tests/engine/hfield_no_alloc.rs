//! `integrator::step` on f64 allocates nothing with height-field contacts (a box, a mesh and a
//! cylinder on a field: the native-CCD model's EPA polytope is kept per thread,
//! src/collision/hfield.rs).

use crate::alloc_counter;
use alloc_counter::allocations;

#[test]
fn hfield_step_does_not_allocate() {
    let xml = r#"<mujoco><asset><hfield name="h" nrow="4" ncol="4" size=".4 .4 .05 .05"
        elevation="0 .2 .4 .1  .1 .3 .5 .2  .2 .4 .6 .3  .1 .2 .3 .4"/>
      <mesh name="c" vertex="-.03 -.03 -.03 -.03 -.03 .03 -.03 .03 -.03 -.03 .03 .03
        .03 -.03 -.03 .03 -.03 .03 .03 .03 -.03 .03 .03 .03"/></asset><worldbody>
      <geom type="hfield" hfield="h"/>
      <body pos="-.1 -.1 .05" euler="4 -3 20"><freejoint/><geom type="box" size=".03 .02 .02"/></body>
      <body pos=".1 .1 .06"><freejoint/><geom type="mesh" mesh="c"/></body>
      <body pos=".1 -.1 .06" euler="90 0 0"><freejoint/><geom type="cylinder" size=".02 .03"/></body>
    </worldbody></mujoco>"#;
    let m = moreau::load_from_str(xml, &moreau::Vfs::default()).unwrap();
    let mut d = moreau::Data::<f64>::new(&m);
    for _ in 0..20 {
        moreau::step(&m, &mut d);
    }
    let nhf = d.contact.iter().filter(|c| c.geom[0] == 0).count();
    assert!(nhf >= 3, "{nhf} height-field contacts");
    let before = allocations();
    for _ in 0..5 {
        moreau::step(&m, &mut d);
    }
    let n = allocations() - before;
    assert_eq!(n, 0, "{n} allocations");
}
