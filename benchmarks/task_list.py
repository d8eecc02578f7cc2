"""The tasks of benchmarks/tasks.py: 36 over five held-out repositories, each target chosen for
what makes it hard (the ``why``): instance-method calls, module-qualified calls, aliased imports,
a name defined many times, a name used only through ``__all__``, strings or a loader, hubs with
more than 50 callers, helpers that tests reach only through public entry points.

``target`` is what the agent types to cm-graph; ``definition`` is the definition the task is about
in the truth: ``(path, qualified name)`` for Python, ``(path, name)`` for JavaScript/TypeScript.
"""

from __future__ import annotations

from expected import Task

M, K, T, E, X = "marshmallow-3.23.2", "markdown-3.7", "toolz-1.0.0", "express-4.21.2", "mobx-6.13.5"
MF, MS, MU = "src/marshmallow/fields.py", "src/marshmallow/schema.py", "src/marshmallow/utils.py"

TASKS: tuple[Task, ...] = (
    # ---- marshmallow 3.23.2 --------------------------------------------------------------------
    Task(M, "signature_change", "Schema.load", (MS, "Schema.load"),
         why="instance-method calls (`schema.load(...)`, `UserSchema().load(...)`) on fixtures and locals; a hub"),
    Task(M, "signature_change", "Field._deserialize", (MF, "Field._deserialize"),
         why="a name defined 24 times; its 21 overrides change with it"),
    Task(M, "rename", "String", (MF, "String"),
         why="module-qualified instantiation `fields.String(...)` (>100 sites), re-exported through `__all__`"),
    Task(M, "raise_catch", "ValidationError", ("src/marshmallow/exceptions.py", "ValidationError"),
         why="an exception class: 74 raise and 13 except lines among >400 mentions"),
    Task(M, "raise_catch", "FieldInstanceResolutionError",
         ("src/marshmallow/exceptions.py", "FieldInstanceResolutionError"),
         why="a small exception class: 2 raise and 5 except lines, imported by name"),
    Task(M, "overrides", "Field._serialize", (MF, "Field._serialize"),
         why="20 overrides in subclasses of Field"),
    Task(M, "tests", "is_collection", (MU, "is_collection"),
         why="an internal helper 360 tests execute; one test calls it by name"),
    Task(M, "tests", "Field.deserialize", (MF, "Field.deserialize"),
         why="a method reached through Schema.load by most of the suite"),
    Task(M, "impact", "merge_errors", ("src/marshmallow/error_store.py", "merge_errors"),
         why="recursive; callers through methods of ErrorStore"),
    Task(M, "how", "Schema._do_load", (MS, "Schema._do_load"),
         why="calls through `self.` (its own methods) and module functions"),
    Task(M, "dead_code", "pprint", (MU, "pprint"),
         why="a deprecated function used only in `__all__` and one re-export"),
    # ---- Markdown 3.7 --------------------------------------------------------------------------
    Task(K, "signature_change", "Registry.register", ("markdown/util.py", "Registry.register"),
         why="a registry: `md.treeprocessors.register(...)` on attributes of instances (90 sites)"),
    Task(K, "signature_change", "TestCase.assertMarkdownRenders",
         ("markdown/test_tools.py", "TestCase.assertMarkdownRenders"),
         why="a hub of >600 test callers, all through `self.`"),
    Task(K, "overrides", "Treeprocessor.run", ("markdown/treeprocessors.py", "Treeprocessor.run"),
         why="`run` is defined 41 times; 11 override this one"),
    Task(K, "overrides", "Extension.extendMarkdown", ("markdown/extensions/__init__.py", "Extension.extendMarkdown"),
         why="21 extensions override it; the base is never called by name"),
    Task(K, "dead_code", "markdown/extensions/toc.py::makeExtension", ("markdown/extensions/toc.py", "makeExtension"),
         why="defined 18 times; called only by the loader as `module.makeExtension(...)` on an imported module"),
    Task(K, "dead_code", "deprecated", ("markdown/util.py", "deprecated"),
         why="a decorator, also named in strings by a docs script"),
    Task(K, "rename", "AtomicString", ("markdown/util.py", "AtomicString"),
         why="instantiated as `util.AtomicString(...)` and imported by name"),
    Task(K, "tests", "code_escape", ("markdown/util.py", "code_escape"),
         why="a helper 56 tests execute through `markdown.markdown`"),
    Task(K, "tests", "BlockParser.parseBlocks", ("markdown/blockparser.py", "BlockParser.parseBlocks"),
         why="every rendering test executes it; no test names it"),
    Task(K, "impact", "parseBoolValue", ("markdown/util.py", "parseBoolValue"),
         why="imported by name into extensions, called from their config setters"),
    Task(K, "how", "Markdown.convert", ("markdown/core.py", "Markdown.convert"),
         why="drives preprocessors, parser and tree processors through registries and `self.`"),
    # ---- toolz 1.0.0 ---------------------------------------------------------------------------
    Task(T, "signature_change", "curry", ("toolz/functoolz.py", "curry"),
         why="a class used as a decorator and instantiated; re-exported by `toolz` and `toolz.curried`"),
    Task(T, "signature_change", "signature_or_spec", ("toolz/_signatures.py", "signature_or_spec"),
         why="called through an aliased module import (`from toolz import _signatures as _sigs`)"),
    Task(T, "rename", "toolz/dicttoolz.py::merge", ("toolz/dicttoolz.py", "merge"),
         why="defined twice (toolz.curried.exceptions has another); re-exported by star imports"),
    Task(T, "tests", "has_varargs", ("toolz/functoolz.py", "has_varargs"),
         why="an introspection helper reached through curry"),
    Task(T, "impact", "num_required_args", ("toolz/functoolz.py", "num_required_args"),
         why="called through `_sigs` and by curry's machinery"),
    Task(T, "how", "curry.__call__", ("toolz/functoolz.py", "curry.__call__"),
         why="dunder method; calls through `self._partial` and `self._should_curry`"),
    Task(T, "dead_code", "unzip", ("toolz/sandbox/core.py", "unzip"),
         why="used only by its package's import and its own tests"),
    # ---- express 4.21.2 (JavaScript, CommonJS) -------------------------------------------------
    Task(E, "signature_change", "defineGetter", ("lib/request.js", "defineGetter"),
         why="a module-private helper called at module level 11 times"),
    Task(E, "rename", "Layer", ("lib/router/layer.js", "Layer"),
         why="a constructor: `new Layer(...)` across router files, imported by `require`"),
    Task(E, "impact", "decode_param", ("lib/router/layer.js", "decode_param"),
         why="called from prototype methods assigned as `Layer.prototype.match = function match(...)`"),
    # ---- mobx 6.13.5 (TypeScript) --------------------------------------------------------------
    Task(X, "signature_change", "die", ("src/errors.ts", "die"),
         why="the error helper: a hub of >90 call sites over the whole source"),
    Task(X, "rename", "startBatch", ("src/core/observable.ts", "startBatch"),
         why="imported through the `internal` barrel file, called in 14 places"),
    Task(X, "how", "autorun", ("src/api/autorun.ts", "autorun"),
         why="a public entry point: builds a Reaction through helpers imported from the barrel file"),
    Task(X, "dead_code", "isAnnotationMapEntry", ("src/api/annotation.ts", "isAnnotationMapEntry"),
         why="exported, never used in the source: the correct answer is no use"),
)
