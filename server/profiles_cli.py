"""`reverie profile ...`: the profiles in the graph, and erasing one whole.

- `list` shows every profile with how much it holds;
- `delete P --yes` erases profile P and everything in it (without --yes it only says what
  would go).
"""

from __future__ import annotations

import argparse
import json

import anyio

from graph.access import validate_profile_id
from graph.directory import list_profiles
from graph.errors import InvalidInputError
from graph.forgetting.models import ProfileCounts, ProfileSummary
from graph.forgetting.profile import count_profile, erase_profile
from server.app import opened_store
from server.settings import load_settings


def _describe(counts: ProfileCounts) -> str:
    return (
        f"{counts.fragments} fragments, {counts.claims} claims, {counts.facts} facts, "
        f"{counts.clarifications} clarifications, {counts.dreams} dreams, {counts.runs} runs, "
        f"{counts.forgotten} forgotten"
    )


async def _list(args: argparse.Namespace) -> None:
    async with opened_store(load_settings()) as store:
        summaries = [
            ProfileSummary(profile_id=profile_id, counts=await count_profile(store.profile(profile_id)))
            for profile_id, _ in await list_profiles(store)
        ]
    if args.json:
        print(json.dumps([summary.model_dump(mode="json") for summary in summaries], indent=2))
        return
    for summary in summaries:
        print(f"{summary.profile_id}: {_describe(summary.counts)}")
    if not summaries:
        print("No profiles yet.")


async def _delete(args: argparse.Namespace) -> None:
    if not args.profile:
        raise InvalidInputError("`reverie profile delete` needs the profile: reverie profile delete P --yes")
    profile_id = validate_profile_id(args.profile)
    async with opened_store(load_settings()) as store:
        graph = store.profile(profile_id)
        held = await count_profile(graph)
        if held.nodes == 0:
            raise InvalidInputError(
                f"No profile {profile_id!r} in this graph; `reverie profile list` shows them."
            )
        if not args.yes:
            raise InvalidInputError(
                f"Profile {profile_id!r} holds {_describe(held)}. Nothing was deleted: run "
                f"`reverie profile delete {profile_id} --yes` to erase it and everything in it for good."
            )
        await erase_profile(graph)
    print(f"Erased profile {profile_id}: {_describe(held)}.")


def _dispatch(args: argparse.Namespace) -> None:
    anyio.run(_delete if args.action == "delete" else _list, args)


def add_profile_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("profile", help="list profiles, erase one whole")
    parser.add_argument("action", choices=["list", "delete"])
    parser.add_argument("profile", nargs="?", help="delete: the profile to erase")
    parser.add_argument("--yes", action="store_true", help="delete: confirm erasing everything in it")
    parser.add_argument("--json", action="store_true", help="list: print JSON")
    parser.set_defaults(handler=_dispatch)
