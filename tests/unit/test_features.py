"""Feature normalisation: keywords and free text give the same stems for the same words; text adds bigrams."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from memworks.pipelines.lessons.features import MAX_FEATURES, normalize_features, outcome_features, stem, text_features


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("refunds", "refund"),
        ("invoices", "invoic"),
        ("billing", "bill"),
        ("security", "secur"),
        ("status", "status"),
        ("passwords", "password"),
        ("crashed", "crash"),
    ],
)
def test_stems(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["Late Payment"], ("late_payment",)),
        (["  late-payment  ", "LATE_PAYMENT", "late   payment!", "late payments"], ("late_payment",)),
        (["Refunds", "Billing"], ("bill", "refund")),
        (["refund for fraud"], ("refund_fraud",)),  # stop words inside a phrase go
        (["", "   ", "--", "Enterprise"], ("enterpris",)),
        (["the"], ("the",)),  # a chosen keyword is kept even if it is a stop word
        ([], ()),
    ],
)
def test_keywords(raw: list[str], expected: tuple[str, ...]) -> None:
    assert normalize_features(raw) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Refunds for an enterprise invoice",
            ("enterpris", "enterpris_invoic", "invoic", "refund", "refund_enterpris"),
        ),
        ("Crash. Security scan!", ("crash", "scan", "secur", "secur_scan")),  # no bigram across a clause break
        ("x y 4G z", ("4g",)),  # tokens shorter than 2 characters dropped
        ("refund refund", ("refund",)),  # no bigram of a word with itself
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
        (["Password Reset"], "my password reset failed"),  # a phrase keyword is the text's bigram
        (["data_loss", "crash"], "After the crash: data loss in projects."),
    ],
)
def test_keywords_are_among_the_features_of_the_same_words_in_text(keywords: Sequence[str], text: str) -> None:
    assert set(normalize_features(keywords)) <= set(normalize_features(text))
    assert normalize_features(keywords) == tuple(sorted(normalize_features(keywords)))


def test_long_text_keeps_its_first_features_unigrams_first() -> None:
    words = [f"w{n:03d}" for n in range(100, 0, -1)]
    got = normalize_features(" ".join(words))
    assert len(got) == MAX_FEATURES == 64
    assert set(got) == {f"w{n:03d}" for n in range(100, 36, -1)}  # the first 64 words, no bigram
    assert text_features("alpha beta") == ["alpha", "beta", "alpha_beta"]


def test_outcome_features_join_keywords_and_task_text() -> None:
    assert outcome_features(["vip"], "Password not accepted") == ("accept", "password", "password_accept", "vip")
    assert outcome_features([], "Crash") == ("crash",)
    assert outcome_features("crash report", None) == ("crash", "crash_report", "report")
