//! `[[event]]` entries that cannot run and the exact error each gives (field path, message,
//! allowed values).

mod common;

use common::errors::{case, check, Case};

/// A star: s0..s3 and r0 around sw0 (its port to r0 is `bottleneck`).
const STAR: &str = "[topology]\nkind = \"star\"\nsenders = 4\n[[workload]]\nkind = \"incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\n";
/// Two leaf-spine datacenters whose borders are joined by two parallel WAN links.
const TWO_DC: &str = "[topology]\nkind = \"multi_dc\"\nfabric = \"leaf_spine\"\ninterconnect = \"border\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 2\nwan_links = 2\nlong_haul_link = { delay = \"10us\" }\n[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h7\"\nbytes = \"1KB\"\n";

const ACTIONS: &[&str] = &["fail", "recover", "drop"];
const MODELS: &[&str] = &["probability", "block_losses", "preset"];
const TIME_UNITS: &[&str] = &["ps", "ns", "us", "µs", "ms", "s"];
const STAR_LINKS: &[&str] = &["bottleneck", "one direction `from->to`, e.g. `s0->sw0`", "both directions `a<->b`", "`#k` after either: the k-th of parallel links"];

/// The star with one event made of `fields` (one `key = value` per line).
fn star(fields: &str) -> String {
    format!("[[event]]\n{fields}\n{STAR}")
}

fn two_dc(fields: &str) -> String {
    format!("[[event]]\n{fields}\n{TWO_DC}")
}

fn cases() -> Vec<Case> {
    let none: Option<&'static [&'static str]> = Some(&[]);
    let fail = "at = \"1ms\"\naction = \"fail\"\n";
    let drop = "at = \"1ms\"\nlink = \"bottleneck\"\naction = \"drop\"\n";
    vec![
        case("unknown action", star("at = \"1ms\"\nlink = \"bottleneck\"\naction = \"cut\""), "event[0].action", "unknown value `cut`", Some(ACTIONS)),
        case("no action", star("at = \"1ms\"\nlink = \"bottleneck\""), "event[0].action", "is required", Some(ACTIONS)),
        case("unknown field", star("when = \"1ms\""), "event[0].when", "unknown field", Some(&["at", "link", "action", "probability", "block", "block_losses", "preset"])),
        case("negative time", star("at = \"-1ms\"\nlink = \"bottleneck\"\naction = \"fail\""), "event[0].at", "must not be negative", Some(TIME_UNITS)),
        case("time without a unit", star("at = \"5\"\nlink = \"bottleneck\"\naction = \"fail\""), "event[0].at", "has no unit", Some(TIME_UNITS)),
        case("no time", star("link = \"bottleneck\"\naction = \"fail\""), "event[0].at", "is required", none),
        case("no link", star(fail), "event[0].link", "is required", Some(STAR_LINKS)),
        case("unknown link name", star(&format!("{fail}link = \"uplink\"")), "event[0].link", "no link `uplink`", Some(STAR_LINKS)),
        case("unknown node", star(&format!("{fail}link = \"sw0->r9\"")), "event[0].link", "no node `r9` in `sw0->r9`", Some(STAR_LINKS)),
        case("nodes not joined", star(&format!("{fail}link = \"s0->s1\"")), "event[0].link", "no link joins `s0` and `s1`", none),
        case("a bad link number", star(&format!("{fail}link = \"sw0->r0#x\"")), "event[0].link", "`#x` in `sw0->r0#x` is not a link number", none),
        case("a wrong name in a list", star(&format!("{fail}link = [\"bottleneck\", \"sw0->r1\"]")), "event[0].link[1]", "no node `r1`", Some(STAR_LINKS)),
        case("an empty list", star(&format!("{fail}link = []")), "event[0].link", "is an empty list", Some(STAR_LINKS)),
        case("inter ports of a star", star(&format!("{fail}link = \"inter\"")), "event[0].link", "this topology has no inter ports", Some(STAR_LINKS)),
        case("parallel links unnumbered", two_dc(&format!("{fail}link = \"dc0_border->dc1_border\"")), "event[0].link", "`dc0_border->dc1_border` names 2 parallel links: add `#0` ... `#1`", none),
        case("parallel link number too high", two_dc(&format!("{fail}link = \"dc0_border<->dc1_border#2\"")), "event[0].link", "`#2`: `dc0_border` and `dc1_border` have 2 parallel links (#0 ... #1)", none),
        case("a drop field on a failure", star("at = \"1ms\"\nlink = \"bottleneck\"\naction = \"fail\"\nprobability = 0.1"), "event[0].probability", "does not apply to action `fail`", none),
        case("a drop field on a recovery", star("at = \"1ms\"\nlink = \"bottleneck\"\naction = \"recover\"\npreset = \"uno_setup1\""), "event[0].preset", "does not apply to action `recover`", none),
        case("drop without a model", star(drop), "event[0]", "action `drop` needs a drop model", Some(MODELS)),
        case("two drop models", star(&format!("{drop}probability = 0.1\npreset = \"uno_setup1\"")), "event[0].preset", "not with `probability`: give one drop model", Some(MODELS)),
        case("probability above 1", star(&format!("{drop}probability = 1.5")), "event[0].probability", "must be a probability in [0, 1], got 1.5", none),
        case("negative probability", star(&format!("{drop}probability = -0.1")), "event[0].probability", "must be a probability in [0, 1], got -0.1", none),
        case("NaN probability", star(&format!("{drop}probability = nan")), "event[0].probability", "must be a probability in [0, 1], got NaN", none),
        case("negative block loss", star(&format!("{drop}block_losses = [0.1, -0.1]")), "event[0].block_losses[1]", "must be a probability in [0, 1], got -0.1", none),
        case("block losses above 1 in sum", star(&format!("{drop}block_losses = [0.5, 0.7]")), "event[0].block_losses", "sum to 1.2", none),
        case("no block losses", star(&format!("{drop}block_losses = []")), "event[0].block_losses", "is empty", none),
        case("more losses than packets", star(&format!("{drop}block = 2\nblock_losses = [0.1, 0.1, 0.1]")), "event[0].block_losses", "lists 3 losses per block, but a block has 2 packets", none),
        case("block beyond 64", star(&format!("{drop}block = 65\nblock_losses = [0.1]")), "event[0].block", "must be between 1 and 64, got 65", none),
        case("block with a preset", star(&format!("{drop}block = 10\npreset = \"uno_setup1\"")), "event[0].block", "applies only with `block_losses`, not with `preset`", none),
        case("unknown preset", star(&format!("{drop}preset = \"uno_setup3\"")), "event[0].preset", "unknown value `uno_setup3`", Some(&["uno_setup1", "uno_setup2"])),
        case("second event's error", format!("[[event]]\n{fail}link = \"bottleneck\"\n{}", star("at = \"2ms\"\nlink = \"bottleneck\"\naction = \"heal\"")), "event[1].action", "unknown value `heal`", Some(ACTIONS)),
    ]
}

#[test]
fn malformed_events_give_precise_errors() {
    check(&cases(), &common::load_file);
}
