"""Directions and the size limits that apply to each (see docs/protocol.md)."""

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType


class Direction(StrEnum):
    """Who receives the frame: the server (from a session) or a client session."""

    TO_SERVER = "to_server"
    TO_CLIENT = "to_client"


@dataclass(frozen=True, slots=True)
class Limits:
    """Hard limits checked while decoding, before any field is looked at."""

    max_frame: int  # bytes of one msgpack frame (without the framing length prefix)
    max_str_bytes: int  # UTF-8 bytes of any one string, map keys included
    max_array_len: int  # items in any one list
    max_map_len: int  # keys in any one map
    max_depth: int  # nesting of lists/maps; the top-level map is depth 1


KIB = 1024

LIMITS: MappingProxyType[Direction, Limits] = MappingProxyType(
    {
        Direction.TO_SERVER: Limits(
            max_frame=64 * KIB, max_str_bytes=1 * KIB, max_array_len=16, max_map_len=16, max_depth=4
        ),
        Direction.TO_CLIENT: Limits(
            max_frame=1024 * KIB,
            max_str_bytes=16 * KIB,
            max_array_len=4096,
            max_map_len=1024,
            max_depth=16,
        ),
    }
)
