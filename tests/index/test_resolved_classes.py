"""The resolved layer binds calls through classes and types (issue 28 item 1): instantiation (and the
``__init__`` it runs), ``self.m()``, ``cls.m()``, ``super().m()`` through the class's MRO within the
repository, overrides, and ``obj.m()`` where ``obj``'s type is known from a constructor call, an
annotation (parameter, variable, the called function's return), ``self.attr = X()`` in any method,
or ``with X() as obj``. A call whose receiver's type is unknown is never guessed: it is kept
unbound, with its name, when some definition has that name.

Real git repositories, real indexes; the expected rows are written by hand from the sources."""

from __future__ import annotations

from pathlib import Path

from ..support.resolvedkit import references, resolved_repo

CLASSES = {
    "zoo/__init__.py": "",
    "zoo/base.py": (
        "class Animal:\n"                                    # 1
        "    def __init__(self, name):\n"                    # 2
        "        self.name = name\n"                         # 3
        "\n"
        "    def speak(self):\n"                             # 5
        "        return self.sound()\n"                      # 6 self.m() through the class
        "\n"
        "    def sound(self):\n"                             # 8
        "        return '...'\n"                             # 9
        "\n"
        "    @classmethod\n"                                 # 11
        "    def create(cls, name):\n"                       # 12
        "        return cls(name)\n"                         # 13 cls() instantiates
    ),
    "zoo/pets.py": (
        "from zoo.base import Animal\n"                      # 1
        "\n"
        "\n"
        "class Pet(Animal):\n"                               # 4
        "    def sound(self):\n"                             # 5 an override
        "        return 'purr'\n"                            # 6
        "\n"
        "\n"
        "class Dog(Pet):\n"                                  # 9
        "    def __init__(self, name):\n"                    # 10 an override of Animal.__init__
        "        super().__init__(name)\n"                   # 11 super() through the MRO
        "\n"
        "    def sound(self):\n"                             # 13
        "        return super().sound() + cls_helper()\n"    # 14 super(): Pet's; a name call
        "\n"
        "    def fetch(self):\n"                             # 16
        "        return self.speak()\n"                      # 17 inherited from Animal
        "\n"
        "\n"
        "def cls_helper():\n"                                # 20
        "    return Dog.create('rex').fetch()\n"            # 21 cls.m(), return type of create
    ),
}

TYPES = {
    "lib/__init__.py": "",
    "lib/db.py": (
        "class Conn:\n"                                      # 1
        "    def query(self):\n"                             # 2
        "        return 1\n"                                 # 3
        "\n"
        "    def __enter__(self):\n"                         # 5
        "        return self\n"                              # 6
        "\n"
        "    def __exit__(self, *args):\n"                   # 8
        "        return None\n"                              # 9
        "\n"
        "\n"
        "class Pool:\n"                                      # 12
        "    def __init__(self):\n"                          # 13
        "        self.spare = None\n"                        # 14 None never disagrees
        "\n"
        "    def warm(self):\n"                              # 16
        "        self.spare = Conn()\n"                      # 17 an instance attribute set in any method
        "\n"
        "    def get(self) -> Conn:\n"                       # 19 a return annotation
        "        return self.spare\n"                        # 20
        "\n"
        "    def close(self):\n"                             # 22
        "        self.spare.query()\n"                       # 23 through the instance attribute
    ),
    "lib/use.py": (
        "from lib.db import Conn, Pool\n"                    # 1
        "\n"
        "\n"
        "def by_constructor():\n"                            # 4
        "    pool = Pool()\n"                                # 5
        "    pool.get().query()\n"                           # 6 return annotation of the called function
        "\n"
        "\n"
        "def by_parameter(conn: Conn, other: 'Conn | None'):\n"   # 9
        "    conn.query()\n"                                 # 10 parameter annotation
        "    other.query()\n"                                # 11 a string annotation, Optional
        "\n"
        "\n"
        "def by_variable():\n"                               # 14
        "    conn: Conn = make()\n"                          # 15 variable annotation
        "    conn.query()\n"                                 # 16
        "    with Conn() as entered:\n"                      # 17 with X() as obj
        "        entered.query()\n"                          # 18
        "\n"
        "\n"
        "def unknown(thing, items):\n"                       # 21
        "    thing.query()\n"                                # 22 unknown receiver: unbound, by name
        "    thing.append(1)\n"                              # 23 no definition is named so: nothing
        "    for conn in items:\n"                           # 24
        "        conn.query()\n"                             # 25
        "\n"
        "\n"
        "def make():\n"                                      # 28
        "    return object()\n"                              # 29
    ),
}


