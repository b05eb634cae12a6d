"""The Gatehouse client: the gateway's settings (spec section 5) as keyword arguments, turned into
headers on every request, with ``completions`` and ``chat.completions`` shaped like the OpenAI SDK's."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, Literal, Mapping, Optional, Union, overload

from . import __version__
from ._errors import GatehouseError
from ._headers import gatehouse_headers
from ._objects import GatehouseObject
from ._streaming import Stream
from ._transport import json_object_of, open_response, raise_for_error_status, read_body

DEFAULT_BASE_URL = "http://127.0.0.1:8787/v1"
DEFAULT_TIMEOUT = 600.0
"""Seconds without a byte from the gateway before the client gives up; the gateway's own limit is 10 minutes."""

# Keyword arguments that configure the client itself rather than becoming headers.
_CLIENT_OPTIONS = ("base_url", "timeout", "default_headers")


def _with_header(headers: Dict[str, str], name: str, value: str) -> None:
    for existing in [key for key in headers if key.lower() == name.lower()]:
        del headers[existing]
    headers[name] = value


class Gatehouse:
    """A client of the Gatehouse gateway.

    ``Gatehouse(gateway_api_key=..., provider="openai", Authorization="Bearer sk-...")``; the key falls
    back to the ``GATEWAY_API_KEY`` environment variable. Any other keyword is a custom header:
    ``X_My_Custom_Header="v"`` sends ``X-My-Custom-Header: v``.
    """

    def __init__(
        self,
        *,
        gateway_api_key: Optional[str] = None,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        provider: Optional[str] = None,
        custom_host: Optional[str] = None,
        Authorization: Optional[str] = None,
        forward_headers: Optional[Iterable[str]] = None,
        trace_id: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        retry_count: Optional[int] = None,
        request_timeout: Optional[int] = None,
        cloud_a_resource_name: Optional[str] = None,
        cloud_a_deployment_id: Optional[str] = None,
        cloud_a_api_version: Optional[str] = None,
        cloud_a_model_name: Optional[str] = None,
        cloud_b_project_id: Optional[str] = None,
        cloud_b_region: Optional[str] = None,
        cloud_c_access_key_id: Optional[str] = None,
        cloud_c_secret_access_key: Optional[str] = None,
        cloud_c_region: Optional[str] = None,
        cloud_c_session_token: Optional[str] = None,
        timeout: Optional[float] = None,
        default_headers: Optional[Mapping[str, str]] = None,
        **custom_headers: Any,
    ) -> None:
        given = dict(
            gateway_api_key=gateway_api_key,
            api_key=api_key,
            base_url=base_url,
            provider=provider,
            custom_host=custom_host,
            Authorization=Authorization,
            forward_headers=list(forward_headers) if forward_headers is not None and not isinstance(forward_headers, str) else forward_headers,
            trace_id=trace_id,
            metadata=dict(metadata) if metadata is not None else None,
            retry_count=retry_count,
            request_timeout=request_timeout,
            cloud_a_resource_name=cloud_a_resource_name,
            cloud_a_deployment_id=cloud_a_deployment_id,
            cloud_a_api_version=cloud_a_api_version,
            cloud_a_model_name=cloud_a_model_name,
            cloud_b_project_id=cloud_b_project_id,
            cloud_b_region=cloud_b_region,
            cloud_c_access_key_id=cloud_c_access_key_id,
            cloud_c_secret_access_key=cloud_c_secret_access_key,
            cloud_c_region=cloud_c_region,
            cloud_c_session_token=cloud_c_session_token,
            timeout=timeout,
            default_headers=dict(default_headers) if default_headers is not None else None,
            **custom_headers,
        )
        # What the caller gave, so with_options can derive a client from it.
        self._options: Dict[str, Any] = {name: value for name, value in given.items() if value is not None}

        key = gateway_api_key or api_key or os.environ.get("GATEWAY_API_KEY", "").strip()
        if not key:
            raise GatehouseError(
                "Missing the gateway API key: pass gateway_api_key (or api_key), or set the GATEWAY_API_KEY environment variable."
            )
        self.base_url: str = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.timeout: float = DEFAULT_TIMEOUT if timeout is None else float(timeout)

        settings = {name: value for name, value in self._options.items() if name not in _CLIENT_OPTIONS}
        settings["gateway_api_key"] = key
        headers: Dict[str, str] = {"User-Agent": f"gatehouse-python/{__version__}"}
        for name, value in gatehouse_headers(settings).items():
            _with_header(headers, name, value)
        for name, value in (default_headers or {}).items():
            _with_header(headers, name, value)
        self._headers = headers

        self.completions = Completions(self)
        self.chat = Chat(self)

    @property
    def headers(self) -> Dict[str, str]:
        """The headers every request of this client carries (a copy)."""
        return dict(self._headers)

    def with_options(self, **overrides: Any) -> "Gatehouse":
        """A client with these settings on top of this one's, for one call or more:
        ``client.with_options(trace_id="run-42", metadata={"user": "ada"}).completions.create(...)``.

        Settings replace this client's, except ``metadata``, which is merged key by key.
        """
        options = dict(self._options)
        given = {name: value for name, value in overrides.items() if value is not None}
        if "gateway_api_key" in given or "api_key" in given:
            # Either name sets the one key; a new one must not lose to the old one under the other name.
            options.pop("gateway_api_key", None)
            options.pop("api_key", None)
        options.update(given)
        if "metadata" in given:
            options["metadata"] = {**self._options.get("metadata", {}), **given["metadata"]}
        return type(self)(**options)

    def post(
        self,
        path: str,
        body: Mapping[str, Any],
        *,
        stream: bool = False,
        extra_headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
    ) -> Union[GatehouseObject, Stream]:
        """POSTs JSON to ``{base_url}{path}``; the typed methods below are built on this one."""
        url = f"{self.base_url}/{path.lstrip('/')}"
        headers = dict(self._headers)
        _with_header(headers, "Content-Type", "application/json")
        _with_header(headers, "Accept", "text/event-stream" if stream else "application/json")
        for name, value in (extra_headers or {}).items():
            _with_header(headers, name, value)
        # allow_nan=False: NaN and Infinity are not JSON, and the gateway would refuse them less clearly.
        payload = json.dumps(body, allow_nan=False).encode("utf-8")
        wait = self.timeout if timeout is None else float(timeout)

        connection, response = open_response(url, payload, headers, wait)
        if stream and response.status < 400:
            return Stream(connection, response)
        raw = read_body(connection, response, url)
        raise_for_error_status(response, raw)
        return GatehouseObject(json_object_of(response, raw))

    def __repr__(self) -> str:
        return f"Gatehouse(base_url={self.base_url!r})"


