"""The one error the local Neo4j code raises."""


class LocalNeo4jError(Exception):
    """A local Neo4j step failed; the message says what failed and what to do about it."""
