"""The Retry-After header of an HTTP error response, read once for every edge that records one
(the client's and the tap's HTTP transports): the seconds it asks for, which a
``transport.refused`` finding carries (``verdict._findings.refused``) and ``decide`` waits."""

from __future__ import annotations

import datetime
import math
from email.utils import parsedate_to_datetime

_MOST: int = 10**12 - 1
"""The most seconds read (12 digits, 31,000 years): a longer delay-seconds is read as this."""


def retry_after(value: str | None) -> int | None:
    """The seconds a Retry-After header's value asks for (RFC 9110 s10.2.3): delay-seconds, or an
    HTTP-date counted from now (rounded up, a past date is 0); None when absent or neither."""
    value = (value or "").strip()
    if value.isascii() and value.isdigit():  # past 12 digits the same as 12 nines
        return int(value) if len(value) <= 12 else _MOST
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # RFC 9110 s5.6.7: an HTTP-date is GMT
        return None
    return max(0, math.ceil((when - datetime.datetime.now(datetime.UTC)).total_seconds()))
