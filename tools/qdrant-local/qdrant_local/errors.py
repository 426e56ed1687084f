"""Errors that map onto Qdrant's REST error envelope and HTTP status codes."""

from __future__ import annotations


class ApiError(Exception):
    """An error with an HTTP status, rendered as {"status": {"error": message}}."""

    status: int = 500

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class BadRequest(ApiError):
    status = 400

    def __init__(self, message: str) -> None:
        # Qdrant prefixes validation failures with "Wrong input: " or "Bad request: ".
        super().__init__(message if message.startswith(("Wrong input", "Bad request", "Validation error", "Format error", "Query deserialize")) else f"Bad request: {message}")


class NotFound(ApiError):
    status = 404

    def __init__(self, message: str) -> None:
        super().__init__(message if message.startswith("Not found") else f"Not found: {message}")


class Conflict(ApiError):
    status = 409


class Unsupported(ApiError):
    """A valid Qdrant request that this local stand-in does not implement."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(f"Not supported by qdrant-local (Qdrant Edge stand-in): {message}")
