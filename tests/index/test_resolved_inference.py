"""Values the resolver follows that the tree shows without running anything (issue 28, the
non-test recall of docs/resolver.md): a class named by a string in ``type["X"]``, either operand
of ``or`` / ``and`` / ``x if c else y``, the element ``next()`` gives and the iterator ``iter()``
gives, ``typing.cast(X, v)``, and a tuple's members by position (a ``Tuple[A, B]`` annotation, a
literal ``return a, b``, ``for i, x in enumerate(xs)``). Each was a miss of the benchmark (jinja2's
``self.stream.current.test(...)``, ``environment.code_generator_class(...)``, click's
``cmd_name, cmd, args = self.resolve_command(...)``); what is still not known stays unbound.

Real git repositories, real indexes; the expected rows are written by hand from the sources."""

from __future__ import annotations

from pathlib import Path

from ..support.resolvedkit import references, resolved_repo


def calls(files: dict[str, str], tmp_path: Path, name: str) -> list[tuple[object, ...]]:
    return [row for row in references(resolved_repo(tmp_path, files), roles=("call",)) if row[4] == name]


def test_a_class_named_by_a_string_in_type_is_that_class(tmp_path: Path) -> None:
    """jinja2's ``code_generator_class: t.Type["CodeGenerator"] = CodeGenerator``: calling it
    makes a ``CodeGenerator``; ``t.Type["Missing"]`` names nothing the tree defines."""
    files = {
        "gen.py": (
            "import typing as t\n"                                      # 1
            "\n"
            "\n"
            "class Generator:\n"                                        # 4
            "    def visit(self):\n"                                    # 5
            "        return 1\n"                                        # 6
            "\n"
            "\n"
            "class Env:\n"                                              # 9
            "    generator_class: t.Type['Generator'] = Generator\n"    # 10
            "    other_class: t.Type['Missing']\n"                      # 11
            "\n"
            "\n"
            "def build(env: Env):\n"                                    # 14
            "    env.generator_class().visit()\n"                       # 15 bound through the string
            "    env.other_class().visit()\n"                           # 16 unknown: kept by name
        ),
    }
    assert calls(files, tmp_path, "visit") == [
        ("gen.py", 15, "call", "gen.Generator.visit", "visit", "gen.build"),
        ("gen.py", 16, "call", None, "visit", "gen.build"),
    ]


def test_either_operand_of_or_and_a_conditional_expression(tmp_path: Path) -> None:
    """jinja2's ``cls = template_class or self.template_class; cls.from_code(...)``: the value is
    one of the operands, so what they agree on (``None`` never disagrees); operands that differ
    leave the call unbound."""
    files = {
        "tpl.py": (
            "import typing as t\n"                                          # 1
            "\n"
            "\n"
            "class Template:\n"                                             # 4
            "    @classmethod\n"                                            # 5
            "    def from_code(cls):\n"                                     # 6
            "        return cls()\n"                                        # 7
            "\n"
            "\n"
            "class Other:\n"                                                # 10
            "    @classmethod\n"                                            # 11
            "    def from_code(cls):\n"                                     # 12
            "        return cls()\n"                                        # 13
            "\n"
            "\n"
            "def load(given: t.Optional[t.Type[Template]] = None, flag=False):\n"  # 16
            "    cls = given or Template\n"                                 # 17
            "    cls.from_code()\n"                                         # 18 both are Template
            "    (Template if flag else given).from_code()\n"              # 19 a conditional: Template
            "    (Template if flag else Other).from_code()\n"              # 20 they differ: unbound
            "    (flag and Template).from_code()\n"                         # 21 flag's value is unknown
        ),
    }
    assert calls(files, tmp_path, "from_code") == [
        ("tpl.py", 18, "call", "tpl.Template.from_code", "from_code", "tpl.load"),
        ("tpl.py", 19, "call", "tpl.Template.from_code", "from_code", "tpl.load"),
        ("tpl.py", 20, "call", None, "from_code", "tpl.load"),
        ("tpl.py", 21, "call", None, "from_code", "tpl.load"),
    ]


