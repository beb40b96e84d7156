//! The colours of the hard-contact solvers in the RaiSim and de Saxcé comparison plots, shared by the examples.

/// The colour of a hard-contact solver in the RaiSim and de Saxcé comparison plots.
#[allow(dead_code)]
pub fn solver_color(s: moreau_raisim::hard::HardSolver) -> plotters::style::RGBColor {
    use moreau_raisim::hard::HardSolver;
    use plotters::style::RGBColor;
    match s {
        HardSolver::RaiSim => RGBColor(220, 40, 40),
        HardSolver::RaiSimDs => RGBColor(30, 90, 220),
        HardSolver::Pgs => RGBColor(30, 160, 60),
    }
}
