"""Configuration: precedence of sources, errors naming key and source, config init."""

from __future__ import annotations

import argparse
import dataclasses
import re
import tomllib
from itertools import pairwise
from pathlib import Path

import pytest

from server.lobby import LobbySettings, TableSettings
from server.ops.config import (
    SETTINGS,
    Config,
    ConfigError,
    Limits,
    TableTimings,
    add_config_flags,
    default_config_toml,
    default_value,
    flags_from_args,
    invite_command,
    load_config,
    name_rules,
    split_host_port,
    unknown_environment,
    write_default_config,
)
from server.ssh.limits import SSHLimits

FP = "SHA256:" + "A" * 43
FP2 = "SHA256:" + "b+/9" * 10 + "xyz"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


def env(data_dir: Path, **values: str) -> dict[str, str]:
    """An environment pointing at a scratch data dir (never the real one)."""
    return {"LOVELET_DATA_DIR": str(data_dir), **values}


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- defaults


def test_defaults_match_the_brief(data_dir: Path) -> None:
    config = load_config({}, env(data_dir), None)
    assert config.listen == "0.0.0.0:2222"
    assert config.data_dir == data_dir
    assert config.metrics_listen is None
    assert (config.log_format, config.log_level, config.color_system) == ("text", "info", "256")
    assert config.admins == ()
    assert config.table.disconnect_grace == 120
    assert config.table.turn_timer == 90
    assert config == Config(data_dir=data_dir)


def test_default_data_dir_is_platformdirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import platformdirs

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    config = load_config({}, {}, None)
    assert config.data_dir == Path(platformdirs.user_data_dir("lovelet"))


def test_config_is_frozen(data_dir: Path) -> None:
    config = load_config({}, env(data_dir), None)
    with pytest.raises(AttributeError):
        config.listen = "x"  # type: ignore[misc]


# ----------------------------------------------------------------------------- precedence


def test_file_overrides_defaults(data_dir: Path) -> None:
    write(data_dir / "config.toml", 'listen = "127.0.0.1:2022"\n[limits]\nper_address = 3\n')
    config = load_config({}, env(data_dir), None)
    assert config.listen == "127.0.0.1:2022"
    assert config.limits.per_address == 3
    assert config.limits.max_connections == Limits().max_connections


def test_env_overrides_file(data_dir: Path) -> None:
    write(data_dir / "config.toml", 'listen = "127.0.0.1:2022"\n[limits]\nper_address = 3\n')
    environ = env(data_dir, LOVELET_LIMITS_PER_ADDRESS="4")
    config = load_config({}, environ, None)
    assert config.limits.per_address == 4
    assert config.listen == "127.0.0.1:2022"


def test_flags_override_env_and_file(data_dir: Path) -> None:
    write(data_dir / "config.toml", "[table]\nbot_delay = 2.5\nround_pause = 5\n")
    environ = env(data_dir, LOVELET_TABLE_BOT_DELAY="1.5", LOVELET_LOG_LEVEL="debug")
    config = load_config({"table.bot_delay": "0.25"}, environ, None)
    assert config.table.bot_delay == 0.25
    assert config.table.round_pause == 5
    assert config.log_level == "debug"


