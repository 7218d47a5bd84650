//! Forwarding tables.
