"""The client's settings become the headers of spec section 5; answers read by attribute. No network needed."""

import copy
import os
import pickle
import unittest
from unittest import mock

import _support  # noqa: F401  (puts the package on the path)
from gatehouse import Gatehouse, GatehouseError, GatehouseObject, gatehouse_headers, header_name_of


def lower_keys(headers):
    return {name.lower(): value for name, value in headers.items()}


class SettingsBecomeHeaders(unittest.TestCase):
    def test_every_spec_setting_is_sent_under_its_header(self):
        headers = lower_keys(
            gatehouse_headers(
                dict(
                    api_key="gw",
                    provider="azure-openai",
                    custom_host="http://127.0.0.1:1/v1",
                    Authorization="Bearer t",
                    forward_headers=["a", "b"],
                    trace_id="t1",
                    metadata={"k": "v"},
                    retry_count=2,
                    request_timeout=5000,
                    cloud_a_resource_name="res",
                    cloud_a_deployment_id="dep",
                    cloud_a_api_version="2024-10-21",
                    cloud_a_model_name="gpt-4o",
                    cloud_b_project_id="proj",
                    cloud_b_region="us-central1",
                    cloud_c_access_key_id="AKIA",
                    cloud_c_secret_access_key="secret",
                    cloud_c_region="us-east-1",
                    cloud_c_session_token="session",
                    X_Cloud_B_LLM_Request_Type="rawPredict",
                )
            )
        )
        self.assertEqual(
            headers,
            {
                "x-gateway-api-key": "gw",
                "x-gateway-provider": "azure-openai",
                "x-gateway-custom-host": "http://127.0.0.1:1/v1",
                "authorization": "Bearer t",
                "x-gateway-forward-headers": "a,b",
                "x-gateway-trace-id": "t1",
                "x-gateway-metadata": '{"k":"v"}',
                "x-gateway-retry-count": "2",
                "x-gateway-request-timeout": "5000",
                "x-gateway-cloud-a-resource-name": "res",
                "x-gateway-cloud-a-deployment-id": "dep",
                "x-gateway-cloud-a-api-version": "2024-10-21",
                "x-gateway-cloud-a-model-name": "gpt-4o",
                "x-gateway-cloud-b-project-id": "proj",
                "x-gateway-cloud-b-region": "us-central1",
                "x-gateway-cloud-c-access-key-id": "AKIA",
                "x-gateway-cloud-c-secret-access-key": "secret",
                "x-gateway-cloud-c-region": "us-east-1",
                "x-gateway-cloud-c-session-token": "session",
                "x-cloud-b-llm-request-type": "rawPredict",
            },
        )

    def test_a_snake_case_keyword_is_sent_as_a_custom_header(self):
        self.assertEqual(header_name_of("X_My_Custom_Header"), "X-My-Custom-Header")
        client = Gatehouse(gateway_api_key="gw", X_My_Custom_Header="v")
        self.assertEqual(client.headers["X-My-Custom-Header"], "v")

    def test_the_gateway_key_is_never_sent_as_a_bearer_token(self):
        client = Gatehouse(gateway_api_key="gh-vk-example")
        headers = lower_keys(client.headers)
        self.assertEqual(headers["x-gateway-api-key"], "gh-vk-example")
        self.assertNotIn("authorization", headers)

    def test_metadata_must_be_strings(self):
        with self.assertRaisesRegex(TypeError, "metadata"):
            Gatehouse(gateway_api_key="gw", metadata={"count": 3})


class GatewayKey(unittest.TestCase):
    def test_falls_back_to_the_GATEWAY_API_KEY_environment_variable(self):
        with mock.patch.dict(os.environ, {"GATEWAY_API_KEY": "from-env"}):
            client = Gatehouse()
        self.assertEqual(client.headers["x-gateway-api-key"], "from-env")
        self.assertEqual(client.base_url, "http://127.0.0.1:8787/v1")

    def test_an_explicit_key_wins_over_the_environment(self):
        with mock.patch.dict(os.environ, {"GATEWAY_API_KEY": "from-env"}):
            self.assertEqual(Gatehouse(api_key="given").headers["x-gateway-api-key"], "given")

    def test_refuses_to_start_without_a_key_naming_the_parameter_and_the_variable(self):
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaisesRegex(GatehouseError, "gateway_api_key.*GATEWAY_API_KEY"):
                Gatehouse(provider="openai")


class WithOptions(unittest.TestCase):
    def test_returns_a_client_with_the_new_settings_and_leaves_the_original_alone(self):
        base = Gatehouse(gateway_api_key="gw", provider="openai", metadata={"app": "a"})
        traced = base.with_options(trace_id="run-42", metadata={"user": "ada"})
        self.assertIsInstance(traced, Gatehouse)
        self.assertEqual(traced.headers["x-gateway-trace-id"], "run-42")
        self.assertEqual(traced.headers["x-gateway-metadata"], '{"app":"a","user":"ada"}')
        self.assertEqual(traced.headers["x-gateway-provider"], "openai")
        self.assertNotIn("x-gateway-trace-id", base.headers)
        self.assertEqual(base.headers["x-gateway-metadata"], '{"app":"a"}')

    def test_a_new_key_under_either_name_replaces_the_old_one(self):
        base = Gatehouse(gateway_api_key="old")
        self.assertEqual(base.with_options(api_key="new").headers["x-gateway-api-key"], "new")


class Answers(unittest.TestCase):
    def test_read_by_attribute_and_by_key(self):
        answer = GatehouseObject({"choices": [{"text": "hi", "logprobs": None}], "usage": {"total_tokens": 8}})
        self.assertEqual(answer.choices[0].text, "hi")
        self.assertEqual(answer["usage"]["total_tokens"], 8)
        self.assertEqual(answer.usage.total_tokens, 8)
        self.assertEqual(answer.to_dict(), {"choices": [{"text": "hi", "logprobs": None}], "usage": {"total_tokens": 8}})

    def test_survive_copy_and_pickle(self):
        answer = GatehouseObject({"choices": [{"text": "hi"}]})
        self.assertEqual(copy.deepcopy(answer), answer)
        self.assertEqual(pickle.loads(pickle.dumps(answer)).choices[0].text, "hi")
        self.assertIn("choices", dir(answer))

    def test_a_field_the_answer_lacks_reads_as_none(self):
        chunk = GatehouseObject({"choices": [{"delta": {}}]})
        self.assertIsNone(chunk.choices[0].delta.content)
        self.assertFalse(hasattr(chunk, "_private"))


if __name__ == "__main__":
    unittest.main()
