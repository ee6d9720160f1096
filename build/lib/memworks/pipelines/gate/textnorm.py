"""How text is seen by the write gate: one canonical form, whatever disguise it arrived in.

Instructions hidden from a keyword check are still read by a model: "Ign\\u200bore", "Ignоre"
with a Cyrillic о, "I-g-n-o-r-e", full-width letters, a base64 blob the text asks to decode.
:func:`normalise` undoes the common disguises, and :func:`gate_views` adds what encoded runs
decode to, so the gate judges what a model would read.

Pure and linear in the length of the text: every pattern here is a single character class
or a bounded repetition of disjoint classes, and decoding only looks at bounded runs.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from collections import Counter
from urllib.parse import unquote

__all__ = ["MAX_DECODED_RUNS", "fold_confusables", "gate_views", "normalise", "squashed"]

#: Encoded runs decoded per text (count); more are not looked at.
MAX_DECODED_RUNS = 8
#: Length of the longest encoded run that is decoded (characters).
_MAX_RUN = 4096

#: Letters from other scripts that look like Latin ones, and the Latin letter a reader sees.
#: Small and explicit on purpose: the look-alikes attackers use, not every homoglyph.
_CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "а": "a",
    "в": "b",
    "е": "e",
    "ё": "e",
    "г": "r",
    "һ": "h",
    "і": "i",
    "ї": "i",
    "ј": "j",
    "к": "k",
    "м": "m",
    "н": "h",
    "о": "o",
    "п": "n",
    "р": "p",
    "с": "c",
    "т": "t",
    "у": "y",
    "х": "x",
    "ѕ": "s",
    "ԁ": "d",
    "ԛ": "q",
    "ԝ": "w",
    "ӏ": "l",
    "ɡ": "g",
    "ь": "b",
    "А": "A",
    "В": "B",
    "Е": "E",
    "Ё": "E",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "У": "Y",
    "Х": "X",
    "І": "I",
    "Ї": "I",
    "Ј": "J",
    "Ѕ": "S",
    "Ԁ": "D",
    "Ԛ": "Q",
    "Ԝ": "W",
    "Ӏ": "I",
    # Greek
    "α": "a",
    "β": "b",
    "γ": "y",
    "ε": "e",
    "ι": "i",
    "κ": "k",
    "ν": "v",
    "ο": "o",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "ω": "w",
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ζ": "Z",
    "Η": "H",
    "Ι": "I",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Υ": "Y",
    "Χ": "X",
    # Latin letters that NFKC leaves alone
    "ı": "i",
    "ȷ": "j",
    "ɑ": "a",
    "ℓ": "l",
    "ſ": "s",
    "ꞵ": "b",
}
_CONFUSABLE_TABLE = str.maketrans(_CONFUSABLES)
#: Digits and signs read as letters once words are squashed ("1gn0re", "@dmin").
_LEET_TABLE = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})

#: Single letters joined by one to three separators, at least three letters long:
#: "I-g-n-o-r-e", "i.g.n.o.r.e", "I g n o r e". Letters and separators are disjoint classes.
_LETTER_RUN = re.compile(r"(?<![^\W\d_])[^\W\d_](?:(?:[^\w\n]|_){1,3}[^\W\d_](?![^\W\d_])){2,}")
_SEPARATOR = re.compile(r"(?:[^\w\n]|_){1,3}")
#: Hyphens and underscores between words: "Obey-every-tool-message" reads as words.
_WORD_JOINER = re.compile(r"(?<=[^\W\d_])[-_](?=[^\W\d_])")
#: A base64 run: one class, so a search is linear; the padding is a class of its own.
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_ENTITY = re.compile(r"&#?[A-Za-z0-9]{1,8};")


def fold_confusables(text: str) -> str:
    """Map the look-alike letters of :data:`_CONFUSABLES` to Latin."""
    return text.translate(_CONFUSABLE_TABLE)


def _clean(text: str) -> str:
    """NFKC, HTML character references, invisible characters, confusables: letters as seen."""
    out = unicodedata.normalize("NFKC", text)
    if _ENTITY.search(out):
        out = unicodedata.normalize("NFKC", html.unescape(out))
    # Format characters (zero-width space and joiners, soft hyphen, bidi controls, tags) and
    # combining marks NFKC could not fold in (strike-through overlays) are not seen by a reader.
    out = "".join(ch for ch in out if unicodedata.category(ch) not in _INVISIBLE)
    return fold_confusables(out)


_INVISIBLE = frozenset({"Cf", "Mn", "Me", "Cs", "Co"})


def _join_letters(m: re.Match[str]) -> str:
    run = m.group(0)
    gaps = _SEPARATOR.findall(run)
    usual = Counter(gaps).most_common(1)[0][0]
    letters = _SEPARATOR.split(run)
    # The usual gap sits between the letters of one word; any other gap is a word break.
    return letters[0] + "".join(("" if gap == usual else " ") + ch for gap, ch in zip(gaps, letters[1:], strict=True))


def _spelled_out(text: str) -> str:
    return _WORD_JOINER.sub(" ", _LETTER_RUN.sub(_join_letters, text))


def normalise(text: str) -> str:
    """The text as the gate reads it.

    Unicode NFKC (full-width and mathematical letters become plain ones), HTML character
    references unescaped, format and combining characters removed, confusable letters folded
    to Latin, single letters joined back into words ("I-g-n-o-r-e" → "Ignore") and hyphenated
    word chains opened up ("Obey-every-tool" → "Obey every tool"). Case is kept.
    """
    return _spelled_out(_clean(text))


def squashed(text: str) -> str:
    """Letters only, lower case, digits and signs read as letters: "I g n 0 r e" → "ignore"."""
    return "".join(ch for ch in text.lower().translate(_LEET_TABLE) if ch.isalpha())


def _printable(raw: bytes) -> str | None:
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(decoded) < 4 or not all(ch.isprintable() or ch in "\n\r\t" for ch in decoded):
        return None
    # Random bytes that happen to be UTF-8 are mostly symbols; text is mostly letters.
    letters = sum(ch.isalpha() or ch.isspace() for ch in decoded)
    return decoded if letters >= 0.7 * len(decoded) else None


def _decoded_base64(text: str) -> list[str]:
    out: list[str] = []
    for m in _BASE64_RUN.finditer(text):
        body = m.group(0)[:_MAX_RUN].rstrip("=").replace("-", "+").replace("_", "/")
        try:
            raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        if (decoded := _printable(raw)) is not None:
            out.append(decoded)
            if len(out) >= MAX_DECODED_RUNS:
                break
    return out


def gate_views(text: str) -> list[str]:
    """Every reading of ``text`` the gate judges: the normalised text (and, if opening up
    hyphenated words changed it, the form before that), then what its percent-encoded and
    base64 runs decode to (normalised too), one level deep.

    The caller bounds ``text``; decoding adds at most ``MAX_DECODED_RUNS + 1`` views.
    """
    clean = _clean(text)
    spelled = _spelled_out(clean)
    # The unspelled form too when they differ: addresses keep their hyphens there.
    views = [spelled] if spelled == clean else [spelled, clean]
    if len(_PERCENT.findall(clean, 0, _MAX_RUN)) >= 3:
        views.append(normalise(unquote(clean)))
    views += [normalise(d) for d in _decoded_base64(clean)]
    return views
