"""Tool results written as a call and its reply, the shape function-calling agents log:

    ticket.get("TCK-48213")
    {"ticket_id": "TCK-48213", "status": "resolved", "closed_at": "2026-01-30"}

The reply is a JSON object, ``name: value`` lines under a first line naming the tool
("booking-tool :: hotel.modify", then "status: CONFIRMED", "confirmation: AP-559213", ...), or
``name=value`` lines from the first ("ticket=FT-20931", "status=open", ...).

What such a result is about is the object its reply names by id (the first ``*_id``, ``id``,
``*_ref``, reference or confirmation field with a digit in it:
``appointment.book(ticket="TCK-1")`` replies about the appointment it made), else the first
field named by the kind of thing it identifies ("ticket", "order", "booking": not "account",
which results of every kind name), else the call's
first argument that is an id (``order.track("NH-802331")``), else its first named argument that
is one (``plan.change(account="NB-0093318", to="Fibre 300")``). The
reply's fields, flattened to ``name=value``, are what a later result about the object restates
or leaves standing. Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["call_fields", "call_object", "call_readable", "is_call"]

# "ticket.get(...)", "plan.change(account=..., to=...)", "billing.update account=NB-1 bill_day=15"
_CALL = re.compile(r"^(?P<name>[A-Za-z_][\w.]{0,60})(?:\((?P<args>.{0,300})\)|[ \t]+(?P<bare>\w+=.{0,300}))\s*$")
# An argument: name="value", name=value, or a bare "value".
_ARG = re.compile(r"""(?:(?P<key>\w+)\s*=\s*)?(?P<value>"[^"]{0,120}"|'[^']{0,120}'|[^,\s()]{1,120})""")
_ID_FIELD = re.compile(r"(?:^|[_ ])(?:id|ref|reference|confirmation)$", re.IGNORECASE)
# A field named by the kind of thing its value identifies ("ticket": "FT-20931"): what the reply
# is about when no field is an id by name. Not an account or a subscription: results of every
# kind (a line test, a plan change, a contact preference) name the account they are done on.
_OBJECT_FIELD = re.compile(
    r"(?:^|[_ ])(?:ticket|order|booking|case|appointment|reservation|request|invoice|rma"
    r"|pnr|listing|refund|claim|shipment|parcel)(?:[_ ]?(?:no|number|code))?$",
    re.IGNORECASE,
)
# A reply line "name: value" or "name=value" ("booking_ref: Q7XK2M", "status=resolved").
_LINE_FIELD = re.compile(r"\s{0,8}(?P<name>[A-Za-z][\w .()/-]{0,40}?)\s{0,4}(?::\s{1,8}|=\s{0,8})(?P<value>\S.{0,300})")
_IDLIKE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/#-]{1,60}")
_DIGIT = re.compile(r"\d")
# A date, an amount or a small count is a value, never what the result is about.
_NOT_ID = re.compile(r"\d{4}-\d{2}-\d{2}.*|\d+\.\d+|\d{1,2}")
# A shell prompt before a command ("$ pip show fastapi").
_PROMPT = re.compile(r"[$>%]\s")
#: Characters of a value kept in a flattened field.
VALUE_CHARS = 120


def _split(result: str) -> tuple[re.Match[str] | None, str]:
    first, _, rest = result.strip().partition("\n")
    return _CALL.match(first.strip()), rest.strip()


def _reply_of(result: str) -> dict[str, Any] | None:
    """The reply of ``result``: the body under its call or head line, a JSON object, or
    ``name=value`` lines from the first ("ticket=FT-20931", "status=open", ...)."""
    call, body = _split(result)
    if call is None and _fields_only(result) and (found := _lines(result.strip())):
        return found
    return _reply(body) or _json(result)


def _fields_only(result: str) -> bool:
    """``result`` is ``name=value`` lines from its first ("ticket=FT-20931\nstatus=open")."""
    text = result.strip()
    first = text.partition("\n")[0]
    return "\n" in text and "=" in first and _LINE_FIELD.fullmatch(first) is not None


