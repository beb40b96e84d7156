//! Derivatives of moreau dynamics (issue: derivatives crate). Not yet implemented.
