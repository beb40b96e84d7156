//! Trajectory optimization on moreau (issue: optim). Not yet implemented.
