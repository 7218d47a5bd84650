//! The one error a user can cause: a scenario that cannot be run. It names the field (a
//! dotted path such as `workload[0].degree`) and, where the choice is closed, the allowed
//! values, so the CLI and Python can print one clear line.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
    pub allowed: Vec<String>,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into(), allowed: Vec::new() }
    }

    pub fn with_allowed<S: ToString>(mut self, allowed: impl IntoIterator<Item = S>) -> Self {
        self.allowed = allowed.into_iter().map(|s| s.to_string()).collect();
        self
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)?;
        } else {
            write!(f, "{}: {}", self.path, self.message)?;
        }
        if !self.allowed.is_empty() {
            write!(f, " (allowed: {})", self.allowed.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}