def test_next_and_iter_give_the_elements_of_what_they_are_given(tmp_path: Path) -> None:
    """jinja2's ``TokenStream``: ``self._iter = iter(generator)`` of an ``Iterable[Token]``, then
    ``self.current = next(self._iter)`` or ``self._pushed.popleft()`` of a ``Deque[Token]``, so
    ``self.current.test(...)`` is ``Token.test`` (an ``iter(())`` elsewhere has no element, so it
    does not disagree); ``next()`` of an instance is its ``__next__``'s result; a ``next`` the
    module defines is that function."""
    files = {
        "lex.py": (
            "import typing as t\n"                                          # 1
            "from collections import deque\n"                               # 2
            "\n"
            "\n"
            "class Token:\n"                                                # 5
            "    def test(self):\n"                                         # 6
            "        return True\n"                                         # 7
            "\n"
            "\n"
            "class Stream:\n"                                               # 10
            "    def __init__(self, tokens: t.Iterable[Token]):\n"          # 11
            "        self._iter = iter(tokens)\n"                           # 12
            "        self._pushed: t.Deque[Token] = deque()\n"              # 13
            "        self.current = Token()\n"                              # 14
            "\n"
            "    def advance(self):\n"                                      # 16
            "        if self._pushed:\n"                                    # 17
            "            self.current = self._pushed.popleft()\n"           # 18
            "        else:\n"                                               # 19
            "            self.current = next(self._iter)\n"                 # 20
            "        return self.current.test()\n"                          # 21 Token.test
            "\n"
            "    def close(self):\n"                                        # 23
            "        self._iter = iter(())\n"                               # 24 an empty tuple: no element
            "\n"
            "    def __next__(self) -> Token:\n"                            # 26
            "        return self.current\n"                                 # 27
            "\n"
            "    def look(self):\n"                                         # 29
            "        return next(self).test()\n"                            # 30 its __next__: Token.test
            "\n"
            "\n"
            "def first(tokens: t.List[Token]):\n"                           # 33
            "    return next(iter(tokens), None).test()\n"                  # 34 Token.test
        ),
        "own.py": (
            "class Probe:\n"                                                # 1
            "    def test(self):\n"                                         # 2
            "        return 1\n"                                            # 3
            "\n"
            "\n"
            "def next(anything):\n"                                         # 6 this module's next
            "    return Probe()\n"                                          # 7
            "\n"
            "\n"
            "def use(tokens):\n"                                            # 10
            "    return next(tokens).test()\n"                              # 11 own next: a Probe
        ),
    }
    index = resolved_repo(tmp_path, files)
    assert [row for row in references(index, roles=("call",)) if row[4] in ("test", "next")] == [
        ("lex.py", 21, "call", "lex.Token.test", "test", "lex.Stream.advance"),
        ("lex.py", 30, "call", "lex.Token.test", "test", "lex.Stream.look"),
        ("lex.py", 34, "call", "lex.Token.test", "test", "lex.first"),
        ("own.py", 11, "call", "own.next", "next", "own.use"),
        ("own.py", 11, "call", "own.Probe.test", "test", "own.use"),
    ]


def test_typing_cast_gives_an_instance_of_the_type_it_names(tmp_path: Path) -> None:
    """click's ``multi = t.cast(MultiCommand, ctx.command)``; a ``cast`` that is not typing's is
    an ordinary call (its result unknown here)."""
    files = {
        "cmd.py": (
            "import typing as t\n"                                          # 1
            "from typing import cast\n"                                     # 2
            "from outside import cast as other_cast\n"                      # 3
            "\n"
            "\n"
            "class Multi:\n"                                                # 6
            "    def list_commands(self):\n"                                # 7
            "        return []\n"                                           # 8
            "\n"
            "\n"
            "def complete(ctx):\n"                                          # 11
            "    t.cast(Multi, ctx.command).list_commands()\n"              # 12 typing.cast
            "    cast('Multi', ctx.command).list_commands()\n"              # 13 by a string too
            "    other_cast(Multi, ctx.command).list_commands()\n"          # 14 not typing's: outside
            "    ctx.command.list_commands()\n"                             # 15 unknown: by name
        ),
    }
    assert calls(files, tmp_path, "list_commands") == [
        ("cmd.py", 12, "call", "cmd.Multi.list_commands", "list_commands", "cmd.complete"),
        ("cmd.py", 13, "call", "cmd.Multi.list_commands", "list_commands", "cmd.complete"),
        ("cmd.py", 15, "call", None, "list_commands", "cmd.complete"),
    ]


