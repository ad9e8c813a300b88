"""What lets a browser or a connector in: OAuth clients and grants, and review-page sessions.

Clients and pending authorization requests belong to the deployment (`graph.connectors.clients`);
grants, their codes and tokens, and review sessions belong to one profile and are erased with
it. Secrets (codes, tokens, session ids) are kept only as SHA-256 digests.
"""