def test_calls_through_the_class_and_its_bases(tmp_path: Path) -> None:
    assert references(resolved_repo(tmp_path, CLASSES)) == [
        ("zoo/base.py", 6, "call", "zoo.base.Animal.sound", "sound", "zoo.base.Animal.speak"),
        ("zoo/base.py", 13, "call", "zoo.base.Animal.__init__", "cls", "zoo.base.Animal.create"),
        ("zoo/base.py", 13, "instantiate", "zoo.base.Animal", "cls", "zoo.base.Animal.create"),
        ("zoo/pets.py", 1, "import", "zoo.base.Animal", "Animal", "zoo.pets"),
        ("zoo/pets.py", 4, "inherit", "zoo.base.Animal", "Animal", "zoo.pets.Pet"),
        ("zoo/pets.py", 5, "override", "zoo.base.Animal.sound", "sound", "zoo.pets.Pet.sound"),
        ("zoo/pets.py", 9, "inherit", "zoo.pets.Pet", "Pet", "zoo.pets.Dog"),
        ("zoo/pets.py", 10, "override", "zoo.base.Animal.__init__", "__init__", "zoo.pets.Dog.__init__"),
        ("zoo/pets.py", 11, "call", "zoo.base.Animal.__init__", "__init__", "zoo.pets.Dog.__init__"),
        ("zoo/pets.py", 13, "override", "zoo.pets.Pet.sound", "sound", "zoo.pets.Dog.sound"),
        ("zoo/pets.py", 14, "call", "zoo.pets.Pet.sound", "sound", "zoo.pets.Dog.sound"),
        ("zoo/pets.py", 14, "call", "zoo.pets.cls_helper", "cls_helper", "zoo.pets.Dog.sound"),
        ("zoo/pets.py", 17, "call", "zoo.base.Animal.speak", "speak", "zoo.pets.Dog.fetch"),
        ("zoo/pets.py", 21, "reference", "zoo.pets.Dog", "Dog", "zoo.pets.cls_helper"),
        ("zoo/pets.py", 21, "call", "zoo.base.Animal.create", "create", "zoo.pets.cls_helper"),
        # create() returns cls(...): called on Dog, it gives a Dog
        ("zoo/pets.py", 21, "call", "zoo.pets.Dog.fetch", "fetch", "zoo.pets.cls_helper"),
    ]


def test_receivers_typed_by_constructors_annotations_attributes_and_with(tmp_path: Path) -> None:
    assert references(resolved_repo(tmp_path, TYPES)) == [
        ("lib/db.py", 17, "instantiate", "lib.db.Conn", "Conn", "lib.db.Pool.warm"),
        ("lib/db.py", 19, "reference", "lib.db.Conn", "Conn", "lib.db.Pool.get"),
        ("lib/db.py", 23, "call", "lib.db.Conn.query", "query", "lib.db.Pool.close"),
        ("lib/use.py", 1, "import", "lib.db.Conn", "Conn", "lib.use"),
        ("lib/use.py", 1, "import", "lib.db.Pool", "Pool", "lib.use"),
        ("lib/use.py", 5, "call", "lib.db.Pool.__init__", "Pool", "lib.use.by_constructor"),
        ("lib/use.py", 5, "instantiate", "lib.db.Pool", "Pool", "lib.use.by_constructor"),
        ("lib/use.py", 6, "call", "lib.db.Pool.get", "get", "lib.use.by_constructor"),
        ("lib/use.py", 6, "call", "lib.db.Conn.query", "query", "lib.use.by_constructor"),
        ("lib/use.py", 9, "reference", "lib.db.Conn", "Conn", "lib.use.by_parameter"),
        ("lib/use.py", 10, "call", "lib.db.Conn.query", "query", "lib.use.by_parameter"),
        ("lib/use.py", 11, "call", "lib.db.Conn.query", "query", "lib.use.by_parameter"),
        ("lib/use.py", 15, "reference", "lib.db.Conn", "Conn", "lib.use.by_variable"),
        ("lib/use.py", 15, "call", "lib.use.make", "make", "lib.use.by_variable"),
        ("lib/use.py", 16, "call", "lib.db.Conn.query", "query", "lib.use.by_variable"),
        ("lib/use.py", 17, "instantiate", "lib.db.Conn", "Conn", "lib.use.by_variable"),
        ("lib/use.py", 18, "call", "lib.db.Conn.query", "query", "lib.use.by_variable"),
        # unknown receivers: unbound, by name (thing.append: no definition is named append)
        ("lib/use.py", 22, "call", None, "query", "lib.use.unknown"),
        ("lib/use.py", 25, "call", None, "query", "lib.use.unknown"),
    ]


