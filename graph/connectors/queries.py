"""Cypher of one profile's grants, codes, tokens and review sessions. Parameters only.

Codes, tokens and sessions are keyed by the SHA-256 digest of their secret; the secret itself is
never written. A grant's codes and tokens carry its id, so revoking it deletes them together.
"""

from __future__ import annotations

from graph.scope import ScopedQuery

_GRANT_FIELDS = (
    "g.id AS id, g.profile_id AS profile_id, g.client_id AS client_id, g.client_name AS client_name, "
    "g.scopes AS scopes, g.resource AS resource, g.created_at AS created_at, g.last_used_at AS last_used_at"
)

# The grant `g`'s next access and refresh tokens (`$tokens`: digest, kind, expires_at each).
_NEW_TOKENS = """
    WITH g
    UNWIND $tokens AS token
    CREATE (t:OAuthToken {profile_id: $profile_id, digest: token.digest, grant_id: g.id, kind: token.kind,
                          client_id: g.client_id, scopes: g.scopes, resource: g.resource,
                          expires_at: token.expires_at, rotated: false})
    RETURN count(t) AS count
"""

# A consent: the grant and its one authorization code, written together.
CREATE_GRANT = ScopedQuery(
    "create_oauth_grant",
    """
    CREATE (g:OAuthGrant {profile_id: $profile_id, id: $grant_id, client_id: $client_id,
                          client_name: $client_name, scopes: $scopes, resource: $resource,
                          created_at: $now, last_used_at: null})
    CREATE (c:OAuthCode {profile_id: $profile_id, digest: $code_digest, grant_id: $grant_id,
                         client_id: $client_id, redirect_uri: $redirect_uri,
                         redirect_explicit: $redirect_explicit, code_challenge: $code_challenge,
                         resource: $resource, scopes: $scopes, expires_at: $code_expires_at, used: false})
    RETURN g.id AS id
    """,
)
# The code's one use: marked used and answered with the grant's first access and refresh tokens.
REDEEM_CODE = ScopedQuery(
    "redeem_oauth_code",
    """
    MATCH (c:OAuthCode {profile_id: $profile_id, digest: $code_digest, used: false})
    WHERE c.expires_at > $now
    MATCH (g:OAuthGrant {profile_id: $profile_id, id: c.grant_id})
    SET c.used = true
    """
    + _NEW_TOKENS,
)
# A refresh token's one use: marked rotated, and the grant's next pair written.
ROTATE_REFRESH = ScopedQuery(
    "rotate_oauth_refresh",
    """
    MATCH (r:OAuthToken {profile_id: $profile_id, digest: $refresh_digest, kind: 'refresh', rotated: false})
    WHERE r.expires_at > $now
    MATCH (g:OAuthGrant {profile_id: $profile_id, id: r.grant_id})
    SET r.rotated = true
    """
    + _NEW_TOKENS,
)
# A grant with its whole family: codes, access and refresh tokens.
REVOKE_GRANT = ScopedQuery(
    "revoke_oauth_grant",
    """
    OPTIONAL MATCH (g:OAuthGrant {profile_id: $profile_id, id: $grant_id})
    CALL () {
        MATCH (c:OAuthCode {profile_id: $profile_id, grant_id: $grant_id}) DETACH DELETE c
    }
    CALL () {
        MATCH (t:OAuthToken {profile_id: $profile_id, grant_id: $grant_id}) DETACH DELETE t
    }
    DETACH DELETE g
    RETURN count(g) AS count
    """,
)
# Last use is written at most once per `$stale` interval, so a busy connector is not a write a call.
TOUCH_GRANT = ScopedQuery(
    "touch_oauth_grant",
    """
    MATCH (g:OAuthGrant {profile_id: $profile_id, id: $grant_id})
    WHERE g.last_used_at IS NULL OR g.last_used_at < $stale
    SET g.last_used_at = $now
    RETURN g.id AS id
    """,
)
LIST_GRANTS = ScopedQuery(
    "list_oauth_grants",
    f"""
    MATCH (g:OAuthGrant {{profile_id: $profile_id}})
    RETURN {_GRANT_FIELDS}
    ORDER BY g.created_at
    """,
)
# Codes and tokens past their time, which no lookup accepts any more.
PURGE_EXPIRED = ScopedQuery(
    "purge_expired_oauth",
    """
    CALL () {
        MATCH (c:OAuthCode {profile_id: $profile_id}) WHERE c.expires_at < $now DETACH DELETE c
    }
    CALL () {
        MATCH (t:OAuthToken {profile_id: $profile_id}) WHERE t.expires_at < $now DETACH DELETE t
    }
    CALL () {
        MATCH (s:ReviewSession {profile_id: $profile_id}) WHERE s.expires_at < $now DETACH DELETE s
    }
    RETURN 0 AS count
    """,
)

# --- review-page sessions ---------------------------------------------------------------------

CREATE_SESSION = ScopedQuery(
    "create_review_session",
    """
    CREATE (s:ReviewSession {profile_id: $profile_id, digest: $digest, token_digest: $token_digest,
                             expires_at: $expires_at, notice: null})
    RETURN s.digest AS id
    """,
)
END_SESSION = ScopedQuery(
    "end_review_session",
    """
    MATCH (s:ReviewSession {profile_id: $profile_id, digest: $digest})
    DETACH DELETE s
    RETURN count(*) AS count
    """,
)
LEAVE_NOTICE = ScopedQuery(
    "leave_review_notice",
    """
    MATCH (s:ReviewSession {profile_id: $profile_id, digest: $digest})
    SET s.notice = $text
    RETURN s.digest AS id
    """,
)
TAKE_NOTICE = ScopedQuery(
    "take_review_notice",
    """
    MATCH (s:ReviewSession {profile_id: $profile_id, digest: $digest})
    WITH s, s.notice AS notice
    SET s.notice = null
    RETURN notice
    """,
)
