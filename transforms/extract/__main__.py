"""``python -m transforms.extract page.html [--mode full]``: print a page's title and text."""

import sys

from transforms.extract.extractor import main

sys.exit(main())
