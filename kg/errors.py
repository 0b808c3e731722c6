"""Typed domain errors. Each carries the HTTP status the API maps it to.

Domain code raises these; ``api/errors.py`` turns any of them into the one
error body ``{"error": {"code", "message", "details"}}``. No FastAPI here.
"""

from __future__ import annotations

from typing import Any


class GlossaryError(Exception):
    """Base class: a message, a machine-readable code and an HTTP status."""

    status = 500
    code = "internal_error"

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


class ArtifactError(GlossaryError):
    """The build artifact is missing, corrupt or from another format/encoder."""

    status = 503
    code = "artifact_unavailable"


class BuildLocked(GlossaryError):
    """Another build holds the artifact's lock (``<artifact>.d/.lock``) longer than the wait allowed."""

    status = 409
    code = "build_locked"


class TermNotFound(GlossaryError):
    """No term has this id or name; ``details["suggestions"]`` lists the nearest ones."""

    status = 404
    code = "term_not_found"

    def __init__(self, what: str, suggestions: list[str] | None = None) -> None:
        super().__init__(f"no term matches {what!r}", {"query": what, "suggestions": suggestions or []})


class TermMoved(GlossaryError):
    """A former id of a term (the artifact's ``id_aliases``): the API answers 301, with the same
    URL holding ``current_id`` in ``Location``."""

    status = 301
    code = "term_moved"

    def __init__(self, old_id: str, current_id: str) -> None:
        super().__init__(f"term {old_id!r} is now {current_id!r}", {"id": old_id, "current_id": current_id})
        self.old_id = old_id
        self.current_id = current_id


class BadQuery(GlossaryError):
    """A request the domain cannot answer as asked (unknown format, bad parameters)."""

    status = 422
    code = "invalid_request"


class ExportUnavailable(GlossaryError):
    """The export module is not installed or failed to import."""

    status = 503
    code = "export_unavailable"


class PathNotFound(GlossaryError):
    """Both terms exist but no path joins them over the requested edge types."""

    status = 404
    code = "path_not_found"


class SessionStoreUnavailable(GlossaryError):
    """The shared chat session store (SQLite file or Redis server) cannot be reached."""

    status = 503
    code = "sessions_unavailable"


class Unauthorized(GlossaryError):
    """An admin request without credentials (``Authorization: Bearer <token>``)."""

    status = 401
    code = "unauthorized"


class Forbidden(GlossaryError):
    """An admin request whose credentials are wrong."""

    status = 403
    code = "forbidden"


class ArtifactRefused(GlossaryError):
    """A reload found the newly published artifact damaged or incomplete: the server keeps
    serving the one it has; ``details["problems"]`` lists what is wrong."""

    status = 409
    code = "artifact_refused"
