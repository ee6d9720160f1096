"""Reader cues of ``memworks eval probes``: the naive patterns a keyword matcher would use to find
the answer in a line of text (``a`` is the answer group). The ``transcript_only`` design runs them
over the whole history, the ``memworks`` design over its hits when a question has no memory key.
"""

from __future__ import annotations

NAME = r"[A-Z][a-z]+"
HOME = (
    rf"\b(?:live|lives|living|lived|based|moved|relocated|relocating|moving)\s+(?:in|to)\s+(?P<a>{NAME}(?:\s{NAME})?)"
)
EMPLOYER = (
    r"\b(?:(?:work|works|working|worked)\s+(?:at|for)|joined|started\s+at|job\s+at)\s+"
    r"(?P<a>[A-Z]\w*(?:\s[A-Z]\w*)*)"
)
TITLE = r"\b(?:as|I'm|I am)\s+an?\s+(?P<a>[a-z]+\s(?:engineer|manager|analyst|designer|developer))\b"
DIET = r"\b(?:I'm|I am|went|now)\s+(?P<a>vegetarian|vegan|pescatarian|lactose intolerant)\b"
ALLERGY = r"\ballergic\s+to\s+(?P<a>[a-z]+)"
SEAT = r"\b(?P<a>aisle|window)\s+seats?\b"
TIMEZONE = r"\btime\s?zone\s+is\s+(?P<a>[\w/]+)"
SPECIES = r"(?:dog|puppy|cat|kitten|hamster)"
PET = rf"\b{SPECIES}(?:'s\s+name)?\s+(?:is\s+)?(?:called|named|is)\s+(?P<a>{NAME})"
DOG = rf"\b(?:dog|puppy)(?:'s\s+name)?\s+(?:is\s+)?(?:called|named|is)\s+(?P<a>{NAME})"
CAT = rf"\b(?:cat|kitten)(?:'s\s+name)?\s+(?:is\s+)?(?:called|named|is)\s+(?P<a>{NAME})"
HAMSTER = rf"\bhamster(?:'s\s+name)?\s+(?:is\s+)?(?:called|named|is)\s+(?P<a>{NAME})"
RELATIVE = r"(?:sister|brother|mum|mom|mother|dad|father)"
FAMILY = rf"\b{RELATIVE}(?:'s\s+name)?\s+(?:is\s+)?(?:called\s+)?(?P<a>{NAME})"
SISTER = rf"\bsister(?:'s\s+name)?\s+(?:is\s+)?(?P<a>{NAME})"
BROTHER = rf"\bbrother(?:'s\s+name)?\s+(?:is\s+)?(?P<a>{NAME})"
