"""A PostgreSQL connection URL read from the environment, checked before any driver sees it,
and the one redaction every message from a database driver passes through.

Why both. libpq and Python split a URL differently where a user or password holds a reserved
character unencoded: libpq ends the user and password at the first ``@`` before the first
``/``, while RFC 3986 (and :func:`urllib.parse.urlsplit`) ends the authority at the first
``/``, ``?`` or ``#``. So ``postgresql://shop:Sign@Secret@host/db`` reaches libpq as host
``Secret@host``, and its error echoes that fragment of the password (``could not translate
host name "Secret@127.0.0.1"``); ``Slash/1234`` or ``Query?q7`` in a password end up as a
port or a query parameter in libpq's messages. A URL whose parts the two would read
differently is therefore refused here, with a one-line hint to percent-encode, and never
handed to the driver. What remains of a driver's message is then scrubbed of the URL's user
information in every form a driver can echo it: as written, percent-decoded, and in the
pieces it splits into at ``@ / ? : #``.

Pure logic, no driver: :mod:`pipelines.lake.ingest` (sources) and reconciliation against a
database both call it, so that there is one redaction to get right.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass

SCHEMES = ("postgresql", "postgres")
# Where RFC 3986's authority ends, and where a driver may cut a user or password into pieces.
_AUTHORITY_END = "/?#"
_BOUNDARIES = re.compile(r"[@/?:#]")
# Pieces shorter than this are not scrubbed on their own (the whole values always are): two
# characters of a password say nothing, and scrubbing them would blank every message.
_SHORTEST_PIECE = 3
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_QUERY_SECRETS = ("password", "sslpassword")
# What the refusals suggest: the encoding of each reserved character, and the call that does it.
ENCODE_HINT = (
    "percent-encode the user and password (@ as %40, / as %2F, ? as %3F, # as %23, "
    "% as %25, [ as %5B; urllib.parse.quote(password, safe=''))"
)
REDACTED = "***"


class DatabaseUrlError(ValueError):
    """A URL that is not handed to a driver; the message never shows any part of it."""


@dataclass(frozen=True)
class DatabaseUrl:
    """A checked URL: ``url`` is what the driver gets (with ``connect_timeout`` added unless
    given), ``secrets`` what no message may show."""

    url: str
    secrets: tuple[str, ...]

    def __repr__(self) -> str:
        return "DatabaseUrl(<not shown>)"

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)

    def driver_message(self, error: BaseException) -> str:
        """A driver's error on one line, without its status prefix (``IO: [libpq] ``) and
        without any secret."""
        text = " ".join(str(error).split())
        return self.redact(re.sub(r"^[A-Z_]+: (\[libpq\] )?", "", text))


def parse_database_url(text: str, *, connect_timeout: int) -> DatabaseUrl:
    """``text`` checked as a ``postgresql://`` URL that libpq reads as written, or
    :class:`DatabaseUrlError` saying what to change (and nothing of the value)."""
    text = text.strip()
    scheme, separator, rest = text.partition("://")
    if not separator or scheme.lower() not in SCHEMES or not rest:
        # Not even the scheme is shown: the value may be a password pasted by mistake.
        raise DatabaseUrlError("does not hold a postgresql:// URL")
    end = min((i for i in map(rest.find, _AUTHORITY_END) if i >= 0), default=len(rest))
    authority, tail = rest[:end], rest[end:]
    userinfo = authority.rpartition("@")[0]
    if "@" in tail:
        raise DatabaseUrlError(
            f"the user or password holds an unencoded {tail[0]!r}, which ends the host part "
            f"of a URL; {ENCODE_HINT}"
        )
    if "@" in userinfo:
        raise DatabaseUrlError(
            f"the user or password holds an unencoded '@', which libpq takes for the end of "
            f"the password; {ENCODE_HINT}"
        )
    if "[" in userinfo or "]" in userinfo:
        raise DatabaseUrlError(
            f"the user or password holds an unencoded '[' or ']', which only an IPv6 host "
            f"may hold; {ENCODE_HINT}"
        )
    if "#" in tail:
        raise DatabaseUrlError(
            f"holds a '#', which starts no part of a PostgreSQL URL; {ENCODE_HINT}"
        )
    if _BAD_ESCAPE.search(text):
        # libpq quotes the whole text it fails to decode, which may be the password.
        raise DatabaseUrlError(f"holds a '%' that starts no %XX escape; {ENCODE_HINT}")
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError:  # a malformed IPv6 host; Python's message shows nothing of the URL
        raise DatabaseUrlError("holds a host that is not a valid IPv6 address") from None
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    # The user information whole and its password; the user name only as a piece of it.
    written = [userinfo, userinfo.partition(":")[2]]
    written += [v for k, v in query if k in _QUERY_SECRETS]  # decoded
    written += [v for k, v in _raw_pairs(parts.query) if k in _QUERY_SECRETS]  # as written
    if not any(k == "connect_timeout" for k, _ in query):
        query.append(("connect_timeout", str(connect_timeout)))
    # quote, not quote_plus: libpq reads a "+" in a URI as itself, not as a space.
    encoded = urllib.parse.urlencode(query, quote_via=urllib.parse.quote)
    url = urllib.parse.urlunsplit(parts._replace(query=encoded))
    return DatabaseUrl(url, secret_forms(written))


def _raw_pairs(query: str) -> list[tuple[str, str]]:
    """A query's ``key=value`` pairs exactly as written (not decoded)."""
    pairs = (pair.partition("=") for pair in query.split("&") if pair)
    return [(key, value) for key, _, value in pairs]


def secret_forms(values: Iterable[str]) -> tuple[str, ...]:
    """Every form in which a driver may echo each of ``values``: as written, percent-decoded,
    and the pieces of both split at ``@ / ? : #`` (those of at least three characters);
    longest first, so that no part of a longer one is left after a shorter one goes."""
    forms: set[str] = set()
    for value in values:
        for whole in (value, urllib.parse.unquote(value)):
            if not whole:
                continue
            forms.add(whole)
            forms.update(p for p in _BOUNDARIES.split(whole) if len(p) >= _SHORTEST_PIECE)
    return tuple(sorted(forms, key=lambda s: (-len(s), s)))


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` replaced by ``***`` wherever it appears (a driver
    repeats parts of a URL in its messages, not only a ``user:password@`` part). Give it
    :func:`secret_forms`, longest first."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return text