class Completions:
    """``POST {base_url}/completions`` (spec section 4.1)."""

    def __init__(self, client: Gatehouse) -> None:
        self._client = client

    @overload
    def create(
        self, *, model: str, stream: Literal[False] = False, extra_headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None, **params: Any,
    ) -> GatehouseObject: ...

    @overload
    def create(
        self, *, model: str, stream: Literal[True], extra_headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None, **params: Any,
    ) -> Stream: ...

    def create(
        self, *, model: str, stream: bool = False, extra_headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None, **params: Any,
    ) -> Union[GatehouseObject, Stream]:
        """A text completion; the keyword arguments are the request fields of spec section 2.1
        (``prompt``, ``max_tokens``, ``temperature`` ...). ``stream=True`` returns an iterator of chunks."""
        body: Dict[str, Any] = {"model": model, **params}
        if stream:
            body["stream"] = True
        return self._client.post("/completions", body, stream=stream, extra_headers=extra_headers, timeout=timeout)


class ChatCompletions:
    """``POST {base_url}/chat/completions`` (spec section 4.2)."""

    def __init__(self, client: Gatehouse) -> None:
        self._client = client

    @overload
    def create(
        self, *, model: str, messages: Iterable[Mapping[str, Any]], stream: Literal[False] = False,
        extra_headers: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None, **params: Any,
    ) -> GatehouseObject: ...

    @overload
    def create(
        self, *, model: str, messages: Iterable[Mapping[str, Any]], stream: Literal[True],
        extra_headers: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None, **params: Any,
    ) -> Stream: ...

    def create(
        self, *, model: str, messages: Iterable[Mapping[str, Any]], stream: bool = False,
        extra_headers: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None, **params: Any,
    ) -> Union[GatehouseObject, Stream]:
        """A chat completion in OpenAI's format; ``stream=True`` returns an iterator of chunks."""
        body: Dict[str, Any] = {"model": model, "messages": [dict(message) for message in messages], **params}
        if stream:
            body["stream"] = True
        return self._client.post("/chat/completions", body, stream=stream, extra_headers=extra_headers, timeout=timeout)


class Chat:
    def __init__(self, client: Gatehouse) -> None:
        self.completions = ChatCompletions(client)
