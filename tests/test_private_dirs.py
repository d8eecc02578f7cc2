"""Private state directories made by several processes at once (a race seen in the suite: two
``feedback record`` runs both found ``feedback/`` missing and the slower one's mkdir failed)."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from cm_graph.base.errors import Unsafe
from cm_graph.base.privfs import ensure_private_dir


def test_concurrent_creators_of_one_private_tree_all_succeed(tmp_path: Path) -> None:
    root = tmp_path / "state"
    root.mkdir(mode=0o700)
    failures: list[BaseException] = []
    for attempt in range(40):
        target = root / f"run{attempt}" / "a" / "b"
        start = threading.Barrier(6)

        def create(target: Path = target, start: threading.Barrier = start) -> None:
            start.wait()
            try:
                ensure_private_dir(target, private_from=root)
            except BaseException as error:  # noqa: BLE001 - collected and asserted below
                failures.append(error)

        threads = [threading.Thread(target=create) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert stat.S_IMODE(os.lstat(target).st_mode) == 0o700
    assert failures == []


def test_a_lost_race_to_a_foreign_directory_is_still_refused(tmp_path: Path) -> None:
    """The directory another process made is judged like any other: made world-readable, refused."""
    root = tmp_path / "state"
    root.mkdir(mode=0o700)
    (root / "shared").mkdir(mode=0o755)
    os.chmod(root / "shared", 0o755)
    with pytest.raises(Unsafe):
        ensure_private_dir(root / "shared" / "x", private_from=root)
