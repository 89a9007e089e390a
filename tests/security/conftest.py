"""Put `functions` on sys.path (the package is also installed editable; this keeps a bare checkout working)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "functions") not in sys.path:
    sys.path.insert(0, str(ROOT / "functions"))
