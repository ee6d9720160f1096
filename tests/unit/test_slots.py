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
