"""`reverie connectors ...`: the apps connected through OAuth (Claude.ai, ChatGPT, ...), by profile.

- `list` shows each connected app: its grant id, name, profile, scopes, first and last use;
- `revoke GRANT` disconnects one: its access and refresh tokens stop working on the next request,
  in every server process.
"""

from __future__ import annotations

from datetime import datetime

import click

from graph.access import GraphStore
from graph.connectors.grants import list_grants, revoke_grant
from graph.connectors.lookup import granted_profiles
from graph.connectors.records import Grant
from graph.errors import InvalidInputError
from server.cli_support import PROFILE, echo_json, json_option, synchronous
from server.settings import load_settings
from server.stores import opened_store


def _when(instant: datetime | None) -> str:
    return instant.strftime("%Y-%m-%d %H:%M UTC") if instant else "never"


def _line(grant: Grant) -> str:
    return (
        f"{grant.id}  {grant.client_name}  profile {grant.profile_id}  {','.join(grant.scopes)}  "
        f"connected {_when(grant.created_at)}  last used {_when(grant.last_used_at)}"
    )


def _as_json(grant: Grant) -> dict[str, object]:
    return {
        "id": grant.id,
        "client_name": grant.client_name,
        "client_id": grant.client_id,
        "profile": grant.profile_id,
        "scopes": list(grant.scopes),
        "connected_at": grant.created_at.isoformat(),
        "last_used_at": grant.last_used_at.isoformat() if grant.last_used_at else None,
    }


async def _grants(store: GraphStore, only: str | None) -> list[Grant]:
    profiles = [only] if only is not None else await granted_profiles(store)
    return [grant for profile_id in profiles for grant in await list_grants(store.profile(profile_id))]


@click.group()
def connectors() -> None:
    """List and revoke the apps connected through OAuth."""


@connectors.command("list")
@click.option("--profile", "profile_id", type=PROFILE, default=None, help="Only this profile's apps.")
@json_option
@synchronous
async def list_command(profile_id: str | None, as_json: bool) -> None:
    """Show every connected app with its profile, scopes, first and last use."""
    async with opened_store(load_settings()) as store:
        found = await _grants(store, profile_id)
    if as_json:
        echo_json([_as_json(grant) for grant in found])
        return
    for grant in found:
        click.echo(_line(grant))
    if not found:
        click.echo("No app is connected.")


@connectors.command()
@click.argument("grant_id", metavar="GRANT")
@synchronous
async def revoke(grant_id: str) -> None:
    """Disconnect the app with grant id GRANT (`reverie connectors list` shows them)."""
    async with opened_store(load_settings()) as store:
        chosen = [grant for grant in await _grants(store, None) if grant.id == grant_id]
        if not chosen:
            raise InvalidInputError(
                f"No connected app has grant id {grant_id[:80]!r}; `reverie connectors list` shows them."
            )
        await revoke_grant(store.profile(chosen[0].profile_id), grant_id)
    click.echo(f"Disconnected {chosen[0].client_name} from profile {chosen[0].profile_id}.")
