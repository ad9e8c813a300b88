"""`reverie profile ...`: the profiles in the graph, and erasing one whole.

- `list` shows every profile with how much it holds;
- `delete P --yes` erases profile P and everything in it (without --yes it only says what
  would go);
- `export P` writes it as JSON Lines and `import FILE --profile Q` reads such a file in.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from graph.directory import list_profiles
from graph.errors import InvalidInputError
from graph.forgetting.models import ProfileCounts, ProfileSummary
from graph.forgetting.profile import count_profile, erase_profile
from graph.transfer.export import export_profile
from graph.transfer.load import import_profile
from server.cli_support import PROFILE, echo_json, json_option, synchronous
from server.settings import load_settings
from server.stores import opened_store


def _describe(counts: ProfileCounts) -> str:
    return (
        f"{counts.fragments} fragments, {counts.claims} claims, {counts.facts} facts, "
        f"{counts.clarifications} clarifications, {counts.dreams} dreams, {counts.runs} runs, "
        f"{counts.forgotten} forgotten"
    )


@click.group()
def profile() -> None:
    """List, delete, export and import profiles."""


@profile.command("list")
@json_option
@synchronous
async def list_profiles_command(as_json: bool) -> None:
    """Show every profile with how much it holds."""
    async with opened_store(load_settings()) as store:
        summaries = [
            ProfileSummary(profile_id=profile_id, counts=await count_profile(store.profile(profile_id)))
            for profile_id, _ in await list_profiles(store)
        ]
    if as_json:
        echo_json([summary.model_dump(mode="json") for summary in summaries])
        return
    for summary in summaries:
        click.echo(f"{summary.profile_id}: {_describe(summary.counts)}")
    if not summaries:
        click.echo("No profiles yet.")


@profile.command()
@click.argument("profile_id", metavar="P", type=PROFILE)
@click.option("--yes", is_flag=True, help="Confirm erasing the profile and everything in it.")
@synchronous
async def delete(profile_id: str, yes: bool) -> None:
    """Erase profile P and everything in it.

    Without --yes it only says what the profile holds and deletes nothing."""
    async with opened_store(load_settings()) as store:
        graph = store.profile(profile_id)
        held = await count_profile(graph)
        if held.nodes == 0:
            raise InvalidInputError(
                f"No profile {profile_id!r} in this graph; `reverie profile list` shows them."
            )
        if not yes:
            raise InvalidInputError(
                f"Profile {profile_id!r} holds {_describe(held)}. Nothing was deleted: run "
                f"`reverie profile delete {profile_id} --yes` to erase it and everything in it for good."
            )
        await erase_profile(graph)
    click.echo(f"Erased profile {profile_id}: {_describe(held)}.")


@profile.command()
@click.argument("profile_id", metavar="P", type=PROFILE)
@click.option("--output", help="The file to write (default P.jsonl; - for stdout).")
@click.option("--embeddings", is_flag=True, help="Include each memory's vector.")
@synchronous
async def export(profile_id: str, output: str | None, embeddings: bool) -> None:
    """Write profile P as JSON Lines."""
    async with opened_store(load_settings()) as store:
        if output == "-":
            report = await export_profile(store.profile(profile_id), sys.stdout, embeddings)
        else:
            # Written beside the target and moved over it at the end: no half file under its name.
            target = Path(output or f"{profile_id}.jsonl")
            partial = target.with_name(target.name + ".partial")
            with partial.open("w", encoding="utf-8") as out:
                report = await export_profile(store.profile(profile_id), out, embeddings)
            partial.replace(target)
    if report.nodes == 0:
        raise InvalidInputError(
            f"No profile {profile_id!r} in this graph; `reverie profile list` shows them."
        )
    where = "" if output == "-" else f" to {target}"
    click.echo(
        f"Exported profile {profile_id}{where}: {report.nodes} nodes, {report.edges} relationships"
        f"{', with vectors' if report.embeddings else ''}.",
        err=output == "-",
    )


@profile.command("import")
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--profile", "into", type=PROFILE, required=True, help="The profile to import into.")
@click.option("--accept-unproven", is_flag=True, help="Read a format 1 file, which cannot show it is whole.")
@synchronous
async def import_command(path: Path, into: str, accept_unproven: bool) -> None:
    """Read an exported FILE into profile --profile."""
    async with opened_store(load_settings()) as store:
        report = await import_profile(store, into, path, accept_unproven)
    click.echo(
        f"Imported {report.nodes} nodes and {report.edges} relationships of profile "
        f"{report.source_profile_id} into {report.profile_id}."
    )
    if not report.embeddings:
        click.echo(
            f"The file held no vectors: run `reverie embeddings backfill --profile {report.profile_id}`."
        )
