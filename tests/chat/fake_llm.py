"""A tiny OpenAI-compatible server on 127.0.0.1 for the generator tests (no network, no model).

``reply`` decides what ``POST /v1/chat/completions`` answers: a string (sent as the
assistant's content), ``"<slow>"`` (sleeps ``delay`` seconds first), ``"<500>"`` (an error).
Every request body is kept in ``requests``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeLLM:
    def __init__(self) -> None:
        self.reply = "TTFT 是首 token 时间 [1]。"
        self.delay = 2.0
        self.requests: list[dict[str, Any]] = []
        self.url = ""


@contextmanager
def fake_llm() -> Iterator[FakeLLM]:
    state = FakeLLM()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append(
                {"path": self.path, "body": body, "auth": self.headers.get("authorization")}
            )
            reply = state.reply
            if reply == "<slow>":
                time.sleep(state.delay)
                reply = "late [1]"
            if reply == "<500>":
                self.send_response(500)
                self.end_headers()
                self.wfile.write(b'{"error": "boom"}')
                return
            out = json.dumps(
                {
                    "id": "cmpl-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "x"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply},
                            "finish_reason": "stop",
                        }
                    ],
                }
            ).encode()
            try:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.block_on_close = False  # do not wait for a handler still sleeping (timeout test)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
