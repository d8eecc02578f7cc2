"""Run a project's own pytest suite once, contained like the provider, under the observing plugin.

The suite is the project's code, so it runs only when the user asked (``cm-graph tests record``)
and only as the provider runs: in the materialised bound commit (tracked blobs only; the checkout
is never touched), bound at the fixed run root inside bubblewrap with no network
(``--unshare-net``, proven by the provider's own loopback probe first), a scrubbed environment
(``provider_environment``: no tokens, no proxies, HOME and TMPDIR inside the scratch), the chosen
interpreter's install read-only, its own process group held by the provider's keeper (killed with
cm-graph however cm-graph ends) and a deadline. With no working containment it refuses rather
than run the project's code on the network. Which interpreter runs the suite is the user's
(``--python``); one that cannot import pytest is refused before anything runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..base.errors import SuiteRefusal
from .fixedroot import fixed_root
from .run import (
    bwrap_path,
    bwrap_prefix,
    interpreter_roots,
    probe_network,
    provider_environment,
    spawn_kept,
    stop_group,
    stop_signals_interrupt,
)

PLUGIN = Path(__file__).with_name("pytest_observer.py")
PLUGIN_MODULE = "cm_graph_observer"
DEFAULT_SUITE_TIMEOUT = 1800
PROBE_SECONDS = 60
MAX_RAW_BYTES = 512 * 1024 * 1024
# pytest's exit codes that are a run of the suite (some tests may have failed); any other
# (interrupted, internal error, usage error, nothing collected) is no run to map.
RAN = (0, 1)
_PYTEST_PROBE = "import sys, pytest; sys.stdout.write(pytest.__version__)"


def chosen_python(python: Path | None) -> Path:
    """The interpreter that runs the suite: ``python`` when given, else the one running cm-graph.
    Its path is kept as given (a venv's ``bin/python`` is a link to its base; the venv is what
    has pytest)."""
    chosen = Path(os.path.abspath(python)) if python is not None else Path(sys.executable)
    if not chosen.is_file() or not os.access(chosen, os.X_OK):
        raise SuiteRefusal("The --python interpreter does not exist or is not executable.", reason="no_pytest")
    return chosen


def python_roots(python: Path) -> tuple[Path, ...]:
    """What the sandbox binds read-only for ``python``: its environment (a venv's root) and the
    base interpreter it points at."""
    environment = python.parent.parent
    roots = set(interpreter_roots(environment))
    real = Path(os.path.realpath(python)).parent.parent
    if real != Path("/"):
        roots.add(real)
    return tuple(sorted(roots))


def run_suite(python: Path, scratch: Path, args: tuple[str, ...], *, timeout: float) -> dict[str, Any]:
    """Run ``python -m pytest ARGS`` in ``scratch/source`` contained; the plugin's raw record.

    ``scratch`` holds ``source`` (the materialised commit), and gets ``home``, ``tmp``,
    ``plugin`` and ``out`` here. Refusals: ``no_containment``, ``no_pytest``, ``suite_timeout``,
    ``suite_crashed``."""
    for name in ("home", "tmp", "plugin", "out"):
        os.mkdir(scratch / name, 0o700)
    shutil.copyfile(PLUGIN, scratch / "plugin" / f"{PLUGIN_MODULE}.py")
    read_only = python_roots(python)
    bwrap = bwrap_path()
    if bwrap is None or not probe_network(bwrap, python, read_only, scratch):
        # The probe runs the chosen interpreter: when cm-graph's own passes the same sandbox, the
        # sandbox works and the interpreter is what cannot run (no Python, or a broken one).
        ours = Path(sys.executable)
        if bwrap is not None and probe_network(bwrap, ours, python_roots(ours), scratch):
            raise SuiteRefusal("The chosen interpreter (--python) does not run as Python inside the sandbox; "
                               "name a Python interpreter that has pytest.", reason="no_pytest")
        raise SuiteRefusal("No working containment (bubblewrap with no network) is available, so the project's "
                           "suite is not run.", reason="no_containment")
    root = fixed_root()
    prefix = bwrap_prefix(bwrap, read_only, scratch, root, root / "source")
    env = provider_environment(root)
    # The project's own code comes from the scratch copy: its top (a flat layout) and its src/ (a src
    # layout), ahead of what the interpreter has installed. An editable install points at the
    # checkout, which the sandbox does not show (and whose code is not the bound commit's).
    paths = [root / "plugin", *([root / "source" / "src"] if (scratch / "source" / "src").is_dir() else []),
             root / "source"]
    env.update({"PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "PYTHONPATH": os.pathsep.join(map(str, paths)),
                "CM_GRAPH_OBSERVE_ROOT": str(root / "source"), "CM_GRAPH_OBSERVE_OUT": str(root / "out" / "raw.json")})
    try:
        probe = subprocess.run([*prefix, str(python), "-c", _PYTEST_PROBE], env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=PROBE_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise SuiteRefusal(f"The chosen interpreter (--python) did not import pytest within {PROBE_SECONDS} "
                           "seconds.", reason="no_pytest") from None
    if probe.returncode != 0:
        raise SuiteRefusal("pytest cannot be imported by the chosen interpreter (--python); install it there "
                           "or name one that has it.", reason="no_pytest")
    argv = [*prefix, str(python), "-m", "pytest", "-p", PLUGIN_MODULE, "-p", "no:cacheprovider", "-q", *args]
    with stop_signals_interrupt():  # SIGTERM/SIGHUP unwind like Ctrl-C: the group stopped, the scratch removed
        child, lifeline = spawn_kept(argv, cwd=scratch / "source", env=env)
        try:
            try:
                returncode = child.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise SuiteRefusal(f"The test suite ran past its {timeout:g}-second budget (--timeout) and was "
                                   "stopped; nothing was recorded.", reason="suite_timeout") from None
        finally:
            try:
                stop_group(child)
            finally:
                os.close(lifeline)
    return _raw(scratch / "out" / "raw.json", returncode)


def _raw(path: Path, returncode: int) -> dict[str, Any]:
    if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_RAW_BYTES:
        raise SuiteRefusal(f"The test suite ended (exit {returncode}) before pytest finished its session; "
                           "nothing was recorded.")
    try:
        found = json.loads(path.read_bytes())
    except ValueError:
        raise SuiteRefusal("The observing plugin's record is not readable; nothing was recorded.") from None
    if not isinstance(found, dict) or found.get("exit") not in RAN or not found.get("tests"):
        errors = [str(node) for node in found.get("collect_errors") or ()] if isinstance(found, dict) else []
        exit_status = found.get("exit") if isinstance(found, dict) else returncode
        said = ""
        if errors:  # name them, and the flag that records the rest anyway
            named = ", ".join(errors[:3]) + (f" and {len(errors) - 3} more" if len(errors) > 3 else "")
            said = (f" ({len(errors)} collection error(s): {named}; to record the tests that do collect, "
                    "pass `-- --continue-on-collection-errors`)")
        raise SuiteRefusal(f"pytest did not run the suite (exit {exit_status}{said}); nothing was recorded.")
    return found
