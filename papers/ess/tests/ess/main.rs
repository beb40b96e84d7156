//! The Event-Selected-Systems integrator's integration tests, one module per experiment.

mod ess_plate_mjcf;
mod hybrid_dopri5;
mod hybrid_ess;
