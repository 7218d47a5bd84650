"""What Superways' extra links cost beside Subways type-1 (paper Sec. 5.3, Fig. 10-11; spec §1.5).

Whole dollars, integer arithmetic: the paper's totals ($435,840, $28,820) are checked exactly.
The priced data centre is 48 leaves x 48 servers = 2,304 servers with 24 spines.

Superways buys, per incast server and extra link, one NIC and one 50 ft cable (the worst-case
run to the spine rack), plus S new spines. How many spines is the paper's open end (spec §4
item 8): model A is its text, S = 2 whatever n ("the extreme case"); model B buys spine ports
as the links need them, S = ceil((n * L - 6) / 32), 6 ports being free on the existing spines
(so 3% still needs exactly the paper's 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import ceil

from fanin.plan.inputs import PlanError

# Prices, paper Sec. 5.3.
LEAF_PRICE = 5_000  # 48-port 10G leaf switch
SPINE_PRICE = 10_910  # 32-port 40G spine; the paper says "~$11K", and $10,910 is the price
# that makes its Superways total at 3% and L = 1 come to its $28,820 (spec §1.5)
NIC_PRICE = 80  # 1-port 10G NIC (the paper prices a 10G NIC even for a 40G spine link, §4 item 8)
CABLE_10FT_PRICE = 5  # cat7, 10 ft: Subways' cable to the next rack's leaf (5.2 ft needed)
CABLE_50FT_PRICE = 20  # cat7, 50 ft: Superways' server-to-spine cable, worst case

SERVERS = 2_304  # 48 leaves x 48 servers
SERVERS_PER_LEAF = 48
SPINE_PORTS = 32
FREE_SPINE_PORTS = 6  # model B: ports already free on the 24 spines
MODEL_A_SPINES = 2
MODELS = ("A", "B")


@dataclass(frozen=True)
class Subways:
    """Subways type-1 (p = 2): every server gets a second NIC and a cable to the next rack's
    leaf, and each rack a second leaf."""

    servers: int

    @property
    def extra_leaves(self) -> int:
        return ceil(self.servers / SERVERS_PER_LEAF)

    @property
    def items(self) -> dict[str, int]:
        return {
            "cables": self.servers * CABLE_10FT_PRICE,
            "leaves": self.extra_leaves * LEAF_PRICE,
            "nics": self.servers * NIC_PRICE,
        }

    @property
    def total(self) -> int:
        return sum(self.items.values())


@dataclass(frozen=True)
class Superways:
    """n incast servers with L extra links each, and S new spines."""

    n: int
    L: int
    S: int

    @property
    def items(self) -> dict[str, int]:
        return {
            "cables": self.n * self.L * CABLE_50FT_PRICE,
            "nics": self.n * self.L * NIC_PRICE,
            "spines": self.S * SPINE_PRICE,
        }

    @property
    def total(self) -> int:
        return sum(self.items.values())


def incast_servers(share: Fraction, servers: int = SERVERS) -> int:
    """n = ceil(p * servers): 3%, 4%, 5% of 2,304 are 70, 93, 116."""
    return ceil(share * servers)


def spines(model: str, n: int, L: int) -> int:
    """S: model A the paper's fixed 2; model B enough 32-port spines for the n * L links beyond
    the 6 free ports."""
    if model not in MODELS:
        raise PlanError("model", f"unknown cost model {model!r}", MODELS)
    if model == "A":
        return MODEL_A_SPINES
    return max(0, ceil(Fraction(n * L - FREE_SPINE_PORTS, SPINE_PORTS)))


def superways(share: Fraction, L: int, model: str, servers: int = SERVERS) -> Superways:
    n = incast_servers(share, servers)
    return Superways(n, L, spines(model, n, L))


def ratio(share: Fraction, L: int, model: str, servers: int = SERVERS) -> Fraction:
    """How many times cheaper Superways is than Subways type-1 (15.1 at 3%, L = 1)."""
    return Fraction(Subways(servers).total, superways(share, L, model, servers).total)
