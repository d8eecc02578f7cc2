"""The repository-configured-programs category of the issue-25 sweep (``adversarial2.py``): the
layouts and configuration paths ``tests/base/test_hostile_config.py`` does not try.

``hostile.arm`` makes every program git can run a marker script; here it is armed into a G0
checkout reached other ways: a linked worktree whose own ``config.worktree`` defines a filter
driver the attributes name, a ``.git`` *file* pointing at another repository's git directory,
``core.worktree`` pointing elsewhere, drivers defined only under ``includeIf "onbranch:…"`` and
``includeIf "hasconfig:remote.*.url:…"``, drivers whose names hold quotes, backslashes, capitals
and non-ASCII, a repository owned by another user (``safe.directory``), a ``.git`` file pointing
nowhere, and a caller whose own environment sets ``GIT_DIR``, ``GIT_CONFIG_PARAMETERS``,
``GIT_CONFIG_GLOBAL`` and ``GIT_EXEC_PATH`` to the trap. Each layout runs the commands that run
git on the work tree or the history (build, status, ask with an unresolved target, context,
history, fleet usages, doctor, doctor --fleet, audit, export, eval run) after touching tracked
files so every filter has a file to run on. A run *holds* when no marker appeared and no command
crashed (a clean refusal, such as git's own of another user's repository, holds).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from . import hostile
from .adversarial import Outcome, Tally, cli, unclean
from .g0 import G0_FILES, g0_graph
from .helpers import CM_GRAPH, git, inventory_for, make_repo, write_output

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("status",), ("ask", "impact", "parse_config"), ("ask", "symbol", "no_such_name_here"),
    ("context", "usage", "parse_config"), ("context", "history"), ("context", "impact", "parse_config"),
    ("fleet", "add", "trap", "--repo-path", "."), ("fleet", "usages", "trap", "parse_config"),
    ("doctor", "--fleet", "trap"), ("doctor",), ("audit",), ("export",), ("eval", "run"),
)


class Layout:
    """One armed checkout (``checkout``), the marker directories its traps write to, and the
    environment the caller's shell adds."""

    def __init__(self, base: Path, name: str) -> None:
        self.base = base / name
        self.base.mkdir()
        self.tools: list[Path] = []
        self.env: dict[str, str] = {}
        self.checkout = self.base / "repo"

    def g0(self, path: Path, tools: Path, suffix: str = "") -> Path:
        """G0 with the hostile attributes committed, armed to write into ``tools``."""
        repo = make_repo(path, {**G0_FILES, ".gitattributes": hostile.gitattributes(suffix)})
        hostile.arm(repo, tools, suffix)
        self.tools.append(tools)
        return repo

    def attributes(self, repo: Path, line: str) -> None:
        """One more attribute line in the repository's own ``info/attributes``."""
        common = Path(hostile.quiet_git(repo, "rev-parse", "--git-common-dir"))
        path = common if common.is_absolute() else repo / common
        with open(path / "info" / "attributes", "a") as handle:
            handle.write(line + "\n")

    def driver(self, config: list[str], name: str, tools: Path) -> None:
        """A filter driver ``name`` (clean, smudge, process) set with ``git config`` ``config``."""
        for key in ("clean", "smudge", "process"):
            script = tools / "bin" / f"filter-{key}-{name.encode().hex()}"
            script.write_text(f'#!/bin/sh\n: > "{hostile.marker_dir(tools)}/{script.name}"\ncat\n')
            script.chmod(0o755)
            git(self.checkout, "config", *config, f"filter.{name}.{key}", str(script), config=hostile._QUIET)


def plain(layout: Layout) -> None:
    layout.g0(layout.checkout, layout.base / "tools")


def linked_worktree(layout: Layout) -> None:
    main = layout.g0(layout.base / "main", layout.base / "tools")
    hostile.quiet_git(main, "worktree", "add", "-q", str(layout.checkout))
    hostile.quiet_git(main, "config", "extensions.worktreeConfig", "true")
    layout.driver(["--worktree"], "wtonly", layout.base / "tools")
    layout.attributes(main, "*.py filter=wtonly")


