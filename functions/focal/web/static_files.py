"""The playground page's files, shipped in `focal.web/static`, with the media type each is served as."""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_FILES = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
                "panels.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8"}
