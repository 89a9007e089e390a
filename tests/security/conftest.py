"""Put `functions` (and `tests`, for the shared helpers) on sys.path (the package is also installed
editable; this keeps a bare checkout working)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for folder in (ROOT / "functions", ROOT / "tests"):  # tests/: helpers shared by the test tiers
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
