"""Word lists of standing statements: what the speaker avoids, dislikes, cannot, never or always
does, prefers, is allergic to or afraid of, or strictly follows (:mod:`.standing`).

Words are lower-case lemmas as spaCy's English pipeline gives them. A stance word says which
way the statement leans (``-1`` away from its object, ``+1`` towards it); a negation turns a
leaning towards into one away ("I don't enjoy X").
"""

from __future__ import annotations

from memworks.pipelines.extraction.vocabulary import DIETS

#: Verbs that lean away from their object: "I avoid X", "I refuse to watch X".
AVERSE_VERBS = frozenset("avoid dislike hate despise detest loathe abhor shun refuse resent boycott eschew".split())
#: Verbs that lean towards their object: "I prefer X", "I enjoy X".
FOND_VERBS = frozenset("prefer like love enjoy adore favor favour prioritize prioritise relish".split())
#: Fond verbs that state a liking: on their own a like (the rules extractor's ``user.likes``), a
#: stance only negated ("I don't enjoy X") or as a change ("I love spicy food now").
LIKING_VERBS = frozenset("like love enjoy adore relish".split())
#: Verbs of enduring something: after "can't" they lean away ("I can't stand X").
ENDURE_VERBS = frozenset("stand bear tolerate handle stomach abide digest".split())
#: Verbs of a habit the speaker keeps or refuses: "I never wear heels", "I only eat plant-based food",
#: "I can't eat spicy food", "I don't drink alcohol".
HABIT_VERBS = frozenset(
    "eat drink consume wear watch play use buy purchase drive ride visit attend read listen travel fly "
    "smoke shop participate engage consider cook order touch swim own take go dine".split()
)
#: Verbs whose "never" or "always" tells no rule kept: knowing, feeling, managing, wanting ("I
#: never know what to say", "I always forget").
NOT_HABITS = frozenset(
    "know think forget remember understand feel seem mean say tell see hear manage try want need get "
    "wonder guess believe expect hope wish find realise realize notice lose win".split()
)
#: Habit verbs whose plain present statement after a change ("I eat spicy food now") is a stance.
CONSUME_VERBS = frozenset("eat drink consume wear use watch play".split())
#: Words that mark a habit statement as a change of what held before.
CHANGE_WORDS = frozenset("now nowadays again anymore".split())
#: Adjectives of "I'm <adj> (prep) X" → (lean, the preposition that names X; "" for none).
STANCE_ADJECTIVES: dict[str, tuple[int, tuple[str, ...]]] = {
    "allergic": (-1, ("to",)),
    "intolerant": (-1, ("to", "of")),
    "sensitive": (-1, ("to",)),
    "afraid": (-1, ("of",)),
    "scared": (-1, ("of",)),
    "terrified": (-1, ("of",)),
    "frightened": (-1, ("of",)),
    "fearful": (-1, ("of",)),
    "phobic": (-1, ("of", "about")),
    "averse": (-1, ("to",)),
    "uncomfortable": (-1, ("with", "around", "in")),
    "uninterested": (-1, ("in",)),
    "disinterested": (-1, ("in",)),
    "comfortable": (1, ("with", "in", "around")),
    "interested": (1, ("in",)),
    "fond": (1, ("of",)),
    "fascinated": (1, ("by", "with")),
    "keen": (1, ("on",)),
}
#: Nouns of "I'm (not) a fan of X", "I'm a strong advocate for X" → the preposition naming X.
STANCE_ROLES: dict[str, tuple[str, ...]] = {
    "fan": ("of",),
    "lover": ("of",),
    "advocate": ("for", "of"),
    "supporter": ("of",),
}
#: Nouns of "I have <noun> (prep) X" → (lean, prepositions naming X).
STANCE_NOUNS: dict[str, tuple[int, tuple[str, ...]]] = {
    "aversion": (-1, ("to", "towards", "for")),
    "dislike": (-1, ("for", "of", "to")),
    "distaste": (-1, ("for",)),
    "hatred": (-1, ("of", "for")),
    "bias": (-1, ("against",)),
    "fear": (-1, ("of",)),
    "phobia": (-1, ("of", "about")),
    "allergy": (-1, ("to",)),
    "intolerance": (-1, ("to", "of", "for")),
    "sensitivity": (-1, ("to",)),
    "tolerance": (-1, ("for", "to", "of")),
    "preference": (1, ("for",)),
    "interest": (1, ("in",)),
    "passion": (1, ("for",)),
    "love": (1, ("for", "of")),
}
#: "low tolerance": the noun leans away only with one of these.
LOW = frozenset("low little zero no limited poor".split())
#: Head nouns of a health condition the speaker has ("celiac disease", "joint issues").
CONDITION_NOUNS = frozenset(
    "disease condition disorder syndrome issue issues problem problems diabetes asthma dyslexia epilepsy "
    "migraine migraines arthritis eczema celiac coeliac injury injuries sickness illness impairment "
    "deficiency stomach skin heart".split()
)
#: Words that name a condition by themselves, without a head noun.
CONDITION_WORDS = frozenset("diabetes asthma dyslexia epilepsy arthritis eczema celiac coeliac adhd autism".split())
#: Words that make a condition noun a health one ("sensitive stomach", "chronic knee issues").
HEALTH_MODIFIERS = frozenset(
    "chronic severe medical health joint knee back respiratory digestive sensitive genetic skin heart "
    "mental celiac coeliac autoimmune motion sensory".split()
)
#: "I'm (a strict) vegan", "I follow a halal diet": the diets of the rules extractor's vocabulary.
DIET_WORDS = frozenset(w for w in DIETS if " " not in w) | frozenset({"plant-based", "gluten-free", "dairy-free"})
#: Nouns that name a diet or a rule followed ("a strict kosher diet", "a vegan lifestyle").
DIET_NOUNS = frozenset("diet lifestyle regimen".split())
#: Verbs of changing to a diet: "I've gone vegan", "I switched to a vegetarian diet".
DIET_CHANGE_VERBS = frozenset("go become turn switch convert".split())
#: Verbs of following a diet or a rule: "I follow a strict vegan diet", "I keep kosher".
FOLLOW_VERBS = frozenset("follow keep observe adhere stick maintain".split())
#: Adjectives of "I find X <adj>" that lean away or towards.
FIND_AWAY = frozenset(
    "ineffective boring tedious dull disorienting distracting distressing overwhelming hard difficult "
    "uncomfortable unpleasant annoying irritating stressful gimmicky childish restrictive demotivating "
    "unappealing useless pointless exhausting draining frustrating unbearable unenjoyable off-putting "
    "nauseating scary frightening disgusting gross repetitive monotonous impractical confusing".split()
)
FIND_TOWARDS = frozenset(
    "helpful useful effective engaging relaxing enjoyable motivating fun easy easier calming soothing "
    "inspiring rewarding comfortable".split()
)
#: Heads too general to name what a stance is about on their own: the slot adds what they govern.
GENERIC_HEADS = frozenset(
    "anything something everything content activity activities thing things experience experiences "
    "product products item items place places option options one ones stuff kind kinds form forms type "
    "types sort sorts way ways method methods approach approaches environment environments setting "
    "settings style styles material materials event events".split()
)
#: Verbs, adjectives and nouns without which no standing statement is read: a sentence that has
#: none of them (in any form) is not worth a parse for this frame. A liking verb is read only
#: negated, changed or restricted ("I don't enjoy X", "I love X now", "I only eat X"), so those
#: words stand for it here: "I love hiking" is not parsed for it.
TRIGGER_LEMMAS = (
    AVERSE_VERBS
    | (FOND_VERBS - LIKING_VERBS)
    | frozenset("not don't dont doesn't now nowadays rather".split())
    | frozenset({"don", "doesn"})  # "don’t" with a typographic apostrophe splits there
    | ENDURE_VERBS
    | FOLLOW_VERBS
    | frozenset(STANCE_ADJECTIVES)
    | frozenset(STANCE_NOUNS)
    | frozenset(STANCE_ROLES)
    | CONDITION_WORDS
    | frozenset("eat drink consume wear never always only exclusively find require believe".split())
    | frozenset("allergies fears phobias cannot can't won't refuse interest appeal diet".split())
)

