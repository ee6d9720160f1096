"""Word lists of the open-vocabulary extractor: object categories, verb classes, stop lists.

A slot key is built from the subject, the object's *category* and the verb's *aspect*, so that
"I use an Android phone" and "I switched to an iPhone" both land in ``user.phone``, and "I
started learning the cello" / "I take cello lessons" both in ``user.instrument.learning``. The
categories below are what makes wording meet; an object outside them keeps its own head noun
as category ("I'm learning pottery" → ``user.pottery.learning``).
"""

from __future__ import annotations

from memworks.pipelines.extraction import vocabulary as V
from memworks.pipelines.extraction.standing.lexicon import TRIGGER_LEMMAS as STANDING_TRIGGERS


def _words(category: str, text: str) -> dict[str, str]:
    return {w.replace("_", " "): category for w in text.split()}


#: Object word or brand (lower case, words joined by spaces) → category.
CATEGORY: dict[str, str] = {
    **_words(
        "phone",
        "phone smartphone cellphone iphone android pixel galaxy oneplus nokia blackberry "
        "motorola xiaomi huawei cell_phone mobile_phone flip_phone",
    ),
    **_words(
        "car",
        "car prius corolla civic camry tesla jeep bmw audi mercedes volkswagen vw golf toyota "
        "honda ford subaru mazda kia hyundai volvo porsche ferrari lexus nissan chevy chevrolet "
        "suv sedan minivan hatchback convertible pickup model_3 model_y mustang outback rav4",
    ),
    **_words("laptop", "laptop macbook thinkpad chromebook macbook_pro macbook_air"),
    **_words("computer", "computer pc desktop imac mac"),
    **_words("tablet", "tablet ipad"),
    **_words("e_reader", "kindle e-reader ereader kobo"),
    **_words("watch", "watch smartwatch apple_watch fitbit garmin"),
    **_words("console", "console playstation ps4 ps5 xbox nintendo_switch wii"),
    **_words("bike", "bike bicycle e-bike ebike"),
    **_words("motorcycle", "motorcycle motorbike scooter vespa"),
    **_words("editor", "vim neovim emacs vscode vs_code sublime intellij pycharm"),
    **_words("browser", "browser firefox chrome safari"),
    **_words("operating_system", "linux ubuntu windows macos debian fedora"),
    **_words("camera", "camera dslr gopro"),
    **_words(
        "instrument",
        "instrument cello violin viola guitar piano drums drum flute clarinet saxophone sax "
        "trumpet trombone ukulele harp banjo mandolin harmonica accordion oboe bassoon tuba "
        "synth synthesizer keyboard bass double_bass electric_guitar bass_guitar",
    ),
    **_words(
        "sport",
        "tennis soccer football basketball baseball volleyball golf hockey rugby cricket "
        "badminton squash climbing bouldering surfing skiing snowboarding yoga pilates boxing "
        "karate judo jiu-jitsu cycling rowing pickleball swimming running skating",
    ),
    **_words("race", "marathon half-marathon half_marathon 5k 10k triathlon ultramarathon ironman race run"),
    **_words("children", "kid kids child children son sons daughter daughters baby twins"),
    **{w: "language" for w in V.LANGUAGES},
    **_words("language", "sign_language asl"),
    **_words("pet", " ".join(V.SPECIES)),
    **_words("house", "house home"),
    **_words("apartment", "apartment flat condo"),
    **_words("theme", "theme mode color_scheme colour_scheme"),
    **_words("font", "font typeface"),
}

#: Categories of things a person holds one of at a time: a new one replaces the old.
HELD = frozenset(
    "phone car laptop computer tablet e_reader watch console bike motorcycle editor browser "
    "operating_system camera house apartment".split()
)
#: Settings named by an adjective ("a dark theme"): the value is the adjective, the slot
#: carries where the setting applies ("in my code editor" → ``user.code_editor.theme``).
SETTINGS = frozenset({"theme", "font"})

