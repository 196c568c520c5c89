"""The TypeScript SDK as a package: what its tarball holds, that it installs alone into an empty project, that the
documentation's programs and the examples compile there (`tsc --strict`, harness.build) and run against the
reference server as written, and that Python and TypeScript sign the contract's HMAC test vector alike."""

from __future__ import annotations

import functools
import json
import subprocess
import tarfile
from collections.abc import Callable

import pytest
from accessgov_client.webhooks import hmac_signature

from tests.sdk_ts.conftest import Servers
from tests.sdk_ts.harness import REPO, SDK, Built, readme_programs

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("sdk-ts")]

CONTRACT_VERSION = json.loads((REPO / "generated" / "openapi.json").read_text(encoding="utf-8"))["info"]["version"]
# What a downstream project gets besides the package: its declared dependencies, theirs, and the toolchain the
# harness installs next to it (TypeScript and Node's types, as a TypeScript project has them).
DEPENDENCIES = {"jose", "openapi-fetch", "openapi-typescript-helpers"}
TOOLCHAIN = {"typescript", "@types/node", "undici-types"}


def _run(built: Built, *arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [built.node, *arguments], cwd=built.consumer, capture_output=True, text=True, timeout=120, env=env, check=False
    )


def test_the_tarball_holds_the_built_module_its_declarations_and_readme_only(built: Built) -> None:
    members = built.tarball_members()
    assert built.tarball.name == f"accessgov-client-{CONTRACT_VERSION}.tgz"
    assert {"package/package.json", "package/README.md", "package/dist/index.js", "package/dist/index.d.ts"} <= set(
        members
    )
    assert "package/dist/generated/schema.d.ts" in members and "package/dist/generated/types.d.ts" in members
    assert not [m for m in members if m.startswith(("package/src/", "package/test/", "package/scripts/"))]
    assert not [m for m in members if m.endswith((".ts",)) and not m.endswith(".d.ts")]
    with tarfile.open(built.tarball) as archive:
        manifest = json.load(archive.extractfile("package/package.json"))  # type: ignore[arg-type]
    assert manifest["name"] == "@accessgov/client" and manifest["version"] == CONTRACT_VERSION
    assert manifest["type"] == "module" and manifest["engines"]["node"] == ">=20"
    assert manifest["exports"]["."] == {"types": "./dist/index.d.ts", "default": "./dist/index.js"}
    assert set(manifest["dependencies"]) == {"jose", "openapi-fetch"}
    # A compact package: the limit fails the build if a change bloats it (it is ~50 KB packed today).
    assert built.tarball.stat().st_size < 120_000, built.tarball.stat().st_size


def test_it_installs_alone_into_an_empty_project(built: Built) -> None:
    lock = json.loads((built.consumer / "package-lock.json").read_text(encoding="utf-8"))
    installed = {path.removeprefix("node_modules/") for path in lock["packages"] if path}
    assert installed - TOOLCHAIN == DEPENDENCIES | {"@accessgov/client"}, installed
    done = _run(
        built,
        "--input-type=module",
        "-e",
        "import * as sdk from '@accessgov/client'; console.log(sdk.CONTRACT_VERSION)",
    )
    assert done.returncode == 0 and done.stdout.strip() == CONTRACT_VERSION, done.stderr


def test_the_readmes_have_the_documented_programs() -> None:
    programs = readme_programs()
    first = programs["readme/repository.ts"]
    assert "http://127.0.0.1:8080" in first and "for await" in first and 'from "@accessgov/client"' in first
    joined = "\n".join(programs.values())
    for needle in ("credentials:", ".paginate(", "WebhookSender", "verifyWebhook", "NotFoundError", "api.raw.GET"):
        assert needle in joined, f"sdk-ts/README.md: no program uses {needle}"


ProgramRun = Callable[[str], subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def readme_run(built: Built, servers: Servers) -> ProgramRun:
    """A README program's run against the reference server, by its module name: each program runs once, however
    many tests read what it did."""

    @functools.cache
    def run(program: str) -> subprocess.CompletedProcess[str]:
        return _run(built, "build/" + program.removesuffix(".ts") + ".js")

    return run


@pytest.mark.parametrize("program", sorted(readme_programs()))
def test_the_readme_program_runs_against_the_reference_server(program: str, readme_run: ProgramRun) -> None:
    done = readme_run(program)
    assert done.returncode == 0, f"{program} failed:\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert done.stdout.strip(), f"{program} printed nothing"


def test_the_repository_readme_program_pages_every_entitlement(readme_run: ProgramRun) -> None:
    done = readme_run("readme/repository.ts")
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()[:2]
    assert first.startswith("2500 entitlements; restart action ") and second == "200"


def test_the_example_runs(built: Built, servers: Servers) -> None:
    done = _run(built, "build/examples/entitlements-report.js", servers.server_url, "app-github")
    assert done.returncode == 0, done.stderr
    counts = dict(line.split("\t") for line in done.stdout.splitlines())
    assert sum(int(value) for value in counts.values()) == 2500 and set(counts) == {
        "admin",
        "maintainer",
        "write",
        "triage",
        "read",
    }


def test_python_and_typescript_sign_the_contracts_test_vector_alike(built: Built) -> None:
    bundle = json.loads((REPO / "generated" / "openapi.json").read_text(encoding="utf-8"))
    vector = bundle["paths"]["/api/v1/webhooks/incoming/{listener_id}"]["post"]["x-hmac-test-vector"]
    python = hmac_signature(vector["secret"], vector["timestamp"], vector["eventId"], vector["body"].encode())
    script = (
        "import { hmacSignature } from '@accessgov/client';"
        "const [secret, timestamp, eventId, body] = process.argv.slice(1);"
        "console.log(hmacSignature(secret, timestamp, eventId, Buffer.from(body, 'utf8')));"
    )
    arguments = [vector[key] for key in ("secret", "timestamp", "eventId", "body")]
    done = _run(built, "--input-type=module", "-e", script, *arguments)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == python == vector["signature"]


def test_the_package_readme_is_the_one_packed(built: Built) -> None:
    with tarfile.open(built.tarball) as archive:
        packed = archive.extractfile("package/README.md").read().decode()  # type: ignore[union-attr]
    assert packed == (SDK / "README.md").read_text(encoding="utf-8")
