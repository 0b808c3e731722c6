"""Whole-graph export in several formats (rendered by :mod:`kg.export`).

The ETag is computed without rendering (:func:`api.caching.export_etag`) and rendered exports are
cached per artifact version and format (``settings.export_cache_size`` entries per worker).
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from api.caching import CACHE_CONTROL, RenderCache, artifact_version, export_etag, not_modified
from api.deps import GlossaryDep
from api.schemas.common import ErrorResponse
from api.schemas.export import EXPORT_MEDIA_TYPES, ExportFormatName
from kg.errors import BadQuery, ExportUnavailable
from kg.store import Glossary

router = APIRouter(prefix="/v1", tags=["export"])


@router.get(
    "/export",
    response_model=None,
    response_class=Response,
    summary="Export the whole graph",
    responses={
        200: {
            "content": {mt: {} for mt in EXPORT_MEDIA_TYPES.values()},
            "description": "The rendered graph.",
        },
        304: {"description": "Not modified (If-None-Match)."},
        422: {"model": ErrorResponse, "description": "Unknown format."},
        503: {"model": ErrorResponse, "description": "Artifact or exporter unavailable."},
    },
)
def export(
    glossary: GlossaryDep,
    request: Request,
    format: Annotated[ExportFormatName, Query(description="Output format.")] = "json",
) -> Response:
    # The tag comes from the artifact version and the format: a conditional GET is answered
    # before anything is rendered (SKOS Turtle takes about a second to render).
    etag = export_etag(glossary, format)
    headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL}
    if not_modified(request, etag):
        return Response(status_code=304, headers=headers)
    cache: RenderCache = request.app.state.export_cache
    body, media_type = cache.get_or_render(
        (artifact_version(glossary), format), lambda: _render(glossary, format)
    )
    return Response(content=body, media_type=media_type, headers=headers)


def _render(glossary: Glossary, format: str) -> tuple[bytes, str]:
    try:
        module: Any = importlib.import_module("kg.export")
        render = module.export
    except (ImportError, AttributeError) as exc:
        raise ExportUnavailable(f"the exporter is not available: {exc}", {"format": format}) from exc
    try:
        content, media_type = render(glossary.document, format)
    except ValueError as exc:
        raise BadQuery(str(exc), {"format": format, "allowed": list(EXPORT_MEDIA_TYPES)}) from exc
    return content.encode("utf-8"), media_type
