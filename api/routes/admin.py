"""``POST /admin/reload``: serve the artifact published since the server started, without a restart.

Present only when a token is configured (``GLOSSARY_ADMIN_TOKEN``); otherwise the path is
unknown (404). The token comes as ``Authorization: Bearer <token>`` and is compared in constant
time: no header → 401, another token → 403, both in the one error body.
"""

from __future__ import annotations

import hmac
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, Field

from api.reload import Reloader, current
from api.schemas.common import ErrorResponse
from api.settings import Settings
from kg.errors import Forbidden, Unauthorized

router = APIRouter(prefix="/admin", tags=["admin"])


class WorkerStatus(BaseModel):
    pid: int
    generation: int = Field(description="Reload generation the worker has reached.")
    version: str | None = None
    content_sha256: str | None = None
    error: str | None = Field(default=None, description="Why the worker refused the target, if it did.")


class ReloadResult(BaseModel):
    status: str = Field(
        description="`reloaded`: a new version is served; `unchanged`: it was already served."
    )
    version: str | None = Field(
        description="`X-Glossary-Version` of the served artifact (content hash prefix)."
    )
    content_sha256: str | None = None
    artifact: str | None = Field(default=None, description="The version directory's name.")
    previous: str | None = Field(default=None, description="`X-Glossary-Version` before the reload.")
    generation: int = Field(description="The reload generation every worker must reach.")
    workers: list[WorkerStatus] = Field(
        default_factory=list,
        description="Each worker's state (several-worker servers started by `glossary serve`).",
    )
    all_workers_reloaded: bool = Field(description="Every worker serves this generation's version.")


def check_token(settings: Settings, authorization: str | None) -> None:
    """401 without a bearer token, 403 with another one (constant-time comparison)."""
    expected = settings.admin_token
    assert expected is not None  # the router is mounted only with a token
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise Unauthorized("this endpoint needs `Authorization: Bearer <admin token>`")
    if not hmac.compare_digest(given.strip().encode("utf-8"), expected.get_secret_value().encode("utf-8")):
        raise Forbidden("wrong admin token")


@router.post(
    "/reload",
    response_model=ReloadResult,
    summary="Serve the newly published artifact (every worker; requests in flight finish on the old one)",
    responses={
        401: {"model": ErrorResponse, "description": "No bearer token."},
        403: {"model": ErrorResponse, "description": "Wrong token."},
        409: {
            "model": ErrorResponse,
            "description": "The new artifact is damaged: the old one keeps serving.",
        },
    },
)
async def reload(
    request: Request, authorization: Annotated[str | None, Header(include_in_schema=False)] = None
) -> ReloadResult:
    settings: Settings = request.app.state.settings
    check_token(settings, authorization)
    reloader: Reloader = request.app.state.reloader
    previous = current(request.app).tag
    target, changed = await reloader.request_and_apply("admin")
    workers: list[Any] = await reloader.wait_for_workers(target.generation, settings.reload_wait_seconds)
    served = current(request.app)
    return ReloadResult(
        status="reloaded" if changed or served.tag != previous else "unchanged",
        version=served.tag,
        content_sha256=served.content_sha256,
        artifact=served.version,
        previous=previous,
        generation=target.generation,
        workers=[WorkerStatus(**{k: w.get(k) for k in WorkerStatus.model_fields}) for w in workers],
        all_workers_reloaded=all(
            w.get("generation", 0) >= target.generation and not w.get("error") for w in workers
        ),
    )
