"""The generated client builds as a wheel and installs into a fresh virtual environment, where it imports.

The environment holds nothing but the client and its dependencies: the SDK's clean venv of the run (`sdk_venv`,
tests/support/venvs.py), filled from the one wheel `pip wheel` built of a copy of `generated/client`.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.venvs import ProductVenv, pip

# One worker runs the users of the SDK's clean venv (with test_readme_snippets.py): none waits while another builds it.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("sdk-venv")]

SMOKE = """
from accessgov_client import AccessGov, AuthenticatedClient, Client, WebhookSender
from accessgov_client.operations import CATALOG
from accessgov_client.api.app_entitlements import list_app_entitlements
from accessgov_client.api.auth import get_token
from accessgov_client.api.task import restart_task
from accessgov_client.api.webhooks import receive_webhook
from accessgov_client.models import Task, TaskActionType

client = AuthenticatedClient(base_url="http://127.0.0.1:9", token="t")
assert client.get_httpx_client().headers["Authorization"] == "Bearer t"
task = Task.from_dict({"state": "TASK_STATE_NEW_ONE", "actions": ["TASK_ACTION_TYPE_CLOSE"]})
assert task.state == "TASK_STATE_NEW_ONE" and task.actions == [TaskActionType.TASK_ACTION_TYPE_CLOSE]
assert CATALOG.get("list_app_entitlements").paging is not None
assert AccessGov("http://127.0.0.1:9", token="t").client is not None
assert WebhookSender("http://127.0.0.1:9", secret="s").headers(b"{}")["Webhook-Signature"]
import accessgov_client
print(accessgov_client.__file__)
"""


def _run(*command: str | Path, cwd: Path) -> str:
    done = subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_client_builds_a_wheel_and_installs_in_a_fresh_venv(sdk_venv: ProductVenv, tmp_path: Path) -> None:
    assert sdk_venv.wheel is not None and sdk_venv.wheel.name.startswith("accessgov_client-"), sdk_venv.wheel
    installed = _run(sdk_venv.python, "-c", SMOKE, cwd=tmp_path)  # cwd outside the repo: imports the installed copy
    assert installed.strip().startswith(str(sdk_venv.root))
    assert "Name: accessgov-client" in pip(sdk_venv.python, "show", "accessgov-client", cwd=tmp_path)
