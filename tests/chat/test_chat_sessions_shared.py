"""The session stores behind one protocol: memory, SQLite (shared file), Redis (own server).

The same behaviour tests run against all three (TTL with an injected clock, caps on sessions and
turns, the reset flag, drop, the per-session lock); then what only shared stores promise (two
store objects on one backend — two worker processes — see one conversation), the state's JSON
round trip, URL parsing and the factory.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

import pytest

from kg.chat import Answer, ConversationState
from kg.chat.model import Turn
from kg.chat.sessions import (
    SESSION_URL_FORMS,
    MemorySessionStore,
    SessionStore,
    default_sqlite_path,
    open_session_store,
    parse_session_url,
)
from kg.errors import SessionStoreUnavailable

STORES = ["memory", "sqlite", "redis"]


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def grounded(question: str, *terms: str) -> Answer:
    return Answer(
        question=question, lang="en", intent="definition", answer="x [1]", grounded=True, terms=list(terms)
    )


MakeStore = Callable[..., SessionStore]


@pytest.fixture(params=STORES)
def backend(request: Any, tmp_path: Path) -> str:
    """The URL of a fresh, empty backend of each kind."""
    kind = request.param
    if kind == "memory":
        return "memory"
    if kind == "sqlite":
        return f"sqlite://{tmp_path / 'sessions.sqlite3'}"  # sqlite:///abs/path
    url: str = request.getfixturevalue("redis_url")  # tests/conftest.py
    import redis

    client = redis.Redis.from_url(url)
    client.flushdb()
    client.close()
    return url


@pytest.fixture
def make_store(backend: str) -> Iterator[MakeStore]:
    """``make_store(ttl_seconds=…, max_sessions=…, max_turns=…, clock=…)`` on this test's backend;
    two calls give two store objects on one backend (like two worker processes)."""
    stores: list[SessionStore] = []

    def make(
        ttl_seconds: float = 1800.0,
        max_sessions: int = 1000,
        max_turns: int = 20,
        clock: Callable[[], float] | None = None,
    ) -> SessionStore:
        store = open_session_store(
            backend, ttl_seconds=ttl_seconds, max_sessions=max_sessions, max_turns=max_turns, clock=clock
        )
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.close()


@pytest.fixture
def shared(backend: str) -> None:
    if backend == "memory":
        pytest.skip("the memory store is per process by design")


# --- the same behaviour for every store ---------------------------------------------------------


def test_protocol_and_limits(make_store: MakeStore) -> None:
    store = make_store(ttl_seconds=60, max_sessions=3, max_turns=4)
    assert isinstance(store, SessionStore)
    assert (store.ttl, store.max_sessions, store.max_turns) == (60, 3, 4)
    for bad in ({"ttl_seconds": 0}, {"max_sessions": 0}, {"max_turns": 0}):
        with pytest.raises(ValueError):
            make_store(**bad)


def test_new_known_and_unknown_ids(make_store: MakeStore) -> None:
    store = make_store()
    sid, state, reset = store.open(None)
    assert not reset and isinstance(state, ConversationState) and len(sid) >= 16
    sid2, state2, reset2 = store.open(sid)
    assert (sid2, reset2) == (sid, False) and state2 == state
    sid3, state3, reset3 = store.open("never-issued")
    assert reset3 and sid3 not in {"never-issued", sid}  # ids are never chosen by clients
    assert state3 == ConversationState(max_turns=store.max_turns)
    assert len(store) == 2 and sid in store and sid3 in store and "never-issued" not in store
    assert 42 not in store


def test_session_block_saves_the_state(make_store: MakeStore) -> None:
    store = make_store()
    with store.session(None) as (sid, state, reset):
        assert not reset
        state.record(grounded("what is TTFT", "ttft", "tpot"), used_context=False)
    with store.session(sid) as (sid2, state2, reset2):
        assert (sid2, reset2) == (sid, False)
        assert state2.topic == ["ttft"] and state2.last_terms == ["ttft", "tpot"]
        assert [t.question for t in state2.turns] == ["what is TTFT"]


def test_a_failed_turn_is_not_saved(make_store: MakeStore) -> None:
    store = make_store()
    sid, _, _ = store.open(None)
    with pytest.raises(RuntimeError), store.session(sid) as (_, state, _):
        state.record(grounded("q", "ttft"), used_context=False)
        raise RuntimeError("the answer failed")
    if not isinstance(store, MemorySessionStore):  # the memory store hands out the live object
        assert store.open(sid)[1].topic == []
    assert sid in store  # the session itself stays


def test_ttl_expiry_starts_a_fresh_conversation(make_store: MakeStore) -> None:
    clock = Clock()
    store = make_store(ttl_seconds=60, clock=clock)
    with store.session(None) as (sid, state, _):
        state.record(grounded("q", "ttft"), used_context=False)
    clock.now += 59
    assert store.open(sid)[1].topic == ["ttft"]  # still alive, and touched
    clock.now += 59
    assert sid in store and len(store) == 1
    clock.now += 61
    assert sid not in store and len(store) == 0
    new_sid, new_state, reset = store.open(sid)
    assert reset and new_sid != sid and new_state.topic == []
    assert sid not in store


def test_session_cap_evicts_least_recently_used(make_store: MakeStore) -> None:
    clock = Clock()
    store = make_store(max_sessions=3, clock=clock)

    def tick() -> None:
        clock.now += 1

    ids = []
    for _ in range(3):
        ids.append(store.open(None)[0])
        tick()
    store.open(ids[0])  # touch the oldest
    tick()
    extra = store.open(None)[0]
    tick()
    assert len(store) == 3
    assert ids[1] not in store  # the least recently used went
    assert ids[0] in store and ids[2] in store and extra in store
    assert store.open(ids[1])[2] is True  # its client is told
    for _ in range(100):
        store.open(None)
        tick()
    assert len(store) == 3  # bounded however many clients come


def test_turn_cap_per_session(make_store: MakeStore) -> None:
    store = make_store(max_turns=4)
    with store.session(None) as (sid, state, _):
        for i in range(50):
            state.record(grounded(f"q{i}", f"t{i}"), used_context=False)
        assert len(state.turns) == 4
    _, state, _ = store.open(sid)
    assert [t.question for t in state.turns] == ["q46", "q47", "q48", "q49"]
    assert state.max_turns == 4


def test_drop(make_store: MakeStore) -> None:
    store = make_store()
    sid, _, _ = store.open(None)
    other, _, _ = store.open(None)
    assert store.drop(sid) is True and store.drop(sid) is False
    assert sid not in store and other in store and len(store) == 1
    assert store.open(sid)[2] is True


def test_close_releases_connections_and_reopens(make_store: MakeStore) -> None:
    """The app closes its store at shutdown; an app started again uses the same object."""
    store = make_store()
    with store.session(None) as (sid, state, _):
        state.record(grounded("q", "ttft"), used_context=False)
    store.close()
    store.close()  # twice is fine
    assert sid in store and store.open(sid)[1].topic == ["ttft"]


def test_session_lock_serialises_turns(make_store: MakeStore) -> None:
    store = make_store()
    sid, _, _ = store.open(None)
    order: list[str] = []
    entered = threading.Event()
    release = threading.Event()

    def first() -> None:
        with store.session(sid) as (_, state, _):
            entered.set()
            release.wait(5)
            state.record(grounded("first", "a"), used_context=False)
            order.append("first")

    def second() -> None:
        entered.wait(5)
        with store.session(sid) as (_, state, _):
            state.record(grounded("second", "b"), used_context=False)
            order.append("second")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    entered.wait(5)
    release.set()
    for t in threads:
        t.join(5)
    assert order == ["first", "second"]
    # the second turn saw the first one's state: neither update was lost
    assert [t.question for t in store.open(sid)[1].turns] == ["first", "second"]


# --- what only the shared stores promise ----------------------------------------------------------


@pytest.mark.usefixtures("shared")
def test_two_store_objects_share_conversations(make_store: MakeStore) -> None:
    """Two objects on one backend stand for two worker processes."""
    a, b = make_store(), make_store()
    with a.session(None) as (sid, state, _):
        state.record(grounded("what is TTFT", "ttft"), used_context=False)
    with b.session(sid) as (sid_b, state_b, reset):
        assert (sid_b, reset) == (sid, False) and state_b.topic == ["ttft"]
        state_b.record(grounded("and TPOT?", "ttft", "tpot"), used_context=True)
    _, state_a, reset_a = a.open(sid)
    assert not reset_a and [t.question for t in state_a.turns] == ["what is TTFT", "and TPOT?"]
    assert len(a) == len(b) == 1
    assert b.drop(sid) and sid not in a


@pytest.mark.usefixtures("shared")
def test_each_store_applies_its_own_turn_cap(make_store: MakeStore) -> None:
    wide, narrow = make_store(max_turns=10), make_store(max_turns=3)
    with wide.session(None) as (sid, state, _):
        for i in range(10):
            state.record(grounded(f"q{i}", "t"), used_context=False)
    _, state, _ = narrow.open(sid)
    assert [t.question for t in state.turns] == ["q7", "q8", "q9"] and state.max_turns == 3


@pytest.mark.usefixtures("shared")
def test_concurrent_turns_across_store_objects(make_store: MakeStore) -> None:
    """Many threads, two store objects (SQLite: two connections contending for the file lock,
    waited for by busy_timeout): every turn of every conversation is kept."""
    stores = [make_store(), make_store()]
    errors: list[BaseException] = []
    sids: list[str] = []
    guard = threading.Lock()

    def client(n: int) -> None:
        try:
            for c in range(5):
                with stores[0].session(None) as (sid, state, _):
                    state.record(grounded(f"{n}-{c}-0", "t"), used_context=False)
                for turn in range(1, 4):  # alternate the "workers"
                    with stores[turn % 2].session(sid) as (same, state, reset):
                        assert same == sid and not reset
                        state.record(grounded(f"{n}-{c}-{turn}", "t"), used_context=False)
                with guard:
                    sids.append(sid)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors[0]
    assert len(sids) == 40
    for sid in sids:
        assert len(stores[1].open(sid)[1].turns) == 4


def test_unreadable_state_starts_afresh(backend: str, make_store: MakeStore) -> None:
    store = make_store()
    with store.session(None) as (sid, state, _):
        state.record(grounded("q", "ttft"), used_context=False)
    if backend == "memory":
        pytest.skip("nothing is decoded in memory")
    if backend.startswith("sqlite"):
        with sqlite3.connect(backend[len("sqlite://") :]) as con:
            con.execute("UPDATE sessions SET state = ? WHERE id = ?", ('{"turns": 3}', sid))
    else:
        import redis

        client = redis.Redis.from_url(backend)
        client.set(f"glossary:chat:s:{sid}", b"\xff not json", keepttl=True)
        client.close()
    new_sid, state, reset = store.open(sid)
    assert reset and new_sid != sid and state.topic == [] and sid not in store


def test_unreachable_redis_is_503() -> None:
    pytest.importorskip("redis")
    from tests.chat.redis_server import _free_port

    store = open_session_store(
        f"redis://127.0.0.1:{_free_port()}/0", ttl_seconds=60, max_sessions=10, max_turns=5
    )
    with pytest.raises(SessionStoreUnavailable) as info:
        store.open(None)
    assert info.value.status == 503 and info.value.code == "sessions_unavailable"
    store.close()


def test_redis_key_expires_on_the_server(redis_url: str) -> None:
    """Besides the store's own TTL check, Redis forgets idle sessions by itself (PEXPIRE)."""
    import redis

    store = open_session_store(redis_url, ttl_seconds=30, max_sessions=10, max_turns=5)
    client = redis.Redis.from_url(redis_url)
    try:
        sid, _, _ = store.open(None)
        ttl_ms = client.pttl(f"glossary:chat:s:{sid}")
        assert 29_000 < ttl_ms <= 30_000
        assert json.loads(client.get(f"glossary:chat:s:{sid}"))["topic"] == []  # plain JSON
        assert client.zscore("glossary:chat:lru", sid) is not None
    finally:
        store.drop(sid)
        client.close()
        store.close()


