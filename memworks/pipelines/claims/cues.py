"""Word lists and patterns a claim is read with: what marks a change, an ending, a time, an id.

Kept apart from the feature code so the lists can be read (and argued with) on their own. They are
mechanisms of English, not phrasings of one data set: verbs of replacing and ending, the adverbs
that mark a state as new or over, and the shapes of identifiers that tools print.
"""

from __future__ import annotations

import re

__all__ = [
    "CHANGE_ADVERBS",
    "CHANGE_VERBS",
    "END_ADVERBS",
    "END_PHRASES",
    "END_PARTICLES",
    "END_PAST",
    "END_VERBS",
    "HYPOTHETICAL",
    "FIRST_PERSON",
    "ID_PATTERN",
    "LIGHT_VERBS",
    "NEGATIONS",
    "NEW_WORDS",
    "NUMBER_WORDS",
    "PENDING_PATTERN",
    "PERSON_NOUNS",
    "PLAN_WORDS",
    "RESTATE_PATTERN",
    "START_VERBS",
    "STILL_PATTERN",
    "STATUS_WORDS",
    "STOP_LEMMAS",
    "TIME_PATTERN",
    "inflections",
    "marks_restatement",
    "marking_sentence",
    "wishes",
]

#: Verbs whose subject now holds a different value of something: "switched to", "moved to".
CHANGE_VERBS = frozenset(
    """switch change move relocate replace upgrade downgrade convert transfer swap trade
    promote reschedule rebook postpone update renew reassign migrate rename remarry extend increase
    reduce raise lower cut bump drop""".split()
)
#: Verbs that begin something, which may or may not replace what was before: "joined", "adopted".
START_VERBS = frozenset(
    """join hire adopt buy purchase marry engage graduate enrol enroll start begin get take pick sign
    open launch found become""".split()
)
#: Verbs that end what the old claim said, with nothing in its place: "quit", "sold", "cancelled".
END_VERBS = frozenset(
    """quit stop cancel leave end retire sell lose die divorce close finish terminate discontinue
    unsubscribe uninstall delete remove expire resign dump abandon separate return refund withdraw
    deactivate suspend revoke cease halt""".split()
)


def inflections(verb: str) -> set[str]:
    """A regular verb's forms: "switch" -> switches, switched, switching (exact words: a stem
    would also catch "terminal" for "terminate")."""
    base = verb[:-1] if verb.endswith("e") else verb
    # "stopped", "cancelled": a final consonant doubles (too often, for a few forms nobody writes).
    doubled = verb + verb[-1] if re.search(r"[aeiou][bdglmnprt]$", verb) else verb
    ending = "es" if verb.endswith(("s", "sh", "ch", "x", "z")) else "s"
    return {verb, verb + ending, base + "ed", base + "ing", doubled + "ed", doubled + "ing"}


#: The past forms of :data:`END_VERBS`, with the irregular ones: "finished", "stopped", "quit", "sold".
END_PAST = frozenset(f for v in END_VERBS for f in inflections(v) if f.endswith("ed")) | {
    "quit",
    "sold",
    "left",
    "lost",
}

