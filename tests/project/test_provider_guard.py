"""The one provider skip guard: every test that runs the real provider carries the ``provider``
marker, and the marker alone skips it, with one reason, where the pinned provider is missing.

The proof runs the marked tests with an interpreter that has everything cm-graph's tests need but
no ``graphify``: a fresh virtual environment whose site directory is this one's (a ``.pth`` line),
and a PATH without the provider. Every marked test must be skipped by the guard's reason (none may
fail because it checked something else, such as bubblewrap, or nothing at all).
"""

from __future__ import annotations

import os
import re
import site
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _interpreter_without_the_provider(base: Path) -> tuple[Path, dict[str, str]]:
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    target = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                            capture_output=True, text=True, check=True).stdout.strip()
    ours = [path for path in site.getsitepackages() if Path(path).is_dir()]
    lines = "".join(f"import site; site.addsitedir({path!r})\n" for path in ours)
    (Path(target) / "cm_graph_tests_site.pth").write_text(lines, encoding="utf-8")
    path = [entry for entry in os.environ.get("PATH", "").split(os.pathsep)
            if entry and not (Path(entry) / "graphify").exists()]
    env = {**os.environ, "PATH": os.pathsep.join([str(venv / "bin"), *path])}
    env.pop("VIRTUAL_ENV", None)
    return python, env


def test_every_provider_test_is_skipped_by_the_one_guard_without_the_provider(tmp_path: Path) -> None:
    python, env = _interpreter_without_the_provider(tmp_path)
    done = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "provider", "-rs",
         "--basetemp", str(tmp_path / "pytest"), "tests"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    counts = dict((word, int(number)) for number, word in re.findall(r"(\d+) (\w+)", summary))
    assert set(counts) == {"skipped", "deselected"} and counts["skipped"] >= 20, summary
    reasons = re.findall(r"^SKIPPED \[(\d+)\] [^\s:]+(?::\d+)?: (.*)$", done.stdout, re.MULTILINE)
    assert sum(int(n) for n, _ in reasons) == counts["skipped"]
    [reason] = {reason for _, reason in reasons}
    assert reason.startswith("pinned provider unavailable: The pinned provider is not installed; ")
