//! What a run records, as columns.
pub mod hosts;
pub mod queues;
pub mod rates;
pub mod table;

pub use hosts::HostCounters;
pub use queues::QueueSeries;
pub mod traces;
pub use traces::{QueueEvents, WindowSeries};
pub use rates::RateSeries;