def gitfile_elsewhere(layout: Layout) -> None:
    other = layout.g0(layout.base / "other", layout.base / "tools")
    shutil.copytree(other, layout.checkout, ignore=shutil.ignore_patterns(".git"))
    (layout.checkout / ".git").write_text(f"gitdir: {other}/.git\n")


def core_worktree(layout: Layout) -> None:
    repo = layout.g0(layout.base / "gitdir-holder", layout.base / "tools")
    shutil.copytree(repo, layout.checkout, ignore=shutil.ignore_patterns(".git"))
    git(repo, "config", "core.worktree", str(layout.checkout), config=hostile._QUIET)
    (layout.checkout / ".git").write_text(f"gitdir: {repo}/.git\n")


def conditional_includes(layout: Layout) -> None:
    tools = layout.base / "tools"
    repo = layout.g0(layout.checkout, tools)
    for condition, name in (("onbranch:main", "onbranch"), ("hasconfig:remote.*.url:ext::*", "hasconfig")):
        included = layout.base / f"{name}.config"
        included.write_text("")
        git(repo, "config", "--add", f"includeIf.{condition}.path", str(included), config=hostile._QUIET)
        layout.driver(["--file", str(included)], name, tools)
        layout.attributes(repo, f"*.py filter={name}")


def odd_driver_names(layout: Layout) -> None:
    tools = layout.base / "tools"
    repo = layout.g0(layout.checkout, tools)
    for name in ('q"uote', "back\\slash", "UPPER", "\u00fcber", "a.b.c", "x=y"):
        layout.driver([], name, tools)
        spelled = name.replace("\\", "\\\\").replace('"', '\\"')
        layout.attributes(repo, f'"*.py" filter="{spelled}"' if '"' in name or "\\" in name else f"*.py filter={name}")


def another_owner(layout: Layout) -> None:
    layout.g0(layout.checkout, layout.base / "tools")
    os.chown(layout.checkout, 65534, 65534)  # git itself now refuses the repository (safe.directory)
    git(layout.checkout, "config", "safe.directory", "*", config=hostile._QUIET | {"safe.directory": "*"})


def gitfile_nowhere(layout: Layout) -> None:
    layout.g0(layout.checkout, layout.base / "tools")
    shutil.rmtree(layout.checkout / ".git")
    (layout.checkout / ".git").write_text(f"gitdir: {layout.base}/nowhere/.git\n")


def hostile_environment(layout: Layout) -> None:
    tools = layout.base / "tools"
    trap = layout.g0(layout.base / "trap", tools)
    layout.g0(layout.checkout, layout.base / "own-tools")
    fake_exec = layout.base / "exec-path"
    fake_exec.mkdir()
    for name in ("git-status", "git-log", "git-rev-parse", "git-config"):
        script = fake_exec / name
        script.write_text(f'#!/bin/sh\n: > "{hostile.marker_dir(tools)}/exec-{name}"\n')
        script.chmod(0o755)
    fsmonitor = tools / "bin" / "fsmonitor"
    layout.env = {
        "GIT_DIR": str(trap / ".git"), "GIT_WORK_TREE": str(trap), "GIT_EXEC_PATH": str(fake_exec),
        "GIT_CONFIG_PARAMETERS": f"'core.fsmonitor'='{fsmonitor}' 'core.pager'='{fsmonitor}'",
        "GIT_CONFIG_GLOBAL": str(trap / ".git" / "config"), "GIT_CONFIG_SYSTEM": str(trap / ".git" / "config"),
        "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": str(fsmonitor),
        "GIT_EXTERNAL_DIFF": str(tools / "bin" / "diff-external"), "GIT_PAGER": str(tools / "bin" / "pager"),
        "GIT_SSH_COMMAND": str(tools / "bin" / "ssh-command"), "GIT_ASKPASS": str(tools / "bin" / "askpass"),
    }


