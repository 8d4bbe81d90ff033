"""Settings such as the message of the day persist across restarts."""

from __future__ import annotations

from pathlib import Path

from server.store import MOTD, Store


def test_the_motd_is_set_replaced_and_removed(tmp_path: Path) -> None:
    path = tmp_path / "lovelet.sqlite3"
    with Store.open(path) as store:
        assert store.get_setting(MOTD) is None
        assert store.get_setting(MOTD, "") == ""
        store.set_setting(MOTD, "Tournament at 8pm!")
        store.set_setting(MOTD, "Tournament at 9pm!")
    with Store.open(path) as store:
        assert store.get_setting(MOTD) == "Tournament at 9pm!"
        store.set_setting(MOTD, None)
        assert store.get_setting(MOTD) is None
