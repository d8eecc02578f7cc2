"""Run the pinned provider: verified install, scrubbed environment, contained, bounded in time.

The provider is third-party code reading a whole repository, so it gets exactly what it needs:
the materialised commit (no .git, no working-tree extras), its own HOME/TMPDIR inside the
scratch dir, no tokens or proxies, no network where bubblewrap can take it away, its own process
group, and a deadline after which the whole group is killed. The group is led by a keeper
(``provider_keeper.py``) that kills it as soon as this process ends, however it ends.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import ProviderRefusal
from ..generation.manifest import PINNED_PROVIDER, ProviderPin
from ..index.graphmodel import normalise_distribution
from .cache import ProviderCache
from .fixedroot import fixed_root, moved_to_fixed_root, normalise_inventory, pin_mtimes

DEFAULT_TIMEOUT_SECONDS = 900
TERMINATE_GRACE_SECONDS = 5
REAP_WAIT_SECONDS = 10
BWRAP_CANDIDATES = ("/usr/bin/bwrap", "/usr/local/bin/bwrap")
SYSTEM_READ_ONLY = (
    "/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libexec", "/bin",
    "/sbin", "/usr/bin", "/usr/sbin", "/usr/share", "/etc/ld.so.cache", "/etc/ld.so.conf",
    "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime", "/etc/timezone", "/etc/passwd",
    "/etc/group", "/etc/nsswitch.conf", "/etc/os-release", "/etc/ssl/openssl.cnf",
)

# How the README installs the provider (the `provider` extra pins graphifyy==0.9.58), in the
# interpreter that runs cm-graph, so the remedy is one the user has already seen.
INSTALL_REMEDY = (
    "from the cm-graph checkout run `python -m pip install -e '.[provider,mcp,dev]'` "
    "(or `python -m pip install graphifyy==0.9.58`) with the interpreter that runs cm-graph."
)


@dataclass(frozen=True)
class VerifiedProvider:
    executable: Path
    read_only: tuple[Path, ...]
    pin: ProviderPin


def default_executable() -> Path | None:
    beside = Path(sys.executable).parent / "graphify"
    if beside.is_file():
        return beside
    found = shutil.which("graphify")
    return Path(found) if found else None


def _metadata_field(text: str, name: str) -> str | None:
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        if key.strip().lower() == name.lower():
            return value.strip()
    return None


def verify_provider(executable: Path | None, pin: ProviderPin = PINNED_PROVIDER) -> VerifiedProvider:
    """Prove the executable belongs to an install of exactly the pinned distribution and version."""
    if executable is None:
        raise ProviderRefusal(
            f"The pinned provider is not installed; {INSTALL_REMEDY}"
        )
    executable = Path(os.path.realpath(executable))
    if not executable.is_file():
        raise ProviderRefusal("The provider executable does not exist.")
    root = executable.parent.parent
    for record in sorted(root.glob("lib*/python*/site-packages/*.dist-info/RECORD")):
        info = record.parent
        meta = (info / "METADATA").read_text(encoding="utf-8", errors="replace")[:65536]
        name, version = _metadata_field(meta, "Name"), _metadata_field(meta, "Version")
        if name is None or normalise_distribution(name) != normalise_distribution(pin.distribution):
            continue
        listed = _recorded_hash(record, executable)
        if listed is None:
            continue
        if version != pin.version:
            raise ProviderRefusal(
                f"The installed provider is {pin.distribution}=={version}, but the pin is {pin.requirement}; "
                f"{INSTALL_REMEDY}"
            )
        if listed and listed != _urlsafe_sha256(executable):
            raise ProviderRefusal("The provider executable was modified in place after install.")
        return VerifiedProvider(executable, interpreter_roots(root), pin)
    raise ProviderRefusal(f"The provider executable is not part of an installed {pin.requirement}.")


def _recorded_hash(record: Path, executable: Path) -> str | None:
    """The RECORD hash of ``executable`` ("" when listed without one), None when not listed."""
    for line in record.read_text(encoding="utf-8", errors="replace").splitlines()[:200000]:
        path, _, rest = line.partition(",")
        candidate = Path(os.path.realpath(record.parent.parent / path))
        if candidate == executable:
            digest = rest.split(",", 1)[0]
            return digest.split("=", 1)[1] if digest.startswith("sha256=") else ""
    return None


def _urlsafe_sha256(path: Path) -> str:
    digest = hashlib.sha256(path.read_bytes()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def interpreter_roots(environment: Path) -> tuple[Path, ...]:
    """The provider's environment plus the base interpreter a venv points at (read-only)."""
    roots = {environment}
    config = environment / "pyvenv.cfg"
    if config.is_file():
        for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() in ("home", "base-prefix", "base-exec-prefix", "executable"):
                value = value.strip()
                if value:
                    path = Path(os.path.realpath(value))
                    roots.add(path.parent if key.strip() in ("home", "executable") else path)
    home = Path.home().resolve()
    return tuple(sorted(
        root for root in roots
        if root != Path("/") and root != home and root not in home.parents
    ))


