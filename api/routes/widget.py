"""The drop-in widget: ``GET /widget.js`` and its stylesheet ``GET /widget.css``.

``<script src="http://HOST/widget.js" data-api="http://HOST"></script>`` on any page annotates
its text through ``POST /v1/annotate`` and shows term cards on hover and focus (the scripts are
:mod:`kg.docs_integrations.assets`). A page of another origin may call the API when its origin
is in ``cors_origins`` and the path in ``cors_post_paths`` (``/v1/annotate`` by default).
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from api.caching import cached_response
from kg.docs_integrations.assets import asset_text, widget_script

router = APIRouter(tags=["widget"])


@router.get("/widget.js", include_in_schema=False)
def widget_js(request: Request) -> Response:
    return cached_response(request, widget_script().encode("utf-8"), "text/javascript; charset=utf-8")


@router.get("/widget.css", include_in_schema=False)
def widget_css(request: Request) -> Response:
    return cached_response(request, asset_text("gkg-tooltip.css").encode("utf-8"), "text/css; charset=utf-8")
