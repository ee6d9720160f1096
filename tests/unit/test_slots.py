"""Slot words indexed beside a fact's sentence."""

from memworks.pipelines.ingest.slots import index_text, slot_words


def test_a_fact_is_indexed_with_the_words_people_ask_with() -> None:
    assert (
        index_text("user.employer", "User works at Initech.")
        == "User works at Initech. (employer, where I work, company, job)"
    )
    assert slot_words("user.pet.dog") == slot_words("user.pet") == "pet, animal"  # longest prefix wins
    assert slot_words("user.favorite.drink_at_work") == "favourite"


def test_keyless_and_unknown_records_are_indexed_as_they_are() -> None:
    assert index_text(None, "thanks!") == "thanks!"
    assert index_text("user.unheard_of", "x") == "x" and slot_words("") == ""


def test_every_fixed_slot_the_rules_write_has_words() -> None:
    # The rules' fixed keys (README "Fixed keys" and standing constraints): a question about
    # any of them ("What medication am I on?") meets the fact through its slot's words.
    from datetime import UTC, datetime

    from memworks.models.drafts import Turn
    from memworks.models.enums import Role, Source
    from memworks.pipelines.extraction.rules import RulesExtractor

    said = [
        "I live in Porto.",
        "My address is 12 Rua das Flores.",
        "I'm on levothyroxine for my thyroid.",
        "I have coeliac disease.",
        "I'm allergic to peanuts.",
        "I work at Initech as a data analyst.",
    ]
    keys: set[str] = set()
    extractor = RulesExtractor()
    for text in said:
        turn = Turn(episode_id="e1", role=Role.USER, source=Source.USER, content=text, occurred_at=datetime.now(UTC))
        keys |= {c.key for c in extractor(turn) if c.key}
    assert {"user.address", "user.allergy", "user.employer"} <= keys
    assert any(k.startswith("user.medication.") for k in keys), keys
    assert [k for k in keys if not slot_words(k)] == []
