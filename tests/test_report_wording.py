"""Report wording: family-wise counts, claims compared between seeds, small shares, zero-width intervals."""

from __future__ import annotations

from experiments import report, wording
from experiments import rule_variants as variants
from experiments.findings import Finding
from experiments.stats import Estimate


def _diff(metric: str, variant: str, est: float, half: float) -> Finding:
    e = Estimate(est, est - half, est + half, est - half, est + half, 5000)
    return Finding(metric, (variant, variants.STANDARD), e, 5000, 50000)


def _findings(moved: dict[str, float]) -> list[Finding]:
    """Every measure of every variant; ``moved`` gives a variant's turns-per-round difference (half-width 1)."""
    out = []
    for metric in variants.METRICS:
        out.append(Finding(metric, (variants.STANDARD,), Estimate(26.0, 25.9, 26.1, 25.9, 26.1, 5000), 5000, 50000))
        for v in variants.VARIANTS:
            out.append(_diff(metric, v, moved.get(v, 0.0) if metric == "turns per round" else 0.0, 1.0))
    return out


def test_a_variant_counts_only_when_its_family_wise_interval_excludes_zero():
    # +1.3 +- 1 excludes zero at 95% alone, but not once widened for 11 variants (z 2.84 against 1.96).
    found = variants.changes(_findings({"2 jokers": 8.0, "14 cards": 1.3}), "turns per round")
    assert found["2 jokers"][0] == "higher" and found["14 cards"][0] == "none"
    low, high = found["14 cards"][1]
    assert low < 0 < high


def test_seven_and_eight_variants_of_eleven_are_different_readings():
    config = variants.Config()
    seven = {v: 5.0 for v in list(variants.VARIANTS)[:7]}
    eight = {v: 5.0 for v in list(variants.VARIANTS)[:8]}
    first = report.claims(variants, _findings(seven), config)
    second = report.claims(variants, _findings(eight), config)
    rows = report.compare_claims(first, second)
    assert [row[0] for row in rows if not row[3]] == ["variants that change the turns per round"]
    assert report.compare_claims(first, report.claims(variants, _findings(seven), config)) == \
        [(k, v, v, True) for k, v in first.items()]


def test_small_shares_keep_two_significant_digits():
    assert wording.fmt("blocked rate", 0.0002) == "0.020%"
    assert wording.fmt("blocked rate", 0.00023, True) == "+0.023pp"
    assert wording.fmt("blocked rate", 0.0) == "0%"
    assert wording.fmt("blocked rate", 0.25) == "25.0%"


def test_a_zero_width_interval_is_never_a_measurable_difference():
    f = Finding("blocked rate", ("stock turned once", variants.STANDARD),
                Estimate(0.0003, 0.0003, 0.0003, 0.0003, 0.0003, 5000), 5000, 50000)
    assert wording.verdict(f) == "none"
    assert wording.difference_sentence(f, "a", "b").startswith("No measurable difference")
    found = variants.changes([f], "blocked rate")
    assert found["stock turned once"][0] == "none"
