"""DNS rebinding against `http` tools: the private-address check must hold for the connection itself.

A hostile name answers a public address when it is checked and 127.0.0.1 when it is resolved again
to connect. A real server listens on 127.0.0.1 and must never receive a request; every socket
connect is recorded, and one to a public address is refused on the spot (nothing leaves the
machine). HTTPS keeps the host name for SNI and certificate verification while connecting to the
checked address: a real TLS server on 127.0.0.1 with a certificate for the name proves both.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from recording_http_server import RecordingServer

from focal.adapters.http_tools import HttpToolRunner
from focal.adapters.secrets import EnvSecretSource
from focal.errors import ToolError
from focal.models.agent import AgentConfig, Tool

AGENT = AgentConfig(id="a", name="a")
PUBLIC = "93.184.216.34"  # a global address: the check passes it; the recording socket never lets it out
HOSTILE = "rebind.attacker.test"


@pytest.fixture
def local_server() -> Iterator[RecordingServer]:
    server = RecordingServer()
    yield server
    server.close()


@pytest.fixture
def connects(monkeypatch) -> list[tuple[Any, ...]]:
    """Every address a socket connects to; a connect outside loopback is refused without any traffic."""
    seen: list[tuple[Any, ...]] = []

    class RecordingSocket(socket.socket):
        def connect(self, address: Any) -> None:
            seen.append(tuple(address))
            if not ipaddress.ip_address(address[0]).is_loopback:
                raise ConnectionRefusedError("the test lets nothing leave the machine")
            super().connect(address)

    monkeypatch.setattr(socket, "socket", RecordingSocket)
    return seen


def rebinding_resolver(monkeypatch, names: dict[str, list[str]]) -> list[str]:
    """`names[host]`: the addresses answered by successive lookups (the last one repeats)."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in names:
            return real(host, port, *args, **kwargs)
        asked.append(host)
        answers = names[host]
        address = answers.pop(0) if len(answers) > 1 else answers[0]
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def tool(url: str, **overrides: Any) -> Tool:
    return Tool.model_validate({"id": "lookup", "kind": "http", "url": url, "input": {"order_id": {"type": "id"}},
                                "output": {"status": "order_status"}, "timeout_s": 5, **overrides})


def test_a_name_that_rebinds_to_loopback_never_reaches_it(monkeypatch, local_server, connects):
    asked = rebinding_resolver(monkeypatch, {HOSTILE: [PUBLIC, "127.0.0.1"]})
    runner = HttpToolRunner(EnvSecretSource({}), allow_private_hosts=False, sleep=lambda s: None)
    with pytest.raises(ToolError, match="connection (refused|failed)"):
        runner.run(AGENT, tool(f"http://{HOSTILE}:{local_server.port}/orders/{{order_id}}"), {"order_id": "A1"})
    assert local_server.paths == []
    assert connects == [(PUBLIC, local_server.port)]  # the checked address, and only it
    assert asked == [HOSTILE]  # resolved once: nothing asked the name again to connect


def test_a_retry_resolves_again_and_checks_the_new_answer(monkeypatch, local_server, connects):
    rebinding_resolver(monkeypatch, {HOSTILE: [PUBLIC, "127.0.0.1"]})
    runner = HttpToolRunner(EnvSecretSource({}), allow_private_hosts=False, sleep=lambda s: None)
    with pytest.raises(ToolError, match="non-public address"):
        runner.run(AGENT, tool(f"http://{HOSTILE}:{local_server.port}/orders/{{order_id}}", retries=3), {"order_id": "A1"})
    assert local_server.paths == []
    assert connects == [(PUBLIC, local_server.port)]


def test_one_private_address_among_the_answers_refuses_the_host(monkeypatch, local_server, connects):
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != HOSTILE:
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (a, int(port))) for a in (PUBLIC, "127.0.0.1")]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    runner = HttpToolRunner(EnvSecretSource({}), allow_private_hosts=False)
    with pytest.raises(ToolError, match="non-public address"):
        runner.run(AGENT, tool(f"http://{HOSTILE}:{local_server.port}/orders/{{order_id}}"), {"order_id": "A1"})
    assert connects == [] and local_server.paths == []


@pytest.mark.parametrize("address", ["::ffff:127.0.0.1", "::1", "169.254.169.254", "10.0.0.5", "fe80::1%1"])
def test_addresses_that_are_not_public_are_refused_in_any_spelling(address):
    from focal.adapters.pinned_http import is_public

    assert not is_public(address)
    assert is_public(PUBLIC)


# --- HTTPS: connect to the checked address, verify the certificate for the name ---------------------
def certificate(tmp_path: Path, name: str) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=365 * 30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


@pytest.fixture
def tls_server(tmp_path) -> Iterator[tuple[RecordingServer, Path]]:
    cert_file, key_file = certificate(tmp_path, "orders.internal.test")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server = RecordingServer(tls=context)
    yield server, cert_file
    server.close()


def test_https_connects_to_the_checked_address_and_verifies_the_certificate_for_the_name(monkeypatch, tls_server, connects):
    server, cert_file = tls_server
    asked = rebinding_resolver(monkeypatch, {"orders.internal.test": ["127.0.0.1"]})
    runner = HttpToolRunner(EnvSecretSource({}), tls=ssl.create_default_context(cafile=str(cert_file)))
    result = runner.run(AGENT, tool(f"https://orders.internal.test:{server.port}/orders/{{order_id}}"), {"order_id": "A1"})
    assert result == {"status": "internal"} and server.paths == ["/orders/A1"]
    assert connects == [("127.0.0.1", server.port)] and asked == ["orders.internal.test"]


def test_https_refuses_a_certificate_for_another_name(monkeypatch, tls_server, connects):
    server, cert_file = tls_server
    rebinding_resolver(monkeypatch, {"billing.internal.test": ["127.0.0.1"]})
    runner = HttpToolRunner(EnvSecretSource({}), tls=ssl.create_default_context(cafile=str(cert_file)))
    with pytest.raises(ToolError, match="certificate is not valid for its host"):
        runner.run(AGENT, tool(f"https://billing.internal.test:{server.port}/orders/{{order_id}}"), {"order_id": "A1"})
    assert server.paths == []
