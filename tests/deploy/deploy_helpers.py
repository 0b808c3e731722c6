"""Skips for the deployment tests: they need Debian's nginx and redis-server (``.ci/run``
installs both and starts neither service: each test starts its own on free loopback ports)."""

from __future__ import annotations

import shutil

import pytest

from kg.deploy.nginx import nginx_binary

NGINX = nginx_binary()
NGINX_SKIP = "nginx is not installed (CI installs Debian's nginx: see .ci/run)"
REDIS_SKIP = "redis-server is not installed (CI installs Debian's redis-server: see .ci/run)"


def need_nginx() -> str:
    if NGINX is None:
        pytest.skip(NGINX_SKIP)
    return NGINX


def need_nginx_and_redis() -> None:
    need_nginx()
    if shutil.which("redis-server") is None:
        pytest.skip(REDIS_SKIP)
