"""The resolved layer binds imports as Python would (issue 28 item 1): the module map from paths
(packages, the src layout), ``import a.b as c``, ``import a.b.c``, ``from x import y as z``,
relative imports, re-exports through ``__init__`` and ``__all__``, star imports, and
module-qualified calls; each reference with its site, role, bound definition and caller.

Real git repositories, real indexes; the expected rows are written by hand from the sources."""

from __future__ import annotations

from pathlib import Path

from ..support.resolvedkit import references, resolved_repo

FILES = {
    "src/shop/__init__.py": (
        "from .core import Cart as Basket, total\n"          # 1 re-export under another name
        "from . import util\n"                               # 2
        "__all__ = ['Basket', 'total', 'util']\n"            # 3
    ),
    "src/shop/core.py": (
        "from .util import fmt\n"                            # 1 relative
        "\n"
        "\n"
        "class Cart:\n"                                      # 4
        "    def add(self, item):\n"                         # 5
        "        return fmt(item)\n"                         # 6
        "\n"
        "\n"
        "def total(cart):\n"                                 # 9
        "    return fmt(cart)\n"                             # 10
    ),
    "src/shop/util.py": (
        "def fmt(value):\n"                                  # 1
        "    return str(value)\n"                            # 2
        "\n"
        "\n"
        "def _hidden():\n"                                   # 5
        "    return 1\n"                                     # 6
    ),
    "src/shop/sub/__init__.py": "",
    "src/shop/sub/deep.py": (
        "from ..util import fmt as f\n"                      # 1 two dots, aliased
        "from .. import core\n"                              # 2
        "\n"
        "\n"
        "def run():\n"                                       # 5
        "    f(1)\n"                                         # 6
        "    return core.total(None)\n"                      # 7
    ),
    "app.py": (
        "import shop.core as c\n"                            # 1 import a.b as c
        "import shop.sub.deep\n"                             # 2 import a.b.c
        "from shop import Basket as B, total as t\n"         # 3 from x import y as z (a re-export)
        "from shop import *\n"                               # 4 __all__
        "\n"
        "\n"
        "def main():\n"                                      # 7
        "    c.Cart().add(1)\n"                              # 8 module alias, instantiation
        "    shop.sub.deep.run()\n"                          # 9 module-qualified call
        "    t(B())\n"                                       # 10 aliases of re-exports
        "    util.fmt(2)\n"                                  # 11 a star-imported module
        "    return total\n"                                 # 12 a star-imported function, referenced
    ),
}


def test_imports_and_module_qualified_calls_bind_to_their_definitions(tmp_path: Path) -> None:
    assert references(resolved_repo(tmp_path, FILES)) == [
        ("app.py", 1, "import", "shop.core", "core", "app"),
        ("app.py", 2, "import", "shop.sub.deep", "deep", "app"),
        ("app.py", 3, "import", "shop.core.Cart", "Basket", "app"),
        ("app.py", 3, "import", "shop.core.total", "total", "app"),
        ("app.py", 8, "instantiate", "shop.core.Cart", "Cart", "app.main"),
        ("app.py", 8, "call", "shop.core.Cart.add", "add", "app.main"),
        ("app.py", 9, "call", "shop.sub.deep.run", "run", "app.main"),
        ("app.py", 10, "call", "shop.core.total", "t", "app.main"),
        ("app.py", 10, "instantiate", "shop.core.Cart", "B", "app.main"),
        ("app.py", 11, "call", "shop.util.fmt", "fmt", "app.main"),
        ("app.py", 12, "reference", "shop.core.total", "total", "app.main"),
        ("src/shop/__init__.py", 1, "import", "shop.core.Cart", "Cart", "shop"),
        ("src/shop/__init__.py", 1, "import", "shop.core.total", "total", "shop"),
        ("src/shop/__init__.py", 2, "import", "shop.util", "util", "shop"),
        ("src/shop/core.py", 1, "import", "shop.util.fmt", "fmt", "shop.core"),
        ("src/shop/core.py", 6, "call", "shop.util.fmt", "fmt", "shop.core.Cart.add"),
        ("src/shop/core.py", 10, "call", "shop.util.fmt", "fmt", "shop.core.total"),
        ("src/shop/sub/deep.py", 1, "import", "shop.util.fmt", "fmt", "shop.sub.deep"),
        ("src/shop/sub/deep.py", 2, "import", "shop.core", "core", "shop.sub.deep"),
        ("src/shop/sub/deep.py", 6, "call", "shop.util.fmt", "f", "shop.sub.deep.run"),
        ("src/shop/sub/deep.py", 7, "call", "shop.core.total", "total", "shop.sub.deep.run"),
    ]


def test_a_star_import_brings_only_what_all_lists(tmp_path: Path) -> None:
    """``__all__`` decides what ``*`` brings; without one, every public name (never a private one)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/listed.py": "__all__ = ['shown']\n\n\ndef shown():\n    pass\n\n\ndef unlisted():\n    pass\n",
        "pkg/open.py": "def public():\n    pass\n\n\ndef _private():\n    pass\n",
        "pkg/use.py": (
            "from pkg.listed import *\n"
            "from pkg.open import *\n"
            "\n"
            "\n"
            "def go():\n"
            "    shown()\n"
            "    unlisted()\n"
            "    public()\n"
            "    _private()\n"
        ),
    }
    assert references(resolved_repo(tmp_path, files), roles=("call",)) == [
        ("pkg/use.py", 6, "call", "pkg.listed.shown", "shown", "pkg.use.go"),
        ("pkg/use.py", 8, "call", "pkg.open.public", "public", "pkg.use.go"),
    ]
