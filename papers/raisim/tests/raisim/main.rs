//! The RaiSim contact solver's integration tests, one module per experiment.

mod experiments;
mod raisim_limits;
mod raisim_mpc;
