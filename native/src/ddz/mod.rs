//! Dou Dizhu on the native core: parse, validate and replay a game line under its ruleset
//! and build its warehouse rows (`rows`, `texts`) (`pipeline/doudizhu/` and
//! `pipeline/warehouse/rows_doudizhu.py` are the reference; `tests/native/test_ddz_*.py` holds
//! the two equal).

pub mod bots;
pub mod cards;
pub mod combos;
pub mod moves;
pub mod parse;
#[cfg(feature = "python")]
pub mod py;
pub mod replay;
pub mod rows;
pub mod rules;
pub mod sim;
pub mod state;
pub mod texts;
