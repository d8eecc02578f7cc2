"""The resolved layer binds pytest fixtures (issue 28 item 1): a test's (or a fixture's) parameter
named like a fixture in scope (its class, its module, then each conftest.py up the tree; a fixture
requesting its own name gets the next one out) is a ``fixture`` reference, and its type is the
fixture's return annotation or what it returns or yields, so calls on it bind.

Real git repositories, real indexes; the expected rows are written by hand from the sources."""

from __future__ import annotations

from pathlib import Path

from ..support.resolvedkit import references, resolved_repo

FILES = {
    "app/__init__.py": "",
    "app/client.py": (
        "class Client:\n"                                    # 1
        "    def get(self, url):\n"                          # 2
        "        return url\n"                               # 3
        "\n"
        "\n"
        "class Server:\n"                                    # 6
        "    def start(self):\n"                             # 7
        "        return self\n"                              # 8
    ),
    "tests/conftest.py": (
        "import pytest\n"                                    # 1
        "from app.client import Client, Server\n"            # 2
        "\n"
        "\n"
        "@pytest.fixture\n"                                  # 5
        "def client() -> Client:\n"                          # 6 typed by its return annotation
        "    return Client()\n"                              # 7
        "\n"
        "\n"
        "@pytest.fixture()\n"                                # 10
        "def server():\n"                                    # 11 typed by what it yields
        "    yield Server()\n"                               # 12
    ),
    "tests/api/conftest.py": (
        "import pytest\n"                                    # 1
        "\n"
        "\n"
        "@pytest.fixture\n"                                  # 4
        "def client(client):\n"                              # 5 overrides the outer one, requests it
        "    return client\n"                                # 6
    ),
    "tests/api/test_api.py": (
        "import pytest\n"                                    # 1
        "from app.client import Server\n"                    # 2
        "\n"
        "\n"
        "@pytest.fixture(name='started')\n"                  # 5 a fixture by another name
        "def _started(server: Server):\n"                    # 6
        "    return server.start()\n"                        # 7
        "\n"
        "\n"
        "def test_get(client, started):\n"                   # 10 the nearest conftest, then the module
        "    client.get('/')\n"                              # 11
        "    started.start()\n"                              # 12
        "\n"
        "\n"
        "@pytest.mark.parametrize('server', [1, 2])\n"       # 15
        "def test_param(server, tmp_path):\n"                # 16 parametrized, builtin: no fixture
        "    server.start()\n"                               # 17
        "\n"
        "\n"
        "class TestServer:\n"                                # 20
        "    def test_up(self, server):\n"                   # 21 a test method: the top conftest
        "        server.start()\n"                           # 22
    ),
}


def test_fixture_parameters_bind_to_the_nearest_fixture_and_type_their_calls(tmp_path: Path) -> None:
    assert references(resolved_repo(tmp_path, FILES)) == [
        ("tests/api/conftest.py", 5, "fixture", "tests.conftest.client", "client", "tests.api.conftest.client"),
        ("tests/api/test_api.py", 2, "import", "app.client.Server", "Server", "test_api"),
        ("tests/api/test_api.py", 6, "reference", "app.client.Server", "Server", "test_api._started"),
        ("tests/api/test_api.py", 7, "call", "app.client.Server.start", "start", "test_api._started"),
        ("tests/api/test_api.py", 10, "fixture", "tests.api.conftest.client", "client", "test_api.test_get"),
        ("tests/api/test_api.py", 10, "fixture", "test_api._started", "started", "test_api.test_get"),
        ("tests/api/test_api.py", 11, "call", "app.client.Client.get", "get", "test_api.test_get"),
        ("tests/api/test_api.py", 12, "call", "app.client.Server.start", "start", "test_api.test_get"),
        # parametrized: no fixture, so an unknown receiver
        ("tests/api/test_api.py", 17, "call", None, "start", "test_api.test_param"),
        ("tests/api/test_api.py", 21, "fixture", "tests.conftest.server", "server", "test_api.TestServer.test_up"),
        ("tests/api/test_api.py", 22, "call", "app.client.Server.start", "start", "test_api.TestServer.test_up"),
        ("tests/conftest.py", 2, "import", "app.client.Client", "Client", "tests.conftest"),
        ("tests/conftest.py", 2, "import", "app.client.Server", "Server", "tests.conftest"),
        ("tests/conftest.py", 6, "reference", "app.client.Client", "Client", "tests.conftest.client"),
        ("tests/conftest.py", 7, "instantiate", "app.client.Client", "Client", "tests.conftest.client"),
        ("tests/conftest.py", 12, "instantiate", "app.client.Server", "Server", "tests.conftest.server"),
    ]
