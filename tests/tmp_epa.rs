mod oracle_util;
use moreau::collision::convex::{geom_shape, penetration, Posed};
use moreau::Data;
use oracle_util::reference;
use oracle_util::scene::{build_model, set_pose};
#[test]
fn tmp() {
    let j = reference("multiccd_cylinder_cases.json");
    let sc = j["scenes"].as_array().unwrap().iter().find(|s| s["name"] == "cube-cyl-sidetilt").unwrap();
    let m = build_model(&sc["model"]);
    let mut d: Data<f64> = Data::new(&m);
    set_pose(&mut d, &sc["poses"][24]);
    let (g0, g1) = (1, 0);
    let a = Posed { shape: geom_shape(&m, g0).unwrap(), pos: d.geom_xpos[g0], mat: d.geom_xmat[g0] };
    let b = Posed { shape: geom_shape(&m, g1).unwrap(), pos: d.geom_xpos[g1], mat: d.geom_xmat[g1] };
    for it in [50, 100, 200, 1000] {
        for tol in [1e-10, 1e-12] {
            let c = penetration(&a, &b, tol, it);
            println!("{it} {tol} {:?}", c.map(|c| (c.dist, c.normal)));
        }
    }
}
