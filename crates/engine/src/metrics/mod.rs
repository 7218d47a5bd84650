//! What a run records, as columns.
pub mod table;
