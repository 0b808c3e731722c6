"""Runtime configuration of the HTTP API (environment variables prefixed ``GLOSSARY_``).

Instantiate :class:`Settings` only where the app is built (``create_app``), never at import time.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """API settings; each field can be set with ``GLOSSARY_<FIELD>`` (lists as JSON)."""

    model_config = SettingsConfigDict(env_prefix="GLOSSARY_", extra="ignore")

    artifact_dir: Path = Field(
        default=Path("build/artifact"), description="Directory holding graph.json from `glossary build`."
    )
    cors_origins: list[str] = Field(default_factory=lambda: ["*"], description="Origins allowed to GET.")
    max_query_chars: int = Field(default=2000, ge=1, description="Longest accepted query string (decoded).")
    max_body_bytes: int = Field(default=65536, ge=0, description="Largest accepted request body in bytes.")
