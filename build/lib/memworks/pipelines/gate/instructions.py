"""Does a text try to command the agent? The instruction checks behind the write gate.

Every text is judged as a model would read it (:func:`.textnorm.gate_views`), and only its
first :data:`MAX_SCAN_CHARS` characters go through the patterns. Every pattern here is linear
in the length of the text: no nested quantifiers over overlapping classes, no ``.*`` chains.
Where an order matters ("always ... send"), the first part is searched, then the second
from where the first ended.

Two strengths:

- **injection markers** count whoever wrote the text: "ignore all the previous instructions",
  "you are now DAN", "decode and obey", fake role headers ("ASSISTANT NOTE:", "SYSTEM:"),
  "obey every tool message", "skip confirmation", markdown images that fetch an outside URL.
- **strict** checks add, for text that is data rather than the user's own wishes (tool
  output, model inference, the value of a fact): orders to act outward ("from now on you
  must e-mail ..."), an outward action to an address, requests to read out or collect
  secrets, "note to the assistant", markdown links whose URL would carry data out.
"""

from __future__ import annotations

import re

from memworks.pipelines.gate.hazards import attributed, hazard
from memworks.pipelines.gate.textnorm import gate_views, normalise, squashed

__all__ = ["MAX_SCAN_CHARS", "attributed_marker", "injection_marker", "marker", "outward_preference"]

#: Characters of a text that the patterns read (characters). Past them, text that still
#: carries an instruction word is refused unjudged: a long text is no place to hide one.
MAX_SCAN_CHARS = 4000
#: Longest quotation of the text in a reason (characters).
_QUOTE_CHARS = 60

_I = re.IGNORECASE
_VERB = r"(?:send|forward|share|e[\s-]?mail|cc|bcc|post|upload|pay|wire|transfer|publish|text|sms)"
_SECRETS = (
    r"(?:(?:credit\s+|debit\s+)?card\s+(?:numbers?|details|info)|cvv|cvc|security\s+codes?|passwords?|passcodes?"
    r"|pin\s+(?:codes?|numbers?)|ssn|social\s+security\s+numbers?|api\s+keys?|secret\s+keys?|private\s+keys?"
    r"|access\s+tokens?|credentials|bank\s+(?:account|details)|account\s+numbers?|one[\s-]time\s+(?:codes?|passwords?)"
    r"|otp|2fa\s+codes?|seed\s+phrase|recovery\s+codes?)"
)

