"""The stable reason codes a record can be rejected with, and the record types that are skipped.

These strings are written to ``rejects/*.parquet`` and ``_SUMMARY.json``; users filter on them,
so a code is never renamed. The README's table is checked against ``REJECT_REASONS`` by a test.
"""

HTTP_STATUS = "http_status"
NOT_HTML = "not_html"
TOO_LARGE = "too_large"
HEADER_TOO_LARGE = "header_too_large"
BAD_HTTP = "bad_http"
BAD_ENCODING = "bad_encoding"
NO_TEXT = "no_text"
EXTRACT_ERROR = "extract_error"
TIMEOUT = "timeout"
UNREADABLE_FILE = "unreadable_file"
LANGUAGE = "language"

REJECT_REASONS: dict[str, str] = {
    HTTP_STATUS: "the HTTP status is not 2xx",
    NOT_HTML: "the content is not HTML or XHTML (by header, or by sniffing when the header is missing or generic)",
    TOO_LARGE: "the record or its decompressed body is over the size cap, or cleaning it needs more memory than `--extract_memory_mb`",
    HEADER_TOO_LARGE: "a WARC record whose header is over the reader's 32 KiB limit (a huge WARC-Target-URI, say); the records around it are read",
    BAD_HTTP: "a response record whose HTTP head cannot be parsed (no status line, broken chunking)",
    BAD_ENCODING: "a Content-Encoding that is unknown or whose body cannot be decompressed",
    NO_TEXT: "extraction found no text",
    EXTRACT_ERROR: "decoding or extraction raised an unexpected error, or the cleaning process crashed, on this document",
    TIMEOUT: "extraction took longer than the time limit",
    UNREADABLE_FILE: "an input file that could not be opened, is not a regular file or is not WARC, ARC or tar; an archive nested two levels deep in a tar",
    LANGUAGE: "the text's language is not one of --languages, or its score is under --min_language_score",
}

# Record types that carry a document: WARC response and resource records, ARC records
# (read as responses) and HTML members of tar archives.
CANDIDATE_TYPES = frozenset({"response", "resource", "tar_member"})
