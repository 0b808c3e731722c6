"""MemorySessionStore: TTL, caps on sessions and on turns (bounded memory), reset flag, locking."""

from __future__ import annotations

import threading

import pytest

from kg.chat import Answer, ConversationState
from kg.chat.sessions import MemorySessionStore


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def grounded(question: str, *terms: str) -> Answer:
    return Answer(
        question=question, lang="en", intent="definition", answer="x [1]", grounded=True, terms=list(terms)
    )


def test_new_known_and_unknown_ids() -> None:
    store = MemorySessionStore()
    sid, state, reset = store.open(None)
    assert not reset and isinstance(state, ConversationState) and len(sid) >= 16
    sid2, state2, reset2 = store.open(sid)
    assert (sid2, reset2) == (sid, False) and state2 is state
    sid3, state3, reset3 = store.open("never-issued")
    assert reset3 and sid3 != "never-issued" and state3 is not state  # ids are never chosen by clients
    assert len(store) == 2


def test_ttl_expiry_starts_a_fresh_conversation() -> None:
    clock = Clock()
    store = MemorySessionStore(ttl_seconds=60, clock=clock)
    sid, state, _ = store.open(None)
    state.record(grounded("q", "ttft"), used_context=False)
    clock.now += 59
    assert store.open(sid)[1].topic == ["ttft"]  # still alive, and touched
    clock.now += 59
    assert sid in store
    clock.now += 61
    new_sid, new_state, reset = store.open(sid)
    assert reset and new_sid != sid and new_state.topic == []
    assert sid not in store and store.expired == 1


def test_session_cap_evicts_least_recently_used() -> None:
    store = MemorySessionStore(max_sessions=3)
    ids = [store.open(None)[0] for _ in range(3)]
    store.open(ids[0])  # touch the oldest
    extra = store.open(None)[0]
    assert len(store) == 3 and store.evicted == 1
    assert ids[1] not in store  # the least recently used went
    assert ids[0] in store and ids[2] in store and extra in store
    for _ in range(100):
        store.open(None)
    assert len(store) == 3  # memory stays bounded however many clients come


def test_turn_cap_per_session() -> None:
    store = MemorySessionStore(max_turns=4)
    _, state, _ = store.open(None)
    for i in range(50):
        state.record(grounded(f"q{i}", f"t{i}"), used_context=False)
    assert len(state.turns) == 4
    assert [t.question for t in state.turns] == ["q46", "q47", "q48", "q49"]


def test_session_lock_serialises_turns() -> None:
    store = MemorySessionStore()
    sid, _, _ = store.open(None)
    order: list[str] = []
    entered = threading.Event()
    release = threading.Event()

    def first() -> None:
        with store.session(sid):
            entered.set()
            release.wait(5)
            order.append("first")

    def second() -> None:
        entered.wait(5)
        with store.session(sid):
            order.append("second")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    entered.wait(5)
    release.set()
    for t in threads:
        t.join(5)
    assert order == ["first", "second"]


def test_bad_limits() -> None:
    with pytest.raises(ValueError):
        MemorySessionStore(ttl_seconds=0)
    with pytest.raises(ValueError):
        MemorySessionStore(max_sessions=0)
