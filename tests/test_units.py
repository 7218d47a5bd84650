"""One unit grammar: the engine's, for scenario files and every command-line quantity."""

from __future__ import annotations

import pytest

from conftest import small_incast_dict
from fanin import Scenario, _native
from fanin.bursts.counters import BurstInputError
from fanin.bursts.units import parse_bytes, parse_rate_bps, parse_time_ps


@pytest.mark.parametrize("text", ["10G", "10Gbps", "10000Mbps"])
def test_a_rate_the_command_line_takes_is_one_a_scenario_takes(text: str) -> None:
    assert parse_rate_bps(text) == _native.parse_rate(text) == 10**10
    s = Scenario.from_dict(small_incast_dict()).set("topology.host_link.rate", text)
    assert s.validate()["name"]


def test_times_and_sizes_are_read_alike() -> None:
    assert parse_time_ps("1.5ms") == _native.parse_time("1.5ms") == 1_500_000_000
    assert parse_bytes("64KiB", "--bytes") == _native.parse_bytes("64KiB") == 65536


@pytest.mark.parametrize(("text", "fragment"), [("10g", "unknown unit `g`"), ("fast", "no number"), ("0G", "must be positive")])
def test_a_bad_quantity_names_the_option_and_the_units(text: str, fragment: str) -> None:
    with pytest.raises(BurstInputError) as e:
        parse_rate_bps(text)
    assert str(e.value).startswith("--line-rate: ") and fragment in str(e.value)
