"""Term annotation of documentation pages: ``POST /v1/annotate`` (see :mod:`kg.annotate`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from api.concurrency import RETRY_AFTER, BoundedRoute, get_lanes
from api.deps import AnnotatorDep
from api.schemas.annotate import AnnotateRequest, AnnotateResponse
from api.schemas.common import ErrorResponse
from kg.annotate import Annotator, rewrite

router = APIRouter(prefix="/v1", tags=["annotate"], route_class=BoundedRoute)

ANNOTATE_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorResponse, "description": "Body larger than `max_annotate_body_bytes` (1 MiB)."},
    422: {
        "model": ErrorResponse,
        "description": "Invalid request (unknown field, bad format, text too long…).",
    },
    503: {
        "model": ErrorResponse,
        "description": "Artifact not loaded, or too many pages being annotated (`overloaded`, with `Retry-After`).",
        "headers": RETRY_AFTER,
    },
}


def _annotate(annotator: Annotator, body: AnnotateRequest) -> AnnotateResponse:
    annotation = annotator.annotate(body.text, body.options())
    html = rewrite(annotation, body.markup) if body.output == "html" else None
    return AnnotateResponse.of(annotation, html)


@router.post(
    "/annotate",
    response_model=AnnotateResponse,
    summary="Find the glossary's terms in a page",
    description="Every mention of a term in a text, Markdown or HTML page (Chinese, English or both), as "
    "spans into the page as sent, each with the term's label in the page's language, one sentence of its "
    "definition with its source, and a link; on request the page itself with the mentions marked up "
    "(accessible links or `<abbr>`, every inserted text escaped, the page's own markup untouched).",
    responses=ANNOTATE_ERRORS,
)
async def annotate(body: AnnotateRequest, request: Request, annotator: AnnotatorDep) -> AnnotateResponse:
    # CPU work off the event loop, in a lane of its own (api/concurrency.py)
    return await get_lanes(request).annotate.run(_annotate, annotator, body)
