"""A repository that configures every program git can run (issue 25 item 2), for the tests that
prove no cm-graph command runs one.

``arm(repo, tools)`` writes into ``repo``'s ``.git/config`` (and into a file it includes, and one
an ``includeIf`` includes), ``.git/info/attributes``, ``.git/hooks/`` and a ``core.hooksPath``
directory: filters (clean, smudge, long-running process; three drivers, one named only in an
included file, one whose name holds ``=`` and dots), textconv, a diff driver's command,
``diff.external``, a merge driver, ``core.fsmonitor``, every hook name, a credential helper,
``core.sshCommand``, ``core.askPass``, ``core.pager`` and ``pager.<cmd>``, editors, every
``gpg.*.program`` with ``log.showSignature``, ``core.alternateRefsCommand``,
``uploadpack.packObjectsHook``, an ``ext::`` remote with the protocol allowed, a proxy, difftool
and mergetool commands, a browser, aliases shadowing builtins. Each program is its own script
that creates ``<tools>/markers/<name>`` and then behaves (passes its input through), so a marker
is the proof that a program ran, and which one.

``GITATTRIBUTES`` is what a test commits as ``.gitattributes`` so the drivers apply to tracked
files; ``signed_commit`` adds a commit carrying a ``gpgsig`` header, the one thing
``log.showSignature`` runs gpg for. The test's own git (``helpers.git``) must not trip the traps
it set: ``quiet_git`` runs it with every armed program neutralised.
"""

from __future__ import annotations

import os
from pathlib import Path

from .helpers import git

HOOKS = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
    "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
    "pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
    "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
    "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
    "post-index-change",
)
# The subcommands cm-graph runs and the ones a pager or alias could hang on.
PAGED = ("status", "log", "show", "diff", "ls-tree", "cat-file", "rev-parse", "rev-list", "config",
         "merge-base", "branch", "tag", "grep", "blame")
DRIVERS = ("evil", "inc", "we=ird.name")  # "inc" is defined only in the included file


def gitattributes(suffix: str = "") -> str:
    """Attributes that put every file under one of the filter drivers (named with ``suffix``)."""
    evil, inc, weird = (f"{driver}{suffix}" for driver in DRIVERS)
    return (f"* filter={evil} diff={evil} merge={evil}\n"
            f"*.py filter={inc} diff={evil} merge={evil}\n"
            f"*.txt filter={weird} diff={evil} merge={evil}\n")


GITATTRIBUTES = gitattributes()
_SIGNATURE = (
    "gpgsig -----BEGIN PGP SIGNATURE-----\n"
    " \n"
    " iQEzBAABCAAdFiEEAAAAAAAAAAAAAAAAAAAAAAAAAAAFAmAAAAAACgkQAAAAAAAAAAAA\n"
    " =AAAA\n"
    " -----END PGP SIGNATURE-----\n"
)


def marker_dir(tools: Path) -> Path:
    return tools / "markers"


def ran(tools: Path) -> list[str]:
    """The programs that ran since the last ``clear`` (their marker names, sorted)."""
    return sorted(os.listdir(marker_dir(tools)))


def clear(tools: Path) -> None:
    for name in os.listdir(marker_dir(tools)):
        os.unlink(marker_dir(tools) / name)


def _program(tools: Path, name: str, body: str = "cat") -> str:
    """A script that leaves the marker ``name`` and then runs ``body`` (its input passed through
    by default, so a filter or textconv that ran is invisible in git's output)."""
    path = tools / "bin" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\n: > "{marker_dir(tools)}/{name}"\n{body}\n')
    path.chmod(0o755)
    return str(path)


