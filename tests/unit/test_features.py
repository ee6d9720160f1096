"""Feature normalisation: keywords and free text give the same features for the same words."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from memworks.pipelines.features import MAX_FEATURES, normalize_features, singular


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("refunds", "refund"),
        ("invoices", "invoice"),
        ("status", "status"),  # ends in "us"
        ("access", "access"),  # ends in "ss"
        ("analysis", "analysis"),  # ends in "is"
        ("bus", "bus"),  # too short
        ("gas", "gas"),  # too short
        ("plans", "plan"),
        ("billing", "billing"),
    ],
)
def test_plural_rule(word: str, expected: str) -> None:
    assert singular(word) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["Late Payment"], ("late_payment",)),
        (["  late-payment  ", "LATE_PAYMENT", "late   payment!"], ("late_payment",)),
        (["Refunds", "Billing"], ("billing", "refund")),
        (["Late Payments"], ("late_payments",)),  # plural rule only for single-word keywords
        (["", "   ", "--", "Enterprise"], ("enterprise",)),
        (["the"], ("the",)),  # a chosen keyword is kept even if it is a stop word
        (["Status"], ("status",)),
        ([], ()),
    ],
)
def test_keywords(raw: list[str], expected: tuple[str, ...]) -> None:
    assert normalize_features(raw) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Refunds for an enterprise invoice", ("enterprise", "invoice", "refund")),
        ("The customer says: please check my invoices!", ("check", "customer", "invoice", "please", "say")),
        ("Is the order status in a bus?", ("bus", "order", "status")),
        ("x y 4G z", ("4g",)),  # tokens shorter than 2 chars dropped
        ("Café refunds", ("caf", "refund")),  # only [a-z0-9]+ words
        ("", ()),
        ("the of and to", ()),
    ],
)
def test_free_text(text: str, expected: tuple[str, ...]) -> None:
    assert normalize_features(text) == expected


@pytest.mark.parametrize(
    ("keywords", "text"),
    [
        (["Billing", "Refunds", "Enterprise"], "Billing refunds for an enterprise"),
        (["invoice", "overdue"], "The invoices are overdue"),
        (["Password", "Reset"], "password reset"),
    ],
)
def test_keywords_and_text_agree(keywords: Sequence[str], text: str) -> None:
    assert normalize_features(keywords) == normalize_features(text)
    assert normalize_features(keywords) == tuple(sorted(normalize_features(keywords)))


def test_result_is_sorted_unique_and_capped_in_sorted_order() -> None:
    words = [f"w{n:03d}" for n in range(100, 0, -1)]
    got = normalize_features(words + words)
    assert len(got) == MAX_FEATURES == 64
    assert got == tuple(f"w{n:03d}" for n in range(1, 65))
    assert normalize_features(" ".join(words)) == got
