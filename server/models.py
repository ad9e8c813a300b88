"""Which model writes dreams and checks claims: the one place that chooses.

Dreams: the host's model over sampling when the client offers it (`server/sampling.py`, which
takes the writer chosen here as its fallback), else the endpoint of the person's choosing when
one is configured, else the deterministic writer. Scheduled cycles have no client, so they get
the endpoint or the deterministic writer.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.dreams.cycle import DEFAULT_GENERATOR
from graph.dreams.generator import DreamGenerator
from graph.memory.models import ClaimInput
from graph.memory.pipeline import DEFAULT_VERIFIER
from graph.memory.verifier import ClaimVerifier, statement_of
from graph.models.claim_check import ClaimCheck
from graph.models.endpoint import EndpointGenerator, EndpointModel
from server.settings import ReverieSettings


def open_endpoint(settings: ReverieSettings) -> EndpointModel | None:
    """The configured endpoint's client, built once per process; the caller closes it."""
    config = settings.endpoint_config()
    return EndpointModel(config) if config is not None else None


def unattended_generator(settings: ReverieSettings, endpoint: EndpointModel | None) -> DreamGenerator:
    """The writer when no client's model is asked (nightly cycles, the page, the shell, a client
    without sampling): the endpoint when one is configured, else the deterministic writer."""
    if endpoint is not None:
        return EndpointGenerator(endpoint, endpoint.config.limits)
    return DEFAULT_GENERATOR


async def claim_verifier(
    endpoint: EndpointModel | None, content: str, claims: Sequence[ClaimInput]
) -> ClaimVerifier:
    """The verifier for one remember. Called before its transaction: it may ask the endpoint."""
    if endpoint is None or not endpoint.config.verify_claims or not claims:
        return DEFAULT_VERIFIER
    statements = [statement_of(claim) for claim in claims]
    check = ClaimCheck(endpoint, endpoint.config.limits, floor=DEFAULT_VERIFIER)
    return await check.verifier_for(content, statements)
