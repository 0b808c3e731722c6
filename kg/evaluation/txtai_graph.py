"""A txtai graph backend that works without the optional GrandCypher package.

txtai's NetworkX graph asks GrandCypher, on every search, whether the query is an
openCypher query. GrandCypher comes with the ``txtai[graph]`` extra only; without it
the check itself raises ``ImportError``, even for plain text queries that never use
Cypher. :class:`OfflineNetworkX` answers that check with the same rule (a query
starting with ``MATCH`` and holding ``RETURN``) without importing GrandCypher, so the
semantic graph builds and plain searches run on a base ``txtai`` install. Real Cypher
queries still need GrandCypher and raise txtai's own error when it is absent.

This module imports txtai (and with it torch); import it only when building a txtai index.
"""

from __future__ import annotations

from collections.abc import Iterable

from txtai.graph.networkx import NetworkX

BACKEND_PATH = f"{__name__}.OfflineNetworkX"
"""Value for txtai's ``graph.backend`` setting (a class path txtai resolves itself)."""


def is_cypher(query: object) -> bool:
    """txtai's openCypher test: ``MATCH ...`` with a ``RETURN`` clause."""
    return isinstance(query, str) and query.strip().startswith("MATCH ") and "RETURN " in query


class OfflineNetworkX(NetworkX):
    """txtai's NetworkX graph whose query detection does not need GrandCypher."""

    def isquery(self, queries: Iterable[object]) -> bool:
        return all(is_cypher(q) for q in queries)
