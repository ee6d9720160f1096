"""The deterministic ``rules`` extractor: many real-world phrasings per pattern.

Anchor: Saturday 2024-06-15 10:30 UTC. Most tables compare the exact list of
``(op, key, value)`` the extractor proposes for one user turn.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import CandidateOp, MemoryKind, Role, Source
from memworks.pipelines.extraction.base import Extractor
from memworks.pipelines.extraction.rules import RulesExtractor

ANCHOR = datetime(2024, 6, 15, 10, 30, tzinfo=UTC)
EXTRACT = RulesExtractor()
A, R = "assert", "retract"


def run(content: str, role: Role = Role.USER, source: Source = Source.USER) -> list[Candidate]:
    turn = Turn(episode_id="ep-1", role=role, source=source, content=content, occurred_at=ANCHOR)
    return EXTRACT(turn)


def triples(content: str) -> list[tuple[str, str | None, str]]:
    return [(c.op.value, c.key, c.value) for c in run(content)]


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def home(city: str, zone: str) -> list[tuple[str, str | None, str]]:
    return [(A, "user.home_city", city), (A, "user.timezone", zone)]


# --- home city ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "city", "zone"),
    [
        ("I live in Lisbon", "Lisbon", "Europe/Lisbon"),
        ("i live in lisbon", "Lisbon", "Europe/Lisbon"),
        ("I live in Lisbon.", "Lisbon", "Europe/Lisbon"),
        ("btw I live in Lisbon now", "Lisbon", "Europe/Lisbon"),
        ("Oh and I currently live in New York City", "New York", "America/New_York"),
        ("I'm based in Berlin", "Berlin", "Europe/Berlin"),
        ("im based in berlin lol", "Berlin", "Europe/Berlin"),
        ("I am located in Tokyo", "Tokyo", "Asia/Tokyo"),
        ("I'm based out of San Francisco", "San Francisco", "America/Los_Angeles"),
        ("I'm living in Seattle these days", "Seattle", "America/Los_Angeles"),
        ("We live in Boston with two kids", "Boston", "America/New_York"),
        ("I moved to Munich", "Munich", "Europe/Berlin"),
        ("I just moved to Barcelona last month", "Barcelona", "Europe/Madrid"),
        ("we relocated to Osaka", "Osaka", "Asia/Tokyo"),
        ("We've relocated to Bangalore for my husband's job", "Bangalore", "Asia/Kolkata"),
        ("I've moved back to Dublin", "Dublin", "Europe/Dublin"),
        ("Home is Lisbon now", "Lisbon", "Europe/Lisbon"),
        ("home is now Mexico City", "Mexico City", "America/Mexico_City"),
        ("Lisbon is home now", "Lisbon", "Europe/Lisbon"),
        ("My place in Amsterdam is tiny", "Amsterdam", "Europe/Amsterdam"),
        ("We rent a flat in Edinburgh, right by the Meadows.", "Edinburgh", "Europe/London"),
        ("We've bought a house in Lisbon! Moving in next week.", "Lisbon", "Europe/Lisbon"),
        ("Renting a little terrace in Leeds.", "Leeds", "Europe/London"),
        ("Yay! I'm still in Lisbon, still teaching chemistry.", "Lisbon", "Europe/Lisbon"),
        ("And I can cycle there from my flat in Berlin, which is a win.", "Berlin", "Europe/Berlin"),
        ("Hey! Finally unpacked, the new place in Bristol is great.", "Bristol", "Europe/London"),
        ("We've moved!! Got the keys to a house in Dublin on Thursday", "Dublin", "Europe/Dublin"),
        ("We just moved into a flat in Leeds.", "Leeds", "Europe/London"),
        ("Just so you know, I live in São Paulo", "São Paulo", "America/Sao_Paulo"),
        ("FYI: I live in Buenos Aires", "Buenos Aires", "America/Argentina/Buenos_Aires"),
        ("Remember that I live in Rio de Janeiro", "Rio de Janeiro", "America/Sao_Paulo"),
        ("please note that I live in the Hague", "The Hague", "Europe/Amsterdam"),
        ("I've been living in Toronto since 2019", "Toronto", "America/Toronto"),
        ("I have lived in Sydney for 3 years", "Sydney", "Australia/Sydney"),
        ("I live in NYC", "New York", "America/New_York"),
        ("I live here in Chicago", "Chicago", "America/Chicago"),
        ("I live in Lisbon, Portugal", "Lisbon", "Europe/Lisbon"),
        ("I live in Lisbon city", "Lisbon", "Europe/Lisbon"),
        ("I LIVE IN LISBON", "Lisbon", "Europe/Lisbon"),
        ("ok so basically i moved to lisbon like 2 weeks ago", "Lisbon", "Europe/Lisbon"),
        ("Note to self: I live in Lisbon", "Lisbon", "Europe/Lisbon"),
        ("Yes! I'm in! Also I live in Lisbon.", "Lisbon", "Europe/Lisbon"),
        ("Please forget it, I live in Lisbon", "Lisbon", "Europe/Lisbon"),
        ("I live in Washington, D.C.", "Washington", "America/New_York"),
        ("my husband and I live in Seattle", "Seattle", "America/Los_Angeles"),
        ("I live in Lisbon, what's the weather like?", "Lisbon", "Europe/Lisbon"),
        ("I live in St. Louis", "St Louis", "America/Chicago"),
    ],
)
def test_home_city(text: str, city: str, zone: str) -> None:
    assert triples(text) == home(city, zone)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Sintra", [(A, "user.home_city", "Sintra")]),  # unknown city: no time zone
        ("I live in Portugal", [(A, "user.home_country", "Portugal")]),
        ("we moved to Germany", [(A, "user.home_country", "Germany")]),
        ("I live in fear", []),
        ("We bought a holiday house in Spain", []),
        ("I'm still in London for the conference", []),
        ("I left my keys at my old flat in Leith", []),
        ("Tom got the keys to a holiday cottage in Cornwall", []),
        ("The new place in town does great ramen", []),
        ("My sister has a flat in Paris", []),
        ("I have a place in mind for dinner", []),
        ("i live in hope", []),
        # a writer who never capitalises a name: a plain word or two after "live in" is the place
        ("i live in chorlton with my partner", [(A, "user.home_city", "Chorlton")]),
        ("we moved to heaton moor in march", [(A, "user.home_city", "Heaton Moor")]),
        ("i live in fear of the dentist tbh", []),
        ("i live in a tiny flat", []),
        ("we live in the countryside", []),
        ("i'm still in bed at noon", []),
        ("I live in a small town", []),
        ("I live in an apartment", []),
        ("I live in my car", []),
        ("I live in the countryside", []),
        ("I live on Main Street", []),
        ("I live in the UK now", [(A, "user.home_country", "United Kingdom")]),
        ("I live in the US", [(A, "user.home_country", "United States")]),
        ("I moved to us", []),
        # an address (with a number in it), and the city it ends in
        (
            "My new address is 9 Calle Mayor in Burgos.",
            [(A, "user.address", "9 Calle Mayor in Burgos"), (A, "user.home_city", "Burgos")],
        ),
        ("I live at 42 Elm Street", [(A, "user.address", "42 Elm Street")]),
        ("My address is on the form", []),
        ("My email address is dana@example.com", []),
    ],
)
def test_home_edge_cases(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


# --- hometown, work city --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm from Porto", [(A, "user.hometown", "Porto")]),
        ("I am originally from Madrid", [(A, "user.hometown", "Madrid")]),
        ("i come from brazil", [(A, "user.hometown", "Brazil")]),
        ("I grew up in Lyon", [(A, "user.hometown", "Lyon")]),
        ("I grew up in Sintra", [(A, "user.hometown", "Sintra")]),
        ("I was born and raised in Glasgow", [(A, "user.hometown", "Glasgow")]),
        ("My hometown is Kyoto", [(A, "user.hometown", "Kyoto")]),
        ("We're from Canada originally", [(A, "user.hometown", "Canada")]),
        ("I'm from the USA", [(A, "user.hometown", "United States")]),
        ("I'm from Acme support", []),  # not a known place
        ("I'm from the marketing team", []),
        ("I work in London", [(A, "user.work_city", "London")]),
        ("I work in Berlin but live in Potsdam", [(A, "user.work_city", "Berlin")]),
        ("i work in nyc", [(A, "user.work_city", "New York")]),
        ("My office is in Zurich", [(A, "user.work_city", "Zurich")]),
        ("I work in marketing", []),
        ("I work in tech", []),
        ("I work in Sales", []),
    ],
)
def test_hometown_and_work_city(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


# --- employer and job title -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I work at Acme", [(A, "user.employer", "Acme")]),
        ("I work for Globex Corporation", [(A, "user.employer", "Globex Corporation")]),
        ("i work at google", [(A, "user.employer", "Google")]),
        ("I work at Bank of America", [(A, "user.employer", "Bank of America")]),
        ("I'm working at Initech these days", [(A, "user.employer", "Initech")]),
        ("I've been working at Acme since 2020", [(A, "user.employer", "Acme")]),
        ("I joined Acme last month", [(A, "user.employer", "Acme")]),
        ("I just joined Stripe", [(A, "user.employer", "Stripe")]),
        ("I got a job at Spotify", [(A, "user.employer", "Spotify")]),
        ("I landed a new job at Netflix!", [(A, "user.employer", "Netflix")]),
        ("I got hired by Shopify", [(A, "user.employer", "Shopify")]),
        ("I started at Microsoft on Monday", [(A, "user.employer", "Microsoft")]),
        ("I'm employed by the NHS", [(A, "user.employer", "NHS")]),
        ("My employer is Acme", [(A, "user.employer", "Acme")]),
        # a first stretch at a workplace behind one (a first day ahead is a plan, not a job yet)
        ("first week at fenwick done!!", [(A, "user.employer", "Fenwick")]),
        ("Survived my first two weeks at Brightwater.", [(A, "user.employer", "Brightwater")]),
        ("My first day at Google is on Monday.", []),
        # news announced, its "I" dropped as chat drops it, an acronym naming the kind of place
        ("other news, got the job at the GP surgery in southville!!", [(A, "user.employer", "GP surgery")]),
        ("big news: I got a job at Stripe", [(A, "user.employer", "Stripe")]),
        ("I work at IBM in London", [(A, "user.employer", "IBM")]),
        ("I work at Acme as a designer", [(A, "user.employer", "Acme"), (A, "user.job_title", "Designer")]),
        ("I'm an engineer at Acme", [(A, "user.job_title", "Engineer"), (A, "user.employer", "Acme")]),
        (
            "I'm a senior software engineer at Google",
            [(A, "user.job_title", "Senior Software Engineer"), (A, "user.employer", "Google")],
        ),
        ("I'm the CTO of Acme", [(A, "user.job_title", "CTO"), (A, "user.employer", "Acme")]),
        ("I'm a nurse", [(A, "user.job_title", "Nurse")]),
        ("i'm a nurse", [(A, "user.job_title", "Nurse")]),
        ("I am a data scientist", [(A, "user.job_title", "Data Scientist")]),
        ("I'm a product manager", [(A, "user.job_title", "Product Manager")]),
        ("I'm now a teacher", [(A, "user.job_title", "Teacher")]),
        ("I work as a data scientist", [(A, "user.job_title", "Data Scientist")]),
        ("I work as a barista at Blue Bottle", [(A, "user.job_title", "Barista"), (A, "user.employer", "Blue Bottle")]),
        ("My job title is Staff Engineer", [(A, "user.job_title", "Staff Engineer")]),
        ("my role is head of growth", [(A, "user.job_title", "Head of Growth")]),
        ("I got promoted to senior manager", [(A, "user.job_title", "Senior Manager")]),
        ("I was promoted to team lead yesterday", [(A, "user.job_title", "Team Lead")]),
        ("I'm a nurse at the local hospital", [(A, "user.job_title", "Nurse")]),
        ("I work remotely for Acme", [(A, "user.employer", "Acme")]),
        ("I work for the Guardian", [(A, "user.employer", "Guardian")]),
        ("I'm a UX designer at Spotify", [(A, "user.job_title", "UX Designer"), (A, "user.employer", "Spotify")]),
        ("My title is VP of Engineering", [(A, "user.job_title", "VP of Engineering")]),
        ("I am the founder of Acme Labs", [(A, "user.job_title", "Founder"), (A, "user.employer", "Acme Labs")]),
        ("I'm a nurse practitioner", [(A, "user.job_title", "Nurse Practitioner")]),
        ("i'm an engineer at google", [(A, "user.job_title", "Engineer"), (A, "user.employer", "Google")]),
        # a topic named first
        (
            "work wise I'm a QA engineer at Brightline Logistics",
            [(A, "user.job_title", "QA Engineer"), (A, "user.employer", "Brightline Logistics")],
        ),
        # a new title begun
        (
            "I start as a staff engineer there on June 2",
            [(A, "user.job_title", "Staff Engineer")],
        ),
        (
            "I started as a junior analyst at Deloitte",
            [(A, "user.job_title", "Junior Analyst"), (A, "user.employer", "Deloitte")],
        ),
        # no article before a title that ends in a job noun
        ("I'm lead engineer at Stripe", [(A, "user.job_title", "Lead Engineer"), (A, "user.employer", "Stripe")]),
        (
            "I'm still principal architect at Arup, three days a week",
            [(A, "user.job_title", "Principal Architect"), (A, "user.employer", "Arup")],
        ),
    ],
)
def test_work(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I'm tired",
        "I'm happy",
        "I'm going to the gym",
        "I'm a big fan of jazz",
        "I'm a good cook",
        "I'm a terrible driver",
        "I'm a former teacher",
        "I'm a morning person",
        "I'm a bit confused",
        "I'm not a doctor",
        "I work at home",
        "I work for myself",
        "I work at night",
        "I work for a startup",
        "I joined a gym",
        "I joined the call late",
        "My company is growing",
        "I left early",
        "i work at home on fridays",
        "I'm an avid reader",
        "I'm a mother of two",
        "I'm a big believer in remote work",
        "I'm a Leo",
        "I love my job at Acme",
        "She thinks I'm a nurse",
        "I work at Lisbon",  # a city is not an employer
        "My dog is sick. I work at home",
        "I'm part of the team at Google",
        "I'm proud of the work at Acme",
        "I'm still in bed at noon",
        "I started as a joke",
    ],
)
def test_not_work(text: str) -> None:
    assert [t for t in triples(text) if t[1] != "user.likes"] == []


# --- name -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm Sam", [(A, "user.name", "Sam")]),
        ("Hi, I'm Sam!", [(A, "user.name", "Sam")]),
        ("I'm Sam Lee", [(A, "user.name", "Sam Lee")]),
        ("My name is Sam", [(A, "user.name", "Sam")]),
        ("my name is sam", [(A, "user.name", "Sam")]),
        ("my name's Priya btw", [(A, "user.name", "Priya")]),
        ("Call me Sam", [(A, "user.name", "Sam")]),
        ("you can call me Alex", [(A, "user.name", "Alex")]),
        ("everyone calls me Bob", [(A, "user.name", "Bob")]),
        ("MY NAME IS SAM", [(A, "user.name", "Sam")]),
        ("My name is Sam, nice to meet you", [(A, "user.name", "Sam")]),
        ("I'm Jordan", [(A, "user.name", "Jordan")]),
        ("I'm Dean", [(A, "user.name", "Dean")]),
        # an age said as an aside, and what the sentence goes on to say without its "I"
        ("I'm Tomasz, 34", [(A, "user.name", "Tomasz")]),
        (
            "I'm Tomasz, 34, live in Chorlton with my girlfriend",
            [(A, "user.name", "Tomasz"), (A, "user.home_city", "Chorlton")],
        ),
        ("call me crazy but I love Mondays", []),
        ("I'm Fine", []),
        ("I'm German", []),
        ("I'm Sam from accounting", []),
        ("call me tomorrow", []),
        ("call me back later", []),
        ("i'm sam", []),  # "i'm <word>" is too ambiguous without a capital
    ],
)
def test_name(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert [t for t in triples(text) if t[1] != "user.likes"] == expected


# --- diet and allergies ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm vegetarian", [(A, "user.diet", "vegetarian")]),
        ("I am a vegetarian", [(A, "user.diet", "vegetarian")]),
        ("im vegan", [(A, "user.diet", "vegan")]),
        ("I'm strictly vegan", [(A, "user.diet", "vegan")]),
        ("We're pescatarian", [(A, "user.diet", "pescatarian")]),
        ("I've been vegan for 5 years", [(A, "user.diet", "vegan")]),
        ("I went vegetarian last year", [(A, "user.diet", "vegetarian")]),
        ("I don't eat meat", [(A, "user.diet", "vegetarian")]),
        ("i dont eat meat or fish", [(A, "user.diet", "vegetarian")]),
        ("I never eat animal products", [(A, "user.diet", "vegan")]),
        ("I keep kosher", [(A, "user.diet", "kosher")]),
        ("I only eat halal", [(A, "user.diet", "halal")]),
        ("I'm gluten-free", [(A, "user.diet", "gluten-free")]),
        ("I'm gluten free", [(A, "user.diet", "gluten-free")]),
        ("I'm on a keto diet", [(A, "user.diet", "keto")]),
        ("I'm lactose intolerant", [(A, "user.diet", "lactose-free")]),
        ("I'm allergic to peanuts", [(A, "user.allergy", "peanuts")]),
        ("I'm severely allergic to shellfish, so be careful", [(A, "user.allergy", "shellfish")]),
        ("I'm allergic to peanuts and tree nuts", [(A, "user.allergy", "peanuts and tree nuts")]),
        ("I have a peanut allergy", [(A, "user.allergy", "peanut")]),
        ("I don't eat red meat", []),
        ("I don't eat meat on Fridays", []),
        ("I'm not vegetarian", []),
        ("I'm a Vegan", [(A, "user.diet", "vegan")]),
        ("i'm vegetarian lol", [(A, "user.diet", "vegetarian")]),
        ("I am a vegetarian but my husband isn't", [(A, "user.diet", "vegetarian")]),
        ("I'm allergic to penicillin", [(A, "user.allergy", "penicillin")]),
        ("Please remember: I'm allergic to peanuts!", [(A, "user.allergy", "peanuts")]),
        ("I am allergic to nothing", []),
        # the diet's word alone, or as what the first person's words come to
        ("Vegan these days.", [(A, "user.diet", "vegan")]),
        ("I don't eat meat or dairy, so vegan really", [(A, "user.diet", "vegan")]),
        ("We skip meat but eat seafood, so pescatarian I guess", [(A, "user.diet", "pescatarian")]),
        ("I'm eating fish again so pescatarian I suppose", [(A, "user.diet", "pescatarian")]),
        ("The menu is all plants, so vegan basically", []),
        ("My sister eats fish so pescatarian I guess", []),
        ("still no meat, but fish and prawns are fine now, so pescatarian I guess", [(A, "user.diet", "pescatarian")]),
        ("my sister eats fish, so pescatarian I guess", []),
        ("Is it vegan?", []),
        ("My sister is vegan", []),
    ],
)
def test_diet(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


# --- pets and family ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my dog is called Rex", [(A, "user.pet.dog", "Rex")]),
        ("My dog's name is Rex", [(A, "user.pet.dog", "Rex")]),
        ("my dog's name is rex", [(A, "user.pet.dog", "Rex")]),
        ("my dog is named Rex", [(A, "user.pet.dog", "Rex")]),
        ("My dog is Rex", [(A, "user.pet.dog", "Rex")]),
        ("I have a cat named Luna", [(A, "user.pet.cat", "Luna")]),
        ("I've got a cat called Mochi", [(A, "user.pet.cat", "Mochi")]),
        ("our parrot Kiwi", [(A, "user.pet.parrot", "Kiwi")]),
        ("Our parrot Kiwi talks all day", [(A, "user.pet.parrot", "Kiwi")]),
        ("we adopted a puppy named Max", [(A, "user.pet.dog", "Max")]),
        ("We just adopted a kitten called Mittens!", [(A, "user.pet.cat", "Mittens")]),
        ("we got a rescue dog named Biscuit", [(A, "user.pet.dog", "Biscuit")]),
        ("My dog, Rex, loves walks", [(A, "user.pet.dog", "Rex")]),
        ("my guinea pig is called Pip", [(A, "user.pet.guinea_pig", "Pip")]),
        ("my dog is sick", []),
        ("my dog loves walks", []),
        ("my friend's dog is called Rex", []),
        ("Remember my dog's name is Rex", [(A, "user.pet.dog", "Rex")]),
        ("My cat Tom is grumpy", [(A, "user.pet.cat", "Tom")]),
        ("I've got a dog called Bruno", [(A, "user.pet.dog", "Bruno")]),
        ("We have a cat", []),
    ],
)
def test_pets(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my sister is Anna", [(A, "user.family.sister", "Anna")]),
        ("My sister's name is Anna", [(A, "user.family.sister", "Anna")]),
        ("my wife, Maria, is a doctor", [(A, "user.family.wife", "Maria")]),
        ("my son Tom", [(A, "user.family.son", "Tom")]),
        ("My son Tom starts school in September", [(A, "user.family.son", "Tom")]),
        ("my husband is called Ben", [(A, "user.family.husband", "Ben")]),
        ("My mom's name is Linda", [(A, "user.family.mother", "Linda")]),
        ("my mum is called Sue", [(A, "user.family.mother", "Sue")]),
        ("my dad is Carlos", [(A, "user.family.father", "Carlos")]),
        ("my little brother Jake", [(A, "user.family.brother", "Jake")]),
        ("I have a daughter named Emma", [(A, "user.family.daughter", "Emma")]),
        ("my grandma's name is Rosa", [(A, "user.family.grandmother", "Rosa")]),
        ("my wife is American", []),
        ("my sister is a doctor", []),
        ("my sister lives in Oslo", []),
        ("my sister is pregnant", []),
        ("Could you remember that my wife's name is Maria?", [(A, "user.family.wife", "Maria")]),
        ("Great, thanks. By the way, my son's name is Leo.", [(A, "user.family.son", "Leo")]),
        ("My boyfriend's name is Chris", [(A, "user.family.boyfriend", "Chris")]),
        ("my son is called tom and he is 6", [(A, "user.family.son", "Tom")]),
        ("my mom lives in Lisbon and my dad is called Joe", [(A, "user.family.father", "Joe")]),
        ("my daughter is 5", []),
        # a plan still names the relative or pet it is about (the plan itself is no slot's value)
        ("My sister Ines is moving to Amsterdam next month.", [(A, "user.family.sister", "Ines")]),
        ("My nephew Karim is going to start university in October.", [(A, "user.family.nephew", "Karim")]),
        ("my sister is moving to Amsterdam", []),
    ],
)
def test_family(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


# --- preferences ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "value", "kind"),
    [
        ("please answer in bullet points", "user.pref.answer_format", "bullet points", "procedural"),
        ("Always reply in bullet points", "user.pref.answer_format", "bullet points", "procedural"),
        ("answer with bullets please", "user.pref.answer_format", "bullet points", "procedural"),
        ("Use bullet points from now on", "user.pref.answer_format", "bullet points", "procedural"),
        ("give me answers as tables", "user.pref.answer_format", "tables", "procedural"),
        ("I prefer tables", "user.pref.answer_format", "tables", "procedural"),
        ("I'd like answers in markdown", "user.pref.answer_format", "markdown", "procedural"),
        ("I prefer short answers", "user.pref.answer_format", "short answers", "procedural"),
        ("I'd prefer shorter replies", "user.pref.answer_format", "short answers", "procedural"),
        ("i like detailed explanations", "user.pref.answer_format", "detailed answers", "procedural"),
        ("from now on, keep replies under 3 sentences", "user.pref.answer_format", "under 3 sentences", "procedural"),
        ("Keep it short", "user.pref.answer_format", "short answers", "procedural"),
        ("keep answers to 5 lines", "user.pref.answer_format", "at most 5 lines", "procedural"),
        ("Please be concise.", "user.pref.answer_format", "concise answers", "procedural"),
        ("Can you always answer in numbered lists?", "user.pref.answer_format", "numbered lists", "procedural"),
        ("please reply in Spanish", "user.pref.language", "Spanish", "procedural"),
        ("from now on speak French to me", "user.pref.language", "French", "procedural"),
        ("I prefer German", "user.pref.language", "German", "procedural"),
        ("respond in portuguese", "user.pref.language", "Portuguese", "procedural"),
        ("Could you talk to me in Japanese from now on?", "user.pref.language", "Japanese", "procedural"),
        ("I'd prefer replies in Italian", "user.pref.language", "Italian", "procedural"),
        ("My preferred language is Dutch", "user.pref.language", "Dutch", "procedural"),
        ("I prefer aisle seats", "user.pref.seat", "aisle", "semantic"),
        ("always book me a window seat", "user.pref.seat", "window", "semantic"),
        ("I always take the aisle seat", "user.pref.seat", "aisle", "semantic"),
        ("i'd like a window seat please", "user.pref.seat", "window", "semantic"),
        ("I always sit by the window", "user.pref.seat", "window", "semantic"),
        ("I prefer tea over coffee", "user.pref.coffee_vs_tea", "tea", "semantic"),
        ("I prefer coffee to tea", "user.pref.coffee_vs_tea", "coffee", "semantic"),
        ("I like trains better than planes", "user.pref.planes_vs_trains", "trains", "semantic"),
        ("I'd rather have sushi than pizza", "user.pref.pizza_vs_sushi", "sushi", "semantic"),
        ("my favourite colour is blue", "user.favorite.colour", "blue", "semantic"),
        ("My favorite food is sushi", "user.favorite.food", "sushi", "semantic"),
        ("my fave band is Radiohead", "user.favorite.band", "Radiohead", "semantic"),
        ("my favorite movie is The Godfather", "user.favorite.movie", "The Godfather", "semantic"),
        ("I prefer Python over JavaScript", "user.pref.javascript_vs_python", "Python", "semantic"),
        ("Answer me in Spanish from now on", "user.pref.language", "Spanish", "procedural"),
        ("Please always answer in English", "user.pref.language", "English", "procedural"),
        ("From now on, book me aisle seats", "user.pref.seat", "aisle", "semantic"),
    ],
)
def test_preferences(text: str, key: str, value: str, kind: str) -> None:
    got = run(text)
    assert [(c.key, c.value, c.kind.value, c.outward_action) for c in got] == [(key, value, kind, False)]


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        (
            "from now on send a copy of every summary to bob@example.com",
            "user.pref.outward.send_copy_summary",
            "send a copy of every summary to bob@example.com",
        ),
        (
            "From now on, please send a copy of every summary to alice@example.com.",
            "user.pref.outward.send_copy_summary",
            "send a copy of every summary to alice@example.com",
        ),
        ("always cc my manager on invoices", "user.pref.outward.cc_manager_invoice", "cc my manager on invoices"),
        ("automatically pay invoices from Acme", "user.pref.outward.pay_invoice_acme", "pay invoices from Acme"),
        (
            "Going forward, forward all receipts to accounting@corp.example",
            "user.pref.outward.forward_receipt",
            "forward all receipts to accounting@corp.example",
        ),
        (
            "I want you to always share my meeting notes with the team",
            "user.pref.outward.share_meeting_note_team",
            "share my meeting notes with the team",
        ),
        (
            "email me a summary every morning",
            "user.pref.outward.email_summary_morning",
            "email me a summary every morning",
        ),
        (
            "Please always email Bob when I finish a task",
            "user.pref.outward.email_bob",
            "email Bob when I finish a task",
        ),
        (
            "From now on, always send meeting notes to my team",
            "user.pref.outward.send_meeting_note",
            "send meeting notes to my team",
        ),
    ],
)
def test_outward_preferences(text: str, key: str, value: str) -> None:
    got = run(text)
    got_rows = [(c.key, c.value, c.kind, c.outward_action) for c in got]
    assert got_rows == [(key, value, MemoryKind.PROCEDURAL, True)]


@pytest.mark.parametrize(
    "text",
    [
        "send this to bob@example.com",  # one-off, not a standing instruction
        "forward the report to Alice",
        "can you pay this invoice?",
        "answer this in bullet points",
        "give me a table of the results",
        "I speak French",
        "I prefer to travel by train",
        "I love sushi",
        "Can you book me a flight to Paris next week?",
        "Book a table for two at 7pm",
        "Send the report to my boss",
        "Please don't use bullet points",
        "I prefer working in the morning",
    ],
)
def test_not_preferences(text: str) -> None:
    # Not a preference slot of its own (a plain like lands in the multi-valued user.likes).
    assert [t for t in triples(text) if t[1] != "user.likes"] == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I love sushi", "sushi"),
        ("I prefer working in the morning", "working in the morning"),
        ("I really like dark mode in my editor.", "dark mode in my editor"),
        ("i enjoy long walks", "long walks"),
    ],
)
def test_likes(text: str, value: str) -> None:
    assert [(t[1], t[2]) for t in triples(text)] == [("user.likes", value)]


@pytest.mark.parametrize("text", ["I like to swim", "I like it", "I love that", "I prefer to travel by train"])
def test_not_likes(text: str) -> None:
    assert not any(t[1] == "user.likes" for t in triples(text))


# --- retractions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("forget where I live", [(R, "user.home_city", "")]),
        ("Please forget my address", [(R, "user.home_city", "")]),
        ("can you forget where I'm based?", [(R, "user.home_city", "")]),
        ("delete what you know about my job", [(R, "user.employer", ""), (R, "user.job_title", "")]),
        ("forget my job", [(R, "user.employer", ""), (R, "user.job_title", "")]),
        ("don't remember where I work", [(R, "user.employer", ""), (R, "user.job_title", "")]),
        ("Forget everything about my job please", [(R, "user.employer", ""), (R, "user.job_title", "")]),
        ("forget my job title", [(R, "user.job_title", "")]),
        ("forget my dog's name", [(R, "user.pet.dog", "")]),
        ("forget about my cat", [(R, "user.pet.cat", "")]),
        ("delete my sister's name", [(R, "user.family.sister", "")]),
        ("forget my name", [(R, "user.name", "")]),
        ("stop remembering my diet", [(R, "user.diet", "")]),
        ("forget where I'm from", [(R, "user.hometown", "")]),
        ("erase my time zone", [(R, "user.timezone", "")]),
        ("forget my favorite color", [(R, "user.favorite.color", "")]),
        ("forget that I'm vegetarian", [(R, "user.diet", "")]),
        ("forget that I live in Lisbon", [(R, "user.home_city", "")]),
        ("Please forget the fact that I work at Acme", [(R, "user.employer", "")]),
        ("I no longer work at Acme", [(R, "user.employer", "")]),
        ("i don't work at acme anymore", []),  # lowercase org from a casual writer: not trusted
        ("I don't work at Acme anymore", [(R, "user.employer", "")]),
        ("I'm no longer at Acme", [(R, "user.employer", "")]),
        ("I quit my job at Acme", [(R, "user.employer", "")]),
        ("I quit my job", [(R, "user.employer", "")]),
        ("I left Acme", [(R, "user.employer", "")]),
        ("I got laid off from Initech last week", [(R, "user.employer", "")]),
        ("I no longer live in Paris", [(R, "user.home_city", "")]),
        ("We moved away from Berlin", [(R, "user.home_city", "")]),
        ("I'm not vegan anymore", [(R, "user.diet", "")]),
        ("I eat meat again", [(R, "user.diet", "")]),
        ("I'm eating fish again", [(R, "user.diet", "")]),
        ("we're eating chicken again", [(R, "user.diet", "")]),
        ("I no longer have a dog", [(R, "user.pet.dog", "")]),
        ("I stopped being vegetarian", [(R, "user.diet", "")]),
        ("I was fired from Acme", [(R, "user.employer", "")]),
        ("I don't want you to remember my address", [(R, "user.home_city", "")]),
        ("forget it", []),
        ("forget everything", []),
        ("never mind, forget what I said", []),
        ("delete my account", []),
        ("forget the file", []),
        ("delete the bullet points", []),
        ("remove my sister from the email", []),
        ("I don't work at Acme", []),  # a denial, not a change of state
        ("I quit smoking", []),
        ("I left Paris yesterday", []),
    ],
)
def test_retractions(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("I no longer work at Acme", "Acme"),
        ("I left Acme", "Acme"),
        ("I quit my job at Initech", "Initech"),
        ("I no longer live in Paris", "Paris"),
        ("forget that I live in Lisbon", "Lisbon"),
        ("I'm not vegan anymore", "vegan"),
    ],
)
def test_retraction_names_the_old_value_in_extra(text: str, old: str) -> None:
    (c,) = run(text)
    assert c.op is CandidateOp.RETRACT
    assert c.value == ""
    assert c.extra["retracted_value"] == old


def test_retraction_then_new_value_keeps_only_the_assertion() -> None:
    assert triples("I left Acme and joined Globex") == [(A, "user.employer", "Globex")]


def test_retraction_has_no_time_zone_side_effect() -> None:
    assert triples("I no longer live in Lisbon") == [(R, "user.home_city", "")]


# --- plans ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "when", "phrase"),
    [
        ("I'm transferring to Tokyo next week", "move to Tokyo", day(2024, 6, 22), "next week"),
        ("I'm going to move to Paris in March", "move to Paris", day(2025, 3, 1), "in March"),
        ("we're planning to relocate to Oslo", "move to Oslo", None, None),
        ("I will start at Google next month", "start at Google", day(2024, 7, 15), "next month"),
        ("I'm moving to Berlin", "move to Berlin", None, None),
        ("i'm moving to lisbon in 2 weeks", "move to Lisbon", day(2024, 6, 29), "in 2 weeks"),
        ("I'll be moving to Sintra on Friday", "move to Sintra", day(2024, 6, 21), "on Friday"),
        ("I'm joining Stripe in July", "start at Stripe", day(2024, 7, 1), "in July"),
        ("I'm starting a new job at Spotify tomorrow", "start at Spotify", day(2024, 6, 16), "tomorrow"),
        (
            "I'm starting as a QC analyst at Brightwater Diagnostics on July 1",
            "start at Brightwater Diagnostics",
            day(2024, 7, 1),
            "July 1",
        ),
        ("I'm going to quit my job", "leave their job", None, None),
        ("I'm leaving Acme next month", "leave Acme", day(2024, 7, 15), "next month"),
        ("I'm flying to Tokyo tomorrow", "travel to Tokyo", day(2024, 6, 16), "tomorrow"),
        ("we're going to Japan next week", "travel to Japan", day(2024, 6, 22), "next week"),
        ("I'll be in Tokyo next week", "travel to Tokyo", day(2024, 6, 22), "next week"),
        ("I'm going to Lisbon next week for a conference", "travel to Lisbon", day(2024, 6, 22), "next week"),
    ],
)
def test_plans(text: str, value: str, when: datetime | None, phrase: str | None) -> None:
    got = run(text)
    assert len(got) == 1
    (c,) = got
    words = f"User plans to {value} ({phrase})." if phrase else f"User plans to {value}."
    assert (c.key, c.value, c.kind, c.plan, c.valid_from, c.text) == (
        "user.plan",
        value,
        MemoryKind.EPISODIC,
        True,
        when,
        words,
    )
    assert c.extra.get("time_expression") == phrase


@pytest.mark.parametrize(
    "text",
    [
        "I'm going to bed",
        "I'm starting to feel better",
        "I will live in Paris one day",
        "I'll be based in Berlin from next week",
        "I'm leaving tomorrow",
        "I'm moving on to the next topic",
        "I'm going to move on",
        "I might move to Lisbon",
        "I want to move to Lisbon",
        "We're thinking about moving to Lisbon",
        "If I get the job, I'm moving to Berlin",
        "I'm in Lisbon this week",
    ],
)
def test_future_without_a_plan_sets_nothing(text: str) -> None:
    assert triples(text) == []


def test_plan_next_to_a_current_fact() -> None:
    assert triples("I live in Lisbon but I'm moving to Berlin next month") == [
        *home("Lisbon", "Europe/Lisbon"),
        (A, "user.plan", "move to Berlin"),
    ]


# --- nothing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # negations
        "I don't live in Paris",
        "I do not live in Paris",
        "I never lived in Rome",
        "I'm not based in London",
        # hypotheticals
        "if I lived in Rome I'd be happier",
        "If I moved to Lisbon, I'd learn Portuguese",
        "imagine I moved to Tokyo",
        "I wish I lived in Rome",
        "I'd love to live in Barcelona",
        "I would live in Paris if I could",
        # questions
        "do you think I should move to Lisbon?",
        "should I move to Lisbon",
        "Do I live in Lisbon?",
        "I live in Lisbon?",
        "what's the weather in Lisbon?",
        "can you recommend restaurants in Tokyo?",
        # other people
        "my friend lives in Oslo",
        "she said I live in Paris",
        "my boss works at Google",
        "my sister is vegan",
        # past
        "I used to live in Madrid",
        "I lived in Madrid for years",
        "I used to work at Google",
        # small talk
        "hi",
        "thanks!",
        "how are you?",
        "lol ok",
        "good morning",
        "Hello there!",
        "ok cool, thanks a lot",
        "I heard you can live in Lisbon cheaply",
        "Do you know that I live in Lisbon",
        "I live in Lisbon right?",
        "What if I moved to Tokyo?",
        "I don't think I live in Lisbon anymore",
        "I told my boss I live in Lisbon",
        "Tell my wife I'll be late",
        "I'm sure I live in Lisbon",
        "I need help planning a trip to Tokyo",
        "",
        "   ",
    ],
)
def test_nothing(text: str) -> None:
    assert run(text) == []


@pytest.mark.parametrize(
    ("role", "source"),
    [
        (Role.ASSISTANT, Source.USER),
        (Role.ASSISTANT, Source.MODEL_INFERENCE),
        (Role.TOOL, Source.VERIFIED_TOOL),
        (Role.SYSTEM, Source.USER),
        (Role.USER, Source.RETRIEVED_DOCUMENT),
        (Role.USER, Source.MODEL_INFERENCE),
        (Role.USER, Source.VERIFIED_TOOL),
    ],
)
def test_only_user_authored_turns(role: Role, source: Source) -> None:
    assert run("I live in Lisbon and I'm vegetarian", role=role, source=source) == []


# --- several facts per turn -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I'm Sam, I live in Lisbon and my dog is called Rex",
            [(A, "user.name", "Sam"), *home("Lisbon", "Europe/Lisbon"), (A, "user.pet.dog", "Rex")],
        ),
        (
            "Hi! I'm Sam. I work at Acme as a designer and I'm vegetarian.",
            [
                (A, "user.name", "Sam"),
                (A, "user.employer", "Acme"),
                (A, "user.job_title", "Designer"),
                (A, "user.diet", "vegetarian"),
            ],
        ),
        ("i live in berlin and work in london", [*home("Berlin", "Europe/Berlin"), (A, "user.work_city", "London")]),
        (
            "My wife, Maria, and I moved to Porto. Our cat Luna came too!",
            [(A, "user.family.wife", "Maria"), *home("Porto", "Europe/Lisbon"), (A, "user.pet.cat", "Luna")],
        ),
        ("I used to live in Madrid, now I live in Lisbon", home("Lisbon", "Europe/Lisbon")),
        (
            "I moved to Berlin and will start at Google next month",
            [*home("Berlin", "Europe/Berlin"), (A, "user.plan", "start at Google")],
        ),
        (
            "I'm a nurse; my husband is called Ben; please reply in Spanish.",
            [(A, "user.job_title", "Nurse"), (A, "user.family.husband", "Ben"), (A, "user.pref.language", "Spanish")],
        ),
        (
            "I live in St. Louis and I'm allergic to cats",
            [*home("St Louis", "America/Chicago"), (A, "user.allergy", "cats")],
        ),
        (
            "I live in lisbon and i work at google as an engineer",
            [*home("Lisbon", "Europe/Lisbon"), (A, "user.employer", "Google"), (A, "user.job_title", "Engineer")],
        ),
        (
            "I'm Sam and I'm from Porto but I live in Berlin now",
            [(A, "user.name", "Sam"), (A, "user.hometown", "Porto"), *home("Berlin", "Europe/Berlin")],
        ),
        ("Hey I'm Jordan, I'm a teacher in Oslo.", [(A, "user.name", "Jordan"), (A, "user.job_title", "Teacher")]),
        # a self-introduction with its apposition: the name, and what its bearer is
        (
            "I'm Rosa, a staff nurse at Wythenshawe Hospital.",
            [
                (A, "user.name", "Rosa"),
                (A, "user.job_title", "Staff Nurse"),
                (A, "user.employer", "Wythenshawe Hospital"),
            ],
        ),
        (
            "i'm rosa, staff nurse on the cardiology ward at wythenshawe hospital",
            [(A, "user.job_title", "Staff Nurse"), (A, "user.employer", "Wythenshawe Hospital")],
        ),
        ("I'm sorry, the meeting ran late", []),
        ("When I moved to Berlin, I joined Acme", [(A, "user.employer", "Acme")]),
        # the writer capitalises names, so a lowercase "google" is not trusted as one
        ("I live in Lisbon and work at google", home("Lisbon", "Europe/Lisbon")),
        (
            "I quit Acme last week and I'm joining Globex next month",
            [(R, "user.employer", ""), (A, "user.plan", "start at Globex")],
        ),
        (
            "please answer in bullet points and always cc my manager on invoices",
            [
                (A, "user.pref.answer_format", "bullet points"),
                (A, "user.pref.outward.cc_manager_invoice", "cc my manager on invoices"),
            ],
        ),
    ],
)
def test_many_facts(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


# --- candidate details ----------------------------------------------------------------------


def test_candidate_fields_and_derived_time_zone() -> None:
    city, zone = run("I just moved to Lisbon two weeks ago")
    assert city.key == "user.home_city"
    assert city.text == "User lives in Lisbon."
    assert city.evidence == ("ep-1",)
    assert city.source is Source.USER
    assert city.extractor == "rules"
    assert city.kind is MemoryKind.SEMANTIC
    assert city.op is CandidateOp.ASSERT
    assert city.confidence == 0.9
    assert city.valid_from == day(2024, 6, 1)
    assert city.derived_from_key is None
    assert city.extra == {"rule": "home.moved_to", "time_expression": "two weeks ago"}
    assert zone.key == "user.timezone"
    assert zone.value == "Europe/Lisbon"
    assert zone.text == "User's time zone is Europe/Lisbon (derived from home city)."
    assert zone.derived_from_key == "user.home_city"
    assert zone.confidence == 0.8
    assert zone.valid_from == city.valid_from
    assert zone.evidence == ("ep-1",)
    assert zone.kind is MemoryKind.SEMANTIC


@pytest.mark.parametrize(
    ("text", "confidence", "tz_confidence"),
    [
        ("I live in Lisbon", 0.9, 0.8),
        ("I think I live in Lisbon now", 0.7, 0.7),
        ("I'm probably based in Lisbon", 0.7, 0.7),
        ("My flat in Lisbon is tiny", 0.7, 0.7),
    ],
)
def test_confidence(text: str, confidence: float, tz_confidence: float) -> None:
    city, zone = run(text)
    assert (city.confidence, zone.confidence) == (confidence, tz_confidence)


@pytest.mark.parametrize(
    ("text", "confidence"),
    [
        ("I think I prefer short answers", 0.7),
        ("maybe answer in bullet points", 0.7),
        ("I'm mostly vegetarian", 0.7),
        ("I'm vegetarian", 0.9),
    ],
)
def test_hedged_statements(text: str, confidence: float) -> None:
    (c,) = run(text)
    assert c.confidence == confidence


@pytest.mark.parametrize(
    ("text", "valid_from"),
    [
        ("I moved to Berlin two weeks ago", day(2024, 6, 1)),
        ("I just moved to Barcelona last month", day(2024, 5, 15)),
        ("I joined Acme yesterday", day(2024, 6, 14)),
        ("I've lived in Lisbon since 2019", day(2019, 1, 1)),
        ("I went vegan in March 2023", day(2023, 3, 1)),
        ("I got a job at Acme on 5 May 2022", day(2022, 5, 5)),
        ("we adopted a puppy named Max last Tuesday", day(2024, 6, 11)),
        ("I live in Lisbon", None),
    ],
)
def test_valid_from(text: str, valid_from: datetime | None) -> None:
    assert run(text)[0].valid_from == valid_from


def test_time_is_read_per_clause() -> None:
    got = run("I moved to Berlin two weeks ago and I joined Acme yesterday")
    assert [(c.key, c.valid_from) for c in got] == [
        ("user.home_city", day(2024, 6, 1)),
        ("user.timezone", day(2024, 6, 1)),
        ("user.employer", day(2024, 6, 14)),
    ]


def test_a_date_to_come_does_not_date_a_fact_said_now() -> None:
    """Given a clause whose date lies after the turn (it dates the wedding, not the brother),
    when a fact is read from it, then the fact carries no start time; a plan keeps its date."""
    (brother,) = [c for c in run("My brother Pablo's wedding is on September 8.") if c.key]
    assert (brother.key, brother.value, brother.valid_from) == ("user.family.brother", "Pablo", None)
    (plan,) = run("I'm moving to Tokyo on July 4")
    assert (plan.key, plan.valid_from) == ("user.plan", day(2024, 7, 4))


def test_a_name_with_initials_is_one_sentence() -> None:
    """Given a name with initials ("Ursula K. Le Guin"), when the turn is split into sentences,
    then the initial's full stop ends no sentence and the whole name is the value."""
    assert triples("My favourite author is Ursula K. Le Guin.") == [(A, "user.favorite.author", "Ursula K. Le Guin")]
    assert triples("My favourite author is J. R. R. Tolkien. I live in Lisbon.") == [
        (A, "user.favorite.author", "J. R. R. Tolkien"),
        *home("Lisbon", "Europe/Lisbon"),
    ]