# --- the state's JSON -------------------------------------------------------------------------------


def _full_state() -> ConversationState:
    """A state in which every field differs from its default (a new field of ConversationState
    needs a value here: the round-trip test says so)."""
    return ConversationState(
        topic=["ttft"],
        last_terms=["ttft", "tpot"],
        pair=["ttft", "tpot"],
        named=["tpot", "ttft", "itl"],
        last_intent="comparison",
        pending="What does it stand for?",
        answered="tpot",
        max_turns=7,
        turns=deque(
            [Turn("什么是 TTFT？", "definition", ("ttft",), True), Turn("天气", "out_of_domain", (), False)]
        ),
    )


def test_state_round_trips_every_field() -> None:
    state = _full_state()
    for f in fields(ConversationState):
        default = f.default_factory() if f.default_factory is not MISSING else f.default
        assert getattr(state, f.name) != default, f"give {f.name} a non-default value in _full_state"
    data = state.to_dict()
    assert set(data) == {f.name for f in fields(ConversationState)}  # to_dict writes every field
    back = ConversationState.from_dict(json.loads(json.dumps(data)))
    assert back == state and back.to_dict() == data
    assert isinstance(back.turns[0], Turn) and back.turns[0].terms == ("ttft",)


def test_from_dict_tolerates_unknown_and_missing_keys() -> None:
    data = _full_state().to_dict()
    data["added_in_a_later_version"] = {"x": 1}
    del data["pair"]
    state = ConversationState.from_dict(data)
    assert state.pair == [] and state.topic == ["ttft"]
    assert ConversationState.from_dict({}) == ConversationState()
    data["turns"][0]["future_field"] = 1
    assert ConversationState.from_dict(data).turns[0].question == "什么是 TTFT？"


