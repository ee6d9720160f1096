"""Whose thing a question asks about ("my dog's name"), and which candidates mention it."""

from __future__ import annotations

import pytest

from memworks.pipelines.retrieval.possessor import (
    OWNED_MIN_SIMILARITY,
    another_member,
    holders,
    known_names,
    named_question,
    others_only,
    owned_word,
    possessor,
)
from memworks.pipelines.text.terms import terms


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("What's my dog's name?", "dog"),
        ("What's my brother called?", "brother"),
        ("When is my sister\u2019s wedding?", "sister"),
        ("What's my ex-wife's name?", "ex-wife"),
        ("What's my name?", ""),
        ("Where do I live?", ""),
        ("What is Melanie's dog's name?", "dog"),  # someone else's relative or animal whose name is asked
        ("What's the name of Nadia's cat?", "cat"),
        ("What happened to Melanie's son on the trip?", ""),  # anything else of theirs: the subject check's
        ("What is Melanie's job called?", ""),  # no relative or animal
        ("Where does my sister live?", "sister"),  # a relative or an animal wherever it is named
        ("What breed is my dog?", "dog"),
        ("Where is my brother getting married?", "brother"),
        ("What is my job?", ""),
        ("Where do my parents live?", ""),  # a general word names no one member
    ],
)
def test_owned_word_is_the_thing_of_the_users_a_question_asks_about(question: str, word: str) -> None:
    assert owned_word(question) == word


def test_a_candidate_holds_the_thing_by_its_word_or_by_meaning() -> None:
    owner = possessor("What's my dog's name?")
    words = [frozenset({"user", "name", "maya"}), frozenset({"dog", "biscuit"}), frozenset({"border", "colli", "loke"})]
    assert holders(owner, words) == [False, True, False]
    near = [0.1, 0.2, OWNED_MIN_SIMILARITY + 0.04]  # "an old border collie called Loke" means a dog
    assert holders(owner, words, near) == [False, True, True]
    # A fact of a slot about no relative or animal means the dog only by naming it ("User's job
    # title is Vet" is like "dog" to the embedder); a pet's slot means it by likeness as before.
    assert holders(owner, words, near, ["user.job_title", None, "user.job_title"]) == [False, True, False]
    assert holders(owner, words, near, [None, None, "user.pet.dog"]) == [False, True, True]


def test_below_holders_puts_every_other_candidate_under_the_holders_in_its_own_order() -> None:
    import numpy as np

    from memworks.pipelines.retrieval.possessor import below_holders

    out = below_holders(np.array([0.9, 0.2, 0.5, 0.1]), [False, True, False, True])
    assert sorted(range(4), key=lambda i: -out[i]) == [1, 3, 0, 2]
    assert list(below_holders(np.array([0.9, 0.2]), [True, True])) == [0.9, 0.2]


@pytest.mark.parametrize(
    ("question", "text", "other"),
    [
        ("What's my dog's name?", "We adopted a cat! She's a grey tabby called Miso.", True),
        ("When is my sister's wedding?", "My brother Pablo's wedding is on September 8.", True),
        ("What's my mum's name?", "My dad Luis retired last year.", True),
        ("What's my dog's name?", "Our dog Biscuit had his jabs; the cat hid.", False),  # names the dog too
        ("What's my dog's name?", "An old border collie called Loke.", False),  # a kind of dog, no other animal
        ("What's my partner's name?", "My wife Efua is a midwife.", False),  # "partner" names no member
        ("What's my cat's name?", "My sister Ines lives in Copenhagen.", False),  # another kind altogether
    ],
)
def test_a_candidate_naming_another_of_the_things_kind_does_not_hold_it(question: str, text: str, other: bool) -> None:
    from memworks.pipelines.text.terms import terms

    owner, words = possessor(question), frozenset(terms(text))
    assert another_member(owner, words) is other
    assert holders(owner, [words], [OWNED_MIN_SIMILARITY + 0.1]) == [not other]


def test_a_fact_whose_value_is_the_thing_itself_yields_to_a_holder_that_says_more_of_it() -> None:
    from memworks.pipelines.retrieval.possessor import says_more

    owner = possessor("What's my cat called?")
    # "User adopted a cat." (a fact, value "cat"), "We adopted a cat! She's called Miso." (a turn)
    assert says_more(owner, [True, True], ["cat", "We adopted a cat! She's called Miso."], [True, False]) == [
        False,
        True,
    ]
    # Alone, it still holds the thing; a fact that names it ("Miso") always does
    assert says_more(owner, [True, False], ["cat", "Nice weather."], [True, False]) == [True, False]
    assert says_more(owner, [True, True], ["Miso", "a cat"], [True, False]) == [True, True]


def test_a_fact_that_only_names_the_thing_yields_when_the_question_asks_something_else_of_it() -> None:
    from memworks.pipelines.retrieval.possessor import says_more

    values = ["Rufus", "Our dog Rufus is a three-year-old whippet."]
    texts = ["User has a dog named Rufus.", "Our dog Rufus is a three-year-old whippet."]
    facts = [True, False]
    breed = says_more(possessor("What breed is my dog?"), [True, True], values, facts, texts, "What breed is my dog?")
    assert breed == [False, True]
    # ... while it is the answer to its name
    name = says_more(possessor("What's my dog called?"), [True, True], values, facts, texts, "What's my dog called?")
    assert name == [True, True]


def test_the_names_keyed_records_give_the_thing_asked_about_are_known() -> None:
    keys = ["user.family.sister", "user.family.brother", "user.pet.cat", None, "person.ines.home_city"]
    values = ["Inês Costa", "Tom", "Miso", "Inês", "Porto"]
    assert known_names(possessor("Where does my sister live?"), keys, values) == frozenset(terms("Inês Costa"))
    assert known_names(possessor("What breed is my cat?"), keys, values) == frozenset(terms("Miso"))
    assert known_names(possessor("Where do I live?"), keys, values) == frozenset()


def test_a_question_about_a_named_relative_is_asked_again_by_the_name() -> None:
    keys = ["user.family.brother", "user.family.sister", None, "person.ines.home_city"]
    values = ["Tom", "Inês", "Inês", "Porto"]
    assert named_question("Where does my sister live?", keys, values) == "Where does Inês live?"
    assert named_question("What does my brother do now?", keys, values) == "What does Tom do now?"
    # No keyed record names the dog; the question is not about a relative or an animal.
    assert named_question("What breed is my dog?", keys, values) == ""
    assert named_question("Where do I live?", keys, values) == ""


@pytest.mark.parametrize(
    ("text", "theirs"),
    [
        ("Minding Niamh's cat Mochi this week while she's in Crete", True),
        ("my sister's cat is called Tom", True),
        ("Her cat keeps knocking plants over", True),
        ("My cat Biscuit just sleeps on the radiator", False),
        ("We adopted a cat!", False),
        ("Her cat and my cat fight", False),  # one of them is the user's
        ("User's cat is named Biscuit.", False),
        ("I walk my neighbour's dog", False),  # names no cat: not judged here
    ],
)
def test_a_thing_named_only_as_someone_elses_is_not_the_users(text: str, theirs: bool) -> None:
    assert others_only(possessor("What's my cat called?"), text) is theirs
