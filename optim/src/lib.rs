//! Trajectory optimization on moreau: iLQR (this crate's first piece); direct collocation, MPC
//! and system identification are still to come (see the optim issue).

pub mod ilqr;
pub mod system;
