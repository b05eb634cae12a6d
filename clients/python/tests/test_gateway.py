"""The client against a running Gatehouse and an OpenAI-format provider double.

test/integration/client-python.test.ts starts both and sets GATEHOUSE_TEST_GATEWAY_URL (no /v1),
GATEHOUSE_TEST_GATEWAY_KEY, GATEHOUSE_TEST_PROVIDER_URL (the double's base URL, ending in /v1) and
GATEHOUSE_TEST_ADMIN_TOKEN. Without them these tests are skipped and say why.
"""

import json
import os
import time
import unittest
import urllib.parse
import urllib.request
import uuid

from _support import MISSING_GATEWAY_ENV, SKIP_REASON
from gatehouse import APIError, AuthenticationError, BadRequestError, Gatehouse, Stream

PROVIDER_TOKEN = "sk-provider-token-1234567890"


@unittest.skipIf(MISSING_GATEWAY_ENV, SKIP_REASON)
class AgainstTheGateway(unittest.TestCase):
    def setUp(self):
        self.gateway_url = os.environ.get("GATEHOUSE_TEST_GATEWAY_URL", "")
        self.client = Gatehouse(
            gateway_api_key=os.environ.get("GATEHOUSE_TEST_GATEWAY_KEY"),
            base_url=self.gateway_url + "/v1",
            provider="openai",
            custom_host=os.environ.get("GATEHOUSE_TEST_PROVIDER_URL"),
            Authorization="Bearer " + PROVIDER_TOKEN,
        )

    def log_entries_for(self, trace_id):
        """The gateway writes its log in batches, so wait briefly for the entry to appear."""
        url = self.gateway_url + "/admin/api/logs?q=" + urllib.parse.quote(trace_id)
        request = urllib.request.Request(url, headers={"Authorization": "Bearer " + os.environ.get("GATEHOUSE_TEST_ADMIN_TOKEN", "")})
        deadline = time.monotonic() + 5
        while True:
            with urllib.request.urlopen(request, timeout=5) as response:
                entries = [entry for entry in json.load(response)["items"] if entry["traceId"] == trace_id]
            if entries or time.monotonic() > deadline:
                return entries
            time.sleep(0.05)

    def test_completion_answers_with_attribute_access(self):
        completion = self.client.completions.create(model="gpt-3.5-turbo-instruct", prompt="hello world", max_tokens=5)
        self.assertEqual(completion.object, "text_completion")
        self.assertEqual(completion.choices[0].text, "echo: hello world")
        self.assertEqual(completion.usage.total_tokens, 8)

    def test_stream_yields_chunks_as_they_arrive(self):
        stream = self.client.completions.create(model="gpt-3.5-turbo-instruct", prompt="one two three", stream=True)
        self.assertIsInstance(stream, Stream)
        pieces = [chunk.choices[0].text for chunk in stream if chunk.choices]
        self.assertGreater(len([piece for piece in pieces if piece]), 1)
        self.assertEqual("".join(pieces), "echo: one two three")

    def test_chat_completion_streamed_and_not(self):
        messages = [{"role": "user", "content": "hi"}]
        chat = self.client.chat.completions.create(model="gpt-4o-mini", messages=messages)
        self.assertEqual(chat.choices[0].message.content, "Hello from the fake")
        text = "".join(chunk.choices[0].delta.content or "" for chunk in self.client.chat.completions.create(model="gpt-4o-mini", messages=messages, stream=True))
        self.assertEqual(text, "Hello from the fake")

    def test_with_options_trace_id_and_metadata_are_in_the_request_log(self):
        trace_id = "client-python-" + uuid.uuid4().hex
        base = self.client.with_options(metadata={"app": "client-python-test"})
        base.with_options(trace_id=trace_id, metadata={"user": "ada"}).completions.create(model="gpt-3.5-turbo-instruct", prompt="traced")
        base.completions.create(model="gpt-3.5-turbo-instruct", prompt="not traced")
        entries = self.log_entries_for(trace_id)
        self.assertEqual(len(entries), 1)
        self.assertEqual(entries[0]["metadata"], {"app": "client-python-test", "user": "ada"})
        self.assertEqual(entries[0]["status"], 200)

    def test_custom_and_forwarded_headers_are_sent(self):
        # The Node side checks that these reached the provider double: x-python-custom-header and x-api-key.
        custom = self.client.with_options(X_Python_Custom_Header="from-python", forward_headers=["x-api-key"], X_Api_Key="python-forwarded")
        completion = custom.completions.create(model="gpt-3.5-turbo-instruct", prompt="custom headers")
        self.assertEqual(completion.choices[0].text, "echo: custom headers")

    def test_a_validation_error_raises_with_status_400_message_type_and_param(self):
        with self.assertRaises(BadRequestError) as caught:
            self.client.completions.create(model="gpt-3.5-turbo-instruct", prompt="x", temperature=2.5)
        error = caught.exception
        self.assertIsInstance(error, APIError)
        self.assertEqual(error.status_code, 400)
        self.assertEqual(error.type, "invalid_request_error")
        self.assertEqual(error.param, "temperature")
        self.assertIn("temperature", error.message)

    def test_an_unknown_gateway_key_raises_with_status_401(self):
        with self.assertRaises(AuthenticationError) as caught:
            self.client.with_options(gateway_api_key="not-a-key").completions.create(model="m", prompt="x")
        self.assertEqual(caught.exception.status_code, 401)


if __name__ == "__main__":
    unittest.main()