def test_every_level_of_precedence_for_every_key(tmp_path: Path) -> None:
    """For each key: file beats default, env beats file, flag beats env."""
    samples = {
        "listen": ("10.0.0.1:1", "10.0.0.2:2", "10.0.0.3:3"),
        "data_dir": (str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "c")),
        "metrics_listen": ("127.0.0.1:9100", "127.0.0.1:9101", "[::1]:9102"),
        "web_listen": ("0.0.0.0:8080", "off", "[::1]:8081"),
        "web_public_url": ("https://play.example.org", "http://10.0.0.5:8080", "https://a.b"),
        "log_format": ("json", "text", "json"),
        "log_level": ("warning", "error", "debug"),
        "admins": ([FP], FP2, f"{FP},{FP2}"),
        "motd": ("one", "two", "three"),
        "color_system": ("standard", "truecolor", "256"),
        "public_host": ("play.example.org", "203.0.113.7", "2001:db8::7"),
        "public_port": (22, "2222", "2022"),
        "role": ("core", "frontend", "all"),
        "broker": ("redis://a:6379/0", "redis://b:6379/1", "unix:///run/redis.sock"),
        "workers": (2, "3", "4"),
        "render_patches": ("chops", "off", "strips,chops"),
        "paced_collector": ("off", "on", "off"),
    }
    for setting in SETTINGS:
        if setting.key in samples:
            in_file, in_env, in_flag = samples[setting.key]
        else:
            kind = setting.kind
            low, high = kind.low, kind.high  # type: ignore[attr-defined]
            middle = (low + high) // 2 if kind.integer else (low + high) / 2  # type: ignore[attr-defined]
            in_file, in_env, in_flag = low, str(high), str(middle)
        section, name = setting.section, setting.name
        toml_value = setting.kind.to_toml(setting.kind.from_toml(in_file))
        body = f"[{section}]\n{name} = {toml_value}\n" if section else f"{name} = {toml_value}\n"
        path = write(tmp_path / "c.toml", body)
        env_base = {} if setting.key == "data_dir" else {"LOVELET_DATA_DIR": str(tmp_path)}
        parsed = {
            "file": setting.kind.from_toml(in_file),
            "env": setting.kind.from_text(in_env),
            "flag": setting.kind.from_text(in_flag),
        }
        chain = [default_value(setting), parsed["file"], parsed["env"], parsed["flag"]]
        assert all(a != b for a, b in pairwise(chain)), setting.key
        got_file = default_value(setting, load_config({}, env_base, path))
        got_env = default_value(setting, load_config({}, {**env_base, setting.env: in_env}, path))
        got_flag = default_value(
            setting,
            load_config({setting.key: in_flag}, {**env_base, setting.env: in_env}, path),
        )
        assert (got_file, got_env, got_flag) == (parsed["file"], parsed["env"], parsed["flag"]), (
            setting.key
        )


def test_flag_values_may_be_typed(data_dir: Path) -> None:
    config = load_config({"limits.per_address": 7, "admins": [FP]}, env(data_dir), None)
    assert config.limits.per_address == 7
    assert config.admins == (FP,)


def test_none_flags_are_not_given(data_dir: Path) -> None:
    config = load_config({"listen": None}, env(data_dir, LOVELET_LISTEN="1.2.3.4:5"), None)
    assert config.listen == "1.2.3.4:5"


def test_explicit_config_path_wins_over_data_dir_file(data_dir: Path, tmp_path: Path) -> None:
    write(data_dir / "config.toml", 'motd = "from data dir"\n')
    other = write(tmp_path / "other.toml", 'motd = "from --config"\n')
    assert load_config({}, env(data_dir), other).motd == "from --config"
    assert load_config({}, env(data_dir, LOVELET_CONFIG=str(other)), None).motd == ("from --config")
    assert load_config({}, env(data_dir), None).motd == "from data dir"


def test_a_config_file_in_the_data_dir_cannot_move_the_data_dir(
    data_dir: Path, tmp_path: Path
) -> None:
    path = write(data_dir / "config.toml", f'data_dir = "{tmp_path / "elsewhere"}"\n')
    err = error_of({}, env(data_dir), None)
    assert err.key == "data_dir" and f"file {path}" in str(err)
    assert load_config({}, env(data_dir), path).data_dir == data_dir  # env beats --config
    assert load_config({}, {}, path).data_dir == tmp_path / "elsewhere"


def test_config_file_is_found_in_the_data_dir_given_by_flag(tmp_path: Path) -> None:
    flagged = tmp_path / "flagged"
    flagged.mkdir()
    write(flagged / "config.toml", 'motd = "hi"\n')
    config = load_config({"data_dir": str(flagged)}, {"LOVELET_DATA_DIR": str(tmp_path)}, None)
    assert config.motd == "hi"
    assert config.data_dir == flagged


