"""Whether a test that needs the network can have it: asked once per run, quickly.

A test that fetches from a package registry (the JavaScript parsers of the benchmark's ground
truth, the MCP Inspector) skips with this reason when the registry cannot be reached, instead of
failing, or hanging in a client's retries, on a machine that is offline.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

PROBE_SECONDS = 20


@functools.cache
def npm_registry_unreachable() -> str | None:
    """None when ``npm ping`` reaches the configured registry, else why not (one probe per run,
    no retries: npm's own configuration, proxy included, is what the test would use)."""
    if shutil.which("npm") is None:
        return "npm is not installed"
    try:
        done = subprocess.run(["npm", "ping", "--fetch-retries=0", "--fetch-timeout=10000"],
                              capture_output=True, text=True, timeout=PROBE_SECONDS)
    except subprocess.TimeoutExpired:
        return f"the npm registry did not answer within {PROBE_SECONDS} s"
    if done.returncode != 0:
        said = [line.removeprefix("npm error ") for line in done.stderr.splitlines()
                if "FetchError:" in line or line.startswith("npm error code")]
        return "the npm registry is unreachable: " + (said[-1][:200] if said else f"npm ping exited {done.returncode}")
    return None
