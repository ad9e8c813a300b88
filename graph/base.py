"""The base every Pydantic model of `graph/` shares; a leaf module, so any package may import it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """A value the domain hands out and the tools return as is: immutable once built."""

    model_config = ConfigDict(frozen=True)
