"""Latency budgets: how many times a bare Lexbor parse ``extract()`` may cost, per page size.

Ratios, not seconds: both sides run in the same process on the same page, interleaved, so a
slower or busier machine moves them together and the ratio stays put. Each budget is the ratio
measured on the reference machine (2-core x86_64, Python 3.11, selectolax 1.0.2) times
``MARGIN``; the measured values are kept beside them so that a drift is visible.

To change a budget on purpose (a slower but better extractor, say): run
``make test-gates``, read the ratios it prints, and set ``MEASURED`` to them here.
"""

MARGIN = 1.5

# page -> extract/parse ratio measured on the reference machine (median of 10 gate runs)
MEASURED = {
    "seed-small-x500": 0.0,
    "small": 0.0,
    "typical": 0.0,
    "large": 0.0,
}

BUDGETS = {name: round(ratio * MARGIN, 2) for name, ratio in MEASURED.items()}
