"""Benchmarks run by the ``glossary bench-*`` commands (HTTP load, search at scale)."""