def provider_environment(scratch: Path) -> dict[str, str]:
    """The provider's whole environment. ``GIT_CEILING_DIRECTORIES`` stops the provider's
    ``git rev-parse HEAD`` (it stamps ``built_at_commit`` into graph.json when the tree sits in
    a repository) from finding any repository above the materialised tree, which holds no
    ``.git`` (the census leaves every ``.git`` segment out); ``safe.bareRepository=explicit``
    stops it from taking the tree itself for a bare repository when the commit tracks ``HEAD``,
    ``objects/``, ``refs/`` and a ``config`` of its choosing."""
    env = {name: os.environ[name] for name in ("PATH",) if name in os.environ}
    home = scratch / "home"
    env.update({
        "no_proxy": "*", "NO_PROXY": "*", "http_proxy": "", "https_proxy": "", "HTTP_PROXY": "",
        "HTTPS_PROXY": "", "ALL_PROXY": "", "all_proxy": "", "PYTHONNOUSERSITE": "1",
        "GIT_TERMINAL_PROMPT": "0", "GIT_CEILING_DIRECTORIES": str(scratch), "HOME": str(home),
        "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.bareRepository", "GIT_CONFIG_VALUE_0": "explicit",
        "TMPDIR": str(scratch / "tmp"),
        "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"), "LC_ALL": "C", "LANG": "C", "TZ": "UTC",
    })
    return env


def bwrap_path() -> str | None:
    for candidate in BWRAP_CANDIDATES:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def bwrap_prefix(
    bwrap: str, read_only: tuple[Path, ...], writable: Path, mount_at: Path | None = None,
    workdir: Path | None = None,
) -> list[str]:
    """The bubblewrap command line: system and interpreter read-only, ``writable`` bound
    read-write at ``mount_at`` (the fixed run root; ``writable`` itself by default), started in
    ``workdir`` (a path inside the sandbox) when given."""
    argv = [
        bwrap, "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-pid",
        "--unshare-cgroup-try", "--new-session", "--die-with-parent",
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
    ]
    for path in (*SYSTEM_READ_ONLY, *map(str, read_only)):
        argv += ["--ro-bind-try", path, path]
        real = os.path.realpath(path)
        if real != path:
            argv += ["--ro-bind-try", real, real]
    argv += ["--bind", str(writable), str(mount_at or writable)]
    if workdir is not None:
        argv += ["--chdir", str(workdir)]
    argv.append("--")
    return argv


_CONTAINMENT_PROBE = (
    "import socket,sys\n"
    "s=socket.socket()\n"
    "s.settimeout(2)\n"
    "try:\n s.connect(('127.0.0.1',int(sys.argv[1])));c=1\n"
    "except OSError:\n c=0\n"
    "sys.exit(40+c)\n"
)


def probe_containment(bwrap: str, provider: VerifiedProvider, scratch: Path) -> bool:
    """True when a child under bwrap runs the provider's interpreter and cannot reach a
    loopback listener this process holds (the network is really gone)."""
    return probe_network(bwrap, _interpreter(provider.executable), provider.read_only, scratch)


