"""What each memory slot is about, in the words people ask with.

A fact is stored as a plain sentence ("User works at Initech."), but people ask "where do I work
now?" or "who is my employer?". The slot's words are indexed beside the sentence (lexically and in
its vector), so a question about the slot finds the fact even when it shares no word with it.
"""

from __future__ import annotations

#: Longest matching key prefix wins (``user.pet.dog`` → ``user.pet``).
SLOT_WORDS: dict[str, str] = {
    "user.home_city": "home, where I live, city",
    "user.home_country": "home country, where I live",
    "user.hometown": "hometown, where I am from, where I grew up",
    "user.work_city": "work city, where I work, office location",
    "user.employer": "employer, where I work, company, job",
    "user.job_title": "job title, occupation, what I do for work, role",
    "user.diet": "diet, what I eat, food restrictions",
    "user.allergy": "allergy, allergic, must avoid",
    "user.likes": "likes, loves, favourite things",
    "user.dislikes": "dislikes, hates, avoid",
    "user.favorite": "favourite",
    "user.family": "family",
    "user.name": "name, what I am called",
    "user.pet": "pet, animal",
    "user.plan": "plans, upcoming, schedule",
    "user.timezone": "time zone, local time",
    "user.pref": "preference, how I like it",
}


def slot_words(key: str | None) -> str:
    """The words of the slot ``key`` belongs to ('' for keyless records and unknown slots)."""
    parts = (key or "").split(".")
    for n in range(len(parts), 1, -1):
        words = SLOT_WORDS.get(".".join(parts[:n]))
        if words:
            return words
    return ""


def index_text(key: str | None, text: str) -> str:
    """What the search projections index for a record: its text, then its slot's words."""
    words = slot_words(key)
    return f"{text} ({words})" if words else text