def test_from_dict_overrides_max_turns_and_trims() -> None:
    state = ConversationState.from_dict(_full_state().to_dict(), max_turns=1)
    assert state.max_turns == 1 and [t.question for t in state.turns] == ["天气"]


@pytest.mark.parametrize(
    "bad",
    [[], {"topic": "ttft"}, {"turns": [{"question": "q"}]}, {"max_turns": "7"}, {"turns": [1]}],
)
def test_from_dict_rejects_wrong_shapes(bad: Any) -> None:
    with pytest.raises(ValueError):
        ConversationState.from_dict(bad)


# --- URLs and the factory -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "parsed"),
    [
        ("memory", ("memory", None)),
        ("sqlite", ("sqlite", None)),
        (" SQLite ", ("sqlite", None)),
        ("sqlite:///var/lib/glossary/chat.db", ("sqlite", "/var/lib/glossary/chat.db")),
        ("sqlite:state/chat.db", ("sqlite", "state/chat.db")),
        ("redis://127.0.0.1:6379/0", ("redis", "redis://127.0.0.1:6379/0")),
        ("rediss://cache.internal:6380/2", ("redis", "rediss://cache.internal:6380/2")),
    ],
)
def test_parse_session_url(url: str, parsed: tuple[str, str | None]) -> None:
    assert parse_session_url(url) == parsed


