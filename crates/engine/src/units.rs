//! Quantities with units. Time is integer picoseconds, rates bits per second, sizes bytes.
//!
//! Scenario files write quantities as strings with a unit (`"10Gbps"`, `"1.5ms"`, `"64KiB"`,
//! `"65pkt"`). Parsing is exact: the decimal string is scaled in integer arithmetic, so
//! `"1.5ms"` is exactly 1_500_000_000 ps and never goes through a float.

use std::fmt;

/// Simulated time in picoseconds.
pub type Time = u64;

pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// The latest time a scenario may name (any start, stop, duration, delay, timeout or
/// period): 10^6 s, about 11.6 days. Two such times add up to well under `u64::MAX`
/// picoseconds (213 days), so the run loop can add a delay to a deadline without checking.
pub const MAX_TIME: Time = 1_000_000 * PS_PER_SEC;

/// Time to serialize `bytes` onto a link of `rate_bps`, rounded up to a whole picosecond.
#[inline(always)]
pub fn serialization_ps(bytes: u64, rate_bps: u64) -> Time {
    let bits = bytes as u128 * 8 * PS_PER_SEC as u128;
    bits.div_ceil(rate_bps as u128) as Time
}

/// A buffer or threshold size: in bytes or in packets (of the scenario's MTU).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Size {
    Bytes(u64),
    Packets(u64),
}

impl Size {
    /// The size in bytes, counting a packet as `packet_bytes`.
    pub fn bytes(self, packet_bytes: u64) -> u64 {
        match self {
            Size::Bytes(b) => b,
            Size::Packets(p) => p * packet_bytes,
        }
    }
}

/// What went wrong reading a quantity; the scenario layer adds the field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitError {
    pub message: String,
    pub allowed: &'static [&'static str],
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (units: {})", self.message, self.allowed.join(", "))
    }
}

pub const TIME_UNITS: &[&str] = &["ps", "ns", "us", "µs", "ms", "s"];
pub const RATE_UNITS: &[&str] = &["bps", "Kbps", "Mbps", "Gbps", "Tbps", "K", "M", "G", "T"];
pub const BYTE_UNITS: &[&str] = &["B", "KB", "MB", "GB", "KiB", "MiB", "GiB"];
pub const SIZE_UNITS: &[&str] = &["B", "KB", "MB", "GB", "KiB", "MiB", "GiB", "pkt"];

const TIME_SCALE: &[(&str, u64)] = &[
    ("ps", 1),
    ("ns", PS_PER_NS),
    ("us", PS_PER_US),
    ("µs", PS_PER_US),
    ("ms", PS_PER_MS),
    ("s", PS_PER_SEC),
];
const RATE_SCALE: &[(&str, u64)] = &[
    ("bps", 1),
    ("Kbps", 1_000),
    ("Mbps", 1_000_000),
    ("Gbps", 1_000_000_000),
    ("Tbps", 1_000_000_000_000),
    // Link speeds as networks name them ("10G", "25G", "400G"): bits per second.
    ("K", 1_000),
    ("M", 1_000_000),
    ("G", 1_000_000_000),
    ("T", 1_000_000_000_000),
];
const BYTE_SCALE: &[(&str, u64)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

/// Splits `"1.5ms"` into the number and the unit, then scales the number exactly.
fn parse_scaled(
    text: &str,
    table: &[(&str, u64)],
    allowed: &'static [&'static str],
    what: &str,
) -> Result<u64, UnitError> {
    let err = |message: String| UnitError { message, allowed };
    let s = text.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    let (num, unit) = (s[..split].trim(), s[split..].trim());
    if num.is_empty() {
        return Err(err(format!("{what} `{text}` has no number")));
    }
    if unit.is_empty() {
        return Err(err(format!("{what} `{text}` has no unit")));
    }
    let scale = table
        .iter()
        .find(|(u, _)| *u == unit)
        .map(|(_, k)| *k)
        .ok_or_else(|| err(format!("{what} `{text}` has unknown unit `{unit}`")))?;
    scale_decimal(num, scale).map_err(|m| err(format!("{what} `{text}`: {m}")))
}

