"""One HTTP request to the gateway with http.client: a connection per request, no proxy.

http.client rather than urllib.request because a stream must be read line by line as it arrives,
and because the gateway is usually on this machine, where a proxy from the environment would
only get in the way.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import urllib.parse
from typing import Any, Dict, Mapping, Tuple

from ._errors import APIConnectionError, APIError, APITimeoutError, api_error_from

Connection = http.client.HTTPConnection


def _connection_for(url: str, timeout: float) -> Tuple[Connection, str]:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must be an http or https URL, got {url!r}")
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    if parts.scheme == "https":
        return http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout, context=ssl.create_default_context()), target
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout), target


def open_response(url: str, body: bytes, headers: Mapping[str, str], timeout: float) -> Tuple[Connection, http.client.HTTPResponse]:
    """Sends a POST and returns the open connection and its response; the caller closes the connection."""
    connection, target = _connection_for(url, timeout)
    try:
        connection.request("POST", target, body=body, headers=dict(headers))
        return connection, connection.getresponse()
    except socket.timeout as error:
        connection.close()
        raise APITimeoutError(f"The gateway at {url} did not answer within {timeout} s") from error
    except (OSError, http.client.HTTPException) as error:
        connection.close()
        raise APIConnectionError(f"Could not reach the gateway at {url}: {error}") from error


def read_body(connection: Connection, response: http.client.HTTPResponse, url: str) -> bytes:
    try:
        return response.read()
    except socket.timeout as error:
        raise APITimeoutError(f"The gateway at {url} stopped answering mid-response") from error
    except (OSError, http.client.HTTPException) as error:
        raise APIConnectionError(f"The answer from the gateway at {url} broke off: {error}") from error
    finally:
        connection.close()


def parse_json_or_text(raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


def raise_for_error_status(response: http.client.HTTPResponse, raw: bytes) -> None:
    if response.status >= 400:
        raise api_error_from(response.status, parse_json_or_text(raw), response_headers(response))


def response_headers(response: http.client.HTTPResponse) -> Dict[str, str]:
    return {name.lower(): value for name, value in response.getheaders()}


def json_object_of(response: http.client.HTTPResponse, raw: bytes) -> Mapping[str, Any]:
    body = parse_json_or_text(raw)
    if not isinstance(body, Mapping):
        raise APIError(
            "The gateway answered 200 with a body that is not a JSON object",
            status_code=response.status,
            body=body,
            headers=response_headers(response),
        )
    return body
