"""The story sessions of ``memworks eval probes``: what each user says that the answer key asks
about, in statement forms the ``rules`` extractor understands (or, for transcript-only answers,
plain sentences no pattern reads).
"""

from __future__ import annotations

from memworks_tools.evaluation.probes.model import (
    ACME_LENA,
    ACME_MAYA,
    ACME_OMAR,
    ACME_THEO,
    GLOBEX_MAYA,
    Session,
)
from memworks_tools.evaluation.probes.model import assistant_says as _a
from memworks_tools.evaluation.probes.model import user_says as _u

__all__ = ["STORY"]

_M, _O, _L, _T, _G = ACME_MAYA, ACME_OMAR, ACME_LENA, ACME_THEO, GLOBEX_MAYA

STORY: dict[tuple[str, str], tuple[Session, ...]] = {
    _M: (
        Session(
            "2024-09-02",
            (
                _u("Hi! I'm Maya. I live in Lisbon and I work at Northwind as a product manager."),
                _a("Nice to meet you, Maya! Happy to help with planning, writing or research."),
            ),
        ),
        Session(
            "2024-09-16",
            (
                _u("My dog is called Pixel, he's a very dramatic beagle."),
                _a("Beagles are famously dramatic. Pixel sounds like quite the character."),
            ),
        ),
        Session(
            "2024-09-30",
            (
                _u("Pixel chewed through my laptop charger again."),
                _a("Oh no! A cable protector, or keeping chargers up high, might save the next one."),
            ),
        ),
        Session(
            "2024-10-07",
            (
                _u("Quick note: I'm allergic to peanuts, so keep that in mind for recipes."),
                _a("Got it, I'll leave peanuts out of any recipe I suggest."),
            ),
        ),
        Session(
            "2024-10-14", (_u("I'm pescatarian, fish is fine but no meat."), _a("Noted: fish and vegetables, no meat."))
        ),
        Session("2024-10-21", (_u("I prefer aisle seats on long flights."), _a("Noted for future bookings."))),
        Session(
            "2024-11-04",
            (
                _u("We booked the anniversary dinner at Casa Lumo for the 14th."),
                _a("Lovely! Do you want help picking a gift as well?"),
            ),
        ),
        Session(
            "2025-01-13",
            (
                _u("I'm vegetarian now, I stopped eating fish over the holidays."),
                _a("Thanks for the update, I'll keep suggestions meat- and fish-free."),
            ),
        ),
        Session(
            "2025-02-10",
            (
                _u("I'm leaving Northwind at the end of the month."),
                _a("Big change! Want help drafting a goodbye note to the team?"),
            ),
        ),
        Session(
            "2025-02-24",
            (
                _u("I'm relocating to Berlin next month."),
                _a("Exciting! I can put together a moving checklist whenever you like."),
            ),
        ),
        Session(
            "2025-03-17",
            (
                _u("Big news: I moved to Berlin two weeks ago."),
                _a("Welcome to Berlin! How is the new place?"),
                _u("I started at Helix Labs last Monday as a staff engineer."),
                _a("Congratulations on the new role! Let me know how the first weeks go."),
            ),
        ),
        Session(
            "2025-04-07",
            (
                _u("I used to live in Lisbon and honestly I miss the light there."),
                _a("That light is hard to beat. Summer evenings here have their moments too."),
            ),
        ),
        Session(
            "2025-04-14",
            (_u("We adopted a kitten named Miso."), _a("Congratulations! How is Pixel taking the newcomer?")),
        ),
        Session(
            "2025-05-12",
            (
                _u("Miso knocked a plant off the shelf this morning."),
                _a("Kittens and shelves never mix. Maybe move the plants up for a few months."),
            ),
        ),
    ),
    _O: (
        Session(
            "2024-09-10",
            (
                _u("I'm Omar. I'm based in Porto and I work for Tidewater Freight as a logistics analyst."),
                _a("Welcome, Omar! Freight logistics sounds like a lot of spreadsheets."),
            ),
        ),
        Session("2024-09-24", (_u("I have a hamster named Noodle."), _a("Noodle is a great name for a hamster."))),
        Session(
            "2024-10-01",
            (
                _u("My sister is Leila and my brother is Karim."),
                _a("Thanks, good to know who's who when they come up."),
            ),
        ),
        Session("2024-10-15", (_u("I'm lactose intolerant."), _a("Noted, I'll suggest lactose-free options."))),
        Session(
            "2024-12-03", (_u("We relocated to Valencia in November."), _a("How are you finding Valencia so far?"))
        ),
        Session(
            "2024-12-17",
            (
                _u("Quarter-end is brutal this year."),
                _a("Hang in there, quarter-end at Tidewater Freight always sounds intense."),
            ),
        ),
        Session(
            "2025-01-21",
            (
                _u("Noodle passed away last week, please forget about my hamster."),
                _a("I'm so sorry. It sounds like Noodle had a good home."),
            ),
        ),
        Session("2025-02-04", (_u("Please forget where I work."), _a("Done, I won't keep that."))),
        Session(
            "2025-02-18",
            (
                _u("My flight to Montreal is AC 837, it leaves at 6:40."),
                _a("Thanks. Do you want a reminder the evening before?"),
                _u("Can you check which terminal my Montreal flight leaves from?"),
                _a(
                    "I can't see your booking, but your usual airline seems to be Air Canada, so it "
                    "is most likely Terminal 1."
                ),
            ),
        ),
        Session(
            "2025-03-04",
            (_u("If I lived in Madrid I'd never cook at home."), _a("With that many tapas bars, who could blame you.")),
        ),
    ),
    _L: (
        Session(
            "2024-09-04",
            (_u("I live in Hamburg and I work at Brightline Studio."), _a("Great, thanks for the context.")),
        ),
        Session("2024-09-18", (_u("My cat's name is Juniper."), _a("Juniper is a lovely name."))),
        Session("2024-10-02", (_u("I'm allergic to shellfish."), _a("Noted, no shellfish in my suggestions."))),
        Session(
            "2024-11-13",
            (
                _u("The locksmith is coming Thursday, his name is Bruno Varga."),
                _a("I'll remind you on Thursday morning."),
            ),
        ),
        Session(
            "2025-01-15",
            (
                _u("I'm also allergic to cats, ironically."),
                _a("That must make cuddles complicated. Antihistamines and a cat-free bedroom help."),
            ),
        ),
    ),
    _T: (
        Session(
            "2024-09-05",
            (_u("If I lived in Oslo I'd bike to work every day."), _a("The bike lanes there are famously good.")),
        ),
        Session(
            "2024-09-19", (_u("My brother Jonas lives in Copenhagen."), _a("Nice, a good excuse for weekend trips."))
        ),
        Session("2024-10-17", (_u("The wifi password at the cabin is saltmarsh42."), _a("Got it."))),
        Session("2025-01-09", (_u("My mum is called Ingrid."), _a("Thanks, I'll remember that."))),
        Session(
            "2025-03-13",
            (
                _u("If I moved to Lisbon I'd finally learn to surf."),
                _a("The beaches nearby have good beginner breaks."),
            ),
        ),
    ),
    _G: (
        Session("2024-09-06", (_u("I live in Oslo. My dog is called Pepper."), _a("Hello! Pepper is a great name."))),
        Session(
            "2024-09-20",
            (_u("I work at Fjordline as a data engineer."), _a("Nice, lots of pipelines to keep running then.")),
        ),
        Session("2024-10-04", (_u("I'm allergic to penicillin."), _a("Important to know, thanks for telling me."))),
        Session("2025-02-14", (_u("I joined Skyhook Analytics last month."), _a("Congratulations on the move!"))),
    ),
}
