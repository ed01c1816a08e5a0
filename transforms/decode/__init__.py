"""Decode: an archive record's payload bytes in, HTML text (or a ``Reject``) out. No Beam here."""

from transforms.decode.charset import DecodedText, decode_text, utf8_form, utf8_source
from transforms.decode.document import DEFAULT_MAX_BYTES, Decoded, decode_document, is_2xx
from transforms.decode.reject import Reject

__all__ = [
    "DEFAULT_MAX_BYTES",
    "Decoded",
    "DecodedText",
    "Reject",
    "decode_document",
    "decode_text",
    "is_2xx",
    "utf8_form",
    "utf8_source",
]