def test_duplicates_are_dropped() -> None:
    assert triples("I live in Lisbon. Yes, I live in Lisbon!") == home("Lisbon", "Europe/Lisbon")


def test_deterministic() -> None:
    text = "I'm Sam, I live in Lisbon, my dog is called Rex and please answer in bullet points"
    assert run(text) == run(text)
    assert RulesExtractor()(
        Turn(episode_id="ep-1", role=Role.USER, source=Source.USER, content=text, occurred_at=ANCHOR)
    ) == run(text)


def test_satisfies_the_extractor_protocol() -> None:
    extractor: Extractor = RulesExtractor()
    assert extractor.name == "rules"
    turn = Turn(episode_id="e9", role=Role.USER, source=Source.USER, content="I live in Oslo", occurred_at=ANCHOR)
    earlier = Turn(episode_id="e8", role=Role.USER, source=Source.USER, content="hi", occurred_at=ANCHOR)
    assert [c.evidence for c in extractor(turn, context=[earlier])] == [("e9",), ("e9",)]


# --- arriving, job offers, a left-out "I", medications ---------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We're finally in Madrid! Boxes everywhere.", home("Madrid", "Europe/Madrid")),
        ("Right, I'm in Toronto now.", home("Toronto", "America/Toronto")),
        ("I'm in Oslo now, it's colder than I thought.", home("Oslo", "Europe/Oslo")),
        ("I'm finally in Tokyo, the hotel is lovely.", []),  # a stay, not a home
        ("We're in Rome now for the conference.", []),
        ("I'm in a meeting now.", []),
        ("I'm in Berlin.", []),  # with no "now" or "finally", being somewhere is not living there
    ],
)
def test_arrived_home(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I accepted an offer from Stripe.", [(A, "user.employer", "Stripe")]),
        ("Big news: I took the job offer at Canva!", [(A, "user.employer", "Canva")]),
        ("Started at Monzo yesterday, everyone is nice.", [(A, "user.employer", "Monzo")]),
        ("Joined Shopify last week.", [(A, "user.employer", "Shopify")]),
        ("Started to feel better.", []),
    ],
)
def test_offers_and_left_out_subject(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My GP put me on sertraline for my anxiety.", [(A, "user.medication.sertraline", "sertraline")]),
        ("The doctor prescribed me atorvastatin last month.", [(A, "user.medication.atorvastatin", "atorvastatin")]),
        ("I'm on lisinopril, 10 mg every morning.", [(A, "user.medication.lisinopril", "lisinopril")]),
        ("I take insulin twice a day.", [(A, "user.medication.insulin", "insulin")]),
        ("I've been taking vitamin D daily.", [(A, "user.medication.vitamin_d", "vitamin d")]),
        ("I'm on an iPhone 15 now.", []),
        ("I'm on the night shift every night this week.", []),
        ("I take the bus every morning.", []),
        ("I take yoga classes every morning.", []),
        ("I'm on holiday for my birthday.", []),
    ],
)
def test_medications(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected
