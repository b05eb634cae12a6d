"""Exceptions raised by the client. The gateway's error body (CONTRACT section 4) is
``{"error": {"message", "type", "param", "code", "provider"?}}``; its fields become attributes."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type


class GatehouseError(Exception):
    """Base of every exception this package raises."""


class APIConnectionError(GatehouseError):
    """The gateway could not be reached, or the connection broke before an answer arrived."""


class APITimeoutError(APIConnectionError):
    """The gateway did not answer within the client's ``timeout``."""


class APIError(GatehouseError):
    """The gateway answered with an error.

    ``status_code`` is the HTTP status; it is ``None`` for an error event that ends a stream
    which had already started with 200.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: Optional[int],
        type: Optional[str] = None,
        param: Optional[str] = None,
        code: Optional[str] = None,
        provider: Optional[str] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.type = type
        self.param = param
        self.code = code
        self.provider = provider
        self.body = body
        self.headers: Dict[str, str] = dict(headers or {})

    def __str__(self) -> str:
        prefix = f"Error code: {self.status_code} - " if self.status_code is not None else ""
        return f"{prefix}{self.message}"


class BadRequestError(APIError):
    """400: the request was invalid; ``param`` names the field."""


class AuthenticationError(APIError):
    """401: no gateway key, or one the gateway does not know."""


class PermissionDeniedError(APIError):
    """403."""


class NotFoundError(APIError):
    """404: unknown path, or a model the provider does not have."""


class RequestTooLargeError(APIError):
    """413: the body is over the gateway's limit."""


class RateLimitError(APIError):
    """429 from the provider."""


class InternalServerError(APIError):
    """5xx: the gateway or the provider failed (502 unreachable, 504 timed out)."""


_ERROR_CLASS_OF_STATUS: Dict[int, Type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    413: RequestTooLargeError,
    429: RateLimitError,
}


def api_error_from(status_code: Optional[int], body: Any, headers: Optional[Mapping[str, str]] = None) -> APIError:
    """Builds the exception for an error answer, whatever shape its body has."""
    detail: Mapping[str, Any] = {}
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        detail = body["error"]
    message = detail.get("message")
    if not isinstance(message, str) or not message:
        message = body if isinstance(body, str) and body else f"The gateway answered with status {status_code}"
    if status_code is not None and status_code >= 500:
        error_class: Type[APIError] = InternalServerError
    else:
        error_class = _ERROR_CLASS_OF_STATUS.get(status_code or 0, APIError)
    return error_class(
        message,
        status_code=status_code,
        type=detail.get("type"),
        param=detail.get("param"),
        code=detail.get("code"),
        provider=detail.get("provider"),
        body=body,
        headers=headers,
    )