def test_a_tuple_is_unpacked_by_position(tmp_path: Path) -> None:
    """click's ``cmd_name, cmd, args = self.resolve_command(ctx, args)`` (declared
    ``Tuple[str, Command, List[str]]``) and ``for name, command in ...`` over an
    ``Iterator[Tuple[str, Command]]``; attrs' ``fmt_setter, fmt_with = _determine_setters(...)``
    (a literal ``return a, b``); click's ``for idx, arg in enumerate(self._args)``; a mapping's
    ``items()``. A target count that does not match, a starred target, or the members of an outside
    value (``zip(...)``: they may be this tree's) are unknown, kept by name."""
    files = {
        "core.py": (
            "import typing as t\n"                                                     # 1
            "\n"
            "\n"
            "class Command:\n"                                                         # 4
            "    def run(self):\n"                                                     # 5
            "        return 1\n"                                                       # 6
            "\n"
            "\n"
            "def resolve() -> t.Tuple[str, Command, t.List[str]]:\n"                   # 9
            "    return '', Command(), []\n"                                           # 10
            "\n"
            "\n"
            "def visible() -> t.Iterator[t.Tuple[str, Command]]:\n"                    # 13
            "    yield '', Command()\n"                                                # 14
            "\n"
            "\n"
            "def setters():\n"                                                         # 17
            "    def plain():\n"                                                       # 18
            "        return 1\n"                                                       # 19
            "\n"
            "    def converted():\n"                                                   # 21
            "        return 2\n"                                                       # 22
            "    return plain, converted\n"                                            # 23
            "\n"
            "\n"
            "def main(commands: t.List[Command]):\n"                                   # 26
            "    name, cmd, args = resolve()\n"                                        # 27
            "    cmd.run()\n"                                                          # 28 Command.run
            "    for label, each in visible():\n"                                      # 29
            "        each.run()\n"                                                     # 30 Command.run
            "    plain, converted = setters()\n"                                       # 31
            "    converted()\n"                                                        # 32 setters.converted
            "    for index, command in enumerate(commands):\n"                         # 33
            "        command.run()\n"                                                  # 34 Command.run
            "    first, *rest = resolve()\n"                                           # 35
            "    rest.run()\n"                                                         # 36 starred: unknown
            "    one, two = resolve()\n"                                               # 37
            "    two.run()\n"                                                          # 38 wrong count: unknown
            "\n"
            "\n"
            "def table(registry: t.Dict[str, Command], names, commands: t.List[Command]):\n"  # 41
            "    for key, command in registry.items():\n"                              # 42
            "        command.run()\n"                                                  # 43 (key, value): Command.run
            "    for name, zipped in zip(names, commands):\n"                          # 44
            "        zipped.run()\n"                                                   # 45 zip's: unknown, by name
        ),
    }
    index = resolved_repo(tmp_path, files)
    assert [row for row in references(index, roles=("call",)) if row[4] in ("run", "converted")] == [
        ("core.py", 28, "call", "core.Command.run", "run", "core.main"),
        ("core.py", 30, "call", "core.Command.run", "run", "core.main"),
        ("core.py", 32, "call", "core.setters.converted", "converted", "core.main"),
        ("core.py", 34, "call", "core.Command.run", "run", "core.main"),
        ("core.py", 36, "call", None, "run", "core.main"),
        ("core.py", 38, "call", None, "run", "core.main"),
        ("core.py", 43, "call", "core.Command.run", "run", "core.table"),
        ("core.py", 45, "call", None, "run", "core.table"),
    ]