#: Domains of a preference slot: the first whose words meet the statement's (verb and object).
DOMAINS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (name, frozenset(words.split()))
    for name, words in (
        (
            "food",
            "eat drink consume cook dine taste food foods dish dishes cuisine meal meals restaurant restaurants "
            "dining snack snacks dessert desserts meat pork beef chicken fish seafood shellfish dairy milk cheese "
            "egg eggs honey gluten sugar spicy alcohol wine beer coffee tea smoothie smoothies vegetable fruit "
            "nut nuts peanut peanuts supplement supplements protein breakfast lunch dinner street-food buffet",
        ),
        (
            "media",
            "watch movie movies film films show shows series tv television documentary documentaries anime "
            "cartoon cartoons sitcom drama dramas comedy comedies horror thriller thrillers musical musicals "
            "theater theatre streaming episode episodes season seasons genre genres cinema",
        ),
        ("music", "listen music song songs album albums concert concerts band bands playlist podcast podcasts"),
        ("games", "game games gaming console consoles esports multiplayer rpg rpgs shooter"),
        ("reading", "read book books novel novels article articles fiction magazine magazines"),
        (
            "learning",
            "learn learning study studying course courses class classes lecture lectures textbook textbooks "
            "flashcard flashcards tutorial tutorials education teaching classroom",
        ),
        (
            "fitness",
            "exercise exercises workout workouts gym fitness running jogging cardio training yoga swimming "
            "cycling sport sports hiking",
        ),
        (
            "clothing",
            "wear clothing clothes fashion garment garments shoe shoes heel heels dress dresses shirt shirts "
            "jacket jackets fabric fabrics leather wool silk fur denim jewelry jewellery accessory accessories",
        ),
        ("beauty", "makeup cosmetics skincare fragrance fragrances perfume perfumes hair nail nails"),
        ("vehicles", "drive car cars vehicle vehicles suv suvs truck trucks engine engines motorcycle minivan"),
        (
            "travel",
            "travel trip trips flight flights fly hotel hotels destination destinations tour tours cruise "
            "beach beaches museum museums hike camping resort resorts sightseeing park parks",
        ),
        ("animals", "animal animals pet pets dog dogs cat cats zoo zoos"),
        (
            "contact",
            "email emails e-mail sms call calls message messages update updates notification "
            "notifications newsletter newsletters voicemail whatsapp",
        ),
        ("technology", "app apps phone phones device devices gadget gadgets technology software computer"),
        ("shopping", "shop shopping buy purchase brand brands store stores mall"),
        ("social", "party parties crowd crowds crowded nightlife club clubs bar bars people"),
        (
            "answers",
            "answer answers reply replies response responses explanation explanations summary summaries format "
            "formatting tone emoji emojis jargon",
        ),
    )
)
#: The domain of a slot whose words meet none of :data:`DOMAINS`.
OTHER_DOMAIN = "general"


def domain_of(words: set[str]) -> str:
    """The domain of :data:`DOMAINS` the words meet most (the first on a tie), else :data:`OTHER_DOMAIN`."""
    best, score = OTHER_DOMAIN, 0
    for name, vocab in DOMAINS:
        if (hits := len(words & vocab)) > score:
            best, score = name, hits
    return best
