//! System identification.