def test_argparse_flags_round_trip(data_dir: Path) -> None:
    parser = argparse.ArgumentParser()
    add_config_flags(parser)
    args = parser.parse_args(
        ["--listen", "127.0.0.1:22", "--limits-per-address", "2", "--admins", FP]
    )
    flags = flags_from_args(args)
    assert flags == {"listen": "127.0.0.1:22", "limits.per_address": "2", "admins": FP}
    config = load_config(flags, env(data_dir), args.config)
    assert (config.listen, config.limits.per_address, config.admins) == (
        "127.0.0.1:22",
        2,
        (FP,),
    )


def test_argparse_dests_are_accepted_as_flag_keys(data_dir: Path) -> None:
    config = load_config({"limits_per_address": "6"}, env(data_dir), None)
    assert config.limits.per_address == 6


def test_admins_are_deduplicated_and_separated_by_commas_or_spaces(data_dir: Path) -> None:
    config = load_config({}, env(data_dir, LOVELET_ADMINS=f" {FP}, {FP2}\n{FP} "), None)
    assert config.admins == (FP, FP2)
    assert config.is_admin(FP) and not config.is_admin(None)


def test_empty_metrics_listen_means_off(data_dir: Path) -> None:
    write(data_dir / "config.toml", 'metrics_listen = "127.0.0.1:9100"\n')
    assert load_config({}, env(data_dir), None).metrics_address == ("127.0.0.1", 9100)
    assert load_config({}, env(data_dir, LOVELET_METRICS_LISTEN=""), None).metrics_listen is None


def test_choices_are_case_insensitive(data_dir: Path) -> None:
    config = load_config({"log_level": "WARNING"}, env(data_dir, LOVELET_LOG_FORMAT="JSON"), None)
    assert (config.log_level, config.log_format) == ("warning", "json")


def test_unknown_environment_lists_typos() -> None:
    environ = {"LOVELET_LISTN": "x", "LOVELET_LISTEN": "y", "LOVELET_CONFIG": "z", "HOME": "/"}
    assert unknown_environment(environ) == ["LOVELET_LISTN"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0.0.0.0:2222", ("0.0.0.0", 2222)),
        ("localhost:0", ("localhost", 0)),
        ("[::]:22", ("::", 22)),
        ("[fe80::1%eth0]:22", ("fe80::1%eth0", 22)),
        ("play.example.org:65535", ("play.example.org", 65535)),
    ],
)
def test_split_host_port(value: str, expected: tuple[str, int]) -> None:
    assert split_host_port(value) == expected


@pytest.mark.parametrize(
    "value", ["", "2222", ":2222", "host:", "host:x", "host:65536", "::1:22", "a b:1", "[x]:1"]
)
def test_split_host_port_rejects(value: str) -> None:
    with pytest.raises(ValueError):
        split_host_port(value)


# ----------------------------------------------------------------------------- errors


def error_of(flags: dict, environ: dict, path: Path | None) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(flags, environ, path)
    return info.value


FILE_ERRORS = [
    ('public_host = "play.example.org; rm -rf /"\n', "public_host"),
    ('public_host = "-oProxyCommand=x"\n', "public_host"),
    ("public_port = 65536\n", "public_port"),
    ('listen = "nope"\n', "listen"),
    ('listen = "host:99999"\n', "listen"),
    ("listen = 2222\n", "listen"),
    ("shutdown_grace = -1\n", "shutdown_grace"),
    ('shutdown_grace = "10"\n', "shutdown_grace"),
    ("log_format = true\n", "log_format"),
    ('log_format = "xml"\n', "log_format"),
    ('log_level = "loud"\n', "log_level"),
    ('admins = "SHA256:x"\n', "admins"),
    ('admins = ["MD5:00:11"]\n', "admins"),
    ("admins = [1]\n", "admins"),
    ('color_system = "16m"\n', "color_system"),
    ('motd = "a\\u001b[31m"\n', "motd"),
    (f'motd = "{"x" * 2001}"\n', "motd"),
    ('data_dir = ""\n', "data_dir"),
    ('metrics_listen = "9100"\n', "metrics_listen"),
    ("unknown = 1\n", "unknown"),
    ("limits = 3\n", "limits"),
    ("[limits]\nper_address = 0\n", "limits.per_address"),
    ("[limits]\nper_address = 1.5\n", "limits.per_address"),
    ("[limits]\nmax_connections = true\n", "limits.max_connections"),
    ("[limits]\nchat_max_length = 201\n", "limits.chat_max_length"),
    ("[limits]\nchat_interval = 0\n", "limits.chat_interval"),
    ("[limits]\nsurprise = 1\n", "limits.surprise"),
    ("[table]\nturn_timer = 3601\n", "table.turn_timer"),
    ("[table]\nbot_delay = nan\n", "table.bot_delay"),
    ("[table]\nbot_delay = inf\n", "table.bot_delay"),
    ("[nosuch]\nx = 1\n", "nosuch"),
]


