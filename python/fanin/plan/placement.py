"""Superways' placement heuristic (Rezaei & Vamanan, WWW '21, Sec. 3.1; spec §1.2), exact.

Apps go onto incast servers in descending degree d. The app that opens a server (its seed)
is sized by Eq. 1-8: first the leaf port of the aggregator's own rack, then, for what does
not fit there, ``ceil(L)`` extra links straight to spines. The room left over is filled by
PACK_LEAF (no extra links: more apps whose senders all fit the leaf port) or PACK_SPINE
(more apps whose senders all use the extra links). Quantities are Fractions, so a test can
compare them with the paper's numbers without a tolerance.

Two readings of the paper are fixed here (spec §4 items 2-3): Eq. 8 as written yields a
fraction, not bytes, so the leaf residual becomes ``r_l * (1 - U')``; and a count of senders
is whole, so beta moves by ``floor(N)`` senders.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor

from fanin.plan.inputs import App, Parameters


@dataclass(frozen=True)
class Seed:
    """Eq. 1-8 for the app that opens a server. Bytes for r_l and r_s; None where the path taken
    does not compute a quantity (no r_l or U' once the local senders alone overflow the leaf)."""

    U: Fraction  # Eq. 1: share of the leaf-port buffer the local senders fill
    r_l: Fraction | None  # Eq. 6: leaf-port buffer left after them
    U_prime: Fraction | None  # Eq. 7: share of r_l the remote senders would fill
    N: Fraction | None  # Eq. 2 (or its 3.1.2 twin): senders the leaf port still takes
    beta: Fraction  # Eq. 3: share of the d senders that use the leaf link
    L: Fraction  # Eq. 4: extra links' worth of spine buffer the rest need
    links: int  # ceil(L)
    r_s: Fraction  # Eq. 5: spine buffer left on those links
    leaf_senders: int

    @property
    def packs_leaf(self) -> bool:
        """U' < 1: everything fits the leaf port, and PACK_LEAF fills what is left of it."""
        return self.U_prime is not None and self.U_prime < 1

    @property
    def r_l_left(self) -> Fraction:
        """Eq. 8 with its unit fix: the leaf-port bytes left for PACK_LEAF."""
        assert self.r_l is not None and self.U_prime is not None
        return self.r_l * (1 - self.U_prime)


@dataclass(frozen=True)
class Placed:
    """Where an app went and which way its senders reach the aggregator."""

    name: str
    server: int
    leaf_senders: int  # through the aggregator's leaf port
    extra_link_senders: int  # through a spine and an extra link


@dataclass(frozen=True)
class Server:
    """An incast server: its index in the ordered server slots, its extra links, and the
    buffer its packing left unused."""

    server: int
    seed_app: str
    seed: Seed
    r_s: Fraction  # spine buffer left after PACK_SPINE (0 without extra links)
    r_l: Fraction  # leaf-port buffer left after PACK_LEAF (0 when the server packs its spines)

    @property
    def links(self) -> int:
        return self.seed.links


def burst(p: Parameters, senders: int) -> Fraction:
    """Bytes that arrive at once from ``senders`` senders: alpha * senders * s."""
    return p.alpha * senders * p.s


def extra_links(L: Fraction, B_s: int) -> tuple[int, Fraction]:
    """Eq. 4-5: ``ceil(L)`` links, and ``r_s = B_s * (ceil(L) - L)`` of their buffer unused."""
    links = ceil(L)
    return links, B_s * (links - L)


def spine_share(p: Parameters, senders: int) -> Fraction:
    """Eq. 4: L = alpha * senders * s / (theta * B_s); theta because a faster link drains faster."""
    return burst(p, senders) / (p.theta * p.B_s)


def seed(a: App, p: Parameters) -> Seed:
    """Eq. 1-8 for app ``a`` alone on a fresh server."""
    U = burst(p, a.local) / p.B_l  # Eq. 1
    if U > 1:  # 3.1.1: the local senders alone overflow the leaf port
        N = Fraction(p.B_l) / burst(p, 1)  # Eq. 2
        return _to_spines(a, p, U, None, None, N, leaf_senders=floor(N))  # Eq. 3
    r_l = p.B_l * (1 - U)  # Eq. 6
    remote = a.d - a.local
    U_prime = burst(p, remote) / r_l if r_l else None  # Eq. 7; r_l = 0: nothing more fits
    if U_prime is not None and U_prime < 1:  # Eq. 8: no extra link
        return Seed(U, r_l, U_prime, None, Fraction(1), Fraction(0), 0, Fraction(0), a.d)
    N = r_l / burst(p, 1)  # remote senders the leaf port still takes, through a spine
    return _to_spines(a, p, U, r_l, U_prime, N, leaf_senders=a.local + floor(N))


def _to_spines(
    a: App, p: Parameters, U: Fraction, r_l: Fraction | None, U_prime: Fraction | None, N: Fraction, leaf_senders: int
) -> Seed:
    """Eq. 3-5: the senders beyond the leaf port's ``leaf_senders`` go over extra links."""
    L = spine_share(p, a.d - leaf_senders)
    links, r_s = extra_links(L, p.B_s)
    return Seed(U, r_l, U_prime, N, Fraction(leaf_senders, a.d), L, links, r_s, leaf_senders)


def pack(waiting: list[App], need: Callable[[App], Fraction], room: Fraction) -> tuple[list[App], Fraction]:
    """Takes, in descending d, each waiting app whose ``need`` is below the room left, and
    returns them with the room left. One pass is the paper's rescan: the room only shrinks, so
    an app passed over would not fit later either."""
    taken = []
    for a in list(waiting):
        if need(a) < room:
            waiting.remove(a)
            taken.append(a)
            room -= need(a)
    return taken, room


def pack_leaf(waiting: list[App], p: Parameters, r_l: Fraction) -> tuple[list[App], Fraction]:
    """PACK_LEAF: co-locate apps with alpha * d * s / r_l < 1, all senders on the leaf port."""
    return pack(waiting, lambda a: burst(p, a.d), r_l)


def pack_spine(waiting: list[App], p: Parameters, r_s: Fraction) -> tuple[list[App], Fraction]:
    """PACK_SPINE: co-locate apps with alpha * d * s / (theta * r_s) < 1, all senders (local ones
    too) on the extra links; the same as re-running Eq. 4-5 on the summed demand."""
    return pack(waiting, lambda a: burst(p, a.d) / p.theta, r_s)


@dataclass(frozen=True)
class Plan:
    apps: list[Placed]
    servers: list[Server]


def place(apps: list[App], p: Parameters) -> Plan:
    """The heuristic: each server is opened by the largest app left, then packed."""
    waiting = sorted(apps, key=lambda a: -a.d)  # stable: equal degrees keep the file's order
    placed: list[Placed] = []
    servers: list[Server] = []
    while waiting:
        srv, first = len(servers), waiting.pop(0)
        s = seed(first, p)
        placed.append(Placed(first.name, srv, s.leaf_senders, first.d - s.leaf_senders))
        if s.packs_leaf:
            taken, r_l = pack_leaf(waiting, p, s.r_l_left)
            placed += [Placed(a.name, srv, a.d, 0) for a in taken]
            servers.append(Server(srv, first.name, s, Fraction(0), r_l))
        else:
            taken, r_s = pack_spine(waiting, p, s.r_s)
            placed += [Placed(a.name, srv, 0, a.d) for a in taken]
            servers.append(Server(srv, first.name, s, r_s, Fraction(0)))
    return Plan(placed, servers)
