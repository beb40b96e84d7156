//! The MJCF plate scene of Anderson & Revzen §5.2 (`Plate::mjcf_model`): it builds, has exactly N
//! active contacts when the plate rests on the springs, and its soft contacts reproduce the
//! springs' static sag `m g / (N k)` (so the ESS-vs-engine timing in `examples/ess_plate.rs`
//! cannot silently measure a contact-free or mismatched scene).

use moreau::{forward, step, Data};
use moreau_ess::models::Plate;

#[test]
fn plate_mjcf_scene_rests_on_n_contacts_with_the_spring_sag() {
    for n in [2usize, 7, 40] {
        let plate = Plate::new(n);
        let m = plate.mjcf_model(0.002).expect("MJCF plate compiles");
        assert_eq!(
            (m.nq, m.nv),
            (3, 3),
            "planar plate: slide x, slide z, hinge"
        );
        assert_eq!(m.ngeom, n + 1);
        let sag = plate.mass * plate.g / (n as f64 * plate.k);
        let mut d = Data::new(&m);

        // At the springs' equilibrium every tip touches the plate.
        d.qpos.copy_from_slice(&[0.0, plate.l0 - sag, 0.0]);
        forward(&m, &mut d);
        assert_eq!(d.contact.len(), n, "N = {n}: one contact per spring");
        for c in &d.contact {
            assert!((c.dist + sag).abs() < 1e-9, "penetration = sag: {}", c.dist);
            assert_eq!(c.dim, 1);
        }

        // Dropped from touching height (and slightly tilted), it settles at the spring sag.
        d.qpos.copy_from_slice(&[0.0, plate.l0, 0.02]);
        d.qvel.iter_mut().for_each(|v| *v = 0.0);
        while d.time < 4.0 {
            step(&m, &mut d);
        }
        forward(&m, &mut d);
        assert_eq!(d.contact.len(), n, "N = {n}: resting on all springs");
        let z = d.qpos[1];
        assert!(
            ((plate.l0 - z) / sag - 1.0).abs() < 0.02,
            "N = {n}: sag {} vs spring sag {sag}",
            plate.l0 - z
        );
        assert!(d.qpos[2].abs() < 1e-3, "levels out: theta = {}", d.qpos[2]);
    }
}
