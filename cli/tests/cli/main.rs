//! The command line's integration tests: the commands and their JSON (`commands`), hostile
//! input (`hostile`).

mod commands;
mod hostile;
