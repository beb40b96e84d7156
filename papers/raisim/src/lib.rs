//! RaiSim's contact solver with the de Saxcé correction, on moreau's engine (Le Lidec &
//! Carpentier, "Reconciling RaiSim with the Maximum Dissipation Principle").
//!
//! - [`gauss_seidel`]: the per-contact Gauss–Seidel bisection solver (RaiSim), its de Saxcé
//!   correction (Algorithm 1) and a projected Gauss–Seidel baseline;
//! - [`hard`]: hard-contact, velocity-level time stepping on the engine's collision and smooth
//!   dynamics with those solvers;
//! - [`ncp`]: the NCP accuracy criteria (primal, dual, complementarity, ε_abs).
//!
//! The paper's experiments (sliding cube, dragged cube, MPC) are this crate's examples
//! (`raisim_slide`, `raisim_drag`, `raisim_mpc`, with `--features plot`) and tests.

#![allow(non_snake_case)]

mod contact;
pub mod gauss_seidel;
pub mod hard;
pub mod ncp;