LAYOUTS: dict[str, Callable[[Layout], None]] = {
    "plain (the control)": plain, "a linked worktree with its own config": linked_worktree,
    "a .git file pointing at another repository": gitfile_elsewhere, "core.worktree elsewhere": core_worktree,
    "drivers under includeIf onbranch and hasconfig": conditional_includes, "odd driver names": odd_driver_names,
    "a repository another user owns": another_owner, "a .git file pointing nowhere": gitfile_nowhere,
    "the caller's environment points git at the trap": hostile_environment,
}


def run(layout: Layout, state: Path, args: tuple[str, ...]) -> Outcome:
    """One command as the console script in the checkout, with the layout's environment."""
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    env |= {"CM_GRAPH_HOME": str(state), **layout.env}
    done = subprocess.run([str(CM_GRAPH), *args], cwd=layout.checkout, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300, check=False)
    return Outcome(done.returncode, done.stdout, done.stderr, "Traceback" in done.stderr)


def touch_tracked(layout: Layout) -> None:
    for path in ("example_pkg/config.py", "README.md", "tests/test_config.py"):
        if (layout.checkout / path).exists():
            os.utime(layout.checkout / path)


def sweep_layout(layout: Layout, rng: random.Random, tally: Tally, name: str, count: int) -> None:
    state = layout.base / "state"
    listed = hostile.quiet_git(layout.checkout, "ls-files").splitlines() if (layout.checkout / ".git").exists() \
        and name != "a .git file pointing nowhere" and name != "a repository another user owns" else []
    out = write_output(layout.base / "out", g0_graph(), inventory_for(layout.checkout, [
        path for path in listed if path.endswith(".py")]) if listed else None)
    # build, then a seeded sample of the rest (all of them from count 4 on): across the layouts
    # every command runs, and each layout still runs most
    commands = [("build", "--from-graph", str(out)), *rng.sample(COMMANDS, min(len(COMMANDS), 6 + 2 * count))]
    # the console script for the first ``count`` commands (build, then the sample) and every command of
    # the layout whose caller's environment is the trap; in process for the rest (the same children)
    for number, args in enumerate(commands):
        for tools in layout.tools:
            hostile.clear(tools)
        touch_tracked(layout)
        real = number < max(count, 1) or bool(layout.env)
        where = () if args[0] == "fleet" or "--fleet" in args else ("--repo-path", layout.checkout)
        outcome = run(layout, state, args) if real else cli(
            *(str(layout.checkout) if arg == "." else arg for arg in args), *where)
        ran = [marker for tools in layout.tools for marker in hostile.ran(tools)]
        problem = f"ran {ran}" if ran else unclean(outcome, " ".join(args[:2]))
        tally.judge(problem, f"{name}: {' '.join(args[:2])}{' (console script)' if real else ''}")


def armed(layout: Layout) -> str | None:
    """The control: git itself, run as a user would in the checkout, runs a trap (a layout whose
    traps git never reaches would prove nothing)."""
    touch_tracked(layout)
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")} | layout.env
    subprocess.run(["git", "status", "--porcelain"], cwd=layout.checkout, env=env, capture_output=True, check=False)
    ran = [marker for tools in layout.tools for marker in hostile.ran(tools)]
    for tools in layout.tools:
        hostile.clear(tools)
    return None if ran else "git itself ran no trap here: the layout proves nothing"


UNREADABLE = ("a repository another user owns", "a .git file pointing nowhere")  # git itself refuses these


def sweep(base: Path, count: int, rng: random.Random, tally: Tally) -> None:
    home = os.environ.get("CM_GRAPH_HOME")
    for number, (name, make) in enumerate(LAYOUTS.items()):
        layout = Layout(base, f"layout-{number}")
        make(layout)
        if name not in UNREADABLE:
            tally.judge(armed(layout), f"{name}: the trap is armed (git status runs it)")
        os.environ["CM_GRAPH_HOME"] = str(layout.base / "state")
        try:
            sweep_layout(layout, rng, tally, name, count)
        finally:
            if home is None:
                os.environ.pop("CM_GRAPH_HOME", None)
            else:
                os.environ["CM_GRAPH_HOME"] = home
