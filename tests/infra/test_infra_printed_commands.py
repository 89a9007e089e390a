"""Every command the stack prints (each `*Command` output) works exactly as printed: run by bash, from the
activated venv, against moto (a real server, reached through AWS_ENDPOINT_URL), with no region anywhere but
what the command itself sets. No AWS setting missing ever ends in a traceback: it is one line saying what
to set. The preflight `make deploy` runs finds the region the same way.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import boto3
import pytest

from infra_helpers import of_type, resolve

ROOT = Path(__file__).resolve().parents[2]
REGION = "eu-west-1"  # the deployment's region, as the template's AWS::Region resolves
STALE_REGION = "us-west-2"  # a user's leftover AWS_DEFAULT_REGION: the printed AWS_REGION must win over it
ACCOUNT = "123456789012"
COMMAND_WORDS = {"focal", "aws", "npx", "make", "curl", "python", "python3"}
ENV_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")


@pytest.fixture(scope="module")
def moto_server():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "install moto[server]": flask and flask-cors are what it needs here
        from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    _, port = server.get_host_and_port()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture(scope="module")
def deployed(template_json, moto_server):
    """The template's tables created in moto under the names CloudFormation would give them, and the
    outputs resolved as `cdk deploy` prints them: {output name: value}."""
    resources = template_json["Resources"]
    refs: dict[str, str] = {"AWS::Region": REGION, "AWS::AccountId": ACCOUNT, "AWS::Partition": "aws",
                            "AWS::URLSuffix": "amazonaws.com", "AWS::StackName": "Focal-acme"}
    ddb = boto3.client("dynamodb", region_name=REGION, endpoint_url=moto_server, aws_access_key_id="testing",
                       aws_secret_access_key="testing")
    for lid, table in of_type(resources, "AWS::DynamoDB::Table").items():
        refs[lid] = f"Focal-acme-{lid}-1A2B3C"
        props = table["Properties"]
        ddb.create_table(TableName=refs[lid], KeySchema=props["KeySchema"],
                         AttributeDefinitions=props["AttributeDefinitions"], BillingMode="PAY_PER_REQUEST")
    outputs = {}
    for name, output in template_json["Outputs"].items():
        try:
            outputs[name] = resolve(output["Value"], refs)
        except (KeyError, AssertionError):
            outputs[name] = None  # an endpoint or ARN of a resource moto does not hold here: not a command
    return outputs, ddb, refs


def _env(moto_url: str, **extra: str) -> dict[str, str]:
    """A user's shell: the venv active, credentials for moto, no region and no AWS config files anywhere."""
    venv_bin = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k not in ("CDK_OUTDIR", "CDK_CONTEXT_JSON")}
    env.update({"PATH": f"{venv_bin}:{env.get('PATH', '')}", "PYTHONPATH": str(ROOT / "functions"),
                "AWS_ENDPOINT_URL": moto_url, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_CONFIG_FILE": "/nonexistent/aws-config", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
                "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    env.update(extra)
    return env


def _run(command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    assert (Path(sys.executable).parent / "focal").exists(), "the venv's `focal` command (make install) is missing"
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


def _is_command(value: object) -> bool:
    if not isinstance(value, str):
        return False
    words = [w for w in shlex.split(value) if not ENV_ASSIGNMENT.match(w)]
    return bool(words) and words[0] in COMMAND_WORDS


def test_every_output_that_is_a_command_is_named_as_one(deployed):
    outputs, _, _ = deployed
    commands = {name for name, value in outputs.items() if _is_command(value)}
    assert commands, "the stack prints no command: nothing to check"
    assert commands == {name for name in outputs if name.endswith("Command")}


def test_each_printed_command_works_as_printed_with_only_its_own_region(deployed, moto_server):
    outputs, ddb, refs = deployed
    keys_table = next(name for lid, name in refs.items() if lid.startswith("ApiKeysTable"))
    for name, command in outputs.items():
        if not name.endswith("Command"):
            continue
        # A stale AWS_DEFAULT_REGION elsewhere: the command's own AWS_REGION must decide.
        proc = _run(command, _env(moto_server, AWS_DEFAULT_REGION=STALE_REGION))
        assert proc.returncode == 0, (name, command, proc.stderr)
        assert "Traceback" not in proc.stderr, (name, proc.stderr)
        if name == "CreateAdminKeyCommand":
            assert re.match(r"^key \S{20,}$", proc.stdout.splitlines()[0]), proc.stdout
            (item,) = ddb.scan(TableName=keys_table)["Items"]  # written in the deployment's region
            assert item["tenant_id"]["S"] == "acme" and item["scopes"]["SS"] == ["admin"]
            assert item["label"]["S"] == "first-admin"


@pytest.mark.parametrize("missing,message", [
    ("region", "no AWS region: set AWS_REGION"),
    ("credentials", "no AWS credentials: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
])
def test_a_missing_region_or_credentials_is_one_clear_line(deployed, moto_server, missing, message):
    outputs, _, _ = deployed
    for name, command in outputs.items():
        if not name.endswith("Command"):
            continue
        env = _env(moto_server)
        if missing == "region":
            command = " ".join(w for w in shlex.split(command) if not w.startswith("AWS_REGION="))
        else:
            del env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"]
            env["AWS_EC2_METADATA_DISABLED"] = "true"  # no instance role to look for on a test machine
        proc = _run(command, env)
        assert proc.returncode == 2, (name, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert message in proc.stderr, proc.stderr


def test_the_preflight_finds_the_region_as_the_commands_do(moto_server, monkeypatch):
    """`make deploy`'s preflight: AWS_REGION alone is a region (and wins over a stale AWS_DEFAULT_REGION);
    with none anywhere it stops with one line."""
    from preflight import session

    for key, value in _env(moto_server, AWS_REGION=REGION, AWS_DEFAULT_REGION=STALE_REGION).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    assert session().region_name == REGION
    proc = subprocess.run([sys.executable, str(ROOT / "infra" / "preflight.py"), "--tenant", "acme"], capture_output=True,
                          text=True, env=_env(moto_server), cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines() == [
        "preflight: no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or a region in your AWS profile)"]
