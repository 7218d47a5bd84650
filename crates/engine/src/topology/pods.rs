//! A podded topology (a fat-tree) cut into a few parts of whole pods, for a run partitioned
//! by pod (`[partition] by = "pod"`, issue 23).
//!
//! A pod is a group `pod0`, `pod1`, ... of hosts; a switch belongs to a pod when every
//! neighbour that already has one (its hosts, then the edges below it) is of that pod, so
//! edges and then aggregations join their pod and a core, which reaches every pod, joins
//! none. Pods go to parts in consecutive runs (pod `p` of `n` to part `p * parts / n`), so
//! traffic inside a pod never crosses; cores are dealt to the parts in turn, so only
//! aggregation-core links join two parts.

use super::graph::{NodeKind, Topology};

/// Per node, the part it falls in, for a cut of the pods into `parts` parts; or why the
/// topology cannot be cut so.
pub fn pod_cut(t: &Topology, parts: usize) -> Result<Vec<u32>, String> {
    let pods = pod_of_hosts(t)?;
    let count = count(&pods);
    if parts < 2 || parts > count {
        return Err(format!("must be between 2 and the topology's {count} pods"));
    }
    let pods = spread_to_switches(t, pods);
    let mut next_core = 0;
    Ok(pods
        .into_iter()
        .map(|pod| match pod {
            Some(p) => (p as usize * parts / count) as u32,
            None => {
                next_core += 1;
                ((next_core - 1) % parts) as u32
            }
        })
        .collect())
}

/// How many pods the topology has (groups `pod0`, `pod1`, ... covering every host), or why
/// it has none.
pub fn pod_count(t: &Topology) -> Result<usize, String> {
    Ok(count(&pod_of_hosts(t)?))
}

fn count(pods: &[Option<u32>]) -> usize {
    pods.iter().filter_map(|p| *p).max().map_or(0, |p| p as usize + 1)
}

/// Per node, the pod of each host (from the groups `pod0`, `pod1`, ...), `None` elsewhere.
fn pod_of_hosts(t: &Topology) -> Result<Vec<Option<u32>>, String> {
    let mut pods = vec![None; t.nodes.len()];
    let mut p = 0;
    while let Some(hosts) = t.group(&format!("pod{p}")) {
        for h in hosts {
            pods[t.hosts[h.idx()].idx()] = Some(p);
        }
        p += 1;
    }
    if p == 0 {
        return Err("needs a topology with pods (fat_tree)".into());
    }
    if let Some(h) = t.hosts.iter().find(|h| pods[h.idx()].is_none()) {
        return Err(format!("host {} is in no pod", t.nodes[h.idx()].name));
    }
    Ok(pods)
}

/// Gives each switch the pod all its neighbours with a pod share, tier by tier (edges from
/// their hosts, then aggregations from their edges); a switch between pods keeps none.
fn spread_to_switches(t: &Topology, mut pods: Vec<Option<u32>>) -> Vec<Option<u32>> {
    /// What a switch without a pod has seen of its neighbours' pods in one pass.
    #[derive(Copy, Clone, PartialEq)]
    enum Seen {
        Nothing,
        One(u32),
        Several,
    }
    loop {
        let mut seen = vec![Seen::Nothing; t.nodes.len()];
        for l in &t.links {
            for (n, other) in [(l.a, l.b), (l.b, l.a)] {
                if t.nodes[n.idx()].kind != NodeKind::Switch || pods[n.idx()].is_some() {
                    continue;
                }
                if let Some(p) = pods[other.idx()] {
                    let s = &mut seen[n.idx()];
                    *s = match *s {
                        Seen::Nothing => Seen::One(p),
                        Seen::One(q) if q == p => Seen::One(p),
                        _ => Seen::Several,
                    };
                }
            }
        }
        // A tier joins at once: an aggregation joins through the edges of earlier passes only.
        let mut joined = false;
        for (pod, s) in pods.iter_mut().zip(&seen) {
            if let Seen::One(p) = *s {
                *pod = Some(p);
                joined = true;
            }
        }
        if !joined {
            return pods;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{fat_tree, leaf_spine, FatTreeParams, LeafSpineParams, LinkParams};

    fn k(k: u32) -> Topology {
        let l = LinkParams { rate_bps: 10_000_000_000, delay_ps: 1_000_000 };
        fat_tree(&FatTreeParams { k, host_link: l, fabric_link: l })
    }

    /// k = 4: pods 0-1 in part 0, 2-3 in part 1, with their hosts, edges and aggregations;
    /// the four cores alternate; only aggregation-core links cross.
    #[test]
    fn a_fat_tree_splits_into_runs_of_whole_pods_and_dealt_cores() {
        let t = k(4);
        let cut = pod_cut(&t, 2).unwrap();
        let part = |name: &str| cut[t.nodes.iter().position(|n| n.name == name).unwrap()];
        for (name, want) in [("h0", 0), ("h7", 0), ("h8", 1), ("h15", 1), ("edge1_1", 0), ("agg1_0", 0), ("edge2_0", 1), ("agg3_1", 1)] {
            assert_eq!(part(name), want, "{name}");
        }
        assert_eq!((0..4).map(|c| part(&format!("core{c}"))).collect::<Vec<_>>(), [0, 1, 0, 1]);
        for (_, p) in t.ports() {
            let (a, b) = (&t.nodes[p.from.idx()].name, &t.nodes[p.to.idx()].name);
            let crosses = cut[p.from.idx()] != cut[p.to.idx()];
            assert_eq!(crosses, crosses && (a.starts_with("core") || b.starts_with("core")), "{a} -> {b}");
        }
        // One part per pod.
        let cut = pod_cut(&t, 4).unwrap();
        assert_eq!(cut[t.nodes.iter().position(|n| n.name == "agg3_0").unwrap()], 3);
    }

    #[test]
    fn only_podded_topologies_with_enough_pods_are_cut() {
        assert_eq!(pod_cut(&k(4), 5).unwrap_err(), "must be between 2 and the topology's 4 pods");
        assert_eq!(pod_cut(&k(4), 1).unwrap_err(), "must be between 2 and the topology's 4 pods");
        let l = LinkParams { rate_bps: 10_000_000_000, delay_ps: 1_000_000 };
        let ls = leaf_spine(&LeafSpineParams { leaves: 2, spines: 2, hosts_per_leaf: 2, host_link: l, fabric_link: l });
        assert_eq!(pod_cut(&ls, 2).unwrap_err(), "needs a topology with pods (fat_tree)");
    }
}
