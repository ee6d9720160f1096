"""The name a user id is made of: a question may call the user by it."""

from __future__ import annotations

import pytest

from memworks.store.turns import id_name


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
