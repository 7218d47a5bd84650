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
    /// Linear in the logarithm of the size between points (a log-uniform segment).
    LogInterpolate,
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

    /// Sizes whose logarithm is uniform over `[ln min, ln max]`.
    pub fn log_uniform(min: u64, max: u64) -> Cdf {
        Cdf { points: vec![(min as f64, 0.0), (max as f64, 1.0)], sampling: Sampling::LogInterpolate }
    }

    /// A mixture of sizes, `<size>:<probability>` each, in rising sizes.
    fn discrete(args: &[&str]) -> Result<Cdf, String> {
        let mut points: Vec<(f64, f64)> = Vec::with_capacity(args.len());
        let mut total = 0.0;
        for a in args {
            let (size, p) = a.split_once(':').ok_or_else(|| format!("`{a}` is not <size>:<probability>"))?;
            let size = crate::units::parse_bytes(size).map_err(|e| e.to_string())?;
            let p: f64 = p.parse().map_err(|_| format!("`{a}`: the probability is not a number"))?;
            if size == 0 || !(p > 0.0 && p <= 1.0) {
                return Err(format!("`{a}`: needs a positive size and a probability in (0, 1]"));
            }
            if points.last().is_some_and(|&(s, _)| s >= size as f64) {
                return Err(format!("`{a}`: sizes must rise"));
            }
            total += p;
            points.push((size as f64, total));
        }
        if points.is_empty() || (total - 1.0).abs() > 1e-6 {
            return Err(format!("the probabilities sum to {}, not 1", (total * 1e6).round() / 1e6));
        }
        points.last_mut().unwrap().1 = 1.0;
        Ok(Cdf { points, sampling: Sampling::Discrete })
    }

    /// Every size `bytes`.
    pub fn constant(bytes: u64) -> Cdf {
        Cdf { points: vec![(bytes as f64, 1.0)], sampling: Sampling::Discrete }
    }

    /// An inline distribution (sizes in the scenario's byte units): `uniform <min> <max>`,
    /// `loguniform <min> <max>`, `constant <size>` or `discrete <size>:<p> ...` (the
    /// probabilities sum to 1); `None` when `text` is not one (it names a file).
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
            "loguniform" => sizes().and_then(|s| match s[..] {
                [min, max] if 0 < min && min <= max => Ok(Cdf::log_uniform(min, max)),
                [_, _] => Err("loguniform needs 0 < min <= max".to_string()),
                _ => Err(format!("loguniform takes two sizes, got {}", s.len())),
            }),
            "discrete" => Cdf::discrete(args),
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
            Sampling::LogInterpolate => {
                // A log-uniform segment [a, b] has mean (b - a) / ln(b / a).
                let seg = |a: f64, b: f64| if b > a { (b - a) / (b / a).ln() } else { a };
                let head = p[0].1 * p[0].0;
                head + p.windows(2).map(|w| (w[1].1 - w[0].1) * seg(w[0].0, w[1].0)).sum::<f64>()
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
            Sampling::LogInterpolate => {
                let (s0, c0) = p[i - 1];
                let (s1, c1) = p[i];
                s0 * (s1 / s0).powf((u - c0) / (c1 - c0))
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
    fn superways_short_mix_is_a_discrete_mixture() {
        // Spec superways §2: 1 KiB with 0.70; 2, 3, 4, 5, 10 KiB 0.05 each; 6, 7 KiB 0.025.
        let text = "discrete 1KiB:0.7 2KiB:0.05 3KiB:0.05 4KiB:0.05 5KiB:0.05 6KiB:0.025 7KiB:0.025 10KiB:0.05";
        let cdf = Cdf::inline(text).unwrap().unwrap();
        assert!((cdf.mean() - 2.225 * 1024.0).abs() < 1e-6, "{}", cdf.mean());
        assert_eq!((cdf.quantile(0.0), cdf.quantile(0.69), cdf.quantile(0.70), cdf.quantile(0.99)), (1024.0, 1024.0, 2048.0, 10240.0));
        let bad = |t: &str| Cdf::inline(t).unwrap().unwrap_err();
        assert!(bad("discrete 1KiB:0.7 2KiB:0.2").contains("sum to 0.9"), "{}", bad("discrete 1KiB:0.7 2KiB:0.2"));
        assert!(bad("discrete 2KiB:0.5 1KiB:0.5").contains("rise"));
        assert!(bad("discrete 1KiB").contains("<size>:<probability>"));
    }

    #[test]
    fn loguniform_has_its_median_at_the_geometric_mean() {
        let cdf = Cdf::inline("loguniform 100KiB 10MiB").unwrap().unwrap();
        let (a, b) = (102_400.0_f64, 10_485_760.0_f64);
        assert!((cdf.quantile(0.5) - (a * b).sqrt()).abs() < 1e-6);
        assert!((cdf.mean() - (b - a) / (b / a).ln()).abs() < 1e-6, "{}", cdf.mean());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 200_000;
        let below_1mb = (0..n).filter(|_| cdf.sample(&mut rng) <= 1_036_204).count() as f64 / n as f64;
        assert!((below_1mb - 0.5).abs() < 0.01, "{below_1mb}");
    }

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