@pytest.mark.parametrize(("body", "key"), FILE_ERRORS)
def test_file_errors_name_key_and_file(tmp_path: Path, body: str, key: str) -> None:
    path = write(tmp_path / "bad.toml", body)
    err = error_of({}, {"LOVELET_DATA_DIR": str(tmp_path)}, path)
    assert err.key == key
    assert str(err).startswith(f"{key}: ")
    assert f"file {path}" in str(err)


ENV_ERRORS = [
    ("LOVELET_LISTEN", "0.0.0.0"),
    ("LOVELET_LISTEN", "0.0.0.0:http"),
    ("LOVELET_METRICS_LISTEN", "localhost"),
    ("LOVELET_LOG_FORMAT", "yaml"),
    ("LOVELET_LOG_LEVEL", "trace"),
    ("LOVELET_ADMINS", "SHA256:short"),
    ("LOVELET_COLOR_SYSTEM", "mono"),
    ("LOVELET_SHUTDOWN_GRACE", "soon"),
    ("LOVELET_DATA_DIR", " "),
    ("LOVELET_MOTD", "bell\x07"),
    ("LOVELET_LIMITS_PER_ADDRESS", "abc"),
    ("LOVELET_LIMITS_PER_ADDRESS", "1.5"),
    ("LOVELET_LIMITS_MAX_CONNECTIONS", "-1"),
    ("LOVELET_LIMITS_LOGIN_TIMEOUT", "0"),
    ("LOVELET_LIMITS_IDLE_TIMEOUT", "nan"),
    ("LOVELET_TABLE_TURN_TIMER", "90s"),
    ("LOVELET_TABLE_DISCONNECT_GRACE", "1e9"),
]


@pytest.mark.parametrize(("name", "value"), ENV_ERRORS)
def test_env_errors_name_key_and_variable(tmp_path: Path, name: str, value: str) -> None:
    err = error_of({}, {"LOVELET_DATA_DIR": str(tmp_path), name: value}, None)
    setting = next(s for s in SETTINGS if s.env == name)
    assert err.key == setting.key
    assert str(err).startswith(f"{setting.key}: ")
    assert f"environment variable {name}" in str(err)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("listen", "bad"),
        ("limits.concurrent_logins", "0"),
        ("limits.per_address", True),
        ("table.round_pause", "-5"),
        ("admins", ["nope"]),
        ("log_format", 3),
    ],
)
def test_flag_errors_name_key_and_flag(tmp_path: Path, key: str, value: object) -> None:
    err = error_of({key: value}, {"LOVELET_DATA_DIR": str(tmp_path)}, None)
    flag = next(s.flag for s in SETTINGS if s.key == key)
    assert err.key == key
    assert f"flag {flag}" in str(err)


def test_unknown_keys_suggest_the_closest(tmp_path: Path) -> None:
    path = write(tmp_path / "c.toml", "[limits]\nper_adress = 3\n")
    err = error_of({}, {"LOVELET_DATA_DIR": str(tmp_path)}, path)
    assert "did you mean limits.per_address?" in str(err)
    path = write(tmp_path / "c.toml", "[table]\nzzz = 3\n")
    err = error_of({}, {"LOVELET_DATA_DIR": str(tmp_path)}, path)
    assert "table.bot_delay" in str(err) and "limits." not in str(err)


def test_unknown_flag_key_is_an_error(tmp_path: Path) -> None:
    err = error_of({"colour": "256"}, {"LOVELET_DATA_DIR": str(tmp_path)}, None)
    assert err.key == "colour" and "flag" in err.source


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.toml", "listen = \n")
    err = error_of({}, {"LOVELET_DATA_DIR": str(tmp_path)}, path)
    assert str(path) in str(err) and "invalid TOML" in str(err)


