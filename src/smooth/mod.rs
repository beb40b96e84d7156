//! The smooth dynamics (Computation "General framework", "Simulation pipeline"): forward
//! kinematics, centre-of-mass quantities, the composite-rigid-body inertia and its tree-sparse
//! factorization, the recursive Newton–Euler bias forces, tendons and body Jacobians.

pub mod com;
pub mod crb;
pub mod jacobian;
pub mod kinematics;
pub mod rne;
pub mod tendon;
