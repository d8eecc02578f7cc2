"""The provider's keeper: the one direct child of cm-graph, so the provider dies with cm-graph.

Run as a script (``python -I -S provider_keeper.py LIFELINE_FD ARGV...``), never imported by the
rest of the package: it must start fast and depend on nothing but the standard library.

Why a keeper and not a parent-death signal on the provider alone: the provider forks a pool of
workers, and a parent-death signal reaches only the direct child; SIGKILL of cm-graph runs none
of cm-graph's own cleanup. So cm-graph starts this keeper as the leader of a fresh process group,
handing it the read end of a *lifeline* pipe whose only write end cm-graph holds. However
cm-graph ends (return, exception, any signal, SIGKILL included) the kernel closes that write end;
the keeper sees EOF and kills its whole group, the provider and every worker, with SIGKILL. The
provider itself additionally gets ``PR_SET_PDEATHSIG(SIGKILL)`` towards the keeper, so a keeper
killed on its own (the OOM killer's pick) does not leave the provider running either. Under
bubblewrap the keeper's child is ``bwrap --die-with-parent --unshare-pid``, whose whole PID
namespace dies with it.

The keeper exits with the provider's status (128 + N when the provider died of signal N).
"""

from __future__ import annotations

import os
import select
import signal
import sys

_PR_SET_PDEATHSIG = 1


def _kill_group(*_: object) -> None:
    """SIGKILL to the keeper's own process group: provider, its workers, and the keeper."""
    os.killpg(0, signal.SIGKILL)


def _set_parent_death_signal() -> None:
    """In the forked child: die with SIGKILL when the keeper dies (Linux; a no-op elsewhere)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _spawn(argv: list[str], lifeline: int) -> int:
    keeper = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    try:  # the child: never return into the keeper's loop
        _set_parent_death_signal()
        if os.getppid() != keeper:  # the keeper died before the death signal was armed
            os._exit(137)
        os.close(lifeline)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL)
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def keep(lifeline: int, argv: list[str]) -> int:
    """Run ``argv`` in this process group until it exits or cm-graph (the lifeline) goes away."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, _kill_group)
    pid = _spawn(argv, lifeline)
    poller = select.poll()
    poller.register(lifeline, select.POLLIN | select.POLLHUP | select.POLLERR)
    poller.register(wake_read, select.POLLIN)
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return _exit_code(status)
        for fd, _ in poller.poll():
            if fd == lifeline:
                _kill_group()  # cm-graph is gone: nothing it started may outlive it
            else:
                try:
                    os.read(wake_read, 512)
                except BlockingIOError:
                    pass


def main() -> None:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit():
        sys.exit(2)
    sys.exit(keep(int(sys.argv[1]), sys.argv[2:]))


if __name__ == "__main__":
    main()
