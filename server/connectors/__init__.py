"""Reverie as an OAuth 2.1 authorization server for remote connectors (Claude.ai, ChatGPT, ...).

The MCP SDK serves the endpoints (`mcp.server.auth`); `provider` answers them from the grants
kept in Neo4j (`graph.connectors`), the consent page (`server.review.consent`) lets the person
choose, and `metadata_documents` fetches the clients that name themselves by an https URL.
"""
