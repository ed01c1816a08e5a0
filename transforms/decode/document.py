"""The decoding entry point: an archive record's payload in, HTML text (or a ``Reject``) out.

``decode_document`` chains the steps: size cap, HTTP status, transfer and content encodings
(``http_response``), the HTML check (``content_type``) and the charset chain (``charset``).
It is a pure function of its arguments, so it is safe to call from any Beam worker.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from transforms import reasons
from transforms.decode.charset import decode_text, utf8_form, utf8_source
from transforms.decode.content_type import parse_content_type, require_html
from transforms.decode.http import (
    decode_body,
    inflate_undeclared_gzip,
    parse_response,
    status_text,
)
from transforms.decode.reject import Reject

__all__ = ["DEFAULT_MAX_BYTES", "Decoded", "decode_document", "is_2xx"]

DEFAULT_MAX_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Decoded:
    """A document ready for extraction.

    ``content_type`` is the declared mime essence, or ``text/html`` when it was missing or
    generic and the bytes sniffed as HTML. ``charset`` is Python's codec name and
    ``charset_source`` says which evidence chose it (see ``transforms.decode.charset``).
    ``html_bytes`` is the size of the decoded body before charset decoding. ``utf8`` is that
    body when the text is exactly its strict UTF-8 decoding (no byte-order mark, nothing
    replaced or removed), else None: the parser can take it as it is instead of encoding the
    text back to the same bytes.

    ``text`` is the text as the decoding made it, or None when ``utf8`` stands for it: the
    common page, plain UTF-8 (``charset.utf8_source``), is parsed as its bytes and its text
    never made unless asked for, as ``html`` (the text either way) does.
    """

    text: str | None
    http_status: int | None
    content_type: str
    charset: str
    charset_source: str
    html_bytes: int
    utf8: bytes | None = field(default=None, repr=False, compare=False)

    @functools.cached_property
    def html(self) -> str:
        """The page's text (made from ``utf8`` when first asked for, if ``text`` is None)."""
        return self.text if self.text is not None else self.utf8.decode("utf-8")


def is_2xx(status: int) -> bool:
    """The default status filter: only successful responses carry the page."""
    return 200 <= status < 300


def decode_document(
    payload: bytes,
    *,
    is_http: bool,
    content_type: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    accept_status: Callable[[int], bool] = is_2xx,
) -> Decoded:
    """Turn a record payload into HTML text, or raise ``Reject`` with a code from ``reasons``.

    With ``is_http`` the payload is a whole HTTP response (WARC response or ARC record): its
    status, encodings and Content-Type header are used and ``content_type`` is ignored.
    Otherwise the payload is the document itself (WARC resource record, tar member) and
    ``content_type`` is the record's own type, if any. Payloads and decoded bodies over
    ``max_bytes`` are rejected as ``TOO_LARGE``. A body that is gzip though no header says so
    is inflated (under the same cap) before the HTML check.
    """
    if len(payload) > max_bytes:
        raise Reject(reasons.TOO_LARGE, f"payload of {len(payload)} bytes over {max_bytes} bytes")
    status: int | None = None
    if is_http:
        response = parse_response(payload)
        status = response.status
        if not accept_status(status):
            raise Reject(reasons.HTTP_STATUS, status_text(status, response.reason))
        body = decode_body(response, max_bytes=max_bytes)
        content_type = response.headers.get("Content-Type")
    else:
        body = payload
    body = inflate_undeclared_gzip(body, max_bytes=max_bytes)
    mime, declared_charset = parse_content_type(content_type)
    mime = require_html(mime, body)
    source = utf8_source(body, declared_charset)
    if source is not None:
        return Decoded(None, status, mime, "utf-8", source, len(body), utf8=body)
    text = decode_text(body, declared_charset)
    return Decoded(
        text=text.text,
        http_status=status,
        content_type=mime,
        charset=text.charset,
        charset_source=text.source,
        html_bytes=len(body),
        utf8=utf8_form(body, text),
    )