def _hooks(tools: Path, directory: Path, prefix: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for hook in HOOKS:
        script = directory / hook
        script.write_text(f'#!/bin/sh\n: > "{marker_dir(tools)}/{prefix}-{hook}"\nexit 0\n')
        script.chmod(0o755)


def _config(path: Path, entries: list[tuple[str, str]]) -> None:
    for key, value in entries:
        git(path, "config", "--add", key, value) if path.is_dir() else git(
            path.parent, "config", "--file", str(path), "--add", key, value)


def arm(repo: Path, tools: Path, suffix: str = "") -> None:
    """Make every program-valued setting of ``repo`` a marker script under ``tools``; the filter
    and diff drivers are named ``DRIVERS`` + ``suffix`` (a submodule's own names differ)."""
    marker_dir(tools).mkdir(parents=True, exist_ok=True)
    p = lambda name, body="cat": _program(tools, name, body)  # noqa: E731
    git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir"))
    _hooks(tools, git_dir / "hooks", "hook")
    _hooks(tools, tools / "hooks-path", "hooksPath")
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "attributes").write_text(gitattributes(suffix))
    included, conditional = tools / "included.config", tools / "conditional.config"
    for path in (included, conditional):
        path.write_text("")
    entries = [("include.path", str(included)), (f"includeIf.gitdir:{git_dir}/.path", str(conditional))]
    evil, inc, weird = (f"{driver}{suffix}" for driver in DRIVERS)
    for driver in (evil, weird):
        entries += [
            (f"filter.{driver}.clean", p(f"filter-{driver}-clean")),
            (f"filter.{driver}.smudge", p(f"filter-{driver}-smudge")),
            (f"filter.{driver}.process", p(f"filter-{driver}-process", "exit 1")),
            (f"filter.{driver}.required", "true"),
        ]
    entries += [
        (f"diff.{evil}.textconv", p("diff-textconv")),
        (f"diff.{evil}.command", p("diff-command", "exit 0")),
        ("diff.external", p("diff-external", "exit 0")),
        (f"merge.{evil}.driver", p("merge-driver", "exit 0")),
        ("core.fsmonitor", p("fsmonitor", "exit 1")),
        ("core.fsmonitorHookVersion", "2"),
        ("credential.helper", p("credential-helper", "exit 0")),
        ("core.sshCommand", p("ssh-command", "exit 1")),
        ("core.askPass", p("askpass", "exit 1")),
        ("core.editor", p("editor", "exit 0")),
        ("sequence.editor", p("sequence-editor", "exit 0")),
        ("core.pager", p("pager")),
        ("core.alternateRefsCommand", p("alternate-refs-command", "exit 0")),
        ("uploadpack.packObjectsHook", p("pack-objects-hook", "exit 1")),
        ("core.gitProxy", p("git-proxy", "exit 1")),
        ("remote.origin.url", f"ext::{p('ext-remote', 'exit 1')}"),
        ("remote.origin.uploadpack", p("remote-uploadpack", "exit 1")),
        ("remote.origin.receivepack", p("remote-receivepack", "exit 1")),
        ("protocol.ext.allow", "always"),
        ("protocol.allow", "always"),
        ("interactive.diffFilter", p("interactive-diff-filter")),
        ("diff.tool", "evil"), ("difftool.evil.cmd", p("difftool", "exit 0")),
        ("merge.tool", "evil"), ("mergetool.evil.cmd", p("mergetool", "exit 0")),
        ("web.browser", "evil"), ("browser.evil.cmd", p("browser", "exit 0")),
        ("log.showSignature", "true"),
        ("gpg.program", p("gpg-program", "exit 1")),
        ("gpg.openpgp.program", p("gpg-openpgp-program", "exit 1")),
        ("gpg.x509.program", p("gpg-x509-program", "exit 1")),
        ("gpg.ssh.program", p("gpg-ssh-program", "exit 1")),
        ("gpg.ssh.defaultKeyCommand", p("gpg-ssh-default-key-command", "exit 1")),
        ("core.attributesFile", str(git_dir / "info" / "attributes")),
        ("submodule.recurse", "true"),
        ("status.submoduleSummary", "true"),
    ]
    entries += [(f"pager.{command}", p(f"pager-{command}")) for command in PAGED]
    entries += [(f"alias.{command}", f"!{p(f'alias-{command}', 'exit 0')}") for command in PAGED]
    _config(repo, entries)
    _config(included, [
        ("core.hooksPath", str(tools / "hooks-path")),
        (f"filter.{inc}.clean", p(f"filter-{inc}-clean")),
        (f"filter.{inc}.smudge", p(f"filter-{inc}-smudge")),
        (f"filter.{inc}.process", p(f"filter-{inc}-process", "exit 1")),
        (f"filter.{inc}.required", "true"),
        ("gpg.program", p("gpg-program-included", "exit 1")),
    ])
    _config(conditional, [
        ("core.fsmonitor", p("fsmonitor-conditional", "exit 1")),
        ("diff.external", p("diff-external-conditional", "exit 0")),
    ])


# Everything ``arm`` set that the test's own git commands would trip over.
_QUIET = {"core.hooksPath": "/dev/null", "core.fsmonitor": "false", "log.showSignature": "false",
          "diff.ignoreSubmodules": "all", "submodule.recurse": "false"} | {
    f"filter.{driver}.{key}": value for driver in DRIVERS
    for key, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))}


def quiet_git(repo: Path, *args: str) -> str:
    """The test's own git on an armed repository, with every armed program neutralised."""
    return git(repo, "--no-pager", *args, config=_QUIET)


def signed_commit(repo: Path) -> str:
    """Make HEAD a copy of itself that carries a (fake) ``gpgsig`` header; returns its name."""
    raw = quiet_git(repo, "cat-file", "commit", "HEAD") + "\n"
    head, _, message = raw.partition("\n\n")
    commit_object = f"{head}\n{_SIGNATURE}\n{message}"
    path = repo.parent / f"{repo.name}.signed-commit"
    path.write_text(commit_object)
    name = quiet_git(repo, "hash-object", "-t", "commit", "-w", str(path))
    path.unlink()
    quiet_git(repo, "update-ref", "HEAD", name)
    return name
