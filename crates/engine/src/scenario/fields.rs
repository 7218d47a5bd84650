//! Field-level helpers: a path context and typed readers that turn a unit error into a
//! `ScenarioError` naming the field.

use super::spec::{LinkSpec, Spec};
use super::MAX_TIME;
use crate::units::{self, Size, Time, PS_PER_SEC};
use crate::topology::LinkParams;
use crate::ScenarioError;

/// The dotted path of the section being read.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub path: String,
}

impl Ctx {
    pub fn root() -> Self {
        Ctx { path: String::new() }
    }

    pub fn at(&self, key: &str) -> Ctx {
        Ctx { path: self.field(key) }
    }

    pub fn field(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    pub fn err(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.field(key), message)
    }

    fn unit<T>(&self, key: &str, r: Result<T, units::UnitError>) -> Result<T, ScenarioError> {
        r.map_err(|e| self.err(key, e.message).with_allowed(e.allowed.iter()))
    }

    pub fn opt_time(&self, key: &str, v: &Option<String>) -> Result<Option<Time>, ScenarioError> {
        v.as_deref().map(|s| self.bounded_time(key, s)).transpose()
    }

    pub fn time(&self, key: &str, v: &Option<String>, default: &str) -> Result<Time, ScenarioError> {
        self.bounded_time(key, v.as_deref().unwrap_or(default))
    }

    /// A time no later than [`MAX_TIME`], so that the run's arithmetic (a start plus a gap,
    /// a deadline plus a delay) cannot overflow.
    fn bounded_time(&self, key: &str, s: &str) -> Result<Time, ScenarioError> {
        let t = self.unit(key, units::parse_time(s))?;
        if t > MAX_TIME {
            return Err(self.err(key, format!("time `{s}` is beyond the longest a scenario may name ({}s)", MAX_TIME / PS_PER_SEC)));
        }
        Ok(t)
    }

    pub fn rate(&self, key: &str, v: &Option<String>, default: &str) -> Result<u64, ScenarioError> {
        let r = self.unit(key, units::parse_rate(v.as_deref().unwrap_or(default)))?;
        if r == 0 {
            return Err(self.err(key, "must be positive"));
        }
        Ok(r)
    }

    pub fn opt_bytes(&self, key: &str, v: &Option<String>) -> Result<Option<u64>, ScenarioError> {
        v.as_deref().map(|s| self.unit(key, units::parse_bytes(s))).transpose()
    }

    pub fn bytes(&self, key: &str, v: &Option<String>, default: &str) -> Result<u64, ScenarioError> {
        self.unit(key, units::parse_bytes(v.as_deref().unwrap_or(default)))
    }

    pub fn opt_size(&self, key: &str, v: &Option<String>) -> Result<Option<Size>, ScenarioError> {
        v.as_deref().map(|s| self.unit(key, units::parse_size(s))).transpose()
    }

    pub fn size(&self, key: &str, v: &Option<String>, default: &str) -> Result<Size, ScenarioError> {
        self.unit(key, units::parse_size(v.as_deref().unwrap_or(default)))
    }

    /// An integer that must lie in `[min, max]`.
    pub fn count(&self, key: &str, v: Option<i64>, default: Option<i64>, min: i64, max: i64) -> Result<u64, ScenarioError> {
        let n = v.or(default).ok_or_else(|| self.err(key, "is required"))?;
        if n < min || n > max {
            return Err(self.err(key, format!("must be between {min} and {max}, got {n}")));
        }
        Ok(n as u64)
    }

    pub fn fraction(&self, key: &str, v: Option<f64>, default: Option<f64>, lo_open: f64, hi: f64) -> Result<f64, ScenarioError> {
        let x = v.or(default).ok_or_else(|| self.err(key, "is required"))?;
        if !(x > lo_open && x <= hi) || x.is_nan() {
            return Err(self.err(key, format!("must be in ({lo_open}, {hi}], got {x}")));
        }
        Ok(x)
    }

    /// One of a closed set of words.
    pub fn choice<'a>(&self, key: &str, v: Option<&'a str>, default: Option<&'a str>, allowed: &[&str]) -> Result<&'a str, ScenarioError> {
        let s = v.or(default).ok_or_else(|| self.err(key, "is required").with_allowed(allowed))?;
        if !allowed.contains(&s) {
            return Err(self.err(key, format!("unknown value `{s}`")).with_allowed(allowed));
        }
        Ok(s)
    }

    /// One entry of a name -> value table (no fallback: a name not in it is an error that
    /// lists the table's names).
    pub fn pick<T: Copy>(&self, key: &str, v: Option<&str>, default: Option<&str>, table: &[(&str, T)]) -> Result<T, ScenarioError> {
        let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
        let s = self.choice(key, v, default, &names)?;
        Ok(table.iter().find(|(n, _)| *n == s).expect("a name choice accepted").1)
    }

    /// Rejects fields that were given but mean nothing for this kind.
    /// Fails on the first field `given` that is not among those `kind` reads.
    pub fn only(&self, kind: &str, given: &[(&str, bool)], reads: &[&str]) -> Result<(), ScenarioError> {
        for (key, present) in given {
            if *present && !reads.contains(key) {
                return Err(self.err(key, format!("does not apply to kind `{kind}`")));
            }
        }
        Ok(())
    }

    pub fn reject(&self, kind: &str, given: &[(&str, bool)]) -> Result<(), ScenarioError> {
        for (key, present) in given {
            if *present {
                return Err(self.err(key, format!("does not apply to kind `{kind}`")));
            }
        }
        Ok(())
    }
}

/// TOML text -> `Spec`, with serde's errors turned into field-path errors.
pub fn deserialize(src: &str) -> Result<Spec, ScenarioError> {
    let de = toml::Deserializer::new(src);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let inner = e.into_inner();
        let message = inner.message().to_string();
        if let Some(span) = inner.span() {
            if path.is_empty() || !message.starts_with("unknown field") && !message.starts_with("invalid type") && !message.starts_with("missing field") {
                let line = src[..span.start.min(src.len())].matches('\n').count() + 1;
                if path.is_empty() {
                    return ScenarioError::new("", format!("TOML syntax error at line {line}: {}", message.trim()));
                }
            }
        }
        unknown_field(&path, &message).unwrap_or_else(|| ScenarioError::new(path, message.trim().to_string()))
    })
}

/// serde says "unknown field `x`, expected one of `a`, `b`": name the field, list the rest.
fn unknown_field(path: &str, message: &str) -> Option<ScenarioError> {
    let rest = message.strip_prefix("unknown field `")?;
    let (field, tail) = rest.split_once('`')?;
    let allowed: Vec<String> = tail.split('`').skip(1).step_by(2).map(str::to_string).collect();
    let full = if path.is_empty() { field.to_string() } else if path.ends_with(field) { path.to_string() } else { format!("{path}.{field}") };
    Some(ScenarioError::new(full, "unknown field").with_allowed(allowed))
}

/// A link's rate and delay where the scenario names neither.
pub(super) const DEFAULT_RATE: &str = "10Gbps";
pub(super) const DEFAULT_DELAY: &str = "1us";

/// A link's `rate` and `delay`, each `fallback`'s where the section leaves it out (all of
/// `fallback` without the section).
pub(super) fn link(cx: &Ctx, key: &str, l: Option<&LinkSpec>, fallback: LinkParams) -> Result<LinkParams, ScenarioError> {
    let Some(l) = l else { return Ok(fallback) };
    let lc = cx.at(key);
    Ok(LinkParams {
        rate_bps: match &l.rate {
            Some(_) => lc.rate("rate", &l.rate, DEFAULT_RATE)?,
            None => fallback.rate_bps,
        },
        delay_ps: match &l.delay {
            Some(_) => lc.time("delay", &l.delay, DEFAULT_DELAY)?,
            None => fallback.delay_ps,
        },
    })
}
