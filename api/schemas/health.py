"""Schemas of the health resource."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Alive(BaseModel):
    status: Literal["ok"] = "ok"


class Ready(BaseModel):
    status: Literal["ready"] = "ready"
    terms: int = Field(ge=0, description="Number of terms loaded.", examples=[427])
    edges: int = Field(ge=0, description="Number of edges loaded.", examples=[1246])
