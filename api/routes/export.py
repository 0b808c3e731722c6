"""Whole-graph export in several formats (rendered by :mod:`kg.export`)."""

from __future__ import annotations

import importlib
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from api.caching import cached_response
from api.deps import GlossaryDep
from api.schemas.common import ErrorResponse
from api.schemas.export import EXPORT_MEDIA_TYPES, ExportFormatName
from kg.errors import BadQuery, ExportUnavailable

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
    try:
        module: Any = importlib.import_module("kg.export")
        render = module.export
    except (ImportError, AttributeError) as exc:
        raise ExportUnavailable(f"the exporter is not available: {exc}", {"format": format}) from exc
    try:
        content, media_type = render(glossary.document, format)
    except ValueError as exc:
        raise BadQuery(str(exc), {"format": format, "allowed": list(EXPORT_MEDIA_TYPES)}) from exc
    return cached_response(request, content.encode("utf-8"), media_type)
