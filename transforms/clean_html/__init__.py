"""CleanHtml: the Beam stage that turns archive records into rows and rejects, behind a crash guard."""

from transforms.clean_html.cleaner import build_cleaner, clean_record
from transforms.clean_html.transform import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_S, GUARDS, CleanHtml

__all__ = [
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIMEOUT_S",
    "GUARDS",
    "CleanHtml",
    "build_cleaner",
    "clean_record",
]
