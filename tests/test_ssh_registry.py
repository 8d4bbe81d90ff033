"""The session registry: nicknames unique between people, one nickname per player with a key."""

from server.ssh.registry import SessionRegistry


class FakeSession:
    """Stands for a session: the registry only holds it and may close it."""

    async def close(self, message: str | None = None) -> None:
        """Nothing to close."""


def test_a_second_person_gets_a_suffix() -> None:
    registry: SessionRegistry[FakeSession] = SessionRegistry()
    assert registry.register("ana", FakeSession(), "key:ana") == "ana"
    assert registry.register("ana", FakeSession(), "key:other") == "ana-2"
    assert registry.register("ana", FakeSession(), None) == "ana-3"


def test_the_same_player_keeps_their_name_on_a_new_session() -> None:
    registry: SessionRegistry[FakeSession] = SessionRegistry()
    old, new = FakeSession(), FakeSession()
    registry.register("ana", old, "key:ana")
    assert registry.register("ana", new, "key:ana") == "ana"
    assert registry.get("ana") is new
    registry.unregister("ana", old)  # the old session closing leaves the name to the new one
    assert registry.get("ana") is new
    registry.unregister("ana", new)
    assert registry.get("ana") is None


def test_guests_never_share_a_name() -> None:
    registry: SessionRegistry[FakeSession] = SessionRegistry()
    assert registry.register("bob", FakeSession()) == "bob"
    assert registry.register("bob", FakeSession()) == "bob-2"


def test_a_name_that_looks_like_one_held_gets_a_suffix() -> None:
    registry: SessionRegistry[FakeSession] = SessionRegistry()
    assert registry.register("victim", FakeSession(), "key:victim") == "victim"
    assert registry.register("vıctım", FakeSession(), "key:other") == "vıctım-2"  # dotless ı
    assert registry.register("ѕсоре", FakeSession()) == "ѕсоре"
    assert registry.register("scope", FakeSession()) == "scope-2"  # the first is Cyrillic


def test_sessions_that_ended_are_counted_while_still_in_memory() -> None:
    registry: SessionRegistry[FakeSession] = SessionRegistry()
    first, second, third = FakeSession(), FakeSession(), FakeSession()
    for name, session in (("ana", first), ("bob", second), ("cy", third)):
        registry.register(name, session)
    registry.unregister("ana", first)
    registry.unregister("bob", second)
    assert len(registry.ended) == 2  # the third still runs
    del first
    assert len(registry.ended) == 1  # gone from memory: nothing left to free
