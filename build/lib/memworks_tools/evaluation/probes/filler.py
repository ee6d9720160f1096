"""Filler of ``memworks eval probes``: task requests with the assistant's replies, chit-chat and
thanks, drawn from fixed pools with a seeded ``random.Random`` per user. Filler never states a
fact about the user and names no place, pet or employer.
"""

from __future__ import annotations

import random

from memworks_tools.evaluation.probes.model import Line
from memworks_tools.evaluation.probes.model import assistant_says as _a
from memworks_tools.evaluation.probes.model import user_says as _u

__all__ = ["Filler"]


_COLLEAGUES = ("Priya", "Marcus", "Ines", "Tobias", "Hannah", "Rafael", "Yuki", "Dmitri")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
_TOPICS = (
    "onboarding",
    "quarterly planning",
    "incident reviews",
    "the design system",
    "customer interviews",
    "the data pipeline",
    "accessibility",
    "release notes",
)
_TASKS: tuple[tuple[str, str], ...] = (
    (
        "Can you draft a short note to {name} asking to shift our sync to {day}?",
        "Sure. Here's a draft: \"Hi {name}, would it work to shift our weekly sync to {day}? The usual slot clashes "
        'with a planning session. Same time, same link. Thanks!" Want it more formal, or with an agenda?',
    ),
    (
        "Summarise these retro notes in five bullets: the release slipped two days, QA found the regression late, "
        "the on-call handover was smooth, the new dashboards helped, and there is still no rollback checklist.",
        "Here's the summary:\n- The release slipped by two days.\n- A regression was caught late in QA.\n- On-call "
        "handover went smoothly.\n- The new dashboards made triage faster.\n- Action item: write a rollback "
        "checklist before the next release.",
    ),
    (
        "Give me three title ideas for a blog post about {topic}.",
        'Three options: 1) "What We Learned Rethinking {topic}" 2) "{topic}, One Small Step at a Time" '
        '3) "The Unglamorous Guide to {topic}". The first works best for an internal audience.',
    ),
    (
        "What's the difference between a mutex and a semaphore?",
        "A mutex gives one thread exclusive ownership of a resource and must be released by the thread that took it. "
        "A semaphore is a counter: it lets up to N holders in at once and can be signalled by any thread. Use a mutex "
        "to protect shared state and a semaphore to limit concurrency.",
    ),
    (
        "How do I turn a pandas column of strings into dates?",
        'Use pd.to_datetime: df["col"] = pd.to_datetime(df["col"], format="%Y-%m-%d", errors="coerce"). '
        'Passing the format makes it faster and stricter; errors="coerce" turns unparseable values into NaT so you '
        "can inspect them.",
    ),
    (
        "Rewrite this so it sounds friendlier: 'Per my last message, the report is overdue.'",
        'Try: "Just circling back on the report, could you send it over when you get a moment? Happy to help if '
        'anything is blocking it."',
    ),
    (
        "Suggest an agenda for a 30-minute kickoff about {topic}.",
        "Here's a 30-minute agenda: 5 minutes of goals and context, 10 on the current state and open questions, 10 on "
        "owners and first milestones, and 5 to wrap up and set the next check-in. Share the doc a day ahead so people "
        "come prepared.",
    ),
    (
        "What's a quick weeknight pasta that takes under 20 minutes?",
        "Pasta aglio e olio: spaghetti, garlic, chili flakes, olive oil and parsley. Start the garlic in cold oil, "
        "toast it gently, then toss with the pasta and a splash of cooking water. Lemon zest or toasted breadcrumbs "
        "add texture.",
    ),
    (
        "Explain what a p-value is in two sentences.",
        "A p-value is the probability of seeing data at least as extreme as yours if the null hypothesis were true. "
        "A small p-value says the data would be surprising under the null, not that your hypothesis is proven.",
    ),
    (
        "Help me write a polite decline for a meeting invite from {name}.",
        "\"Hi {name}, thanks for the invite! I can't make this one, but I'd love to catch up on the notes afterwards, "
        'so feel free to send them my way."',
    ),
    (
        "Make a packing checklist for a three-day work trip.",
        "Checklist: laptop and charger, phone charger, plug adapter, a shirt per day plus a spare, comfortable shoes, "
        "toiletries, any medication, headphones, a notebook and your ID. Keep the chargers in one pouch so nothing "
        "gets left behind.",
    ),
    (
        "What are good questions for a one-on-one with {name}?",
        "A few: What's taking more energy than it should? What would you like more feedback on? Is anything blocking "
        "you that I could help clear? What are you proud of from the last few weeks? Rotate them so it never feels "
        "like a checklist.",
    ),
    (
        "Turn these numbers into one sentence: revenue up 12%, churn down 3 points, NPS flat.",
        '"Revenue grew 12% this quarter while churn fell by three points, and NPS held steady."',
    ),
    (
        "Write a regex that matches ISO dates like 2024-05-01.",
        "Use ^\\d{{4}}-\\d{{2}}-\\d{{2}}$ for the shape, or ^\\d{{4}}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$ to "
        "also reject impossible months and days.",
    ),
    (
        "Give me a quick stretching routine for after sitting all day.",
        "Thirty seconds each: neck rolls, a chest opener against a doorway, a standing hamstring stretch, a hip "
        "flexor lunge on each side and a gentle spinal twist in your chair. Repeat twice if you have time.",
    ),
    (
        "How should a design doc about {topic} be structured?",
        "A simple structure: context and problem, goals and non-goals, the proposal, alternatives considered, risks "
        "and open questions, and the rollout plan. Keep the first page readable on its own for people who stop "
        "there.",
    ),
    (
        "Proofread this: 'Their going to review the the proposal tomorow.'",
        "Corrected: \"They're going to review the proposal tomorrow.\" Three fixes: they're, the doubled 'the', and "
        "the spelling of tomorrow.",
    ),
    (
        "What's a fair way to split a dinner bill when some people didn't drink?",
        "Split the food evenly and let the drinkers cover the drinks, or use an app that itemises. Either way, say "
        "it up front so nobody feels awkward at the end.",
    ),
    (
        "Can you explain OAuth refresh tokens simply?",
        "An access token is a short-lived pass; a refresh token is a longer-lived ticket you trade for a new pass when "
        "the old one expires, without asking the person to log in again. Keep refresh tokens server-side and revoke "
        "them on logout.",
    ),
    (
        "Suggest a name for our team newsletter about {topic}.",
        'A few ideas: "The Changelog", "Small Batch", "Signal and Noise", "Worth Knowing". Short names work '
        "best as email subjects.",
    ),
)
_CHATTER: tuple[tuple[str, str], ...] = (
    ("Rainy morning here, second coffee already.", "A good day for focused work. Anything you want to tackle first?"),
    (
        "Watched a documentary about octopuses last night, wild animals.",
        "They really are: they solve puzzles and change colour in a fraction of a second.",
    ),
    ("Long week. Glad it's almost over.", "You've earned a slow evening. Want a short list of what's left for later?"),
    (
        "New running route this morning, my legs are not happy.",
        "Hills will do that. A short walk and some stretching later should help.",
    ),
    (
        "The new season of that baking show is surprisingly good.",
        "Nice, the technical challenges are always the most fun to watch.",
    ),
    ("Finally cleared the inbox, zero unread.", "Impressive! A quick daily sweep helps keep it there."),
    (
        "The renovation next door has been drilling since 8am.",
        "That's rough. Noise-cancelling headphones and a focus playlist might save the morning.",
    ),
    (
        "Spent the weekend repotting plants, the balcony looks like a jungle.",
        "That sounds lovely. Repotting gives them room to grow.",
    ),
    ("Today's standup ran 40 minutes, again.", "Ouch. A parking lot for side topics keeps standups short."),
    ("Just finished a really good mystery novel.", "Great feeling! Want a few recommendations in the same vein?"),
    ("Made banana bread with the overripe bananas.", "Perfect use for them. Toasted the next day it's even better."),
    ("The train was late again this morning.", "Frustrating. A podcast queue helps with those delays."),
)
_THANKS = ("thanks!", "great, thank you", "perfect, thanks so much", "ok cool")


class Filler:
    """Task talk and chit-chat for one user: a shuffled deck, so repeats are spread out."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.deck: list[tuple[str, str]] = []

    def __call__(self, n: int) -> list[Line]:
        out: list[Line] = []
        for _ in range(n):
            if not self.deck:
                self.deck = list(_TASKS + _CHATTER)
                self.rng.shuffle(self.deck)
            ask, reply = self.deck.pop()
            fill = {
                "name": self.rng.choice(_COLLEAGUES),
                "day": self.rng.choice(_DAYS),
                "topic": self.rng.choice(_TOPICS),
            }
            out += [_u(ask.format(**fill)), _a(reply.format(**fill))]
            if self.rng.random() < 0.3:
                out += [_u(self.rng.choice(_THANKS)), _a("You're welcome!")]
        return out
