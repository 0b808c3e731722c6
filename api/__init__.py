"""HTTP API over the glossary graph (FastAPI lives only in this package)."""

from api.app import create_app

__all__ = ["create_app"]
