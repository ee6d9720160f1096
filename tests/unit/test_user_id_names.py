"""The name a user id is made of: a question may call the user by it."""

from __future__ import annotations

import pytest

from memworks.pipelines.text.people import id_name, is_own_name


@pytest.mark.parametrize(
    ("user_id", "names"),
    [
        ("kenji.sato", ("Kenji", "Kenji Sato")),
        ("femi", ("Femi",)),
        ("alice@example.com", ("Alice",)),
        ("aoife-galway", ("Aoife", "Aoife Galway")),
        # ids that name no one
        ("u1", ()),
        ("user_42", ()),
        ("cust-dana-77120", ()),
        ("6f1c1b7e", ()),
        ("house-elm-rd", ()),
    ],
)
def test_a_user_id_made_of_words_gives_a_first_name_and_the_whole(user_id: str, names: tuple[str, ...]) -> None:
    assert id_name(user_id) == names


@pytest.mark.parametrize(
    ("speaker", "user_id", "peers", "own"),
    [
        ("Dev", "dev.patel", ["Leah"], True),
        ("dev patel", "dev.patel", [], True),
        ("Femi", "femi", ["Ruth"], True),
        ("Leah", "dev.patel", ["Dev"], False),
        # a store named after the two people who share it has no one user
        ("Tom", "tom-ayo", ["Ayo"], False),
        ("Tom", "u1", [], False),
        (None, "dev.patel", [], False),
    ],
)
def test_a_speaker_named_as_the_user_id_is_the_user(
    speaker: str | None, user_id: str, peers: list[str], own: bool
) -> None:
    assert is_own_name(speaker, user_id, peers) is own
