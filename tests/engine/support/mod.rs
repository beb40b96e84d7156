//! Helpers shared by the engine's test modules.

pub mod alloc_counter;
pub mod common;
pub mod oracle_util;
pub mod sensor_common;