#: Verbs that state holding or using a thing (with a HELD/children/pet category object).
HOLD_VERBS = frozenset("have own use drive ride get buy switch upgrade change lease adopt rescue".split())
#: Verbs of holding that need a preposition before the object ("switched to an iPhone").
HOLD_PREPS = {"switch": "to", "upgrade": "to", "change": "to"}

#: Activity verbs → the aspect that ends the slot key (``user.instrument.learning``).
ASPECT: dict[str, str] = {
    "learn": "learning",
    "study": "learning",
    "practice": "learning",
    "practise": "learning",
    "play": "playing",
    "train": "training",
    "read": "reading",
    "watch": "watching",
    "speak": "speaking",
    "volunteer": "volunteering",
    "teach": "teaching",
    "coach": "coaching",
    "collect": "collecting",
    "write": "writing",
    "knit": "knitting",
    "paint": "painting",
    "run": "running",
}
#: Categories whose aspect slots hold several values at once (several languages, sports).
MULTI_ASPECTS = frozenset({("language", "speaking"), ("sport", "playing"), ("instrument", "playing")})
#: Verbs that begin an activity named by their complement ("started learning", "took up").
BEGIN_VERBS = frozenset("start begin continue keep".split())
#: Verbs that end an activity or a holding: "I gave up the cello", "I sold my car".
END_VERBS = frozenset("quit sell stop abandon drop".split())
#: Verb + particle pairs that end something ("give up", "get rid of").
END_PHRASES = frozenset({("give", "up"), ("get", "rid"), ("give", "away")})

#: Past events worth a record: the verb says something happened to or was done by the person.
EVENT_VERBS = frozenset(
    "go visit attend travel run finish complete win graduate adopt buy start open launch join "
    "meet take have celebrate host organize organise volunteer participate compete perform "
    "move sign enroll enrol register pass fail book hike climb camp paint build publish "
    "release record receive lose break injure marry propose donate raise apply bring".split()
)
#: Nouns naming an event with a date: the slot holds the event, its value the date.
EVENT_NOUNS = frozenset(
    "wedding birthday party appointment interview exam test surgery operation flight trip "
    "vacation holiday concert meeting race marathon tournament competition game match recital "
    "show performance graduation ceremony conference presentation deadline move anniversary "
    "reunion funeral checkup check-up visit launch opening premiere".split()
)
#: Things shown or mentioned before ("this book", "that painting"): named by a demonstrative
#: alone they point elsewhere, and a record of them would not stand on its own.
ARTIFACTS = frozenset(
    "book novel series movie film show song album painting picture photo pic piece drawing "
    "sculpture bowl vase recipe dish one thing project poem story article video game card season "
    "episode chapter".split()
)
#: Verbs that move an event to another date ("moved her wedding to September").
REDATE_VERBS = frozenset("move reschedule postpone push change shift bring delay".split())

