"""One error body for every failure: ``{"error": {"code", "message", "details"}}``.

Typed domain errors (:class:`kg.errors.GlossaryError`) carry their own status and code and
go through one handler; validation errors, HTTP errors (unknown route, wrong method) and
unexpected exceptions are mapped to the same shape. Whatever a body echoes is made encodable
first (:func:`json_safe`: no NaN, no lone surrogate), so an error answer never fails itself; the
middleware in :mod:`api.middleware` answers in the same shape (413, 422 for JSON bodies holding
NaN / Infinity or lone surrogates, 500, refused CORS preflights).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from kg.errors import GlossaryError, TermMoved, Unauthorized

log = logging.getLogger(__name__)

HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    422: "invalid_request",
}


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": json_safe(details or {})}}


def error_response(
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(
        error_body(code, message, details), status_code=status, headers=dict(headers) if headers else None
    )


def json_safe(value: Any) -> Any:
    """*value* with anything JSON cannot hold (exceptions, bytes, tuples…) turned into plain data.

    Non-finite floats become the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` and lone
    surrogates their ``\\udXXX`` escape, so that an error body can always be encoded (strict
    JSON, UTF-8) whatever input it echoes.
    """
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _NON_FINITE_NAMES[str(value)]
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_text(str(k)): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


_NON_FINITE_NAMES = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def safe_text(text: str) -> str:
    """*text*, with any lone surrogate (which UTF-8 cannot encode) written as its ``\\udXXX`` escape."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def invalid_request_body(errors: list[dict[str, Any]]) -> dict[str, Any]:
    """The 422 body of a request that is not valid (the shape of :func:`validation_error_handler`)."""
    return error_body("invalid_request", "the request is not valid", {"errors": errors})


async def glossary_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, GlossaryError)
    headers = {"Location": moved_location(request, exc)} if isinstance(exc, TermMoved) else None
    if isinstance(exc, Unauthorized):
        headers = {"WWW-Authenticate": 'Bearer realm="glossary-admin"'}
    return error_response(exc.status, exc.code, exc.message, exc.details, headers=headers)


def moved_location(request: Request, moved: TermMoved) -> str:
    """The request's path and query string, with the former id in the path replaced by the current one.

    The segment is the one the route's ``{term_id}`` stands for, counted from the end of the path
    (a prefix the app is mounted under stays as it is).
    """
    segments = request.url.path.split("/")
    hits = [i for i, seg in enumerate(segments) if seg == moved.old_id]
    pattern = str(getattr(request.scope.get("route"), "path_format", "")).split("/")
    if "{term_id}" in pattern and (at := len(segments) - len(pattern) + pattern.index("{term_id}")) in hits:
        hits = [at]
    if hits:
        segments[hits[-1]] = moved.current_id
    location = quote("/".join(segments), safe="/")
    return f"{location}?{request.url.query}" if request.url.query else location


async def validation_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {k: v for k, v in err.items() if k in ("type", "loc", "msg", "input", "ctx")} for err in exc.errors()
    ]
    return JSONResponse(invalid_request_body(errors), status_code=422)


# FastAPI answers 422 to a JSON body with a syntax error but 400 to one it cannot even decode
# (invalid UTF-8); both are the same mistake, so both get the documented 422.
UNPARSABLE_BODY = "There was an error parsing the body"


async def http_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400 and exc.detail == UNPARSABLE_BODY:
        error = {"type": "body_unparsable", "loc": ["body"], "msg": "the body is not UTF-8 JSON"}
        return error_response(422, "invalid_request", "the request is not valid", {"errors": [error]})
    code = HTTP_CODES.get(exc.status_code, "http_error")
    details: dict[str, Any] = {"path": request.url.path}
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        details["method"] = request.method
        allow = [m.strip() for m in headers.get("Allow", "").split(",") if m.strip()]
        if "GET" in allow and "HEAD" not in allow:  # HEAD is served wherever GET is (api.middleware)
            headers["Allow"] = ", ".join([*allow, "HEAD"])
    return error_response(exc.status_code, code, str(exc.detail), details, headers=headers or None)


async def unhandled_error_handler(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return error_response(500, "internal_error", "internal server error")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(GlossaryError, glossary_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    app.add_exception_handler(Exception, unhandled_error_handler)