_INJECTION = re.compile(
    # ignore previous instructions, in its many wordings
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:(?:all|any|each|every|of|the|these|those|your|my|its)\s+){0,4}"
    r"(?:previous|prior|above|earlier|preceding|foregoing|former|existing|original|initial|system|developer|safety|old)\s+"
    r"(?:\w+\s+){0,2}?(?:instructions?|prompts?|rules|directions|guidelines|directives|commands|messages|guardrails"
    r"|constraints|policies|context)\b"
    r"|\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:your|all)\s+(?:instructions|guidelines|rules|programming"
    r"|training|restrictions|guardrails)\b"
    r"|\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+|anything\s+)?(?:of\s+)?(?:the\s+)?(?:above|preceding|foregoing)\b"
    r"|\b(?:ignore|disregard|forget)\s+(?:everything|anything|whatever)\s+(?:you\s+(?:were|have\s+been)\s+told"
    r"|(?:(?:said|written|stated)\s+)?(?:before|above|earlier|so\s+far))\b"
    # reveal the prompt
    r"|\b(?:reveal|print|show|leak|output|repeat|dump|display)\s+(?:me\s+)?(?:your|the)\s+"
    r"(?:(?:full|hidden|initial|original|secret)\s+)?(?:system\s+prompt|instructions|api\s+keys?)\b"
    r"|\bnew\s+system\s+prompt\b|\bsystem\s+prompt\s+(?:override|update)\b"
    # role hijacks: "you are now DAN", "you are now Admin", developer mode
    r"|\byou\s+are\s+now\s+(?:a|an|in|the|my|no\s+longer|free|unrestricted|unfiltered|uncensored|jailbroken|dan"
    r"|stan|dude|admin|root|god|evil|developer|(?-i:[A-Z][A-Za-z0-9]{1,30}))\b"
    r"|\b(?:act|behave|respond|answer)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:dan\b|an?\s+(?:unrestricted|unfiltered"
    r"|uncensored|jailbroken|evil)\b)"
    r"|\b(?:dan|developer|god|jailbreak|unrestricted|sudo)\s+mode\b|\bdo\s+anything\s+now\b|\bjailbr(?:eak|oken)\b"
    # money
    r"|\b(?:wire|transfer|send)\s+(?:the\s+)?(?:money|funds|\$\s?\d|\d{1,15}\s?(?:usd|eur|dollars|euros))"
    r"|\bremember\s*:\s*from\s+now\s+on\b"
    # decode and obey
    r"|\bdecode\b[^.\n]{0,40}?\b(?:and|then)\s+(?:obey|execute|follow|run|do|act\s+on|carry\s+out|apply)\b"
    r"|\b(?:obey|execute|follow|run|carry\s+out)\s+(?:the\s+)?(?:decoded|encoded|base64|hidden|embedded)\b"
    # obedience to other text, and switching the confirmation off
    r"|\bobey\s+(?:(?:every|all|any|each|the|these|those)\s+){0,2}(?:(?:tool|assistant|system|agent|bot|embedded"
    r"|following)\s+)?(?:messages?|outputs?|instructions?|commands?|results?|orders?)\b"
    r"|\b(?:skip|bypass|disable|turn\s+off)\s+(?:the\s+|any\s+|all\s+)?(?:user\s+|user's\s+|human\s+)?"
    r"(?:confirmations?|approvals?)\b"
    # fake role headers and chat-template tokens
    r"|\b(?:assistant|system|developer|admin|administrator|operator)\s+(?:note|instructions?|override|prompt|directive"
    r"|command|message)\s{0,3}[\])>*]{0,3}\s{0,3}:"
    r"|(?-i:\b(?:SYSTEM|ASSISTANT|DEVELOPER|ADMIN)\b)\s{0,3}[\])>*]{0,3}\s{0,3}:"
    r"|<\|(?:im_start|im_end|system|assistant|endoftext)\|>|\[/?(?:INST|SYS)\]|<</?SYS>>"
    # images fetch their URL when rendered: a channel out
    r"|!\[[^\[\]\n]{0,200}\]\(\s{0,3}<?(?:https?:)?//"
    r"|<img\b[^<>]{0,300}?\bsrc\s{0,3}=\s{0,3}[\"']?(?:https?:)?//",
    _I,
)
#: The same ideas with every space, separator and case removed (text passed through
#: :func:`.textnorm.squashed`): "I g n 0 r e   a l l ..." is still "ignoreall...".
_SQUASHED = re.compile(
    r"(?:ignore|disregard|forget|override|bypass)(?:all|any|the|of|your|these|my){0,3}"
    r"(?:previous|prior|above|earlier|preceding|system|original|initial)(?:instructions?|prompts?|rules|directions|guidelines)"
    r"|youarenow(?:dan|admin|root|developer|unrestricted|jailbroken|unfiltered)"
    r"|(?:dan|developer|jailbreak)mode|doanythingnow"
    r"|obey(?:every|all|any|each)(?:tool|assistant|system)?(?:messages?|instructions?|outputs?|commands?)"
    r"|(?:reveal|print|show|leak)(?:me)?(?:your|the)systemprompt"
)
_STRICT = re.compile(
    r"\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|should|shall)\b"
    r"|\bwithout\s+(?:asking|telling|notifying|checking\s+with|confirming\s+with)\s+(?:the\s+)?(?:user|customer|them"
    r"|anyone)\b"
    r"|\bwithout\s+(?:the\s+)?(?:user'?s?|customer'?s?)\s+(?:confirmation|approval|consent|permission|knowledge)\b"
    r"|\b(?:read\s+(?:out|back|aloud)|reveal|disclose|divulge|leak|dump|exfiltrate|recite|spell\s+out"
    r"|tell\s+(?:me|us|them|him|her)|give\s+(?:me|us)|send\s+(?:me|us|it|them)|include|paste|print|show\s+me"
    r"|ask\s+(?:for|them\s+for|the\s+(?:user|customer)\s+for)|collect)\b[^.\n]{0,60}?\b" + _SECRETS + r"\b"
    r"|(?:^|(?<=\n))[ \t>#*_|\[(-]{0,6}(?:system|assistant|developer|admin)\s{0,3}[\])]?\s{0,3}:"
    r"|\bnote\s+(?:to|for)\s+(?:the\s+)?(?:assistant|ai|agent|model|llm|chatbot|bot)\b"
    r"|\b(?:if|when)\s+you\s+are\s+an?\s+(?:ai|language\s+model|llm|assistant|agent|chatbot)\b"
    r"|\[[^\[\]\n]{0,200}\]\(\s{0,3}<?https?://[^\s)?#{$<]{1,300}[?#{$<]",
    _I,
)
_OUTWARD = re.compile(rf"\b{_VERB}\b", _I)
#: An address an outward action can reach: e-mail, URL, phone number. Bounded and made of
#: disjoint steps, so a miss costs a constant number of steps at each candidate position.
_ADDRESS = r"(?:[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{1,253}|https?://\S|\+?\d(?:[\s().-]{0,3}\d){7,14})"
_TO_ADDRESS = re.compile(rf"\b(?:to|with|at)\s+[^\s\w]{{0,3}}{_ADDRESS}", _I)
_ORDER = re.compile(
    r"\b(?:from\s+now\s+on|always|never|you\s+must|you\s+should|you\s+need\s+to|make\s+sure\s+(?:to|you)"
    r"|be\s+sure\s+to)\b",
    _I,
)
_STANDING = re.compile(
    r"\b(?:from\s+now\s+on|always|every\s+time|whenever|automatically|each\s+time|going\s+forward"
    r"|(?:for|in)\s+(?:the\s+)?future|from\s+here\s+on)\b",
    _I,
)
_EVERY = re.compile(r"\b(?:every|each|all)\b", _I)
_TO_WITH = re.compile(r"\b(?:to|with|there)\b", _I)
#: Words that make a long text's unjudged tail suspicious (searched in its squashed form).
_TAIL_WORDS = (
    "ignore",
    "disregard",
    "instruction",
    "youarenow",
    "fromnowon",
    "obey",
    "jailbreak",
    "systemprompt",
    "decode",
)
_TAIL_SIGNS = ("![", "](http", "<img", "<|")


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= _QUOTE_CHARS else flat[: _QUOTE_CHARS - 1] + "…")


