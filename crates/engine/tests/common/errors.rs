//! Malformed scenarios and the exact error each must produce: the field path, a piece of
//! the message, and the allowed values.

use fanin_engine::parse_scenario;

pub struct Case {
    pub what: &'static str,
    pub toml: String,
    pub path: &'static str,
    pub message: &'static str,
    /// `None`: the allowed list is not checked; `Some(&[])`: it must be empty.
    pub allowed: Option<&'static [&'static str]>,
}

pub fn case(what: &'static str, toml: String, path: &'static str, message: &'static str, allowed: Option<&'static [&'static str]>) -> Case {
    Case { what, toml, path, message, allowed }
}

/// Each case is refused with its error, which prints as one line naming the field first.
pub fn check(cases: &[Case], loader: &dyn Fn(&str) -> Result<String, String>) {
    for c in cases {
        let e = match parse_scenario(&c.toml, loader) {
            Ok(_) => panic!("{}: accepted", c.what),
            Err(e) => e,
        };
        assert_eq!(e.path, c.path, "{}: {e:?}", c.what);
        assert!(e.message.contains(c.message), "{}: message {:?} lacks {:?}", c.what, e.message, c.message);
        if let Some(allowed) = c.allowed {
            assert_eq!(e.allowed, allowed, "{}", c.what);
        }
        if !c.path.is_empty() {
            assert!(e.to_string().starts_with(&format!("{}: ", c.path)), "{}: {e}", c.what);
        }
    }
}