#: Verb + particle pairs that end something: "gave up", "broke up", "put (the dog) down".
END_PARTICLES = frozenset(
    {
        ("give", "up"),
        ("break", "up"),
        ("split", "up"),
        ("pass", "away"),
        ("put", "down"),
        ("lay", "off"),
        ("move", "out"),
        ("cut", "out"),
        ("drop", "out"),
        ("step", "down"),
        ("shut", "down"),
        ("close", "down"),
        ("pull", "out"),
        ("walk", "out"),
        ("sign", "off"),
        ("fall", "apart"),
        ("get", "rid"),
    }
)
#: Verbs and words under which a cue is not a fact: wishes, plans, advice, reports, conditions.
HYPOTHETICAL = frozenset(
    """want plan think consider hope tell ask suggest advise try need wish intend expect may might could
    should would can must if unless whether maybe perhaps""".split()
)
#: Multi-word endings, matched on the lower-cased text.
END_PHRASES = (
    "no longer",
    "not anymore",
    "any more",
    "anymore",
    "gave up",
    "give up",
    "giving up",
    "broke up",
    "broken up",
    "split up",
    "passed away",
    "put down",
    "laid off",
    "let go",
    "moved out",
    "cut out",
    "got rid of",
    "get rid of",
    "stopped",
    "used to",
    "dropped out",
    "drop out",
    "fell apart",
    "stepped down",
    "closed down",
    "shut down",
)
#: Adverbs that say the state is over.
END_ADVERBS = frozenset({"anymore", "longer"})
#: Adverbs and words that say the state is new, or replaces another.
CHANGE_ADVERBS = frozenset({"now", "instead", "currently", "nowadays"})
#: Adjectives that mark the object as a replacement ("my new phone").
NEW_WORDS = frozenset({"new", "brand-new", "different", "another", "latest", "current", "next"})
#: Words of a plan or intention: the state has not happened yet.
PLAN_WORDS = frozenset(
    {"plan", "planning", "going", "gonna", "will", "intend", "hope", "want", "think", "consider", "might"}
)
#: Words a tool prints for the state of an order, ticket, booking or account.
STATUS_WORDS = frozenset(
    """pending processing processed confirmed shipped dispatched delivered delayed cancelled canceled
    refunded returned open opened closed resolved escalated assigned reopened active inactive suspended
    expired paid unpaid overdue scheduled rescheduled completed failed approved declined rejected
    booked checked waiting hold""".split()
)
#: Negation words (spaCy marks "not"/"n't" as ``neg``; these others are read as words).
NEGATIONS = frozenset({"not", "n't", "never", "no", "nobody", "nothing", "none", "neither", "nor", "without"})
#: Pronouns of the speaker.
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours"})
#: Verbs too common to say what a claim is about.
LIGHT_VERBS = frozenset({"be", "have", "do", "get", "go", "make", "take", "say", "let", "seem", "feel", "come"})
#: Lemmas that carry no topic.
STOP_LEMMAS = frozenset(
    """be have do get go make take say let seem come just really very so also too still even then there
    here that this these those it its thing stuff lot bit kind sort way well actually pretty quite much
    many some any all every each other such only own same more most less least yeah yes oh okay ok hey
    hi thanks thank please like one can could would should will shall may might must i me my we us our
    you your he him his she her they them their what which who whom whose when where why how not n't
    now""".split()
)

