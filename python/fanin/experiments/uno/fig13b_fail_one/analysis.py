"""Fig. 13B's check of spec pitfall 8: the same single flow and statistics as Fig. 13B
(its analysis module), with the artifact violin script's `-fail_one` (WAN link 0
black-holed) in place of Table 1's drops."""

from __future__ import annotations

from pathlib import Path

from fanin.sweep import load_module

fig13b = load_module(Path(__file__).parent.parent / "fig13b" / "analysis.py", "fanin_catalog_uno_fig13b")
derive = fig13b.derive
mean_ratio = fig13b.mean_ratio
tail_ratio = fig13b.tail_ratio
unolb_vs_spray_gap = fig13b.unolb_vs_spray_gap
plot = fig13b.plot
