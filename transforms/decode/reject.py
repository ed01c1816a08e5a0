"""The exception the decoding layer raises to reject a record.

It lives in its own module so that every decoding step can raise it without importing
``transforms.decode.document`` (which imports all of them).
"""

from __future__ import annotations

__all__ = ["Reject"]


class Reject(Exception):
    """A record that cannot become a document, with a stable reason code and a short detail.

    ``reason`` is one of the codes in ``transforms.reasons``; ``detail`` is short human text
    (for example ``"404 Not Found"``) written next to it in the rejects output.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason, detail)
        self.reason = reason
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}" if self.detail else self.reason

    def __repr__(self) -> str:
        return f"Reject({self.reason!r}, {self.detail!r})"
