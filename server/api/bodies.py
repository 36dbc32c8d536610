"""The base of every request body: a field the API does not know is refused (400), not dropped.

A client that misspells a field (``expected_vresion``) or sends one from another route would
otherwise be answered as if it had not sent it; refusing it by name says what went wrong, and
``/openapi.json`` documents it (``additionalProperties: false``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RequestBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
