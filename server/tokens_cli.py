"""`reverie token ...`: the HTTP bearer tokens in the token file.

- `create --profile P [--scopes read,write] [--name N]` adds a random token and prints it, the
  only time it is shown;
- `list` shows each token's fingerprint, name, profile and scopes, never the token;
- `revoke NAME_OR_FINGERPRINT` removes exactly one token.

A running server follows the file from its next request, so none of these needs a restart.
"""

from __future__ import annotations

import argparse

from graph.access import validate_profile_id
from graph.errors import InvalidInputError
from server.auth import add_token, load_token_file, revoke_token
from server.settings import load_settings


def _create(args: argparse.Namespace) -> None:
    if not args.profile:
        raise InvalidInputError("`reverie token create` needs --profile: the profile the token opens")
    scopes = [scope.strip() for scope in args.scopes.split(",") if scope.strip()]
    if not scopes or set(scopes) - {"read", "write"}:
        raise InvalidInputError("--scopes takes read and/or write, e.g. --scopes read or --scopes read,write")
    path = load_settings().tokens_path
    grant = add_token(path, validate_profile_id(args.profile), scopes, name=args.name)
    print(
        f"{grant.token}\n(profile {grant.profile}, scopes {','.join(grant.scopes)}, "
        f"fingerprint {grant.fingerprint}, file {path})"
    )


def _list(args: argparse.Namespace) -> None:
    path = load_settings().tokens_path
    grants = load_token_file(path).tokens
    if not grants:
        print(f"No tokens in {path}; add one with `reverie token create --profile NAME`.")
        return
    print(f"{'fingerprint':<12}  {'name':<16}  {'profile':<24}  scopes")
    for grant in grants:
        name = grant.shown_name or "-"
        print(f"{grant.fingerprint}  {name:<16}  {grant.profile:<24}  {','.join(grant.scopes)}")


def _revoke(args: argparse.Namespace) -> None:
    if not args.target:
        raise InvalidInputError(
            "`reverie token revoke` needs the token's name or fingerprint (`reverie token list`)"
        )
    path = load_settings().tokens_path
    revoked = revoke_token(path, args.target)
    print(f"Revoked {revoked.label} from {path}; a running server refuses it from its next request.")


ACTIONS = {"create": _create, "list": _list, "revoke": _revoke}


def _dispatch(args: argparse.Namespace) -> None:
    ACTIONS[args.action](args)


def add_token_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("token", help="create, list and revoke HTTP bearer tokens")
    parser.add_argument("action", choices=list(ACTIONS))
    parser.add_argument("target", nargs="?", help="revoke: the token's name or fingerprint")
    parser.add_argument("--profile", help="create: the profile the token opens")
    parser.add_argument("--scopes", default="read,write", help="create: read, or read,write (default)")
    parser.add_argument("--name", default=None, help="create: a label for the token")
    parser.set_defaults(handler=_dispatch)
