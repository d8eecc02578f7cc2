"""benchmarks/reference.py finds a Python >= 3.12 for Code Mower by running each candidate, never by
its name: a pyenv shim for an unselected version fails when run, and a ``python3.13`` that is
really an older interpreter reports its own version. Where none qualifies, the reference columns
are skipped with a sentence saying so (no install is attempted)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import reference  # noqa: E402

SHIM = "#!/bin/sh\necho \"pyenv: $(basename \"$0\"): command not found\" >&2\nexit 127\n"


def _bin_dir(tmp_path: Path) -> Path:
    """A PATH directory holding a failing shim named python3.12 and, named python3.13, this
    (older) interpreter."""
    if sys.version_info >= (3, 12):
        pytest.skip("this interpreter itself qualifies; the test needs an older one")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "python3.12"
    shim.write_text(SHIM)
    shim.chmod(0o755)
    (bin_dir / "python3.13").symlink_to(sys.executable)
    return bin_dir


def _real_python_312_or_later() -> str | None:
    if sys.version_info >= (3, 12):
        return sys.executable
    for found in sorted((Path.home() / ".pyenv").glob("versions/3.1[2-9]*/bin/python3")):
        if reference.python_version(str(found)) is not None:
            return str(found)
    return None


def test_names_and_shims_do_not_qualify(tmp_path: Path) -> None:
    bin_dir = _bin_dir(tmp_path)
    pyenv = tmp_path / "pyenv"
    (pyenv / "versions" / "3.11.7" / "bin").mkdir(parents=True)
    (pyenv / "versions" / "3.11.7" / "bin" / "python3").symlink_to(sys.executable)
    assert reference.python_version(str(bin_dir / "python3.12")) is None
    assert reference.python_version(str(bin_dir / "python3.13")) == sys.version_info[:2]
    assert reference.find_python(str(bin_dir), pyenv) is None


def test_a_pyenv_install_qualifies_and_the_oldest_is_chosen(tmp_path: Path) -> None:
    real = _real_python_312_or_later()
    if real is None:
        pytest.skip("no Python >= 3.12 on this machine")
    version = reference.python_version(real)
    assert version is not None
    bin_dir = _bin_dir(tmp_path)
    pyenv = tmp_path / "pyenv"
    for name, target in (("3.11.7", sys.executable), (f"{version[0]}.{version[1]}.0", real)):
        (pyenv / "versions" / name / "bin").mkdir(parents=True)
        (pyenv / "versions" / name / "bin" / "python3").symlink_to(target)
    assert reference.find_python(str(bin_dir), pyenv) == str(pyenv / "versions" / f"{version[0]}.{version[1]}.0"
                                                             / "bin" / "python3")


def test_no_interpreter_skips_the_reference_with_a_reason(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = _bin_dir(tmp_path)
    bwrap = shutil.which("bwrap")
    if bwrap is not None:
        (bin_dir / "bwrap").symlink_to(bwrap)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    binary, reason = reference.reference_bin(tmp_path / "cache", None)
    assert binary is None
    expected = "no Python >= 3.12" if bwrap is not None else "bubblewrap"
    assert expected in reason
    assert not (tmp_path / "cache").exists()