_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
#: A phrase that places the statement in time ("last week", "in 2019", "two days ago", "on Friday").
TIME_PATTERN = re.compile(
    rf"\b(yesterday|today|tonight|tomorrow|this (morning|afternoon|evening|week|month|year|weekend)|"
    rf"(last|next|past|coming) (night|week|month|year|weekend|summer|winter|spring|fall|autumn|{_DAYS})|"
    rf"\d+ (days?|weeks?|months?|years?) ago|(a|one|two|three|few|couple of) (days?|weeks?|months?|years?) ago|"
    rf"(in|since|until|by) (19|20)\d\d|(on|last|this|next) ({_DAYS})|({_MONTHS})( \d{{1,2}})?|"
    rf"\d{{1,2}} ({_MONTHS})|(19|20)\d\d-\d\d-\d\d|recently|lately|earlier|a while ago)\b",
    re.IGNORECASE,
)
#: An identifier a tool or a person quotes: "#4411", "SUP-2231", "BK7781", "order 55012".
ID_PATTERN = re.compile(
    r"(?:#\s?([A-Za-z0-9-]*\d[A-Za-z0-9-]*))|\b([A-Z]{2,}[-_]?\d{2,}[A-Z0-9]*)\b|"
    r"\b(?i:order|ticket|booking|reservation|case|claim|invoice|account|policy|confirmation|tracking|"
    r"request|incident|flight|subscription|appointment|asset|lease|line|membership)\s+"
    r"(?i:number\s+|no\.?\s+|id\s+|ending\s+)?([A-Za-z]*-?\d[\w-]{2,})\b"
)
#: Number words read as digits.
NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
#: Words that put a statement ahead of its time: planned, pending, about to happen.
PENDING_PATTERN = re.compile(
    r"\b(next (week|month|year|weekend|summer|spring|autumn|fall|winter|term)|soon|tomorrow|upcoming|coming up|"
    r"starting (in|on|from|next)|from (january|february|march|april|may|june|july|august|september|october|"
    r"november|december)|until|pending|waiting|planned|planning|scheduled|expecting|engaged|getting (married|"
    r"divorced)|about to|thinking of|thinking about|considering|applied|looking for|looking into|hoping)\b",
    re.IGNORECASE,
)
#: Words that say a state goes on unchanged.
STILL_PATTERN = re.compile(r"\b(still|continue[sd]?|continuing|as ever|as always|keep on|same as before)\b", re.I)
#: Words by which a speaker marks what they say as said before ("remember", "like I said", "still", "just a
#: reminder", "as always"): it restates something, in whatever words. "I remember" recalls, and
#: is not one of them (see :func:`marks_restatement`).
RESTATE_PATTERN = re.compile(
    r"\b(?:remember|don't forget|do not forget|reminder|to remind you|"
    r"(?:say|said|saying|tell|telling|repeat|repeating) (?:it |this |that )?again|once again|again,? (?:pls|please)|"
    r"(?:like|as) (?:i|we) (?:said|say|mentioned|told you|discussed)|i(?:'ve| have)? (?:already )?told you|"
    r"i (?:already )?(?:said|mentioned) (?:this|that|it) (?:before|earlier|already)|"
    r"(?:just )?confirming|to confirm|as always|as usual|as ever|same (?:deal|rule|thing) as (?:always|before|usual)|"
    r"you know (?:that )?(?:i|i'm|my)|still)\b",
    re.IGNORECASE,
)
_RECALLING = re.compile(r"\b(?:i|we|you|do you|did you|can't|cannot|don't|to|could|might)\s+remember\b", re.I)


#: Asking for something to be forgotten ("forget I ever mentioned it"), which says nothing again.
_FORGET_ASK = re.compile(r"(?<!don't )(?<!do not )\b(?:forget|erase|delete|wipe|unlearn)\b(?! to\b)", re.I)


def marks_restatement(text: str) -> bool:
    """``text`` says it is saying again what was said before (:data:`RESTATE_PATTERN`), and asks
    nothing to be forgotten ("the thing I told you about — please forget it")."""
    text = text.replace("\u2019", "'")
    return bool(RESTATE_PATTERN.search(_RECALLING.sub(" ", text))) and not _FORGET_ASK.search(text)


#: Nouns that name another person: a claim with one of them as its subject is about that person.
PERSON_NOUNS = frozenset(
    """sister brother mum mom mother dad father parent wife husband partner boyfriend girlfriend fiance
    fiancee son daughter kid child friend neighbour neighbor colleague coworker boss cousin aunt uncle
    grandma grandpa grandmother grandfather niece nephew roommate flatmate housemate teammate
    classmate manager landlord landlady doctor teacher""".split()
)


#: Words of a wish or a doubt, in a sentence read from its words alone ("before you plan anything:
#: Leah doesn't eat meat, remember" plans nothing of its own).
_WISHED = frozenset("want wants think thinking consider considering hope wish intend maybe perhaps might".split())
#: Where a sentence ends in a text read from its words alone.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def marking_sentence(text: str) -> str | None:
    """The first sentence of ``text`` that marks itself as said before (:func:`marks_restatement`)."""
    return next((p for p in _SENTENCE_END.split(text) if marks_restatement(p)), None)


def wishes(text: str) -> bool:
    """``text`` (read from its words alone) wishes, doubts or thinks: a condition ("if it doesn't
    fit") is none of these."""
    return not _WISHED.isdisjoint(re.findall(r"[a-z]+", text.lower()))
