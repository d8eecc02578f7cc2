"""The spellings a task's text names, as a person writes them: code first, common English never.

``prime`` resolves what this finds against the graph; this module only reads the text, so what a
task names is a pure function of its characters. A spelling is one of:

- ``code``: written in backticks (one spelling as written when it holds no space, else each
  token of it), or looking like code wherever it stands: a path (a ``/`` or a
  file extension), ``Class.method`` or ``module.func`` (a dot between two names), ``path::name``,
  ``snake_case``, ``CamelCase`` or ``camelCase``, a name followed by ``()``;
- ``word``: any other word of at least three letters that is not common English (``COMMON``: "the",
  "fix", "test", "error", …), tried as a definition's name and taken only when it is exactly the
  label of one definition (a class ``Session``; never ``bar`` for a function ``bar()``), and
  ``prime`` says which were tried and not taken.

Each spelling is kept once, in the order the text first names it, and at most ``MAX_SPELLINGS``
code spellings and ``MAX_WORDS`` words are tried.
"""

from __future__ import annotations

import re

from ..base.records import record

MAX_TASK_CHARS = 4000
MAX_SPELLINGS, MAX_WORDS = 16, 12
BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
# A run of what code is spelled with; sentence punctuation around it is trimmed afterwards.
TOKEN = re.compile(r"[A-Za-z0-9_$./:#@-]+(?:\(\))?")
NAME = r"[A-Za-z_$][A-Za-z0-9_$]*"
DOTTED = re.compile(rf"{NAME}(?:\.{NAME})+(?:\(\))?")
QUALIFIED = re.compile(r"[^\s:]+::[A-Za-z_$][\w$.]*(?:#L[1-9][0-9]*)?")
PATH = re.compile(r"(?:[\w.@-]+/)+[\w.@-]+|[\w@-][\w.@-]*\.(?:py|pyi|js|jsx|mjs|cjs|ts|tsx|go|rs|java|kt|rb|c|h|cc|cpp|"
                  r"hpp|cs|php|swift|scala|json|toml|yaml|yml|md|cfg|ini|sql|sh)")
CAMEL = re.compile(r"[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z][A-Za-z0-9]*")
SNAKE = re.compile(r"_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_*|__[A-Za-z0-9]+__")
CALLED = re.compile(rf"{NAME}\(\)")
WORD = re.compile(r"[A-Za-z][a-z]{2,}|[A-Z][A-Za-z]{2,}")
TRIM = ".,;:!?'\")(#-/"

# Words a task is written in, which name no code however often a repository defines them: the
# commonest English words and the words of a programmer's task itself ("fix", "test", "error").
COMMON = frozenset("""
a about above across add added adding after again against all allow also always an and another any anything are
around as ask at avoid away back bad be because been before behind being below best better between both break
breaks broken bug bugs but by call called caller callers calling calls can cannot case cases change changed changes
check class clean code come could crash crashes current data default delete deleted did different do does doing
done don down during each edge else empty enough error errors even every everything example except exception
exhausted extra fail failed failing fails false feature few file files find first fix fixed fixes fixing for
found from function functions get gets getting give given go goes going good got handle handled handles handling
has have having here how however if implement implemented improve in incorrect instead into is issue issues it
its just keep kind know last later least less let like line lines list long look lot made make makes making many
may maybe me method methods might missing more most move moved much must my name names need needed needs never
new next no none not nothing now null number of off old on once one only or other our out over own part pass
passed passes passing path please possible problem properly put rather read really refactor remove removed
rename renamed renaming replace return returned returns right run running same says see seems set should show
side simple since slow small so some something still stop such support supported sure take test tested tests than
that the their them then there these they thing things think this those through time to too true try trying two
type under until up update updated updates updating us use used uses using value values very want was way we
well were what when where whether which while who why will with within without work working works would wrong
yet you your
""".split())


@record
class Spelling:
    text: str
    kind: str  # code | word


def task_spellings(task: str) -> tuple[tuple[Spelling, ...], int]:
    """(the spellings ``task`` names, code ones first, then words; how many words were left out
    as common English)."""
    code: list[str] = []
    words: list[str] = []
    common = 0
    for inner in BACKTICKED.findall(task):
        inner = inner.strip()
        if inner and not any(char.isspace() for char in inner):
            _add(code, inner)  # one name, as written: `Session.send()`, a path with any character
            continue
        for token in _tokens(inner):
            _add(code, token)
    rest = BACKTICKED.sub(" ", task)
    for token in _tokens(rest):
        if _looks_like_code(token):
            _add(code, token)
        elif token.isalpha() and token.lower() in COMMON:
            common += 1
        elif WORD.fullmatch(token):
            _add(words, token)
        else:
            for part in re.findall(r"[A-Za-z]+", token):  # a hyphenated run: "off-by-one"
                common += part.lower() in COMMON
    taken = [Spelling(text, "code") for text in code[:MAX_SPELLINGS]]
    named = {text.lower() for text in code}
    taken += [Spelling(text, "word") for text in words if text.lower() not in named][:MAX_WORDS]
    return tuple(taken), common


def _tokens(text: str) -> list[str]:
    found = []
    for token in TOKEN.findall(text):
        token = token.strip(TRIM) if not token.endswith("()") else token.lstrip(TRIM)
        if token:
            found.append(token)
    return found


def _looks_like_code(token: str) -> bool:
    if DOTTED.fullmatch(token) and all(len(part) == 1 for part in token.rstrip("()").split(".")):
        return False  # "e.g", "i.e": an abbreviation, not a name
    return bool(QUALIFIED.fullmatch(token) or PATH.fullmatch(token) or DOTTED.fullmatch(token)
                or SNAKE.fullmatch(token) or CAMEL.fullmatch(token) or CALLED.fullmatch(token))


def _add(spellings: list[str], token: str) -> None:
    if token not in spellings:
        spellings.append(token)


def looks_like_path(spelling: str) -> bool:
    """A spelling that names a file: a ``/`` or a file extension, no ``::`` or line."""
    return "::" not in spelling and "#L" not in spelling and bool(PATH.fullmatch(spelling))
