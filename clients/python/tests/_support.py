"""Shared by the tests: imports the package from this source tree, and reads where the gateway under test is."""

import os
import sys
from pathlib import Path

# The tests exercise the source next to them, installed or not.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GATEWAY_ENV = ("GATEHOUSE_TEST_GATEWAY_URL", "GATEHOUSE_TEST_GATEWAY_KEY", "GATEHOUSE_TEST_PROVIDER_URL", "GATEHOUSE_TEST_ADMIN_TOKEN")
MISSING_GATEWAY_ENV = [name for name in GATEWAY_ENV if not os.environ.get(name)]
SKIP_REASON = (
    "needs a running gateway and provider double: set "
    + ", ".join(MISSING_GATEWAY_ENV)
    + " (npm test does, through test/integration/client-python.test.ts)"
)
