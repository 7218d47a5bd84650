//! Flow-size distributions from CDF files in the format of `shared/data/workloads/`:
//! `#` header lines (naming source, units, format), then rows of either
//! `size cdf` (percent or fraction), `size weight cdf_fraction` (Homa), or a lone mean
//! first. Sampling interpolates linearly between points (the HPCC/Uno convention) unless
//! the header says the points are discrete (the Homa files), or the scenario overrides it.
//! A scenario may also name a distribution inline (`"uniform 8KB 32KB"`, `"constant 1MB"`),
//! built here as a `Cdf` too, so every distribution has one mean and one sampler.

use rand::Rng;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sampling {
    Interpolate,
    Discrete,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    /// (size in bytes, cumulative probability in [0, 1]); sizes and probabilities rise.
    points: Vec<(f64, f64)>,
    pub sampling: Sampling,
}

impl Cdf {
    /// Parses a CDF file's text. `sampling = None` takes the file's own convention.
    pub fn parse(text: &str, sampling: Option<Sampling>) -> Result<Cdf, String> {
        let header: String = text.lines().filter(|l| l.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n").to_lowercase();
        let mut rows: Vec<Vec<f64>> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let row: Result<Vec<f64>, _> = line.split_whitespace().map(str::parse::<f64>).collect();
            // Errors name the line, never quote it: the file may not be the user's to show.
            let row = row.map_err(|_| format!("line {}: not a row of numbers", n + 1))?;
            rows.push(row);
        }
        // A lone number before the table is the distribution's mean (Homa/HPCC files).
        if rows.first().is_some_and(|r| r.len() == 1) {
            rows.remove(0);
        }
        if rows.is_empty() {
            return Err("has no data rows".into());
        }
        let percent = header.contains("percent") || rows.iter().any(|r| r.last().is_some_and(|c| *c > 1.0 + 1e-9));
        let mut points = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            if r.len() < 2 {
                return Err(format!("data row {} has {} column(s); expected `size cdf` or `size weight cdf`", i + 1, r.len()));
            }
            let c = *r.last().unwrap();
            points.push((r[0], if percent { c / 100.0 } else { c }));
        }
        for w in points.windows(2) {
            if w[1].0 < w[0].0 || w[1].1 < w[0].1 {
                return Err(format!("is not monotone at size {}", w[1].0));
            }
        }
        let last = points.last().unwrap().1;
        if (last - 1.0).abs() > 1e-6 {
            return Err(format!("ends at cumulative probability {last}, not 1"));
        }
        if points.iter().any(|p| p.0 < 0.0 || p.1 < 0.0) {
            return Err("has negative values".into());
        }
        let discrete = header.contains("discrete");
        let sampling = sampling.unwrap_or(if discrete { Sampling::Discrete } else { Sampling::Interpolate });
        Ok(Cdf { points, sampling })
    }

    /// Sizes uniform over `[min, max]` bytes.
    pub fn uniform(min: u64, max: u64) -> Cdf {
        Cdf { points: vec![(min as f64, 0.0), (max as f64, 1.0)], sampling: Sampling::Interpolate }
    }

    /// Every size `bytes`.
    pub fn constant(bytes: u64) -> Cdf {
        Cdf { points: vec![(bytes as f64, 1.0)], sampling: Sampling::Discrete }
    }

    /// An inline distribution, `uniform <min> <max>` or `constant <size>` (sizes in the
    /// scenario's byte units), or `None` when `text` is not one (it names a file).
    pub fn inline(text: &str) -> Option<Result<Cdf, String>> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let (form, args) = words.split_first()?;
        let sizes = || -> Result<Vec<u64>, String> {
            args.iter().map(|a| crate::units::parse_bytes(a).map_err(|e| e.to_string())).collect()
        };
        let built = match *form {
            "uniform" => sizes().and_then(|s| match s[..] {
                [min, max] if 0 < min && min <= max => Ok(Cdf::uniform(min, max)),
                [_, _] => Err("uniform needs 0 < min <= max".to_string()),
                _ => Err(format!("uniform takes two sizes, got {}", s.len())),
            }),
            "constant" => sizes().and_then(|s| match s[..] {
                [b] if b > 0 => Ok(Cdf::constant(b)),
                [_] => Err("constant needs a positive size".to_string()),
                _ => Err(format!("constant takes one size, got {}", s.len())),
            }),
            _ => return None,
        };
        Some(built)
    }

    /// Mean size in bytes under the sampling rule.
    pub fn mean(&self) -> f64 {
        let p = &self.points;
        match self.sampling {
            Sampling::Discrete => {
                let mut prev = 0.0;
                p.iter().map(|&(s, c)| {
                    let m = (c - prev) * s;
                    prev = c;
                    m
                }).sum()
            }
            Sampling::Interpolate => {
                let head = p[0].1 * p[0].0;
                head + p.windows(2).map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0).sum::<f64>()
            }
        }
    }

    /// The size at cumulative probability `u` in [0, 1).
    pub fn quantile(&self, u: f64) -> f64 {
        let p = &self.points;
        let i = p.partition_point(|&(_, c)| c <= u);
        if i == 0 {
            return p[0].0;
        }
        if i >= p.len() {
            return p[p.len() - 1].0;
        }
        match self.sampling {
            Sampling::Discrete => p[i].0,
            Sampling::Interpolate => {
                let (s0, c0) = p[i - 1];
                let (s1, c1) = p[i];
                s0 + (s1 - s0) * (u - c0) / (c1 - c0)
            }
        }
    }

    /// One size in whole bytes (at least 1).
    pub fn sample(&self, rng: &mut impl Rng) -> u64 {
        (self.quantile(rng.gen::<f64>()).round() as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    const WEBSEARCH: &str = "# format: col2 = CDF in PERCENT\n0 0\n10000 15\n20000 20\n30000 30\n50000 40\n80000 53\n200000 60\n1000000 70\n2000000 80\n5000000 90\n10000000 97\n30000000 100\n";

    #[test]
    fn websearch_mean_matches_the_file_header() {
        let cdf = Cdf::parse(WEBSEARCH, None).unwrap();
        assert_eq!(cdf.sampling, Sampling::Interpolate);
        assert!((cdf.mean() - 1_711_250.0).abs() < 1e-6, "{}", cdf.mean());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let n = 400_000;
        let mean = (0..n).map(|_| cdf.sample(&mut rng) as f64).sum::<f64>() / n as f64;
        assert!((mean / 1_711_250.0 - 1.0).abs() < 0.02, "sampled mean {mean}");
    }

    #[test]
    fn discrete_three_column_files() {
        let text = "# notes: samples the discrete points\n# columns: size_bytes weight cdf_fraction\n100 0.5 0.5\n1000 0.5 1.0\n";
        let cdf = Cdf::parse(text, None).unwrap();
        assert_eq!(cdf.sampling, Sampling::Discrete);
        assert_eq!(cdf.mean(), 550.0);
        assert_eq!(cdf.quantile(0.2), 100.0);
        assert_eq!(cdf.quantile(0.7), 1000.0);
    }

    #[test]
    fn inline_uniform_and_constant() {
        let u = Cdf::inline("uniform 8KB 32KB").unwrap().unwrap();
        assert_eq!(u.mean(), 20_000.0);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let draws: Vec<u64> = (0..100_000).map(|_| u.sample(&mut rng)).collect();
        assert!(draws.iter().all(|&b| (8_000..=32_000).contains(&b)));
        let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
        assert!((mean / 20_000.0 - 1.0).abs() < 0.01, "sampled mean {mean}");
        // The quarter below 14 KB: uniform, not bunched at the ends.
        let low = draws.iter().filter(|&&b| b < 14_000).count() as f64 / draws.len() as f64;
        assert!((low - 0.25).abs() < 0.01, "{low}");
        let c = Cdf::inline("  constant   1MiB ").unwrap().unwrap();
        assert_eq!(c.mean(), 1_048_576.0);
        assert!((0..100).all(|_| c.sample(&mut rng) == 1_048_576));
        assert_eq!(Cdf::inline("constant 1MB").unwrap().unwrap().mean(), 1e6, "1 MB is 10^6 bytes");
        assert!(Cdf::inline("websearch.txt").is_none());
        assert!(Cdf::inline("").is_none());
        assert!(Cdf::inline("uniform 8KB").unwrap().unwrap_err().contains("two sizes, got 1"));
        assert!(Cdf::inline("uniform 32KB 8KB").unwrap().unwrap_err().contains("min <= max"));
        assert!(Cdf::inline("constant 0B").unwrap().unwrap_err().contains("positive"));
        assert!(Cdf::inline("constant 5 apples").unwrap().unwrap_err().contains("has no unit"));
    }

    #[test]
    fn mean_line_and_errors() {
        let cdf = Cdf::parse("# fraction\n5000\n0 0\n10000 1.0\n", None).unwrap();
        assert_eq!(cdf.mean(), 5000.0);
        assert!(Cdf::parse("# nothing\n", None).unwrap_err().contains("no data rows"));
        assert!(Cdf::parse("1 0.5\n2 0.4\n3 1\n", None).unwrap_err().contains("monotone"));
        assert!(Cdf::parse("1 0.5\n2 0.9\n", None).unwrap_err().contains("not 1"));
        let e = Cdf::parse("1 secret\n", None).unwrap_err();
        assert_eq!(e, "line 1: not a row of numbers", "names the line, never quotes it");
    }
}