def test_a_name_defined_twice_is_not_guessed(tmp_path: Path) -> None:
    """Two definitions bound to one name by code that may run either way: the call is unbound."""
    files = {
        "mod.py": (
            "try:\n"
            "    from fast import pick\n"
            "except ImportError:\n"
            "    def pick():\n"            # 4 the fallback, used only when nothing else binds
            "        return 0\n"
            "\n"
            "if True:\n"
            "    def choose():\n"          # 8
            "        return 1\n"
            "else:\n"
            "    def choose():\n"          # 11
            "        return 2\n"
            "\n"
            "\n"
            "def go():\n"                  # 15
            "    pick()\n"                 # 16 the import (from outside the tree): nothing recorded
            "    return choose()\n"        # 17 ambiguous: unbound
        ),
    }
    assert references(resolved_repo(tmp_path, files), roles=("call",)) == [
        ("mod.py", 17, "call", None, "choose", "mod.go"),
    ]


def test_an_element_typed_by_a_type_variable_is_unknown_not_outside(tmp_path: Path) -> None:
    """A ``Registry`` iterated through ``__iter__() -> Iterator[_T]``: ``_T`` is assigned from
    ``typing.TypeVar`` (outside the tree), but what it stands for is not known to be outside, so a
    call on an element is kept unbound by name (markdown's ``for prep in self.preprocessors:
    prep.run(...)`` was recorded as nothing at all); a ``Registry[Step]``'s element is a ``Step``
    (markdown's ``build_preprocessors() -> util.Registry[Preprocessor]``). A name imported from
    outside stays outside."""
    files = {
        "reg.py": (
            "from typing import Generic, Iterator, TypeVar\n"   # 1
            "from outside import Thing\n"                       # 2
            "_T = TypeVar('_T')\n"                              # 3
            "\n"
            "\n"
            "class Registry(Generic[_T]):\n"                    # 6
            "    def __iter__(self) -> Iterator[_T]:\n"         # 7
            "        return iter([])\n"                         # 8
            "\n"
            "\n"
            "class Step:\n"                                     # 11
            "    def run(self):\n"                              # 12
            "        return 1\n"                                # 13
            "\n"
            "\n"
            "def convert(steps: Registry, thing: Thing, typed: Registry[Step]):\n"  # 16
            "    for step in steps:\n"                          # 17
            "        step.run()\n"                              # 18 an element of unknown type: kept by name
            "    for each in typed:\n"                          # 19
            "        each.run()\n"                              # 20 a Registry[Step]'s element is a Step
            "    return thing.run()\n"                          # 21 an outside type: nothing recorded
        ),
    }
    assert [row for row in references(resolved_repo(tmp_path, files), roles=("call",)) if row[4] == "run"] == [
        ("reg.py", 18, "call", None, "run", "reg.convert"),
        ("reg.py", 20, "call", "reg.Step.run", "run", "reg.convert"),
    ]
