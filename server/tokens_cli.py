"""`reverie token ...`: the HTTP bearer tokens in the token file.

- `create --profile P [--scopes read,write] [--name N]` adds a random token and prints it;
- `show NAME_OR_FINGERPRINT` prints one token again, to the person at the terminal (the server
  never prints a token: its output ends up in logs);
- `list` shows each token's fingerprint, name, profile and scopes, never the token;
- `revoke NAME_OR_FINGERPRINT` removes exactly one token.

A running server follows the file from its next request, so none of these needs a restart.
"""

from __future__ import annotations

from typing import get_args

import click

from server.auth import Scope, add_token, find_token, load_token_file, revoke_token
from server.cli_support import PROFILE
from server.settings import load_settings


def _scopes(ctx: click.Context, param: click.Parameter, value: str) -> list[Scope]:
    given = {scope.strip() for scope in value.split(",") if scope.strip()}
    scopes: list[Scope] = [scope for scope in get_args(Scope) if scope in given]
    if not scopes or len(scopes) < len(given):
        raise click.BadParameter("takes read and/or write, e.g. --scopes read or --scopes read,write")
    return scopes


@click.group()
def token() -> None:
    """Create, list and revoke HTTP bearer tokens."""


@token.command()
@click.option("--profile", type=PROFILE, required=True, help="The profile the token opens.")
@click.option(
    "--scopes", default="read,write", show_default=True, callback=_scopes, help="read, or read,write."
)
@click.option("--name", default=None, help="A label for the token.")
def create(profile: str, scopes: list[Scope], name: str | None) -> None:
    """Add a random token and print it.

    It is kept in the token file; `reverie token show` prints it again."""
    path = load_settings().tokens_path
    grant = add_token(path, profile, scopes, name=name)
    click.echo(
        f"{grant.token}\n(profile {grant.profile}, scopes {','.join(grant.scopes)}, "
        f"fingerprint {grant.fingerprint}, kept in {path}; `reverie token show {grant.fingerprint}` "
        "prints it again)"
    )


@token.command()
@click.argument("target", metavar="NAME_OR_FINGERPRINT")
def show(target: str) -> None:
    """Print one token, for a host's configuration.

    Named by its name or fingerprint, as `reverie token list` shows them."""
    click.echo(find_token(load_settings().tokens_path, target).token)


@token.command("list")
def list_tokens() -> None:
    """Show fingerprints, names, profiles and scopes.

    Never the tokens themselves."""
    path = load_settings().tokens_path
    grants = load_token_file(path).tokens
    if not grants:
        click.echo(f"No tokens in {path}; add one with `reverie token create --profile NAME`.")
        return
    click.echo(f"{'fingerprint':<12}  {'name':<16}  {'profile':<24}  scopes")
    for grant in grants:
        name = grant.shown_name or "-"
        click.echo(f"{grant.fingerprint}  {name:<16}  {grant.profile:<24}  {','.join(grant.scopes)}")


@token.command()
@click.argument("target", metavar="NAME_OR_FINGERPRINT")
def revoke(target: str) -> None:
    """Remove exactly one token.

    Named by its name or fingerprint, as `reverie token list` shows them."""
    path = load_settings().tokens_path
    revoked = revoke_token(path, target)
    click.echo(f"Revoked {revoked.label} from {path}; a running server refuses it from its next request.")