def test_missing_explicit_config_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    err = error_of({}, {"LOVELET_DATA_DIR": str(tmp_path)}, missing)
    assert "flag --config" in str(err) and str(missing) in str(err)
    err = error_of({}, {"LOVELET_DATA_DIR": str(tmp_path), "LOVELET_CONFIG": str(missing)}, None)
    assert "LOVELET_CONFIG" in str(err)


def test_a_bad_env_value_is_an_error_even_when_a_flag_overrides_it(tmp_path: Path) -> None:
    """A typo anywhere stops start-up, so it is never silently ignored later."""
    environ = {"LOVELET_DATA_DIR": str(tmp_path), "LOVELET_LISTEN": "oops"}
    err = error_of({"listen": "0.0.0.0:22"}, environ, None)
    assert "LOVELET_LISTEN" in str(err)


# ----------------------------------------------------------------------------- config init


def test_default_config_toml_is_all_comments(tmp_path: Path) -> None:
    assert tomllib.loads(default_config_toml()) == {"limits": {}, "table": {}}
    path = write(tmp_path / "config.toml", default_config_toml())
    assert load_config({}, {}, path) == load_config({}, {}, None)


def test_default_config_toml_lists_every_key_with_env_and_flag() -> None:
    text = default_config_toml()
    for setting in SETTINGS:
        assert re.search(rf"^# {setting.name} = ", text, re.MULTILINE), setting.key
        assert setting.env in text and setting.flag in text


def uncomment_keys(text: str) -> str:
    return re.sub(r"^# (\w+ = )", r"\1", text, flags=re.MULTILINE)


def test_uncommented_config_init_parses_back_to_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    path = write(tmp_path / "full.toml", uncomment_keys(default_config_toml()))
    document = tomllib.loads(path.read_text())
    assert set(document) >= {"listen", "limits", "table"}
    assert len(document["limits"]) == len(dataclasses.fields(Limits))
    assert len(document["table"]) == len(dataclasses.fields(TableTimings))
    assert load_config({}, {}, path) == load_config({}, {}, None) == Config()


def test_write_default_config_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "config.toml"
    assert write_default_config(path, force=False) == path
    assert path.read_text() == default_config_toml()
    path.write_text("# mine\n")
    with pytest.raises(FileExistsError) as info:
        write_default_config(path, force=False)
    assert "--force" in str(info.value) and str(path) in str(info.value)
    assert path.read_text() == "# mine\n"
    write_default_config(path, force=True)
    assert path.read_text() == default_config_toml()


# ------------------------------------------------------- the settings built from a Config


def test_ssh_limits_mapping(data_dir: Path) -> None:
    config = load_config(
        {
            "limits.max_connections": "50",
            "limits.per_address": "2",
            "limits.concurrent_logins": "4",
            "limits.login_timeout": "12",
        },
        env(data_dir),
        None,
    )
    limits = SSHLimits.from_config(config)
    assert isinstance(limits, SSHLimits)
    assert (limits.max_connections, limits.max_per_address) == (50, 2)
    assert (limits.max_logins_in_progress, limits.login_timeout) == (4, 12.0)
    assert limits.input_rate == SSHLimits().input_rate


def test_key_budget_settings_reach_the_ssh_limits_with_the_same_defaults(data_dir: Path) -> None:
    flags = {"limits.keys_per_second": "20", "limits.key_burst": "80", "limits.key_flood": "500"}
    limits = SSHLimits.from_config(load_config(flags, env(data_dir), None))
    assert (limits.key_rate, limits.key_burst, limits.key_flood) == (20.0, 80, 500)
    defaults = SSHLimits.from_config(load_config({}, env(data_dir), None))
    default = SSHLimits()
    assert (defaults.key_rate, defaults.key_burst, defaults.key_flood) == (
        default.key_rate,
        default.key_burst,
        default.key_flood,
    )


