"""City names → IANA time zones, and place-name clean-up.

Lookup order in :func:`timezone_for_city`:

1. ``_ALIASES``: big cities that have no zone of their own (San Francisco → America/Los_Angeles),
   common abbreviations (NYC, SF) and old spellings (Bombay, Saigon). Where a name is shared
   by several cities the alias picks the largest one (Birmingham → Europe/London,
   Hyderabad → Asia/Kolkata); genuinely ambiguous names (Portland, Cambridge) are left out.
2. The last component of every zone in ``zoneinfo.available_timezones()`` under a continent or
   ocean area ("America/New_York" → "new york", "America/Argentina/Buenos_Aires" →
   "buenos aires"). Deeper (canonical) names win over shallow backward links. A few zone
   names that are also common words are ignored (``_NOT_CITIES``: Christmas, Easter, ...).

A trailing "city" is tried both ways ("Lisbon city" → Lisbon, "Mexico City" stays).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from zoneinfo import available_timezones

__all__ = ["is_known_city", "normalize_place", "timezone_for_city"]

_AREAS = frozenset({"Africa", "America", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific"})
_NOT_CITIES = frozenset(
    {
        "christmas",
        "easter",
        "jersey",
        "wake",
        "midway",
        "center",
        "west",
        "north",
        "south",
        "resolute",
        "virgin",
        "victoria",
        "act",
        "nsw",
        "canary",
        "cocos",
    }
)

_LA, _NY, _CHI = "America/Los_Angeles", "America/New_York", "America/Chicago"
_BER, _MAD, _ROM, _PAR = "Europe/Berlin", "Europe/Madrid", "Europe/Rome", "Europe/Paris"
_LON, _AMS, _TYO, _IND = "Europe/London", "Europe/Amsterdam", "Asia/Tokyo", "Asia/Kolkata"
_ALIASES: dict[str, str] = {
    # United States and Canada
    "san francisco": _LA,
    "sf": _LA,
    "bay area": _LA,
    "oakland": _LA,
    "san jose": _LA,
    "palo alto": _LA,
    "mountain view": _LA,
    "seattle": _LA,
    "san diego": _LA,
    "sacramento": _LA,
    "las vegas": _LA,
    "la": _LA,
    "boston": _NY,
    "washington": _NY,
    "washington dc": _NY,
    "dc": _NY,
    "nyc": _NY,
    "new york city": _NY,
    "brooklyn": _NY,
    "philadelphia": _NY,
    "atlanta": _NY,
    "miami": _NY,
    "pittsburgh": _NY,
    "baltimore": _NY,
    "charlotte": _NY,
    "orlando": _NY,
    "austin": _CHI,
    "dallas": _CHI,
    "houston": _CHI,
    "san antonio": _CHI,
    "minneapolis": _CHI,
    "kansas city": _CHI,
    "new orleans": _CHI,
    "nashville": _CHI,
    "st louis": _CHI,
    "saint louis": _CHI,
    "salt lake city": "America/Denver",
    "montreal": "America/Toronto",
    "ottawa": "America/Toronto",
    "quebec city": "America/Toronto",
    "calgary": "America/Edmonton",
    # Europe
    "munich": _BER,
    "hamburg": _BER,
    "frankfurt": _BER,
    "cologne": _BER,
    "stuttgart": _BER,
    "dusseldorf": _BER,
    "barcelona": _MAD,
    "valencia": _MAD,
    "seville": _MAD,
    "malaga": _MAD,
    "porto": "Europe/Lisbon",
    "milan": _ROM,
    "florence": _ROM,
    "naples": _ROM,
    "venice": _ROM,
    "turin": _ROM,
    "lyon": _PAR,
    "marseille": _PAR,
    "toulouse": _PAR,
    "bordeaux": _PAR,
    "manchester": _LON,
    "edinburgh": _LON,
    "glasgow": _LON,
    "birmingham": _LON,
    "liverpool": _LON,
    "bristol": _LON,
    "leeds": _LON,
    "rotterdam": _AMS,
    "the hague": _AMS,
    "hague": _AMS,
    "utrecht": _AMS,
    "eindhoven": _AMS,
    "geneva": "Europe/Zurich",
    "basel": "Europe/Zurich",
    "antwerp": "Europe/Brussels",
    "ghent": "Europe/Brussels",
    "krakow": "Europe/Warsaw",
    "wroclaw": "Europe/Warsaw",
    "gdansk": "Europe/Warsaw",
    "gothenburg": "Europe/Stockholm",
    "malmo": "Europe/Stockholm",
    "bergen": "Europe/Oslo",
    "st petersburg": "Europe/Moscow",
    "saint petersburg": "Europe/Moscow",
    "kiev": "Europe/Kyiv",
    "istanbul": "Europe/Istanbul",
    # Asia, Oceania, Americas, Africa
    "osaka": _TYO,
    "kyoto": _TYO,
    "yokohama": _TYO,
    "bangalore": _IND,
    "bengaluru": _IND,
    "mumbai": _IND,
    "bombay": _IND,
    "delhi": _IND,
    "new delhi": _IND,
    "chennai": _IND,
    "hyderabad": _IND,
    "pune": _IND,
    "calcutta": _IND,
    "beijing": "Asia/Shanghai",
    "guangzhou": "Asia/Shanghai",
    "shenzhen": "Asia/Shanghai",
    "hangzhou": "Asia/Shanghai",
    "busan": "Asia/Seoul",
    "saigon": "Asia/Ho_Chi_Minh",
    "tel aviv": "Asia/Jerusalem",
    "abu dhabi": "Asia/Dubai",
    "nicosia": "Asia/Nicosia",
    "canberra": "Australia/Sydney",
    "wellington": "Pacific/Auckland",
    "rio de janeiro": "America/Sao_Paulo",
    "rio": "America/Sao_Paulo",
    "brasilia": "America/Sao_Paulo",
    "cape town": "Africa/Johannesburg",
}

#: Abbreviations shown by their full name.
_DISPLAY: dict[str, str] = {
    "nyc": "New York",
    "la": "Los Angeles",
    "sf": "San Francisco",
    "dc": "Washington",
    "washington dc": "Washington",
}
#: "X City" names where "City" is part of the name, on top of zone names like Mexico_City.
_CITY_NAMES = frozenset({"kansas city", "salt lake city", "quebec city"})
_LOWER_PARTICLES = frozenset({"de", "da", "do", "du", "del", "la", "le", "au", "am", "of", "upon", "es"})
_TRAILING = re.compile(r"(?<![\s.,;:!?'\"()])[\s.,;:!?'\"()]+$")
_LEADING = re.compile(r"^[\s'\"(]+")


def _key(name: str) -> str:
    # Accents are dropped so "São Paulo" and "Sao Paulo" meet the zone name "Sao_Paulo".
    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    text = re.sub(r"[.']", "", plain.lower())
    return " ".join(re.sub(r"[_\-]", " ", text).split())


@lru_cache(maxsize=1)
def _zone_index() -> dict[str, str]:
    index: dict[str, str] = {}
    for zone in sorted(available_timezones(), key=lambda z: (-z.count("/"), z)):
        area, _, rest = zone.partition("/")
        name = _key(rest.rsplit("/", 1)[-1])
        if area in _AREAS and rest and name not in _NOT_CITIES:
            index.setdefault(name, zone)
    return index


@lru_cache(maxsize=2048)
def timezone_for_city(city: str) -> str | None:
    """IANA zone for a city name ("Lisbon" → "Europe/Lisbon"), or None if unknown."""
    key = _key(city)
    candidates = [key, key.removesuffix(" city")] if key.endswith(" city") else [key]
    for name in candidates:
        zone = _ALIASES.get(name) or _zone_index().get(name)
        if zone:
            return zone
    return None


def is_known_city(city: str) -> bool:
    """True when :func:`timezone_for_city` knows the name."""
    return timezone_for_city(city) is not None


def _cap(word: str, first: bool) -> str:
    if not first and word.lower() in _LOWER_PARTICLES:
        return word.lower()
    if word.isupper() and len(word) <= 3:  # keep "UK", "DC"
        return word
    if "-" in word:  # "port-au-prince" → "Port-au-Prince"
        return "-".join(_cap(p, i == 0 and first) for i, p in enumerate(word.split("-")))
    return word[:1].upper() + word[1:].lower()


def normalize_place(text: str) -> str:
    """Clean a place name: trim punctuation, drop a redundant "city", title-case.

    "  lisbon city. " → "Lisbon"; "mexico city" → "Mexico City"; "rio de janeiro" →
    "Rio de Janeiro"; "nyc" → "New York".
    """
    cleaned = " ".join(_TRAILING.sub("", _LEADING.sub("", text)).split())
    key = _key(cleaned)
    if key in _DISPLAY:
        return _DISPLAY[key]
    if key.endswith(" city") and key not in _CITY_NAMES and key not in _zone_index():
        cleaned = cleaned[: -len(" city")].rstrip()
    return " ".join(_cap(w, i == 0) for i, w in enumerate(cleaned.split()))