/// `num` × `scale` in integer arithmetic; rejects negatives and results that are not whole.
fn scale_decimal(num: &str, scale: u64) -> Result<u64, String> {
    let num = num.replace('_', "");
    if num.starts_with('-') {
        return Err("must not be negative".into());
    }
    let num = num.trim_start_matches('+');
    let (int_part, frac_part) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    let digits_ok = |d: &str| d.chars().all(|c| c.is_ascii_digit());
    if !digits_ok(int_part) || !digits_ok(frac_part) || (int_part.is_empty() && frac_part.is_empty())
    {
        return Err("is not a number".into());
    }
    let mut value: u128 = if int_part.is_empty() { 0 } else { int_part.parse().map_err(|_| "is too large")? };
    value = value.checked_mul(scale as u128).ok_or("is too large")?;
    let mut denom: u128 = 1;
    let mut frac: u128 = 0;
    for c in frac_part.chars() {
        denom = denom.checked_mul(10).ok_or("has too many decimals")?;
        frac = frac * 10 + c.to_digit(10).unwrap() as u128;
    }
    let frac_scaled = frac * scale as u128;
    if frac_scaled % denom != 0 {
        return Err("is finer than the unit's resolution".into());
    }
    let total = value + frac_scaled / denom;
    u64::try_from(total).map_err(|_| "is too large".into())
}

pub fn parse_time(text: &str) -> Result<Time, UnitError> {
    parse_scaled(text, TIME_SCALE, TIME_UNITS, "time")
}

pub fn parse_rate(text: &str) -> Result<u64, UnitError> {
    parse_scaled(text, RATE_SCALE, RATE_UNITS, "rate")
}

pub fn parse_bytes(text: &str) -> Result<u64, UnitError> {
    parse_scaled(text, BYTE_SCALE, BYTE_UNITS, "size")
}

/// A size in bytes (`"2MB"`) or in packets (`"65pkt"`).
pub fn parse_size(text: &str) -> Result<Size, UnitError> {
    let s = text.trim();
    if let Some(n) = s.strip_suffix("pkt") {
        let n = scale_decimal(n.trim(), 1).map_err(|m| UnitError {
            message: format!("size `{text}`: {m}"),
            allowed: SIZE_UNITS,
        })?;
        return Ok(Size::Packets(n));
    }
    parse_bytes(s).map(Size::Bytes).map_err(|e| UnitError { allowed: SIZE_UNITS, ..e })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_speeds_may_drop_the_bps() {
        assert_eq!(parse_rate("25G").unwrap(), parse_rate("25Gbps").unwrap());
        assert_eq!(parse_rate("100M").unwrap(), 100_000_000);
        assert!(parse_rate("10GB").is_err(), "bytes are not a rate");
    }

    #[test]
    fn times_are_exact() {
        assert_eq!(parse_time("1.5ms").unwrap(), 1_500_000_000);
        assert_eq!(parse_time("5us").unwrap(), 5_000_000);
        assert_eq!(parse_time("0s").unwrap(), 0);
        assert_eq!(parse_time("0.000001s").unwrap(), PS_PER_US);
        assert_eq!(parse_time("1ps").unwrap(), 1);
        assert!(parse_time("0.5ps").is_err());
        assert!(parse_time("-1us").is_err());
        assert!(parse_time("5").unwrap_err().message.contains("no unit"));
        assert!(parse_time("5 fortnights").unwrap_err().message.contains("unknown unit"));
    }

    #[test]
    fn rates_and_sizes() {
        assert_eq!(parse_rate("10Gbps").unwrap(), 10_000_000_000);
        assert_eq!(parse_rate("2.5Gbps").unwrap(), 2_500_000_000);
        assert_eq!(parse_bytes("1MB").unwrap(), 1_000_000);
        assert_eq!(parse_bytes("64KiB").unwrap(), 65_536);
        assert_eq!(parse_size("65pkt").unwrap(), Size::Packets(65));
        assert_eq!(parse_size("2MB").unwrap(), Size::Bytes(2_000_000));
        assert!(parse_size("2Mbps").is_err());
    }

    #[test]
    fn serialization_rounds_up() {
        assert_eq!(serialization_ps(1500, 10_000_000_000), 1_200_000);
        assert_eq!(serialization_ps(1, 3), 2_666_666_666_667);
    }
}