def _reply(body: str) -> dict[str, Any] | None:
    if not body.startswith("{"):
        return _lines(body)
    try:
        data = json.loads(body, parse_float=str)  # "39.90" stays as written
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _lines(body: str) -> dict[str, Any] | None:
    """A reply of ``name: value`` lines (two of them at least, and two thirds of its lines)."""
    lines = [line for line in body.splitlines() if line.strip()]
    found = [m for line in lines if (m := _LINE_FIELD.fullmatch(line.rstrip()))]
    if len(found) < 2 or 3 * len(found) < 2 * len(lines):
        return None
    out: dict[str, Any] = {}
    for m in found:
        out.setdefault(m["name"].strip(), m["value"].strip())
    return out


def _id(value: object) -> str | None:
    text = str(value).strip("\"' ")
    if _IDLIKE.fullmatch(text) and _DIGIT.search(text) and not _NOT_ID.fullmatch(text):
        return text
    return None


def is_call(result: str) -> bool:
    """Whether ``result`` is a call with its reply (or a JSON reply alone)."""
    call, body = _split(result)
    return (
        call is not None
        or (body.startswith("{") and _reply(body) is not None)
        or _json(result) is not None
        or (_fields_only(result) and _lines(result.strip()) is not None)
    )


def _json(result: str) -> dict[str, Any] | None:
    text = result.strip()
    return _reply(text) if text.startswith("{") else None


def call_object(result: str) -> str | None:
    """The id of what a call-and-reply result is about (see the module docstring), or None when
    ``result`` is not one or names no id."""
    call, _ = _split(result)
    reply = _reply_of(result)
    if call is None and reply is None:
        return None
    for field in (_ID_FIELD, _OBJECT_FIELD):
        for name, value in (reply or {}).items():
            if field.search(name) and (found := _id(value)):
                return found
    if call is None:
        return None
    args = [(m["key"], m["value"]) for m in _ARG.finditer(call["args"] or call["bare"] or "")]
    positional, named = [v for k, v in args if not k], [v for k, v in args if k]
    return next((found for v in [*positional, *named] if (found := _id(v))), None)


def _flat(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_flat(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_flat(v) for v in value) or "none"
    return str(value).lower() if isinstance(value, bool) else str(value)


def call_fields(result: str) -> list[str] | None:
    """The reply's fields as ``name=value`` (nested values flattened), or None when ``result``'s
    body is no JSON object."""
    reply = _reply_of(result)
    if reply is None:
        return None
    return [f"{k}={_flat(v)[:VALUE_CHARS]}" for k, v in reply.items()]


def call_readable(result: str) -> str | None:
    """``result`` in words: the call's name and arguments, then its reply's fields ("ticket get
    TCK-48213: ticket_id=TCK-48213; status=resolved"), so a question about "ticket TCK-48213" or
    its status meets it; None when it is not a call with a JSON reply."""
    call, _ = _split(result)
    fields = call_fields(result)
    if fields is None:
        return None
    if call is None:  # "booking-tool :: hotel.modify" over its lines
        head = result.strip().partition("\n")[0]
        if head[:1] == "{" or _PROMPT.match(head):
            return None  # a JSON reply alone, or a command's output: read as written
        if _fields_only(result):
            return "; ".join(fields)
        return f"{' '.join(re.sub(r'[._:|]+', ' ', head).split())}: {'; '.join(fields)}"
    name = re.sub(r"[._]+", " ", call["name"]).strip()
    args = ", ".join(
        f"{m['key']} {m['value'].strip(chr(34) + chr(39))}" if m["key"] else m["value"].strip(chr(34) + chr(39))
        for m in _ARG.finditer(call["args"] or call["bare"] or "")
    )
    return f"{name} {args}: {'; '.join(fields)}"
