"""A local Neo4j Community server for Reverie, run from Maven Central jars without Docker."""

from graph.localdb.config import NEO4J_VERSION
from graph.localdb.errors import LocalNeo4jError
from graph.localdb.manager import LocalCredentials, LocalNeo4j, LocalNeo4jStatus
from graph.ports import free_port

__all__ = [
    "NEO4J_VERSION",
    "LocalCredentials",
    "LocalNeo4j",
    "LocalNeo4jError",
    "LocalNeo4jStatus",
    "free_port",
]
