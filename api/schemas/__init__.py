"""Pydantic response schemas, one module per resource (plus :mod:`.common`)."""