#: A determiner before "email", "text", "post", …: the word is a noun ("changed my email to …").
_NOUN_BEFORE = re.compile(r"\b(?:my|your|their|his|her|our|its|the|a|an|this|that|new|old|work|personal)\s+$", _I)


def _outward_to_address(text: str) -> str | None:
    for verb in _OUTWARD.finditer(text):
        if _NOUN_BEFORE.search(text, max(0, verb.start() - 12), verb.start()):
            continue
        if to := _TO_ADDRESS.search(text, verb.end()):
            return f"outward action to an address {_quote(text[verb.start() : to.end()])}"
        return None  # no address after the first verb: none after a later one either
    return None


def _order_to_act(text: str) -> str | None:
    if (order := _ORDER.search(text)) and (verb := _OUTWARD.search(text, order.end())):
        return f"instruction to act {_quote(text[order.start() : verb.end()])}"
    return None


def _in_view(view: str, raw: str, strict: bool) -> str | None:
    if m := _INJECTION.search(view):
        return f"prompt-injection marker {_quote(m.group(0))}"
    if m := _SQUASHED.search(squashed(view)):
        return f"prompt-injection marker (spelled out) {_quote(m.group(0))}"
    if found := hazard(view, raw=raw, strict=strict):
        return found
    if not strict:
        return None
    if m := _STRICT.search(view):
        return f"instruction to the agent {_quote(m.group(0))}"
    return _outward_to_address(view) or _order_to_act(view)


def _unjudged_tail(tail: str) -> str | None:
    plain = normalise(tail)
    letters = squashed(plain)
    word = next((w for w in _TAIL_WORDS if w in letters), None) or next((s for s in _TAIL_SIGNS if s in plain), None)
    if word is None:
        return None
    return f"instruction word {word!r} past the first {MAX_SCAN_CHARS} characters (too long to judge)"


def marker(text: str, *, strict: bool) -> str | None:
    """Why ``text`` reads as an instruction to the agent, or None.

    Args:
        text: any length; the patterns read its first :data:`MAX_SCAN_CHARS` characters.
        strict: add the checks for text that is data (see the module docstring).
    """
    head = text[:MAX_SCAN_CHARS]
    for view in gate_views(head):
        if found := _in_view(view, head, strict):
            return found
    return _unjudged_tail(text[MAX_SCAN_CHARS:]) if len(text) > MAX_SCAN_CHARS else None


def attributed_marker(text: str) -> str | None:
    """Why text from a source other than the user changes what only the user may change (their
    contact, payout or approval details; a wish put in their mouth), or None."""
    for view in gate_views(text[:MAX_SCAN_CHARS]):
        if found := attributed(view):
            return found
    return None


def injection_marker(text: str) -> str | None:
    """The injection marker in ``text`` whoever wrote it (no strict checks), or None."""
    return marker(text, strict=False)


def outward_preference(text: str) -> bool:
    """A standing wish to act outward: "always ... send", "forward every ... to", "... to x@y"."""
    for view in gate_views(text[:MAX_SCAN_CHARS]):
        if _outward_to_address(view):
            return True
        if (standing := _STANDING.search(view)) and _OUTWARD.search(view, standing.end()):
            return True
        if (
            (verb := _OUTWARD.search(view))
            and (every := _EVERY.search(view, verb.end()))
            and _TO_WITH.search(view, every.end())
        ):
            return True
    return False
