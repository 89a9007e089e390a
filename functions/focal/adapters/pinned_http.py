"""One HTTP(S) exchange with the host resolved exactly once: every address the name resolves to is
checked, and the connection is opened to one of those very addresses, never to a second answer.

Letting the HTTP client resolve the name again to connect would make the check worthless: a name
whose DNS answers a public address to the check and 127.0.0.1 to the connect (DNS rebinding) would
reach the function's own neighbours. Here the socket connects to the checked socket address itself,
while the request keeps the host name: the `Host` header names it, and HTTPS sends it as SNI and
verifies the certificate against it (not against the address).

No proxy from the environment is used (a proxy resolves the name itself, after the check), and no
redirect is followed: the status of a 3xx answer is returned like any other.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

SocketAddress = tuple[int, int, int, tuple]  # family, type, protocol, address as socket.connect takes it


class BadURL(Exception):
    """Not an http(s) URL with a host and a valid port."""


class HostRefused(Exception):
    """The host resolves to an address the caller does not allow (loopback, private, link-local, reserved)."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes


def is_public(address: str) -> bool:
    """A routable internet address; an IPv4 address written as IPv6 is judged as the IPv4 one."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone ('fe80::1%eth0') names no other host
    except ValueError:
        return False  # an address that cannot be read is not known to be public
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global


def checked_addresses(host: str, port: int, *, allow_private: bool) -> list[SocketAddress]:
    """Every address `host` resolves to (one resolution), all of them public unless `allow_private`.
    OSError when the name cannot be resolved, HostRefused when one address is not allowed."""
    found: list[SocketAddress] = []
    for family, kind, proto, _, address in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        if not allow_private and not is_public(str(address[0])):
            raise HostRefused(host)
        found.append((family, kind, proto, address))
    if not found:
        raise OSError(f"no internet address for {host!r}")
    return found


def connect(addresses: list[SocketAddress], timeout: float) -> socket.socket:
    """A TCP connection to the first of `addresses` that answers; no name is resolved here."""
    error: OSError = OSError("no address to connect to")
    for family, kind, proto, address in addresses:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(address)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        return sock
    raise error


class PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to `host` whose socket goes to the given addresses, not to a new lookup."""

    def __init__(self, host: str, port: int, addresses: list[SocketAddress], timeout: float):
        super().__init__(host, port, timeout=timeout)
        self.addresses = addresses

    def connect(self) -> None:
        self.sock = connect(self.addresses, self.timeout)  # type: ignore[arg-type]  # always a float here
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class PinnedHTTPSConnection(PinnedHTTPConnection):
    """TLS over the pinned socket: SNI and certificate verification for the host name."""

    default_port = http.client.HTTPS_PORT

    def __init__(self, host: str, port: int, addresses: list[SocketAddress], timeout: float, tls: ssl.SSLContext):
        super().__init__(host, port, addresses, timeout)
        self.tls = tls

    def connect(self) -> None:
        super().connect()
        self.sock = self.tls.wrap_socket(self.sock, server_hostname=self.host)


def exchange(method: str, url: str, headers: dict[str, str], body: bytes | None, *, timeout: float,
             allow_private: bool, tls: ssl.SSLContext, max_bytes: int) -> Answer:
    """Send one request to `url` and read at most `max_bytes + 1` bytes of the answer.
    BadURL, HostRefused, OSError (ssl.SSLError among them), http.client.HTTPException."""
    parts = urlsplit(url)
    try:
        port = parts.port or (http.client.HTTPS_PORT if parts.scheme == "https" else http.client.HTTP_PORT)
    except ValueError:
        raise BadURL(url) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadURL(url)
    addresses = checked_addresses(parts.hostname, port, allow_private=allow_private)
    connection: PinnedHTTPConnection = (
        PinnedHTTPSConnection(parts.hostname, port, addresses, timeout, tls) if parts.scheme == "https"
        else PinnedHTTPConnection(parts.hostname, port, addresses, timeout)
    )
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        return Answer(response.status, response.read(max_bytes + 1))
    finally:
        connection.close()
