//! A `Fib` whose rows and host columns follow a rule, answered by arithmetic.
//!
//! In a fat-tree the folded rows are regular: an edge or aggregation switch sends every
//! other pod up one ECMP group, an aggregation switch reaches the edges of its pod on
//! consecutive ports, a core reaches the pods on consecutive ports, and only an edge
//! switch's own hosts stand apart. The hosts are numbered pod by pod and edge by edge, so a
//! host's block, class and place in its class are quotients of its number. Where every
//! switch's row and every host's columns fit such a rule, a lookup reads one line (the
//! switch's [`Shape`]) instead of a chain of three (the host's columns, the row's cell, the
//! group's port): at k = 32 those were 98 KB, 245 KB and 197 KB of tables that the packets
//! streaming through the caches kept pushing out of L2.
//!
//! The rule is found from the tables themselves, so any topology that fits gets it and any
//! other keeps the tables; the answers are the same either way (checked in the tests, and
//! at build time in debug builds).

use crate::ids::PortId;

/// `n / d` for any 32-bit `n` and `d` > 1, by one multiply: `c = ceil(2^64 / d)`, and
/// `n / d` is the high 64 bits of `c * n` (Lemire, Kaser and Kurz, "Faster remainder by
/// direct computation", 2019).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Divisor {
    d: u32,
    c: u64,
}

impl Divisor {
    /// `None` for 0 and 1 (a class of one host: the tables serve it).
    pub(super) fn new(d: u32) -> Option<Divisor> {
        (d > 1).then(|| Divisor { d, c: u64::MAX / d as u64 + 1 })
    }

    /// (`n / d`, `n % d`).
    #[inline(always)]
    pub(super) fn div_rem(self, n: u32) -> (u32, u32) {
        let q = ((self.c as u128 * n as u128) >> 64) as u32;
        (q, n - q * self.d)
    }
}

/// A host's columns as quotients of its number: block `h / block`, class within the block
/// `(h % block) / class`, place in the class `h % class`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct HostRule {
    block: Divisor,
    class: Divisor,
    /// The column of a block's first class in the rows that spell the block out.
    fine0: u32,
}

impl HostRule {
    /// The rule the columns `(block, fine, local)` of hosts `0..` follow, if one does.
    pub(super) fn find(dest: &[(u32, u32, u32)]) -> Option<HostRule> {
        let first = *dest.first()?;
        let run = |same: &dyn Fn(&(u32, u32, u32)) -> bool| dest.iter().take_while(|d| same(d)).count() as u32;
        let class = run(&|d| (d.0, d.1) == (first.0, first.1));
        let block = run(&|d| d.0 == first.0);
        let rule = HostRule { block: Divisor::new(block)?, class: Divisor::new(class)?, fine0: first.1 };
        let fits = first.0 == 0 && first.2 == 0 && block % class == 0;
        (fits && dest.iter().enumerate().all(|(h, &d)| rule.columns(h as u32) == d)).then_some(rule)
    }

    /// (hosts in a class, classes in a block).
    pub(super) fn sizes(self) -> (u32, u32) {
        (self.class.d, self.block.d / self.class.d)
    }

    /// (block, fine column, place in class) of host `h`.
    #[inline(always)]
    pub(super) fn columns(self, h: u32) -> (u32, u32, u32) {
        let (block, within) = self.block.div_rem(h);
        let (class, local) = self.class.div_rem(within);
        (block, self.fine0 + class, local)
    }
}

/// The ports a run of columns answers with: column `c` holds the list
/// `first + step * c + stride * i` for `i` in `0..len` (`len` 0: one port per host of the
/// class, `i` the host's place in it), `first` and `step` in wrapping arithmetic.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Affine {
    pub(super) len: u32,
    pub(super) first: u32,
    pub(super) step: u32,
    pub(super) stride: u32,
}

impl Affine {
    /// Port `i` of the list at `column` (`i` already reduced to the list's length).
    #[inline(always)]
    pub(super) fn port(self, column: u32, i: u32) -> u32 {
        self.first.wrapping_add(self.step.wrapping_mul(column)).wrapping_add(self.stride.wrapping_mul(i))
    }
}

/// One switch's row as a rule: the block columns (`< split`) follow `lists[0]`, the fine
/// columns `lists[1]`, except one column (`special`) with a list of its own, `lists[2]`.
/// One cache line.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[repr(align(64))]
pub(super) struct Shape {
    pub(super) own: u32,
    pub(super) split: u32,
    pub(super) special: u32,
    pub(super) lists: [Affine; 3],
}

impl Shape {
    /// The list at `column`.
    #[inline(always)]
    pub(super) fn list(&self, column: u32) -> Affine {
        let i = std::hint::select_unpredictable(column == self.special, 2, (column >= self.split) as usize);
        self.lists[i]
    }

