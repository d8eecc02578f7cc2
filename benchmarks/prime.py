"""Benchmark of ``prime`` (issue 30 item 2): ten task texts as people write them, for three real
repositories, and which anchors it found against the ones each task names.

    python benchmarks/prime.py [--bench /tmp/cm-graph-bench] [--state DIR] [--max-chars 6000] [--json]

Each repository is a package already prepared under ``--bench`` (``corpus.prepare_real``: a git
checkout in ``repo/`` and the pinned provider's output in ``graphify-out/``); it is published once
into ``--state`` (reused while it stays usable) and its index derived. ``prime`` then runs
in-process per task; a task's ``named`` anchors are the definitions (label, path) or files (path)
the person meant. Per task: the anchors found, how many of the named ones they hold (hits), the
ones found that no task named (extra), the spellings reported ambiguous or not found, the answer's
characters and the time. ``expected`` misses are listed too: an ambiguous spelling that prime
reports with its candidates rather than picks counts as a miss here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

TASKS: dict[str, list[tuple[str, list[str]]]] = {
    "requests-2.32.3": [
        ("Fix the off-by-one in `Session.send` when retries are exhausted", [".send()@requests/sessions.py"]),
        ("rebuild_auth strips the Authorization header even when redirecting to the same host",
         [".rebuild_auth()@requests/sessions.py"]),
        ("HTTPAdapter leaks connections when get_connection raises",
         ["HTTPAdapter@requests/adapters.py", ".get_connection()@requests/adapters.py"]),
        ("merge_setting should not drop None values from the session dict", ["merge_setting()@requests/sessions.py"]),
        ("Response.iter_content hangs on chunked bodies with decode_unicode=True",
         [".iter_content()@requests/models.py"]),
        ("Add a test for should_strip_auth with default ports in requests/sessions.py",
         [".should_strip_auth()@requests/sessions.py", "requests/sessions.py"]),
        ("get_netrc_auth crashes when $HOME is unset", ["get_netrc_auth()@requests/utils.py"]),
        ("HTTPDigestAuth reuses the nonce count across redirects", ["HTTPDigestAuth@requests/auth.py"]),
        ("raise_for_status message should include the URL", [".raise_for_status()@requests/models.py"]),
        ("Cookies are lost in resolve_redirects; check extract_cookies_to_jar",
         [".resolve_redirects()@requests/sessions.py", "extract_cookies_to_jar()@requests/cookies.py"]),
    ],
    "rich-15.0.0": [
        ("The progress bar flickers when `Progress.refresh` is called from a thread",
         [".refresh()@rich/progress.py"]),
        ("Console.print ignores soft_wrap when the width is tiny", [".print()@rich/console.py"]),
        ("Table.add_row should accept renderables, not only strings", [".add_row()@rich/table.py"]),
        ("Text.wrap breaks words in the middle with overflow=fold", [".wrap()@rich/text.py"]),
        ("Syntax highlighting is wrong for line numbers in rich/syntax.py",
         ["Syntax@rich/syntax.py", "rich/syntax.py"]),
        ("Segment.split_lines drops the trailing empty line", [".split_lines()@rich/segment.py"]),
        ("rename Live's refresh thread and update callers", ["Live@rich/live.py"]),
        ("Panel title is cut off when measure returns a smaller width", ["Panel@rich/panel.py"]),
        ("traceback.install should not replace an existing excepthook", ["install()@rich/traceback.py"]),
        ("Why does `install` in pretty.py not work in Jupyter?", ["install()@rich/pretty.py", "rich/pretty.py"]),
    ],
    "axios-1.7.9": [
        ("mergeConfig drops custom headers when the instance config has none",
         ["mergeConfig()@lib/core/mergeConfig.js"]),
        ("buildURL encodes brackets in params twice", ["buildURL()@lib/helpers/buildURL.js"]),
        ("InterceptorManager.eject should not leave holes in the handlers array",
         [".eject()@lib/core/InterceptorManager.js"]),
        ("dispatchRequest should call transformData on error responses too",
         ["dispatchRequest()@lib/core/dispatchRequest.js", "transformData()@lib/core/transformData.js"]),
        ("isAbsoluteURL treats protocol-relative URLs as relative; fix combineURLs too",
         ["isAbsoluteURL()@lib/helpers/isAbsoluteURL.js", "combineURLs()@lib/helpers/combineURLs.js"]),
        ("AxiosHeaders.normalize lowercases header names it should keep", [".normalize()@lib/core/AxiosHeaders.js"]),
        ("Fix formDataToJSON for nested arrays in lib/helpers/formDataToJSON.js",
         ["formDataToJSON()@lib/helpers/formDataToJSON.js", "lib/helpers/formDataToJSON.js"]),
        ("settle should reject with AxiosError when validateStatus returns false",
         ["settle()@lib/core/settle.js", "AxiosError()@lib/core/AxiosError.js"]),
        ("The `Axios.request` method ignores config.method when url is passed", [".request()@lib/core/Axios.js"]),
        ("toFormData fails on Blob values in Node", ["toFormData()@lib/helpers/toFormData.js"]),
    ],
}
BUILT_AT = datetime(2026, 1, 1, tzinfo=UTC)


def workspace_for(bench: Path, state: Path, name: str) -> Any:
    from cm_graph.generation.layout import Workspace
    from cm_graph.generation.status import graph_status
    from cm_graph.index.ensure import ensure_index
    from cm_graph.provider.publish import publish_provider_output

    workspace = Workspace.locate(bench / name / "repo", state / name)
    if not graph_status(workspace).usable:
        publish_provider_output(workspace, bench / name / "graphify-out", revision="HEAD", built_at=BUILT_AT)
    ensure_index(workspace)
    return workspace


def found_anchors(document: dict[str, Any]) -> list[str]:
    from cm_graph.context.wire import cited, section_items

    named = []
    for anchor in section_items(document["anchors"], cited(document)):
        named.append(anchor["path"] if anchor["kind"] == "file" else f"{anchor['label']}@{anchor['path']}")
    return named


def trial(workspace: Any, task: str, named: list[str], max_chars: int) -> dict[str, Any]:
    from cm_graph.base.jsonio import dumps_wire
    from cm_graph.context.prime import prime
    from cm_graph.context.wire import section_items

    started = time.perf_counter()
    document = prime(workspace, task, max_chars=max_chars)
    seconds = time.perf_counter() - started
    found = found_anchors(document)
    spellings = section_items(document["spellings"])
    return {"task": task, "named": named, "found": found, "hits": len(set(found) & set(named)),
            "extra": sorted(set(found) - set(named)), "missed": sorted(set(named) - set(found)),
            "not_taken": [f"{s['spelling']} ({s['status']})" for s in spellings
                          if s["status"] not in ("anchor", "same")],
            "chars": len(dumps_wire(document)), "seconds": round(seconds, 3),
            "truncated": document["bounds"]["truncated"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", type=Path, default=Path("/tmp/cm-graph-bench"))
    parser.add_argument("--state", type=Path, default=Path("/tmp/cm-graph-bench/prime/state"))
    parser.add_argument("--max-chars", type=int, default=6000)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args(argv)
    results: dict[str, list[dict[str, Any]]] = {}
    for name, tasks in TASKS.items():
        workspace = workspace_for(options.bench, options.state, name)
        prime_once = trial(workspace, tasks[0][0], tasks[0][1], options.max_chars)  # warm the index's pages
        del prime_once
        results[name] = [trial(workspace, task, named, options.max_chars) for task, named in tasks]
    if options.json:
        sys.stdout.write(json.dumps(results, indent=1) + "\n")
        return 0
    for name, rows in results.items():
        hits = sum(r["hits"] for r in rows)
        named = sum(len(r["named"]) for r in rows)
        extra = sum(len(r["extra"]) for r in rows)
        print(f"## {name}: {hits}/{named} named anchors found, {extra} extra; "
              f"chars max {max(r['chars'] for r in rows)}, seconds max {max(r['seconds'] for r in rows)}")
        for r in rows:
            print(f"- {r['task']!r}\n  found {r['found']} | hits {r['hits']}/{len(r['named'])} | extra {r['extra']} "
                  f"| missed {r['missed']} | not taken {r['not_taken']} | {r['chars']} chars | {r['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
