"""ETag + Cache-Control helpers for cacheable GET responses."""

from __future__ import annotations

import hashlib

from fastapi import Request, Response

CACHE_CONTROL = "public, max-age=300"


def strong_etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest() + '"'


def _matches(if_none_match: str, etag: str) -> bool:
    if if_none_match.strip() == "*":
        return True
    # If-None-Match uses the weak comparison: a W/ prefix does not matter.
    tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return etag in tags


def cached_response(request: Request, body: bytes, media_type: str) -> Response:
    """*body* with a strong ETag and Cache-Control; 304 when If-None-Match already holds it."""
    etag = strong_etag(body)
    headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL}
    inm = request.headers.get("if-none-match")
    if inm is not None and _matches(inm, etag):
        return Response(status_code=304, headers=headers)
    return Response(content=body, media_type=media_type, headers=headers)
