"""`reverie profile ...`: the profiles in the graph, and erasing one whole.

- `list` shows every profile with how much it holds;
- `delete P --yes` erases profile P and everything in it (without --yes it only says what
  would go);
- `export P` writes it as JSON Lines and `import FILE --profile Q` reads such a file in.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import anyio

from graph.access import validate_profile_id
from graph.directory import list_profiles
from graph.errors import InvalidInputError
from graph.forgetting.models import ProfileCounts, ProfileSummary
from graph.forgetting.profile import count_profile, erase_profile
from graph.transfer.export import export_profile
from graph.transfer.load import import_profile
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
    profile_id = validate_profile_id(_named(args, "delete"))
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


async def _export(args: argparse.Namespace) -> None:
    profile_id = validate_profile_id(_named(args, "export"))
    async with opened_store(load_settings()) as store:
        if args.output == "-":
            report = await export_profile(store.profile(profile_id), sys.stdout, args.embeddings)
        else:
            # Written beside the target and moved over it at the end: no half file under its name.
            target = Path(args.output or f"{profile_id}.jsonl")
            partial = target.with_name(target.name + ".partial")
            with partial.open("w", encoding="utf-8") as out:
                report = await export_profile(store.profile(profile_id), out, args.embeddings)
            partial.replace(target)
    if report.nodes == 0:
        raise InvalidInputError(
            f"No profile {profile_id!r} in this graph; `reverie profile list` shows them."
        )
    where = "" if args.output == "-" else f" to {target}"
    print(
        f"Exported profile {profile_id}{where}: {report.nodes} nodes, {report.edges} relationships"
        f"{', with vectors' if report.embeddings else ''}.",
        file=sys.stderr if args.output == "-" else sys.stdout,
    )


async def _import(args: argparse.Namespace) -> None:
    path = Path(_named(args, "import"))
    if not args.into:
        raise InvalidInputError("`reverie profile import FILE` needs --profile: the profile to import into")
    async with opened_store(load_settings()) as store:
        report = await import_profile(store, args.into, path, args.accept_unproven)
    print(
        f"Imported {report.nodes} nodes and {report.edges} relationships of profile "
        f"{report.source_profile_id} into {report.profile_id}."
    )
    if not report.embeddings:
        print(f"The file held no vectors: run `reverie embeddings backfill --profile {report.profile_id}`.")


def _named(args: argparse.Namespace, action: str) -> str:
    if not args.target:
        what = "FILE --profile Q" if action == "import" else "P"
        raise InvalidInputError(f"`reverie profile {action}` needs {what}")
    return str(args.target)


ACTIONS = {"list": _list, "delete": _delete, "export": _export, "import": _import}


def _dispatch(args: argparse.Namespace) -> None:
    anyio.run(ACTIONS[args.action], args)


def add_profile_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("profile", help="list, delete, export and import profiles")
    parser.add_argument("action", choices=list(ACTIONS))
    parser.add_argument("target", nargs="?", help="delete, export: the profile; import: the file")
    parser.add_argument("--yes", action="store_true", help="delete: confirm erasing everything in it")
    parser.add_argument("--json", action="store_true", help="list: print JSON")
    parser.add_argument("--output", help="export: the file to write (default P.jsonl; - for stdout)")
    parser.add_argument("--embeddings", action="store_true", help="export: include each memory's vector")
    parser.add_argument("--profile", dest="into", help="import: the profile to import into")
    parser.add_argument(
        "--accept-unproven",
        action="store_true",
        help="import: read a format 1 file (cannot show it is whole)",
    )
    parser.set_defaults(handler=_dispatch)