#: Heads of "my X is Y" that do not name a lasting attribute ("my favorite part was ...").
VAGUE_ATTRIBUTES = frozenset(
    "part thing things stuff one ones day time moment question point problem guess pleasure "
    "fault turn way bad reason advice mind heart life world god gosh goodness word words opinion "
    "feeling feelings experience situation bet honor honour mistake apologies apology condolences "
    "answer take thought thoughts concern worry hope wish idea lord luck treat dream dreams".split()
)
#: Objects that never make a durable record ("I have a question", "I had a great time").
VAGUE_OBJECTS = VAGUE_ATTRIBUTES | frozenset(
    "lot lots bit kind sort fun blast chance look break rest feeling sense something anything "
    "everything nothing nobody somebody someone everyone anyone all much more less news "
    "opportunity access need right choice plan plans goal goals dream dreams ton tons bunch deal "
    "far ok okay best much many few part parts year years month months week weeks day days hour "
    "hours minute minutes while".split()
)
#: Verbs whose first-person use says nothing durable (feelings, talk, perception, wishes).
NOT_FACT_VERBS = frozenset(
    "think feel know believe guess hope wish want need would like love enjoy appreciate agree "
    "say tell talk chat ask mean see hear look seem sound realize realise remember forget "
    "understand imagine bet wonder suppose try let thank miss care worry cherish admire "
    "can could should might may must will shall".split()
)
#: Relations that can be a subject ("my sister", "our son"); "mom" → "mother" and so on.
RELATIONS: dict[str, str] = {
    **V.RELATIONS,
    "friend": "friend",
    "best friend": "best_friend",
    "roommate": "roommate",
    "boss": "boss",
    "kids": "children",
    "children": "children",
    "parents": "parents",
}
#: Attributes ("my X") owned by the rules extractor's fixed keys: the open layer leaves them.
RULES_ATTRIBUTES = frozenset(
    "name job title role position employer company city hometown diet allergy allergies address "
    "timezone location".split()
)
#: Verbs owned by the rules extractor's fixed keys (home city, employer, job title, diet).
RULES_VERBS = frozenset("live relocate work employ hire promote eat call name base".split())
#: States named by an adjective after "I'm" → the slot they fill.
STATES: dict[str, str] = {
    **_words("relationship_status", "married single divorced engaged widowed separated"),
    **_words("employment_status", "retired unemployed self-employed freelance"),
    "pregnant": "pregnancy",
}
#: Time words that end a favourite's name in the rules extractor's keys
#: ("user.favorite.band_these_days" → "user.favorite.band").
KEY_TIME_WORDS = frozenset("these days now nowadays lately currently at the moment right still anymore".split())
#: Seasons → the month their meteorological (northern) season starts.
SEASONS: dict[str, int] = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}

#: Irregular verb forms of the verbs the frames read (regular ones are derived).
IRREGULAR: dict[str, str] = {
    "go": "went gone goes",
    "have": "had has 've 'd",
    "take": "took taken",
    "run": "ran",
    "buy": "bought",
    "get": "got gotten",
    "sell": "sold",
    "give": "gave given",
    "meet": "met",
    "win": "won",
    "lose": "lost",
    "speak": "spoke spoken",
    "write": "wrote written",
    "teach": "taught",
    "drive": "drove driven",
    "ride": "rode ridden",
    "begin": "began begun",
    "bring": "brought",
    "break": "broke broken",
    "do": "did done does",
    "be": "am is are was were 'm 're 's been",
    "hold": "held",
    "leave": "left",
    "pay": "paid",
    "fly": "flew flown",
    "swim": "swam",
    "sing": "sang",
    "build": "built",
    "study": "studied studies",
    "practise": "practised",
    "rid": "rid",
    "move": "moved",
    "shift": "shifted",
    "change": "changed",
}


def _forms(lemma: str) -> set[str]:
    stem = lemma[:-1] if lemma.endswith("e") else lemma
    out = {lemma, lemma + "s", lemma + "es", lemma + "ed", lemma + "d", stem + "ing", lemma + "ing"}
    if lemma.endswith("y"):
        out |= {lemma[:-1] + "ied", lemma[:-1] + "ies"}
    if len(lemma) <= 4 and lemma[-1] not in "aeiouy":
        out |= {lemma + lemma[-1] + "ed", lemma + lemma[-1] + "ing"}  # "stopped", "shopping"
    return out | set(IRREGULAR.get(lemma, "").split())


#: Words without which no frame reads anything: a sentence lacking all of them is not parsed.
TRIGGERS: frozenset[str] = (
    frozenset(
        w
        for lemma in (
            HOLD_VERBS
            | set(ASPECT)
            | EVENT_VERBS
            | END_VERBS
            | REDATE_VERBS
            | BEGIN_VERBS
            | {"give", "stop", "forget", "delete", "erase", "remove", "wipe", "remember", "store", "unlearn"}
            | STANDING_TRIGGERS
        )
        for w in _forms(lemma)
    )
    | frozenset(STATES)
    | frozenset("into passionate fan enthusiast old favorite favourite fave longer anymore best record".split())
)
