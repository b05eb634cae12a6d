"""Turns Gatehouse settings (the snake_case parameters of spec section 5) into the gateway's HTTP headers."""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Optional

# Settings sent under a fixed header name. The gateway key, forward_headers and metadata have
# their own encoding; any other keyword is a custom header.
HEADER_OF_SETTING: Dict[str, str] = {
    "provider": "x-gateway-provider",
    "custom_host": "x-gateway-custom-host",
    "Authorization": "Authorization",
    "trace_id": "x-gateway-trace-id",
    "retry_count": "x-gateway-retry-count",
    "request_timeout": "x-gateway-request-timeout",
    "cloud_a_resource_name": "x-gateway-cloud-a-resource-name",
    "cloud_a_deployment_id": "x-gateway-cloud-a-deployment-id",
    "cloud_a_api_version": "x-gateway-cloud-a-api-version",
    "cloud_a_model_name": "x-gateway-cloud-a-model-name",
    "cloud_b_project_id": "x-gateway-cloud-b-project-id",
    "cloud_b_region": "x-gateway-cloud-b-region",
    "cloud_c_access_key_id": "x-gateway-cloud-c-access-key-id",
    "cloud_c_secret_access_key": "x-gateway-cloud-c-secret-access-key",
    "cloud_c_region": "x-gateway-cloud-c-region",
    "cloud_c_session_token": "x-gateway-cloud-c-session-token",
}

SETTINGS_WITH_OWN_ENCODING = ("gateway_api_key", "api_key", "forward_headers", "metadata")


def header_name_of(option_name: str) -> str:
    """``X_My_Custom_Header`` -> ``X-My-Custom-Header`` (spec 5.4); case is kept, HTTP ignores it."""
    return option_name.replace("_", "-")


def _header_value_of(option_name: str, value: Any) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise TypeError(f"Gatehouse option {option_name!r} must be a string or a number to be sent as a header")


def _forward_list_of(names: Any) -> str:
    # A single string is taken as an already comma-separated list, as the gateway reads it.
    if isinstance(names, str):
        return names
    if not all(isinstance(name, str) for name in names):
        raise TypeError("forward_headers must be a list of header names")
    return ",".join(names)


def _metadata_json_of(metadata: Mapping[str, Any]) -> str:
    if not isinstance(metadata, Mapping) or not all(isinstance(value, str) for value in metadata.values()):
        # The gateway answers 400 to anything else; failing here names the cause sooner.
        raise TypeError("metadata must be a dict of strings")
    return json.dumps(dict(metadata), separators=(",", ":"))


def gatehouse_headers(settings: Mapping[str, Any]) -> Dict[str, str]:
    """The headers that carry these settings. Usable on its own, for example as ``extra_headers=``."""
    headers: Dict[str, str] = {}

    def put(name: str, value: str) -> None:
        # HTTP names are case-insensitive: a later setting replaces an earlier one of the same name.
        for existing in [key for key in headers if key.lower() == name.lower()]:
            del headers[existing]
        headers[name] = value

    gateway_key = settings.get("gateway_api_key") or settings.get("api_key")
    if gateway_key:
        put("x-gateway-api-key", str(gateway_key))
    if settings.get("forward_headers") is not None:
        put("x-gateway-forward-headers", _forward_list_of(settings["forward_headers"]))
    if settings.get("metadata") is not None:
        put("x-gateway-metadata", _metadata_json_of(settings["metadata"]))

    for name, value in settings.items():
        if name in SETTINGS_WITH_OWN_ENCODING:
            continue
        text = _header_value_of(name, value)
        if text is not None:
            put(HEADER_OF_SETTING.get(name) or header_name_of(name), text)
    return headers
