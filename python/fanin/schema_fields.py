"""The building blocks of the scenario's JSON Schema (``fanin.schema``): quantities with
units, and typed fields, tables and per-kind field lists."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Schema = dict[str, Any]

# Quantities are strings: a decimal number (`_` separators, no sign but `+`, no exponent),
# optional spaces, then a case-sensitive unit.
NUMBER = r"\+?(?:[0-9_]*[0-9][0-9_]*(?:\.[0-9_]*)?|[0-9_]*\.[0-9_]*[0-9][0-9_]*)"
# A multiple of the flow's own path ("1bdp", "2rtt") is any positive float.
MULTIPLE = r"\+?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
TIME_UNITS = ["ps", "ns", "us", "µs", "ms", "s"]
RATE_UNITS = ["bps", "Kbps", "Mbps", "Gbps", "Tbps", "K", "M", "G", "T"]
BYTE_UNITS = ["B", "KB", "MB", "GB", "KiB", "MiB", "GiB"]
SIZE_UNITS = [*BYTE_UNITS, "pkt"]


def pattern(*alternatives: str) -> str:
    return r"^\s*(?:" + "|".join(alternatives) + r")\s*$"


def with_unit(number: str, units: list[str]) -> str:
    return number + r"\s*(?:" + "|".join(units) + ")"


def field(base: Schema, description: str, default: Any = None) -> Schema:
    out = {**base, "description": description}
    if default is not None:
        out["default"] = default
    return out


@dataclass(frozen=True)
class Quantity:
    """A kind of quantity; called with a field's description, it gives the field's schema."""

    pattern: str
    hint: str  # the units and an example, after each field's own description

    def __call__(self, description: str, default: str | None = None) -> Schema:
        return field({"type": "string", "pattern": self.pattern}, f"{description} ({self.hint})", default)


def units(kind: str, units: list[str], example: str, *also: str) -> Quantity:
    hint = f"{kind} in {', '.join(units)}, e.g. {example}"
    return Quantity(pattern(with_unit(NUMBER, units), *also), hint)


TIME = units("time", TIME_UNITS, '"200us"')
RATE = units("rate", RATE_UNITS, '"10Gbps"')
BYTES = units("size", BYTE_UNITS, '"64KiB"')
SIZE = units("size", SIZE_UNITS, '"65pkt"')
PACKETS = units("packet count", ["pkt"], '"100pkt"')
TIME_OR_RTTS = units("time", TIME_UNITS, '"200us", or "<x>rtt"', with_unit(MULTIPLE, ["rtt"]))
SIZE_OR_BDPS = units("size", SIZE_UNITS, '"10pkt", or "<x>bdp"', with_unit(MULTIPLE, ["bdp"]))
SIZE_OR_UNLIMITED = units("size", SIZE_UNITS, '"1000pkt", or "unlimited"', "unlimited")


def integer(description: str, minimum: int, maximum: int | None = None, default: int | None = None) -> Schema:
    out: Schema = {"type": "integer", "minimum": minimum}
    if maximum is not None:
        out["maximum"] = maximum
    return field(out, description, default)


def fraction(description: str, default: float | None = None, *, closed: bool = False) -> Schema:
    """A float in (0, 1], or in [0, 1] when ``closed``."""
    low = {"minimum": 0} if closed else {"exclusiveMinimum": 0}
    return field({"type": "number", **low, "maximum": 1}, description, default)


def boolean(description: str, default: bool | None = None) -> Schema:
    return field({"type": "boolean"}, description, default)


def choice(values: list[str], description: str, default: str | None = None) -> Schema:
    return field({"type": "string", "enum": values}, description, default)


def string(description: str, default: str | None = None) -> Schema:
    return field({"type": "string"}, description, default)


def ref(name: str, description: str) -> Schema:
    return {"$ref": f"#/$defs/{name}", "description": description}


def table(properties: dict[str, Schema], description: str = "", required: tuple[str, ...] = ()) -> Schema:
    out: Schema = {"type": "object", "additionalProperties": False, "properties": properties}
    if description:
        out["description"] = description
    if required:
        out["required"] = list(required)
    return out


def by_kind(table: Schema, key: str, fields: dict[str, list[str]], default: str | None = None) -> Schema:
    """Only the fields each value of ``key`` reads, as the engine rejects the others.

    The default's condition holds also when ``key`` is not given.
    """
    rules = []
    for value, names in fields.items():
        condition: Schema = {"properties": {key: {"const": value}}}
        if value != default:
            condition["required"] = [key]
        rules.append({"if": condition, "then": {"propertyNames": {"enum": [key, *names]}}})
    return {**table, "allOf": rules}