def test_an_index_from_before_these_inferences_is_derived_again(tmp_path: Path) -> None:
    """An index a version 11 reader wrote for this commit holds the rows of the resolver before
    these inferences (here: the call on a member of ``a, b = f()`` unbound). Accepted as it is, it
    would keep answering with them; its schema version is older, so the next use derives it again."""
    import apsw

    from cm_graph.generation.layout import Workspace
    from cm_graph.index.ensure import current_generation, ensure_index
    from cm_graph.index.seal import write_seal

    files = {
        "pair.py": (
            "class Command:\n"                       # 1
            "    def run(self):\n"                   # 2
            "        return 1\n"                     # 3
            "\n"
            "\n"
            "def make():\n"                          # 6
            "    return 'name', Command()\n"         # 7
            "\n"
            "\n"
            "def main():\n"                          # 10
            "    name, command = make()\n"           # 11
            "    return command.run()\n"             # 12
        ),
    }
    index = resolved_repo(tmp_path, files)
    bound = ("pair.py", 12, "call", "pair.Command.run", "run", "pair.main")
    assert bound in references(index)
    connection = apsw.Connection(str(index))
    try:  # the row as the previous resolver wrote it
        with connection:
            connection.execute("UPDATE resolved_references SET definition = NULL WHERE line = 12 AND name = 'run'")
            connection.execute("PRAGMA user_version = 11")
    finally:
        connection.close()
    workspace = Workspace.locate(tmp_path / "repo", tmp_path / "state")
    write_seal(current_generation(workspace), index)  # sealed, as that reader sealed what it wrote
    assert ensure_index(workspace).path == index
    assert bound in references(index)


def test_a_name_narrowed_by_isinstance_or_bound_by_an_except_handler(tmp_path: Path) -> None:
    """Inside ``if isinstance(x, C):`` a use of ``x`` is a ``C`` (jinja2's optimizer:
    ``if isinstance(node, nodes.Expr): node.as_const(...)``), of one of them for a tuple of
    classes; not when the body rebinds ``x``, nor in a function defined there (it may run later),
    nor after the ``if``. An ``except E as e:`` name is an ``E`` in its handler only (Python
    unbinds it at the handler's end), so several handlers of one function do not disagree (click's
    ``except ClickException as e: e.show()`` beside ``except OSError as e``)."""
    files = {
        "narrow.py": (
            "class Node:\n"                                         # 1
            "    pass\n"                                            # 2
            "\n"
            "\n"
            "class Expr(Node):\n"                                   # 5
            "    def fold(self):\n"                                 # 6
            "        return 1\n"                                    # 7
            "\n"
            "\n"
            "class Const(Expr):\n"                                  # 10
            "    pass\n"                                            # 11
            "\n"
            "\n"
            "class Problem(Exception):\n"                           # 14
            "    def show(self):\n"                                 # 15
            "        return 1\n"                                    # 16
            "\n"
            "\n"
            "def visit(node: Node, other):\n"                       # 19
            "    if isinstance(node, Expr):\n"                      # 20
            "        node.fold()\n"                                 # 21 an Expr
            "        later = lambda: node.fold()\n"                 # 22 a lambda: by name
            "    if isinstance(other, (Expr, Const)):\n"            # 23
            "        other.fold()\n"                                # 24 both have Expr.fold
            "    if isinstance(other, Expr):\n"                     # 25
            "        other = make()\n"                              # 26 rebound in the body
            "        other.fold()\n"                                # 27 unknown: by name
            "    node.fold()\n"                                     # 28 after the if: a Node lacks it
            "    try:\n"                                            # 29
            "        return later\n"                                # 30
            "    except Problem as error:\n"                        # 31
            "        error.show()\n"                                # 32 a Problem
            "    except OSError as error:\n"                        # 33
            "        error.show()\n"                                # 34 outside: nothing
            "\n"
            "\n"
            "def make():\n"                                         # 37
            "    return other_thing()\n"                            # 38
        ),
    }
    index = resolved_repo(tmp_path, files)
    assert [row for row in references(index, roles=("call",)) if row[4] in ("fold", "show")] == [
        ("narrow.py", 21, "call", "narrow.Expr.fold", "fold", "narrow.visit"),
        ("narrow.py", 22, "call", None, "fold", "narrow.visit"),
        ("narrow.py", 24, "call", "narrow.Expr.fold", "fold", "narrow.visit"),
        ("narrow.py", 27, "call", None, "fold", "narrow.visit"),
        ("narrow.py", 28, "call", None, "fold", "narrow.visit"),
        ("narrow.py", 32, "call", "narrow.Problem.show", "show", "narrow.visit"),
    ]


