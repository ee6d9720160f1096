"""What is left of a turn once some of its sentences stop holding."""

from __future__ import annotations

from memworks.services.ingest.remainders import remainder_text


def test_the_sentences_that_stopped_holding_are_cut_and_the_rest_kept_in_order() -> None:
    text = "Quick update. We shop at Lidl. My sister Anne is staying with us. The cat is fine."
    assert (
        remainder_text(text, ["We shop at Lidl."])
        == "Quick update. My sister Anne is staying with us. The cat is fine."
    )
    assert remainder_text(text, ["We shop at Lidl.", "The cat is fine."]) == (
        "Quick update. My sister Anne is staying with us."
    )


def test_nothing_is_left_when_a_sentence_is_not_in_the_text_or_too_little_remains() -> None:
    assert remainder_text("We shop at Lidl. Thanks!", ["We shop at Lidl."]) is None
    assert remainder_text("We shop at Lidl. My sister is here.", ["We shop at Aldi."]) is None


def test_a_sentence_carrying_its_turns_speaker_is_cut_from_the_turn() -> None:
    text = "Melanie: Hey! I have a PureGym membership. My kids are doing great at school."
    assert remainder_text(text, ["Melanie: I have a PureGym membership."]) == (
        "Melanie: Hey! My kids are doing great at school."
    )


def test_a_sentence_joined_over_a_line_break_is_found_and_cut() -> None:
    text = "Quick update. Hana has piano with Mrs.\nKowalski on Wednesdays. The cat is fine and well."
    assert remainder_text(text, ["Hana has piano with Mrs. Kowalski on Wednesdays."]) == (
        "Quick update. The cat is fine and well."
    )
