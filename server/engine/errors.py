"""Engine errors, each with a stable code the protocol can send."""


class EngineError(Exception):
    """Base of all rule errors; `code` is stable, the message is for people."""

    code = "engine_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class IllegalAction(EngineError):
    """An action that the rules do not allow now; the state is unchanged."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class SetupError(EngineError):
    """A round or game that cannot be set up as asked (bad deck, wrong player count)."""

    code = "bad_setup"
