//! The native core of big2-replay: parse, validate and replay Big Two game lines, and play
//! seeded bot games into log lines (`sim`).
//!
//! The Python engine (`pipeline/big2/`) is the reference; this crate does the same per game
//! at scale, with the same codes and messages (`tests/native/` holds them equal).

pub mod cards;
pub mod combos;
pub mod csv;
pub mod ddz;
pub mod gen;
pub mod ids;
pub mod keys;
pub mod lines;
pub mod moves;
pub mod parquet;
pub mod parse;
pub mod pyrand;
pub mod replay;
pub mod rows;
pub mod rules;
pub mod sim;
pub mod state;
pub mod tally;
#[cfg(test)]
mod testing;
pub mod texts;

#[cfg(feature = "python")]
mod py;
