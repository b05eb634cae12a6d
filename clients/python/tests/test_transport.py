"""Streams and errors against a scripted local HTTP server, so the edge cases need no gateway."""

import json
import socket
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import _support  # noqa: F401  (puts the package on the path)
from gatehouse import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    Gatehouse,
    InternalServerError,
)


def chunk(text):
    return "data: " + json.dumps({"id": "c", "object": "text_completion", "choices": [{"index": 0, "text": text}]}) + "\n\n"


class ScriptedServer:
    """Answers every POST with the status, headers and body pieces the test set, and records what it got."""

    def __init__(self):
        self.status = 200
        self.content_type = "application/json"
        self.pieces = ["{}"]
        self.pause_seconds = 0.0
        self.requests = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("content-length", "0"))
                scripted.requests.append({"path": self.path, "headers": dict(self.headers), "body": json.loads(self.rfile.read(length))})
                time.sleep(scripted.pause_seconds)
                self.send_response(scripted.status)
                self.send_header("content-type", scripted.content_type)
                self.send_header("x-gateway-trace-id", "trace-from-server")
                self.end_headers()
                try:
                    for piece in scripted.pieces:
                        self.wfile.write(piece.encode("utf-8"))
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first, as the timeout test intends

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class TransportTest(unittest.TestCase):
    def setUp(self):
        self.server = ScriptedServer()
        self.client = Gatehouse(gateway_api_key="gw", base_url=self.server.base_url, provider="openai", timeout=5)

    def tearDown(self):
        self.server.close()

    def test_posts_json_with_the_settings_as_headers(self):
        self.server.pieces = [json.dumps({"id": "c", "object": "text_completion", "choices": [{"index": 0, "text": "ok"}]})]
        answer = self.client.completions.create(model="m", prompt="x", seed=9223372036854775807, extra_headers={"x-extra": "1"})
        self.assertEqual(answer.choices[0].text, "ok")
        request = self.server.requests[0]
        self.assertEqual(request["path"], "/v1/completions")
        self.assertEqual(request["body"], {"model": "m", "prompt": "x", "seed": 9223372036854775807})
        headers = {name.lower(): value for name, value in request["headers"].items()}
        self.assertEqual(headers["x-gateway-api-key"], "gw")
        self.assertEqual(headers["x-gateway-provider"], "openai")
        self.assertEqual(headers["x-extra"], "1")
        self.assertEqual(headers["content-type"], "application/json")

    def test_streams_chunks_until_done(self):
        self.server.content_type = "text/event-stream"
        self.server.pieces = [": comment\n\n", chunk("a"), chunk(" b"), "data: [DONE]\n\n"]
        with self.client.completions.create(model="m", prompt="x", stream=True) as stream:
            texts = [piece.choices[0].text for piece in stream]
            self.assertEqual(stream.trace_id, "trace-from-server")
        self.assertEqual(texts, ["a", " b"])
        self.assertIs(self.server.requests[0]["body"]["stream"], True)

    def test_an_error_event_mid_stream_raises_APIError_without_a_status(self):
        self.server.content_type = "text/event-stream"
        error_event = {"error": {"message": "The provider broke off", "type": "gateway_error", "param": None, "code": None}}
        self.server.pieces = [chunk("partial"), "data: " + json.dumps(error_event) + "\n\n"]
        stream = self.client.completions.create(model="m", prompt="x", stream=True)
        self.assertEqual(next(stream).choices[0].text, "partial")
        with self.assertRaises(APIError) as caught:
            next(stream)
        self.assertIsNone(caught.exception.status_code)
        self.assertEqual(caught.exception.type, "gateway_error")
        self.assertEqual(caught.exception.message, "The provider broke off")

    def test_a_stream_that_stops_before_done_raises_instead_of_passing_for_complete(self):
        self.server.content_type = "text/event-stream"
        self.server.pieces = [chunk("partial")]
        with self.assertRaisesRegex(APIConnectionError, r"\[DONE\]"):
            list(self.client.completions.create(model="m", prompt="x", stream=True))

    def test_error_statuses_raise_with_status_message_type_param_and_code(self):
        self.server.status = 400
        self.server.pieces = [json.dumps({"error": {"message": "'temperature' must be at most 2", "type": "invalid_request_error", "param": "temperature", "code": None}})]
        with self.assertRaises(BadRequestError) as caught:
            self.client.completions.create(model="m", prompt="x", temperature=3)
        error = caught.exception
        self.assertEqual((error.status_code, error.type, error.param, error.code), (400, "invalid_request_error", "temperature", None))
        self.assertIn("temperature", str(error))

    def test_a_stream_request_refused_with_401_raises_before_iterating(self):
        self.server.status = 401
        self.server.pieces = [json.dumps({"error": {"message": "Unknown key", "type": "authentication_error", "param": None, "code": None}})]
        with self.assertRaises(AuthenticationError) as caught:
            self.client.completions.create(model="m", prompt="x", stream=True)
        self.assertEqual(caught.exception.status_code, 401)

    def test_a_body_that_is_not_json_still_gives_an_error_with_the_status(self):
        self.server.status = 502
        self.server.content_type = "text/plain"
        self.server.pieces = ["Bad gateway"]
        with self.assertRaises(InternalServerError) as caught:
            self.client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        self.assertEqual(caught.exception.status_code, 502)
        self.assertEqual(caught.exception.message, "Bad gateway")

    def test_a_slow_gateway_raises_APITimeoutError(self):
        self.server.pause_seconds = 1.0
        with self.assertRaises(APITimeoutError):
            self.client.completions.create(model="m", prompt="x", timeout=0.2)


class UnreachableGateway(unittest.TestCase):
    def test_a_closed_port_raises_APIConnectionError_naming_the_address(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        client = Gatehouse(gateway_api_key="gw", base_url=f"http://127.0.0.1:{port}/v1")
        with self.assertRaisesRegex(APIConnectionError, f"127.0.0.1:{port}"):
            client.completions.create(model="m", prompt="x")


if __name__ == "__main__":
    unittest.main()
