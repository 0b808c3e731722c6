"""Term cards for tooltips: ``GET /v1/terms/{term_id}/card`` (JSON or an HTML fragment)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response

from api.caching import cached_response
from api.deps import GlossaryDep, TermIdPath
from api.schemas.cards import CardOut
from api.schemas.common import TERM_PATH_RESPONSES, Lang
from kg.annotate import render_card_html, term_card
from kg.annotate.options import DEFAULT_URL_TEMPLATE
from kg.annotate.render import CONFUSED_HEADING

router = APIRouter(prefix="/v1/terms", tags=["cards"])


@router.get(
    "/{term_id}/card",
    response_model=CardOut,
    summary="A term's tooltip card",
    description="Labels in both languages, abbreviations, one sentence of the definition (in `lang` when a "
    "source gives one) with its source, and the terms the sources say it is confused with "
    "(易混淆 / often confused with), in their words. `format=html`: the same as a small HTML fragment "
    "(every text escaped), ready for a tooltip.",
    responses={
        **TERM_PATH_RESPONSES,
        200: {"content": {"application/json": {}, "text/html": {}}, "description": "The card."},
        304: {"description": "Not modified (If-None-Match)."},
    },
)
async def get_card(
    term_id: TermIdPath,
    glossary: GlossaryDep,
    request: Request,
    lang: Annotated[Lang, Query(description="Language of the label and definition.")] = "en",
    format: Annotated[Literal["json", "html"], Query(description="JSON, or an HTML fragment.")] = "json",
    base_url: Annotated[str, Query(max_length=500, description="Fills `{base}` of the links.")] = "",
) -> Response:
    card = term_card(glossary, term_id, lang, base_url=base_url, url_template=DEFAULT_URL_TEMPLATE)
    if format == "html":
        return cached_response(request, render_card_html(card).encode("utf-8"), "text/html; charset=utf-8")
    body = CardOut.of(card, CONFUSED_HEADING[lang])
    return cached_response(request, body.model_dump_json().encode("utf-8"), "application/json")
