"""A streamed answer: data-only server-sent events, one chunk each, ending with ``data: [DONE]`` (spec section 6)."""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any, Dict, Iterator, List, Optional

from ._errors import APIConnectionError, APIError, APITimeoutError, api_error_from
from ._objects import GatehouseObject
from ._transport import Connection, response_headers

DONE = "[DONE]"


def _event_data(response: http.client.HTTPResponse) -> Iterator[str]:
    """The data of each event as it arrives; multi-line data is joined with newlines, as SSE says."""
    data_lines: List[str] = []
    while True:
        raw = response.readline()
        if not raw:
            break
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data_lines:
                yield "\n".join(data_lines)
                data_lines = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data_lines.append(value[1:] if value.startswith(" ") else value)
    if data_lines:
        yield "\n".join(data_lines)


class Stream(Iterator[GatehouseObject]):
    """Iterates the chunks of a streamed completion as the gateway sends them.

    Closes its connection when the stream ends, when an error is raised, on ``close()``, or at the
    end of a ``with`` block, so breaking out of a loop early is safe inside ``with``.
    """

    def __init__(self, connection: Connection, response: http.client.HTTPResponse) -> None:
        self._connection = connection
        self._response = response
        self.headers: Dict[str, str] = response_headers(response)
        self._chunks = self._read_chunks()

    @property
    def trace_id(self) -> Optional[str]:
        """The trace id the gateway recorded this request under."""
        return self.headers.get("x-gateway-trace-id")

    def __iter__(self) -> "Stream":
        return self

    def __next__(self) -> GatehouseObject:
        return next(self._chunks)

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        self._connection.close()

    def _read_chunks(self) -> Iterator[GatehouseObject]:
        try:
            for data in _event_data(self._response):
                if data == DONE:
                    return
                yield self._chunk_of(data)
            # A stream that stops without [DONE] lost its end; passing that off as complete would hide truncated text.
            raise APIConnectionError("The stream from the gateway ended before data: [DONE]")
        except socket.timeout as error:
            raise APITimeoutError("The gateway stopped sending stream events within the client's timeout") from error
        except (OSError, http.client.HTTPException) as error:
            raise APIConnectionError(f"The stream from the gateway broke off: {error}") from error
        finally:
            self.close()

    def _chunk_of(self, data: str) -> GatehouseObject:
        try:
            payload = json.loads(data)
        except ValueError:
            raise APIError(f"The gateway sent a stream event that is not JSON: {data[:200]}", status_code=None, body=data) from None
        if not isinstance(payload, dict):
            raise APIError("The gateway sent a stream event that is not a JSON object", status_code=None, body=payload)
        if "error" in payload:
            # The gateway ends a stream that failed after it started with one error event (CONTRACT section 3).
            raise api_error_from(None, payload, self.headers)
        return GatehouseObject(payload)