def test_a_function_returning_its_first_argument_gives_that_argument(tmp_path: Path) -> None:
    """attrs' ``Factory = _add_hash(_add_eq(_add_repr(Factory, attrs=_f), attrs=_f), attrs=_f)``:
    each helper's every ``return`` is its first parameter, never rebound, so the name is still the
    class and ``Factory(...)`` instantiates it. A helper that returns anything else, or rebinds
    the parameter first, gives what it gives (here unknown)."""
    files = {
        "make.py": (
            "class Factory:\n"                                   # 1
            "    def __init__(self, factory):\n"                 # 2
            "        self.factory = factory\n"                   # 3
            "\n"
            "\n"
            "def _add_repr(cls, attrs=None):\n"                  # 6
            "    cls.__repr__ = lambda self: ''\n"              # 7
            "    if attrs:\n"                                    # 8
            "        return cls\n"                               # 9
            "    return cls\n"                                   # 10
            "\n"
            "\n"
            "def _rebound(cls):\n"                               # 13
            "    cls = wrap(cls)\n"                              # 14
            "    return cls\n"                                   # 15
            "\n"
            "\n"
            "def _maybe(cls):\n"                                 # 18
            "    if cls:\n"                                      # 19
            "        return cls\n"                               # 20
            "    return wrap(cls)\n"                             # 21
            "\n"
            "\n"
            "Factory = _add_repr(_add_repr(Factory), attrs=[])\n"  # 24
            "Rebound = _rebound(Factory)\n"                      # 25
            "Maybe = _maybe(Factory)\n"                          # 26
            "\n"
            "\n"
            "def use():\n"                                       # 29
            "    Factory(list).factory\n"                        # 30 the class: instantiated
            "    Rebound(list).__init__()\n"                     # 31 unknown: by name
            "    Maybe(list).__init__()\n"                       # 32 unknown: by name
        ),
    }
    index = resolved_repo(tmp_path, files)
    assert [row for row in references(index) if row[5] == "make.use"] == [
        ("make.py", 30, "call", "make.Factory.__init__", "Factory", "make.use"),
        ("make.py", 30, "instantiate", "make.Factory", "Factory", "make.use"),
        ("make.py", 31, "call", None, "__init__", "make.use"),
        ("make.py", 32, "call", None, "__init__", "make.use"),
    ]


def test_a_container_made_from_another_holds_its_elements(tmp_path: Path) -> None:
    """jinja2's ``todo = deque([self]); node = todo.popleft(); node.iter_child_nodes()``: ``list``,
    ``tuple``, ``set``, ``frozenset``, ``sorted`` and ``reversed`` of an iterable (the builtins, no
    scope rebinding them) and ``collections.deque`` of one hold its elements; a ``deque`` that is
    not collections' is an ordinary call."""
    files = {
        "walk.py": (
            "import collections\n"                                        # 1
            "import typing as t\n"                                        # 2
            "from collections import deque\n"                             # 3
            "\n"
            "\n"
            "class Node:\n"                                               # 6
            "    def children(self) -> t.Iterator['Node']:\n"            # 7
            "        return iter([])\n"                                   # 8
            "\n"
            "    def walk(self):\n"                                       # 10
            "        todo = deque([self])\n"                              # 11
            "        while todo:\n"                                       # 12
            "            node = todo.popleft()\n"                         # 13
            "            todo.extend(node.children())\n"                  # 14 Node.children
            "\n"
            "\n"
            "def ordered(nodes: t.List[Node]):\n"                         # 17
            "    for each in sorted(nodes, key=id):\n"                    # 18
            "        each.children()\n"                                   # 19 Node.children
            "    list(reversed(nodes))[0].children()\n"                   # 20 Node.children
            "    collections.deque(nodes).pop().children()\n"             # 21 Node.children
        ),
        "other.py": (
            "from walk import Node\n"                                     # 1
            "\n"
            "\n"
            "def deque(items):\n"                                         # 4 not collections'
            "    return items.copy()\n"                                   # 5 what it gives: unknown
            "\n"
            "\n"
            "def use(nodes):\n"                                           # 8
            "    deque([Node()]).pop().children()\n"                      # 9 unknown: by name
        ),
    }
    index = resolved_repo(tmp_path, files)
    assert [row for row in references(index, roles=("call",)) if row[4] == "children"] == [
        ("other.py", 9, "call", None, "children", "other.use"),
        ("walk.py", 14, "call", "walk.Node.children", "children", "walk.Node.walk"),
        ("walk.py", 19, "call", "walk.Node.children", "children", "walk.ordered"),
        ("walk.py", 20, "call", "walk.Node.children", "children", "walk.ordered"),
        ("walk.py", 21, "call", "walk.Node.children", "children", "walk.ordered"),
    ]
