"""The protocol version a session announces in `hello` and the server echoes in `welcome`."""

PROTOCOL_VERSION = 20
