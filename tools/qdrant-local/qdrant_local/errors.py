"""Errors that map onto Qdrant's REST error envelope and HTTP status codes.

Qdrant 1.18 (src/actix/helpers.rs, lib/storage/src/content_manager/errors.rs) renders a failure as
{"status": {"error": message}, "time": seconds}; the message starts with the error kind:
"Wrong input: " (400, 409 for "already exists"), "Bad request: " (400), "Not found: " (404),
"Forbidden: " (403), "Service internal error: " (500). Body parse failures are 400
"Format error in JSON body: ..." and validation failures 422 "Validation error in JSON body: [...]".
A few answers are not JSON at all (auth refusals, snapshot downloads): PlainError.
"""

from __future__ import annotations

_KNOWN_PREFIXES = (
    "Wrong input",
    "Bad request",
    "Validation error",
    "Format error",
    "Query deserialize",
    "Deserialize error",
    "Not found",
    "Forbidden",
    "Service internal error",
    "Checksum mismatch",
)


class ApiError(Exception):
    """An error with an HTTP status, rendered as {"status": {"error": message}}."""

    status: int = 500

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class BadRequest(ApiError):
    """400. Messages without a Qdrant kind prefix get "Bad request: "."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message if message.startswith(_KNOWN_PREFIXES) else f"Bad request: {message}")


class WrongInput(ApiError):
    """400 "Wrong input: ..." (Qdrant's StorageError::BadInput)."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message if message.startswith("Wrong input") else f"Wrong input: {message}")


class Unprocessable(ApiError):
    """422: a body that parsed but failed validation."""

    status = 422


class NotFound(ApiError):
    status = 404

    def __init__(self, message: str) -> None:
        super().__init__(message if message.startswith("Not found") else f"Not found: {message}")


class Forbidden(ApiError):
    status = 403

    def __init__(self, message: str) -> None:
        super().__init__(message if message.startswith("Forbidden") else f"Forbidden: {message}")


class Conflict(ApiError):
    status = 409


class ServiceError(ApiError):
    status = 500

    def __init__(self, message: str) -> None:
        super().__init__(message if message.startswith("Service internal error") else f"Service internal error: {message}")


class PlainError(ApiError):
    """An answer whose body is plain text (or empty), not the JSON envelope; content_type None = no header."""

    def __init__(self, status: int, text: str, content_type: str | None = "text/plain; charset=utf-8") -> None:
        super().__init__(text, status)
        self.content_type = content_type


class Unsupported(ApiError):
    """A valid Qdrant request that this local stand-in does not implement."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(f"Not supported by qdrant-local (Qdrant Edge stand-in): {message}")
