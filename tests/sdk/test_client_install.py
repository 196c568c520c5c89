"""The generated client builds as a wheel and installs into a fresh virtual environment, where it imports.

The environment holds nothing but the client and its dependencies: it is made without pip and filled by the
session's pip (`tests/support/venvs.py`).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.bundle import CLIENT_DIR
from tests.support.venvs import new_venv, pip

pytestmark = pytest.mark.slow

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


def test_client_builds_a_wheel_and_installs_in_a_fresh_venv(tmp_path: Path) -> None:
    # Build from a copy: an in-tree setuptools build leaves build/ and *.egg-info/ beside the sources.
    source = tmp_path / "client"
    shutil.copytree(CLIENT_DIR, source, ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp_path / "venv"
    python = new_venv(venv)
    pip(python, "wheel", "--quiet", "--no-deps", "--wheel-dir", tmp_path / "wheels", source, cwd=tmp_path)
    wheels = sorted((tmp_path / "wheels").glob("accessgov_client-*.whl"))
    assert len(wheels) == 1, wheels
    pip(python, "install", "--quiet", wheels[0], cwd=tmp_path)
    installed = _run(python, "-c", SMOKE, cwd=tmp_path)  # cwd outside the repo: imports the installed copy
    assert installed.strip().startswith(str(venv))
    assert "Name: accessgov-client" in pip(python, "show", "accessgov-client", cwd=tmp_path)
