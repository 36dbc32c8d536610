"""``GET /`` and ``GET /api``: what this server is, and where its docs are."""

from __future__ import annotations

from fastapi import APIRouter, Request

from server.errors import error_responses
from server.schemas import ServerInfo

router = APIRouter(tags=["server"])


@router.get("/", response_model=ServerInfo, responses=error_responses())
async def server_info(request: Request) -> ServerInfo:
    """The server's name and version, and the paths of its docs, OpenAPI document and API."""
    return ServerInfo(version=request.app.version)


@router.get("/api", response_model=ServerInfo, responses=error_responses())
async def api_info(request: Request) -> ServerInfo:
    """The same as ``GET /``: the API's paths are below ``/api`` (docs/API.md)."""
    return ServerInfo(version=request.app.version)
