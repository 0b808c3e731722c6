"""Pure-ASGI middleware, each answering in the one error body:

- :class:`BodySizeLimitMiddleware`: 413 past ``max_body_bytes`` (by Content-Length and by streamed size);
- :class:`UnhandledErrorMiddleware`: 500 for an unexpected exception, keeping the connection open;
- :class:`JsonBodyGuardMiddleware`: 422 for JSON bodies with non-finite numbers or lone surrogates;
- :class:`HeadAsGetMiddleware`: HEAD wherever GET works;
- :class:`SecurityHeadersMiddleware`: nosniff, frame denial and a Content-Security-Policy on every response;
- :class:`ErrorBodyCORSMiddleware`: CORS whose refused preflight is the error body, not plain text;
- :class:`PathCORSMiddleware`: that CORS with POST allowed only on some paths (``/v1/annotate``).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import error_body, invalid_request_body, safe_text

log = logging.getLogger("api.errors")  # the logger of the handlers it stands in for


class _BodyTooLarge(Exception):
    pass


async def send_json(send: Send, status: int, content: dict[str, Any]) -> None:
    """Send *content* (an error body: already JSON-safe) as a complete JSON response."""
    body = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodySizeLimitMiddleware:
    """Answer 413 (error body shape) to requests whose body exceeds *max_body_bytes* (or, for a
    path in *path_limits*, that path's own limit: a whole page to annotate is larger than a query)."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, path_limits: dict[str, int] | None = None) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.path_limits = dict(path_limits or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.path_limits.get(scope.get("path", ""), self.max_body_bytes)
        await self._limited(scope, receive, send, limit)

    async def _limited(self, scope: Scope, receive: Receive, send: Send, max_body_bytes: int) -> None:
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > max_body_bytes:
                    await self._reject(send, declared, max_body_bytes)
                    return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > max_body_bytes:
                    raise _BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _BodyTooLarge:
            if started:
                raise
            await self._reject(send, received, max_body_bytes)

    async def _reject(self, send: Send, size: int, max_body_bytes: int) -> None:
        content = error_body(
            "payload_too_large",
            f"request body exceeds {max_body_bytes} bytes",
            {"max_body_bytes": max_body_bytes, "received_bytes": size},
        )
        await send_json(send, 413, content)


# --- unexpected exceptions --------------------------------------------------------------------


class UnhandledErrorMiddleware:
    """Answer 500 (error body shape) to an unexpected exception, and log it.

    Starlette's outermost ServerErrorMiddleware answers too, but then re-raises the exception to
    the server, and uvicorn closes a connection whose request raised: the client's keep-alive
    connection was reset after every 500. An exception raised after the response started is
    re-raised (the response is cut short: closing the connection is the only honest end).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception:
            if started:
                raise
            log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            await send_json(send, 500, error_body("internal_error", "internal server error"))


# --- JSON bodies that JSON cannot hold ---------------------------------------------------------

# Python's parser (which FastAPI uses) accepts NaN / Infinity / -Infinity and "\ud800"-style escapes of
# lone surrogates; neither is JSON (RFC 8259), and neither can be written back out: a NaN breaks the
# 422 echo (JSONResponse refuses non-finite floats), a lone surrogate every UTF-8 encoder downstream.
_SUSPECT = re.compile(rb"NaN|Infinity|\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_REPORTED_ERRORS = 10


class _NonFinite:
    def __init__(self, name: str) -> None:
        self.name = name


def is_json_media_type(content_type: str) -> bool:
    """What FastAPI parses as JSON: ``application/json`` and ``application/*+json``."""
    media = content_type.split(";", 1)[0].strip().lower()
    main, _, sub = media.partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))


def json_body_hazards(body: bytes) -> list[dict[str, Any]]:
    """Validation errors (``type``, ``loc``, ``msg``) for each non-finite number and each string or
    key holding a lone surrogate in the JSON *body*; ``[]`` when there is none or when *body* is not
    JSON at all (FastAPI reports that itself). Bytes without ``NaN``, ``Infinity`` or a ``\\uD8``–
    ``\\uDF`` escape are not parsed."""
    if not _SUSPECT.search(body):
        return []
    try:
        doc = json.loads(body, parse_constant=_NonFinite)
    except (ValueError, RecursionError):
        return []
    errors: list[dict[str, Any]] = []
    stack: list[tuple[list[Any], Any]] = [(["body"], doc)]
    while stack and len(errors) < MAX_REPORTED_ERRORS:
        loc, value = stack.pop()
        if isinstance(value, _NonFinite):
            errors.append(
                {
                    "type": "json_non_finite_number",
                    "loc": loc,
                    "msg": f"{value.name} is not a JSON number: numbers must be finite",
                }
            )
        elif isinstance(value, str):
            if _SURROGATE.search(value):
                errors.append(_surrogate_error(loc))
        elif isinstance(value, dict):
            for key, item in reversed(value.items()):
                if _SURROGATE.search(key):
                    errors.append(_surrogate_error([*loc, safe_text(key)]))
                stack.append(([*loc, safe_text(key)], item))
        elif isinstance(value, list):
            stack.extend(([*loc, i], item) for i, item in reversed(list(enumerate(value))))
    return errors


def _surrogate_error(loc: list[Any]) -> dict[str, Any]:
    return {
        "type": "json_lone_surrogate",
        "loc": loc,
        "msg": "the string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff), which is not Unicode text",
    }


def _has_json_body(scope: Scope) -> bool:
    has_body = json_type = False
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            json_type = is_json_media_type(value.decode("latin-1"))
        elif (name == b"content-length" and value.strip() not in (b"", b"0")) or name == b"transfer-encoding":
            has_body = True
    return has_body and json_type


class JsonBodyGuardMiddleware:
    """Answer 422 (error body shape) to a JSON request body holding a non-finite number or a lone
    surrogate, before any route runs; other bodies are passed on unchanged (replayed).

    Sits inside :class:`BodySizeLimitMiddleware`, so the body it buffers is bounded.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _has_json_body(scope):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left before the body ended
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        errors = json_body_hazards(body)
        if errors:
            await send_json(send, 422, invalid_request_body(errors))
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: the disconnect, for streaming responses

        await self.app(scope, replay, send)


# --- HEAD wherever GET -------------------------------------------------------------------------


class HeadAsGetMiddleware:
    """``HEAD`` wherever ``GET`` works: a HEAD request runs as a GET and is answered with the GET's
    status and headers (``Content-Length`` included) and no body.

    FastAPI's routes declared with ``@router.get`` accept only GET. When the GET is refused with
    405 (the path takes other methods only: nothing ran) the HEAD request itself goes to the app,
    whose 405 then names the method and the allowed ones.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        refused = False

        async def headers_only(message: Message) -> None:
            nonlocal refused
            if message["type"] == "http.response.start" and message["status"] == 405:
                refused = True
            if refused:
                return
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
        if refused:
            await self.app(scope, receive, send)


# --- security headers --------------------------------------------------------------------------

# The web page (api/static) loads its script, style and icon from this origin and talks to it only;
# it has no inline script or style. The API's JSON responses get the same policy (harmless there).
PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# FastAPI's /docs (Swagger UI) and /redoc pages load their bundles from jsDelivr and start them with
# an inline script: only those pages get this policy.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' https://cdn.jsdelivr.net 'unsafe-inline'; "
    "style-src 'self' https://cdn.jsdelivr.net https://fonts.googleapis.com 'unsafe-inline'; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
    "font-src 'self' https://fonts.gstatic.com; connect-src 'self'; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


class SecurityHeadersMiddleware:
    """``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY``, ``Referrer-Policy`` and a
    Content-Security-Policy on every HTTP response (errors, 304s and preflights included), unless
    the response set them itself."""

    def __init__(self, app: ASGIApp, docs_paths: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.docs_paths = docs_paths
        self.page_headers = self._headers(PAGE_CSP)
        self.docs_headers = self._headers(DOCS_CSP)

    @staticmethod
    def _headers(csp: str) -> list[tuple[bytes, bytes]]:
        return [
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),
            (b"content-security-policy", csp.encode("latin-1")),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.docs_headers if scope["path"] in self.docs_paths else self.page_headers

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend((name, value) for name, value in extra if name not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


# --- CORS preflight refusals in the one error body -----------------------------------------------


class ErrorBodyCORSMiddleware(CORSMiddleware):
    """Starlette's CORS middleware, whose refused preflight (400) is the API's error body
    (``cors_preflight_rejected``, ``details.failures``) instead of plain text."""

    def preflight_response(self, request_headers: Headers) -> Response:
        response = super().preflight_response(request_headers)
        if response.status_code != 400:
            return response
        text = bytes(response.body).decode("utf-8", "replace")
        failures = [f.strip() for f in text.removeprefix("Disallowed CORS ").split(",") if f.strip()]
        headers = {
            k: v for k, v in response.headers.items() if k.lower() not in ("content-type", "content-length")
        }
        return JSONResponse(
            error_body(
                "cors_preflight_rejected",
                f"CORS preflight refused: {', '.join(failures)} not allowed",
                {"failures": failures, "allowed_methods": sorted(self.allow_methods)},
            ),
            status_code=400,
            headers=headers,
        )


class PathCORSMiddleware:
    """CORS for browsers of other origins: GET and HEAD everywhere, POST only on *post_paths*.

    The drop-in widget (``/widget.js``) annotates a page through ``POST /v1/annotate`` from the
    page's origin; the other POST routes (search, chat, ask) cost more and stay same-origin unless
    listed. Two :class:`ErrorBodyCORSMiddleware` (same origins and headers, different methods),
    chosen by the request's path, so a refused preflight names the methods the path allows."""

    def __init__(
        self,
        app: ASGIApp,
        allow_origins: list[str],
        post_paths: list[str],
        allow_headers: list[str],
        expose_headers: list[str],
    ) -> None:
        self.app = app
        self.post_paths = frozenset(post_paths)
        common: dict[str, Any] = {
            "allow_origins": allow_origins,
            "allow_headers": allow_headers,
            "expose_headers": expose_headers,
        }
        self.read_only = ErrorBodyCORSMiddleware(app, allow_methods=["GET", "HEAD"], **common)
        self.with_post = ErrorBodyCORSMiddleware(app, allow_methods=["GET", "HEAD", "POST"], **common)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") in self.post_paths:
            await self.with_post(scope, receive, send)
        else:
            await self.read_only(scope, receive, send)
