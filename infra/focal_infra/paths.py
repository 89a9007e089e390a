"""Repository paths, and making the engine importable for the CDK app (one pipeline definition)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = ROOT / "functions"
EXAMPLES = ROOT / "examples"
LAYERS = ROOT / "layers"

if str(FUNCTIONS) not in sys.path:
    sys.path.insert(0, str(FUNCTIONS))