def test_lobby_and_table_settings_mapping(data_dir: Path) -> None:
    flags = {
        "table.bot_delay": "0",
        "table.disconnect_grace": "30",
        "table.hard_bot_cpu_ms": "40",
        "motd": "hello",
    }
    config = load_config(flags, env(data_dir), None)
    table = TableSettings.from_config(config)
    assert isinstance(table, TableSettings)
    assert (table.bot_delay, table.grace, table.round_pause) == (0.0, 30.0, 20.0)
    assert table.bot_budget == 0.04
    lobby = LobbySettings.from_config(config)
    assert isinstance(lobby, LobbySettings)
    assert lobby.motd == "hello" and lobby.table == table


async def test_lobby_limits_mapping(data_dir: Path) -> None:
    import asyncio
    import math

    flags = {
        "limits.chat_messages": "3",
        "limits.chat_interval": "7",
        "limits.chat_max_length": "50",
        "limits.idle_timeout": "600",
    }
    lobby = LobbySettings.from_config(load_config(flags, env(data_dir), None))
    assert (lobby.chat_burst, lobby.chat_interval, lobby.chat_max_length) == (3, 7.0, 50)
    assert lobby.lobby_idle == 600
    never = LobbySettings.from_config(
        load_config({"limits.idle_timeout": "0"}, env(data_dir), None)
    )
    assert never.lobby_idle == math.inf
    handle = asyncio.get_running_loop().call_later(never.lobby_idle, pytest.fail)
    await asyncio.sleep(0.01)
    handle.cancel()


def test_the_turn_timer_is_the_lobbys_default_for_new_tables(data_dir: Path) -> None:
    assert LobbySettings.from_config(load_config({}, env(data_dir), None)).default_timer == 90
    thirty = load_config({"table.turn_timer": "30"}, env(data_dir), None)
    assert LobbySettings.from_config(thirty).default_timer == 30
    off = load_config({"table.turn_timer": "0"}, env(data_dir), None)
    assert LobbySettings.from_config(off).default_timer is None


def test_each_color_system_is_the_app_consoles_depth() -> None:
    from server.ops.config import COLOR_SYSTEMS
    from server.ssh.driver import app_console

    assert [app_console(name).color_system for name in COLOR_SYSTEMS] == list(COLOR_SYSTEMS)


def test_protocol_bounds_match() -> None:
    from protocol import registry
    from server.ops import config

    assert config.MAX_CHAT == registry.MAX_CHAT
    assert config.MAX_MOTD == registry.MAX_MOTD
    assert config.MAX_TIMER == registry.MAX_TIMER


def test_the_servers_settings_default_to_the_configs_defaults() -> None:
    """One place for every default: what the server runs with when nothing is set is what
    `lovelet config` documents, and the other way round."""
    from server.store import NameRules

    config = Config()
    assert SSHLimits.from_config(config) == SSHLimits()
    assert TableSettings.from_config(config) == TableSettings()
    assert LobbySettings.from_config(config) == LobbySettings()
    assert name_rules(config) == NameRules()


# ----------------------------------------------------------------------------- invites


@pytest.mark.parametrize(
    ("listen", "public_host", "public_port", "expected"),
    [
        ("127.0.0.1:0", "", 0, "ssh -t -p 4444 127.0.0.1"),  # the port actually bound
        ("10.0.0.5:2222", "", 0, "ssh -t -p 2222 10.0.0.5"),
        ("10.0.0.5:22", "", 0, "ssh -t 10.0.0.5"),
        ("0.0.0.0:2222", "play.example.org", 22, "ssh -t play.example.org"),
        ("[::1]:2222", "", 2022, "ssh -t -p 2022 ::1"),
    ],
)
def test_the_invite_command_is_where_players_connect(
    listen: str, public_host: str, public_port: int, expected: str
) -> None:
    config = Config(listen=listen, public_host=public_host, public_port=public_port)
    assert invite_command(config, 4444) == expected


def test_a_wildcard_listen_address_invites_to_this_machine_by_name() -> None:
    command = invite_command(Config(listen="0.0.0.0:2222"), 2222)
    assert command.startswith("ssh -t -p 2222 ") and not command.endswith("0.0.0.0")
