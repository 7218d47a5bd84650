"""claims.toml: each tolerance kind passes a known-good value and fails a known-bad one;
malformed files name the file, the claim and the field."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from fanin.catalog.claims import ClaimsError, evaluate, load_claims, parse_claims

KNOWN = [
    # (tolerance, paper, good, bad)
    ({"kind": "abs", "value": 0.5}, 10.0, 10.4, 10.6),
    ({"kind": "abs", "value": 0.5}, 10.0, 9.5, 9.4),
    ({"kind": "rel", "value": 0.1}, 200.0, 219.0, 221.0),
    ({"kind": "rel", "value": 0.1}, -200.0, -181.0, -179.0),
    ({"kind": "range", "lo": 1.0, "hi": 2.0}, None, 1.0, 2.01),
    ({"kind": ">="}, 5.0, 5.0, 4.99),
    ({"kind": ">=", "value": 3}, 5.0, 3.0, 2.9),
    ({"kind": "<="}, 5.0, 5.0, 5.01),
    ({"kind": "<=", "value": 0}, 0, 0.0, 1.0),
    ({"kind": "true"}, True, True, False),
]


def one_claim(tolerance: dict[str, Any], paper: Any, metric: str = "data") -> dict[str, Any]:
    claim: dict[str, Any] = {"id": "c1", "text": "t", "metric": metric, "tolerance": tolerance}
    if paper is not None:
        claim["paper"] = paper
    return {"claim": [claim]}


@pytest.mark.parametrize("tolerance, paper, good, bad", KNOWN)
def test_tolerance_marks_known_good_and_bad(tolerance: dict[str, Any], paper: Any, good: Any, bad: Any) -> None:
    claims = parse_claims(one_claim(tolerance, paper), "claims.toml")
    assert [r.status for r in evaluate("fig", claims, good, None)] == ["pass"]
    assert [r.status for r in evaluate("fig", claims, bad, None)] == ["fail"]


def test_nan_fails_and_metric_errors_are_reported() -> None:
    module = types.SimpleNamespace(boom=lambda d: 1 / 0, text=lambda d: "high", peak=lambda d: float(d["q"].max()))
    data = pd.DataFrame({"q": [3.0, 7.0]})
    raw = {
        "claim": [
            {
                "id": "nan",
                "text": "t",
                "metric": "float('nan')",
                "paper": 1.0,
                "tolerance": {"kind": "abs", "value": 1e9},
            },
            {"id": "boom", "text": "t", "metric": "boom", "paper": 1.0, "tolerance": {"kind": ">="}},
            {"id": "text", "text": "t", "metric": "text", "paper": 1.0, "tolerance": {"kind": ">="}},
            {"id": "fn", "text": "t", "metric": "peak", "paper": 7.0, "tolerance": {"kind": "abs", "value": 0}},
            {
                "id": "expr",
                "text": "t",
                "metric": "df.q.mean() * 2",
                "paper": 10,
                "tolerance": {"kind": "rel", "value": 0},
            },
            {"id": "series", "text": "t", "metric": "df.q.iloc[[1]]", "paper": 7, "tolerance": {"kind": "<="}},
        ]
    }
    results = evaluate("fig", parse_claims(raw, "c.toml", module), data, module)  # type: ignore[arg-type]
    status = {r.id: (r.status, r.fanin) for r in results}
    assert status["nan"][0] == "fail"
    assert status["boom"] == ("error", None) and "ZeroDivisionError" in results[1].note
    assert status["text"] == ("error", None) and "not a number" in results[2].note
    assert status["fn"] == ("pass", 7.0)
    assert status["expr"] == ("pass", 10.0)
    assert status["series"] == ("pass", 7.0)


MALFORMED = [
    ('[[claim]]\ntext = "t"\nmetric = "x"\ntolerance = { kind = "true" }\n', "#1", "id"),
    ('[[claim]]\nid = "a"\nmetric = "x"\ntolerance = { kind = "true" }\n', "a", "text"),
    ('[[claim]]\nid = "a"\ntext = "t"\ntolerance = { kind = "true" }\n', "a", "metric"),
    ('[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\n', "a", "tolerance"),
    ('[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\ntolerance = { kind = "approx" }\n', "a", "tolerance.kind"),
    (
        '[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\npaper = "fast"\ntolerance = { kind = "rel", value = 0.1 }\n',
        "a",
        "paper",
    ),
    (
        '[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\npaper = 1\ntolerance = { kind = "rel" }\n',
        "a",
        "tolerance.value",
    ),
    (
        '[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\ntolerance = { kind = "range", lo = 2, hi = 1 }\n',
        "a",
        "tolerance",
    ),
    ('[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\ntolerance = { kind = ">=" }\n', "a", "tolerance.value"),
    (
        '[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\ntolerance = { kind = "<=", value = "3" }\n',
        "a",
        "tolerance.value",
    ),
    (
        '[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\ntolerance = { kind = "true", value = 1 }\n',
        "a",
        "tolerance.value",
    ),
    ('[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\ngating = "yes"\ntolerance = { kind = "true" }\n', "a", "gating"),
    ('[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\ntolerence = 1\ntolerance = { kind = "true" }\n', "a", "tolerence"),
    ('[[claim]]\nid = "a"\ntext = "t"\nmetric = "nope"\ntolerance = { kind = "true" }\n', "a", "metric"),
    ('[[claim]]\nid = "a"\ntext = "t"\nmetric = "df.q.max( > 1"\ntolerance = { kind = "true" }\n', "a", "metric"),
    (
        '[[claim]]\nid = "a"\ntext = "t"\nmetric = "x"\ntolerance = { kind = "true" }\n'
        '[[claim]]\nid = "a"\ntext = "u"\nmetric = "x"\ntolerance = { kind = "true" }\n',
        "a",
        "id",
    ),
    ('[claims]\nid = "a"\n', "", "claims"),
    ('[[claim]]\nid = "a"\ntext = \n', "", ""),
]


@pytest.mark.parametrize("text, claim_id, field", MALFORMED)
def test_malformed_claims_name_file_claim_and_field(tmp_path: Path, text: str, claim_id: str, field: str) -> None:
    path = tmp_path / "claims.toml"
    path.write_text(text)
    module = types.SimpleNamespace(x=lambda d: 1.0)
    with pytest.raises(ClaimsError) as e:
        load_claims(path, module)  # type: ignore[arg-type]
    assert (e.value.file, e.value.claim_id, e.value.field) == (str(path), claim_id, field)
    assert str(path) in str(e.value)