def probe_network(bwrap: str, python: Path, read_only: tuple[Path, ...], scratch: Path) -> bool:
    """True when ``python`` under bwrap (``read_only`` bound, ``scratch`` at the fixed root) runs
    and cannot reach a loopback listener this process holds: the provider's check, and the one
    ``cm-graph tests record`` makes before it runs a project's suite."""
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        root = fixed_root()
        argv = [*bwrap_prefix(bwrap, read_only, scratch, root), str(python), "-c",
                _CONTAINMENT_PROBE, str(port)]
        try:
            done = subprocess.run(
                argv, env=provider_environment(root), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
    return done.returncode == 40


def _interpreter(executable: Path) -> Path:
    """The interpreter the provider's entry script runs under (its ``#!`` line), so the probe
    exercises the same binary the provider will; the ``python`` beside it otherwise."""
    try:
        with open(executable, "rb") as handle:
            first = handle.readline(4096)
    except OSError:
        first = b""
    if first.startswith(b"#!"):
        words = first[2:].decode("utf-8", "replace").split()
        if words and os.path.isabs(words[0]) and os.path.basename(words[0]) != "env":
            return Path(words[0])
    return executable.parent / "python"


@dataclass(frozen=True)
class RunReport:
    contained: bool
    seconds: float


def run_provider(
    provider: VerifiedProvider,
    scratch: Path,
    *,
    sandbox: str = "auto",
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    cache: ProviderCache | None = None,
) -> RunReport:
    """Run ``graphify extract . --code-only --no-cluster`` on ``scratch/source``, which the
    provider sees at the fixed run root (``fixedroot``), seeded with ``cache`` when given."""
    source = scratch / "source"
    for name in ("graphify-out", ".graphify", ".graph"):
        if os.path.lexists(source / name):
            raise ProviderRefusal("The materialised commit already holds provider state; refusing to run.")
    root = fixed_root()
    prefix: list[str] = []
    if sandbox != "off":
        bwrap = bwrap_path()
        if bwrap and probe_containment(bwrap, provider, scratch):
            prefix = bwrap_prefix(bwrap, provider.read_only, scratch, root, root / "source")
        elif sandbox == "required":
            raise ProviderRefusal(
                "No working containment (bubblewrap) is available and --sandbox required was given."
            )
    pin_mtimes(source)
    if cache is not None:
        cache.seed(source / "graphify-out")
    argv = [*prefix, str(provider.executable), "extract", ".", *provider.pin.options]
    placement = nullcontext(root) if prefix else moved_to_fixed_root(scratch)
    started = time.monotonic()
    with placement, stop_signals_interrupt():
        cwd = source if prefix else root / "source"
        child, lifeline = spawn_kept(argv, cwd=cwd, env=provider_environment(root))
        try:
            returncode = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ProviderRefusal(
                "The provider exceeded its time budget; no generation was published."
            ) from None
        finally:
            try:
                stop_group(child)
            finally:
                os.close(lifeline)
    if returncode != 0:
        raise ProviderRefusal(f"The provider failed (exit {returncode}); no generation was published.")
    normalise_inventory(source / "graphify-out")
    if cache is not None:
        cache.keep(source / "graphify-out")
    return RunReport(contained=bool(prefix), seconds=time.monotonic() - started)


KEEPER_SCRIPT = Path(__file__).with_name("provider_keeper.py")


class ProviderInterrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived while the provider ran: unwind like Ctrl-C, so the provider's
    group is stopped and the scratch removed by the same ``finally`` blocks."""


def spawn_kept(argv: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``argv`` under the keeper (``provider_keeper.py``), leader of a new process group.

    Returns the keeper's Popen and the write end of its lifeline; the caller closes that end
    only after stopping the group. Nothing of the group outlives this process, whichever way it
    ends: the kernel closes the lifeline on SIGKILL too, and the keeper then kills the group.
    """
    lifeline_read, lifeline_write = os.pipe()
    keeper = [sys.executable, "-I", "-S", str(KEEPER_SCRIPT), str(lifeline_read), *argv]
    try:
        child = subprocess.Popen(
            keeper, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, pass_fds=(lifeline_read,),
        )
    except OSError:
        os.close(lifeline_write)
        raise ProviderRefusal("The provider could not be run from its pinned install.") from None
    finally:
        os.close(lifeline_read)
    return child, lifeline_write


@contextlib.contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """While the provider runs, SIGTERM and SIGHUP raise :class:`ProviderInterrupted` (SIGINT
    already raises KeyboardInterrupt), so a polite stop cleans up as Ctrl-C does. Signals
    ignored by whoever started us stay ignored; outside the main thread nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, _frame: object) -> None:
        raise ProviderInterrupted(signal.Signals(signum).name)

    previous = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        handler = signal.getsignal(signum)
        if handler is not None and handler is not signal.SIG_IGN:
            previous[signum] = handler
            signal.signal(signum, interrupt)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def stop_group(child: subprocess.Popen[bytes]) -> None:
    """Terminate whatever is left of the child's process group: TERM, grace, then KILL, and
    refuse to go on if the group still has live members after that."""
    child.poll()
    if not _group_alive(child.pid):
        return
    _signal_group(child.pid, signal.SIGTERM)
    if _wait_group(child, TERMINATE_GRACE_SECONDS):
        return
    _signal_group(child.pid, signal.SIGKILL)
    if not _wait_group(child, REAP_WAIT_SECONDS):
        raise ProviderRefusal("The provider left processes running that could not be stopped.")


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass


def _wait_group(child: subprocess.Popen[bytes], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        child.poll()
        if not _group_alive(child.pid):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def _group_alive(pgid: int) -> bool:
    """Does the process group still have a member that is not a zombie?

    Zombies are finished: in a container whose init does not reap orphans they linger, and
    counting them would make every stop wait out the whole grace period.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for entry in os.listdir(proc):
        if not entry.isdigit():
            continue
        try:
            stat_line = (proc / entry / "stat").read_text()
        except OSError:
            continue
        fields = stat_line.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False