@pytest.mark.parametrize(
    "url",
    ["", "memcached://x", "sqlite:", "sqlite://", "sqlite:///", "sqlite://host/x.db", "redis://", "mem"],
)
def test_bad_session_url_names_the_forms(url: str) -> None:
    with pytest.raises(ValueError) as info:
        open_session_store(url, ttl_seconds=1, max_sessions=1, max_turns=1)
    assert SESSION_URL_FORMS in str(info.value)
    for form in (
        "memory",
        "sqlite",
        "sqlite:///abs/path.db",
        "sqlite:relative/path.db",
        "redis://host:port/db",
    ):
        assert form in str(info.value)


def test_default_sqlite_file_is_named_after_the_artifact(tmp_path: Path, monkeypatch: Any) -> None:
    art = tmp_path / "artifact"
    path = default_sqlite_path(art)
    assert path.parent == Path(tempfile.gettempdir())
    monkeypatch.chdir(tmp_path)
    assert default_sqlite_path(Path("artifact")) == path  # resolved: every worker agrees
    assert default_sqlite_path(tmp_path / "other") != path
    store = open_session_store("sqlite", ttl_seconds=60, max_sessions=5, max_turns=5, artifact_dir=art)
    try:
        assert getattr(store, "path", None) == path and path.exists()
        assert path.stat().st_mode & 0o777 == 0o600  # conversations are private
        assert store.open(None)[0] in store
    finally:
        store.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


def test_relative_sqlite_path(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    store = open_session_store("sqlite:state/chat.db", ttl_seconds=60, max_sessions=5, max_turns=5)
    try:
        store.open(None)
        assert (tmp_path / "state" / "chat.db").exists()
        with sqlite3.connect(tmp_path / "state" / "chat.db") as con:
            assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        store.close()


def test_missing_redis_py_says_which_extra(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)  # `import redis` raises ImportError
    with pytest.raises(ImportError) as info:
        open_session_store("redis://127.0.0.1:6379/0", ttl_seconds=1, max_sessions=1, max_turns=1)
    assert "install the redis extra: pip install 'glossary-kg[redis]'" in str(info.value)
