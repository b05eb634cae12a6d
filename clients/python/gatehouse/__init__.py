"""Gatehouse client for Python: completions and chat through the Gatehouse gateway, standard library only.

    from gatehouse import Gatehouse
    client = Gatehouse(gateway_api_key="...", provider="openai", Authorization="Bearer sk-...")
    print(client.completions.create(model="gpt-3.5-turbo-instruct", prompt="Say hi").choices[0].text)
"""

__version__ = "0.1.0"

from ._client import DEFAULT_BASE_URL, DEFAULT_TIMEOUT, Chat, ChatCompletions, Completions, Gatehouse  # noqa: E402
from ._errors import (  # noqa: E402
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    GatehouseError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RequestTooLargeError,
)
from ._headers import gatehouse_headers, header_name_of  # noqa: E402
from ._objects import GatehouseObject  # noqa: E402
from ._streaming import Stream  # noqa: E402

__all__ = [
    "Gatehouse",
    "Completions",
    "Chat",
    "ChatCompletions",
    "Stream",
    "GatehouseObject",
    "gatehouse_headers",
    "header_name_of",
    "DEFAULT_BASE_URL",
    "DEFAULT_TIMEOUT",
    "GatehouseError",
    "APIError",
    "APIConnectionError",
    "APITimeoutError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "RequestTooLargeError",
    "RateLimitError",
    "InternalServerError",
    "__version__",
]
