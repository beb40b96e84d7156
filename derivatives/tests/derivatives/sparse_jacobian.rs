//! Derivatives with the sparse constraint Jacobian (`jacobian="sparse"`): every derivative that
//! reads `efc_J` (through `Data::efc_J_row` / `efc_J_dense`) gives the same matrices as with the
//! dense layout, at contact states of the humanoid (nv 27) and of the three humanoids (nv 84,
//! without its connect and weld, which the analytic derivatives refuse). The sparse and dense pipelines add the same nonzero
//! terms in the same order, so equality is exact; the dense results are checked against duals
//! and finite differences in `analytic.rs`.

use moreau::model::JacobianType;
use moreau::{step, Data, Model};
use moreau_derivatives::constraint::{constraint_hessian, efc_jacobian};
use moreau_derivatives::dual::dual_forward_jacobian;
use moreau_derivatives::{inverse, transition, InverseOptions, TransitionOptions};

/// A project model; humanoids without its connect and weld (the analytic derivatives refuse
/// them: `J̇ v` in aref), keeping its joint and tendon equalities.
fn model(name: &str) -> Model {
    let p = format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    let xml: String = std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("<connect ") && !l.contains("<weld "))
        .collect::<Vec<_>>()
        .join("\n");
    moreau::load_from_str(&xml, &Default::default()).unwrap()
}

/// The keyframe state after `settle` steps (contacts and limits active).
fn settled(m: &Model, settle: usize) -> Data<f64> {
    let mut d = Data::new(m);
    d.reset_keyframe(m, 0).unwrap();
    for _ in 0..settle {
        step(m, &mut d);
    }
    d
}

#[test]
fn derivatives_agree_sparse_and_dense() {
    for (name, settle, duals) in [("humanoid", 60, true), ("humanoids", 80, false)] {
        let mut ms = model(name);
        ms.opt.jacobian = JacobianType::Sparse;

        let mut md = ms.clone();
        md.opt.jacobian = JacobianType::Dense;
        let mut ds = settled(&ms, settle);
        let mut dd = settled(&md, settle);
        assert_eq!(ds.qpos, dd.qpos, "{name}: rollouts differ");
        let ts = transition(
            &ms,
            &mut ds,
            &TransitionOptions::analytic().with_sensors(false),
        )
        .unwrap();
        let td = transition(
            &md,
            &mut dd,
            &TransitionOptions::analytic().with_sensors(false),
        )
        .unwrap();
        assert!(
            ds.efc_J_sparse && !dd.efc_J_sparse && ds.nefc > 10,
            "{name}"
        );
        assert_eq!(efc_jacobian(&ms, &ds), efc_jacobian(&md, &dd), "{name}: J");
        assert_eq!(
            constraint_hessian(&ms, &ds),
            constraint_hessian(&md, &dd),
            "{name}: H[s]"
        );
        assert_eq!(ts.A, td.A, "{name}: A");
        assert_eq!(ts.B, td.B, "{name}: B");
        let is = inverse(&ms, &mut ds, &InverseOptions::analytic())
            .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
            .unwrap();
        let id = inverse(&md, &mut dd, &InverseOptions::analytic())
            .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
            .unwrap();
        assert_eq!(is.0, id.0, "{name}: DfDq");
        assert_eq!(is.1, id.1, "{name}: DfDv");
        assert_eq!(is.2, id.2, "{name}: DfDa");
        if duals {
            // the engine on dual numbers through the sparse assembly and solver
            assert_eq!(
                dual_forward_jacobian(&ms, &ds),
                dual_forward_jacobian(&md, &dd),
                "{name}: dual forward Jacobian"
            );
        }
    }
}