    /// The shape of a row whose readable columns hold these lists (`None`: unreadable),
    /// split at `split`, if one fits.
    pub(super) fn find(own: u32, split: u32, lists: &[Option<Affine>]) -> Option<Shape> {
        let mut shape = Shape { own, split, special: u32::MAX, ..Shape::default() };
        let (blocks, fine) = lists.split_at((split as usize).min(lists.len()));
        let mut special = None;
        for (r, part, offset) in [(0, blocks, 0), (1, fine, split)] {
            let cols: Vec<(u32, Affine)> =
                part.iter().enumerate().filter_map(|(c, l)| l.map(|l| (c as u32 + offset, l))).collect();
            let (run, odd) = fit(&cols)?;
            shape.lists[r] = run;
            if let Some(odd) = odd {
                if special.replace(odd).is_some() {
                    return None;
                }
            }
        }
        if let Some((column, list)) = special {
            (shape.special, shape.lists[2]) = (column, list);
        }
        Some(shape)
    }
}

/// The run most of these columns follow, and the one column (if any) that does not. Each
/// column's list comes at column 0 (`progression`: step 0), which an odd one keeps.
fn fit(cols: &[(u32, Affine)]) -> Option<(Affine, Option<(u32, Affine)>)> {
    let Some(&(c0, l0)) = cols.first() else { return Some((Affine::default(), None)) };
    if cols.len() == 1 {
        return Some((Affine { step: 0, ..l0 }, None));
    }
    // Two of the first three columns follow the run (one column may stand apart).
    let pairs = [(0, 1), (1, 2), (0, 2)];
    pairs.iter().filter(|&&(_, b)| b < cols.len()).find_map(|&(a, b)| {
        let ((ca, la), (cb, lb)) = (cols[a], cols[b]);
        if (la.len, la.stride) != (lb.len, lb.stride) {
            return None;
        }
        let span = lb.first.wrapping_sub(la.first);
        let step = span / (cb - ca);
        if step.wrapping_mul(cb - ca) != span {
            return None;
        }
        let run = Affine { step, first: la.first.wrapping_sub(step.wrapping_mul(ca)), ..la };
        let follows = |c: u32, l: Affine| (l.len, l.stride, l.first) == (run.len, run.stride, run.port(c, 0));
        let mut odd = cols.iter().filter(|&&(c, l)| !follows(c, l));
        let first_odd = odd.next().copied();
        odd.next().is_none().then_some((run, first_odd))
    })
    .or_else(|| {
        // Two columns unlike each other: the second is the run, the first stands apart.
        let &[_, (_, l1)] = cols else { return None };
        Some((Affine { step: 0, ..l1 }, Some((c0, l0))))
    })
}

/// A list of ports as an `Affine` at column 0 (step 0), if it is an arithmetic progression.
/// `len` is the cell's (0 for a class's hosts); `ports` the whole list.
pub(super) fn progression(len: u32, ports: &[PortId]) -> Option<Affine> {
    let first = ports.first()?.0;
    let stride = ports.get(1).map_or(0, |p| p.0.wrapping_sub(first));
    let fits = ports.iter().enumerate().all(|(i, p)| p.0 == first.wrapping_add(stride.wrapping_mul(i as u32)));
    fits.then_some(Affine { len, first, step: 0, stride })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(len: u32, first: u32) -> Option<Affine> {
        Some(Affine { len, first, step: 0, stride: 2 })
    }

    /// An edge switch of pod 1 (2 pods, 3 edges a pod): everything up its group but its own
    /// hosts (class column 3 + 1), and its own pod's block column unread.
    #[test]
    fn a_row_with_one_column_apart() {
        let up = group(4, 40);
        let own = group(0, 7);
        let shape = Shape::find(1, 2, &[up, None, up, own, up]).unwrap();
        assert_eq!(shape.special, 3);
        for (column, list) in [(0, up), (2, up), (3, own), (4, up)] {
            let got = shape.list(column);
            assert_eq!((got.len, got.port(column, 1)), (list.unwrap().len, list.unwrap().first + 2), "{column}");
        }
    }

    /// A core's row: pod `b` on port `10 + 3 b`; and two columns apart is not a rule.
    #[test]
    fn consecutive_ports_are_a_run_and_two_odd_columns_are_not() {
        let pods: Vec<Option<Affine>> = (0..6).map(|b| group(1, 10 + 3 * b)).collect();
        let shape = Shape::find(u32::MAX, 6, &pods).unwrap();
        assert_eq!(shape.special, u32::MAX);
        assert!((0..6).all(|b| shape.list(b).port(b, 0) == 10 + 3 * b));
        let mut odd = pods.clone();
        (odd[1], odd[4]) = (group(1, 99), group(1, 98));
        assert_eq!(Shape::find(u32::MAX, 6, &odd), None);
    }

    #[test]
    fn division_is_exact() {
        let mut x = 0x1234_5678u32;
        assert_eq!((Divisor::new(0), Divisor::new(1)), (None, None));
        for d in (2..200).chain([255, 256, 576, 1000, 4096, 65_535, 1 << 20, u32::MAX]) {
            let div = Divisor::new(d).unwrap();
            for n in [0, 1, d - 1, d, d.wrapping_add(1), u32::MAX, u32::MAX - 1] {
                assert_eq!(div.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
            for _ in 0..1000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                assert_eq!(div.div_rem(x), (x / d, x % d), "{x} / {d}");
            }
        }
    }
}
