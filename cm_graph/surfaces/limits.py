"""The size of a reply every tool shares: its default and its cap, in characters of wire JSON.

The default keeps an answer far below hosts' warnings (about 10k tokens), the cap below the size
at which they spill a reply to a file (50,000 characters). A tool's schema lists the cap; the
adapters apply the default (no schema lists it, to keep ``tools/list`` short).
"""

from __future__ import annotations

DEFAULT_REPLY_CHARS, HARD_CAP_CHARS = 8000, 40_000
