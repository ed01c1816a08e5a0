"""Extract: HTML in, the page's title and main text out. No Beam here.

``extract(html, url)`` is what the job runs on every page; ``python -m transforms.extract
page.html`` runs it from the command line.
"""

from transforms.extract.extractor import FORMATS, MODES, Extracted, Extractor, extract

__all__ = ["FORMATS", "MODES", "Extracted", "Extractor", "extract"]
