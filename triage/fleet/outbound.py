"""Outbound HTTP for webhooks, under a policy a team admin cannot widen.

A webhook URL is typed in by a team admin; the request is sent by the server, from inside the
network. So, per attempt:

- the host name is resolved once, and every address it resolves to must be public (not
  private, loopback, link-local such as the cloud metadata address 169.254.169.254, shared,
  multicast or reserved) unless the operator listed its network in
  TRIAGE_WEBHOOK_ALLOW_NETWORKS; the connection then goes to that address (pinned), so a
  second lookup cannot answer something else (DNS rebinding);
- redirects are never followed (a 3xx is the receiver's answer, a failure);
- connect and read timeouts, and a total deadline after which the socket is shut down however
  slowly the receiver trickles bytes (a slow-loris receiver).
"""
from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refused(Exception):
    """The policy forbids this target: no request was made (and none will be)."""


class SendError(Exception):
    """The request was tried and did not complete (refused, reset, timed out)."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str


def parse_url(url: str) -> Target:
    """The parts of an http(s) URL; Refused names what is wrong."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as e:
        raise Refused(f"not a valid URL: {e}") from None
    if parts.scheme not in ("http", "https"):
        raise Refused("only http and https URLs are allowed")
    if not parts.hostname:
        raise Refused("the URL names no host")
    if parts.username or parts.password:
        raise Refused("credentials in the URL are not allowed; use the secret")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80), path)


def address_allowed(address: IPAddress, allow: list[str]) -> bool:
    """A public address, or one inside a network the operator allowed."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    for entry in allow:
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return address.is_global and not address.is_multicast


def literal_address(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def check_static(url: str, allow: list[str]) -> Target:
    """What can be told without a DNS lookup (when a webhook is added): the URL's form, and an
    address literal (or localhost) the policy forbids."""
    target = parse_url(url)
    address = literal_address(target.host)
    if target.host.lower().rstrip(".") in ("localhost",
                                           "localhost.localdomain") or target.host.lower().endswith(".localhost"):
        address = ipaddress.ip_address("127.0.0.1")
    if address is not None and not address_allowed(address, allow):
        raise Refused(f"{target.host} is a private, loopback or link-local address; the operator "
                      f"has not allowed it (TRIAGE_WEBHOOK_ALLOW_NETWORKS)")
    return target


def resolve(target: Target, allow: list[str]) -> str:
    """The one address the request goes to; Refused if any address the name has is forbidden."""
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise SendError(f"cannot resolve {target.host}: {e}") from None
    addresses = [str(info[4][0]) for info in infos]  # AF_INET/AF_INET6: the address text
    if not addresses:
        raise SendError(f"cannot resolve {target.host}")
    for a in addresses:
        if not address_allowed(ipaddress.ip_address(a.split("%")[0]), allow):
            raise Refused(f"{target.host} resolves to {a}, a private, loopback or link-local address; "
                          f"the operator has not allowed it (TRIAGE_WEBHOOK_ALLOW_NETWORKS)")
    return addresses[0]


def post(url: str, body: bytes, headers: dict[str, str], *, allow: list[str], connect_timeout: float,
         read_timeout: float, deadline: float) -> int:
    """POST `body` once under the policy; the status code of the answer (3xx included: never
    followed). Raises Refused (nothing sent) or SendError."""
    target = check_static(url, allow)
    address = resolve(target, allow)
    conn: http.client.HTTPConnection
    if target.scheme == "https":
        conn = http.client.HTTPSConnection(target.host, target.port, timeout=read_timeout,
                                           context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(target.host, target.port, timeout=read_timeout)

    def pinned(_addr: object, _timeout: object = None, source: object = None) -> socket.socket:
        # Connect to the address checked above; TLS still verifies the certificate for the name.
        sock = socket.create_connection((address, target.port), timeout=connect_timeout)
        sock.settimeout(read_timeout)
        return sock

    conn._create_connection = pinned  # type: ignore[attr-defined]
    expired = threading.Event()

    def cut() -> None:
        expired.set()
        sock = conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(deadline, cut)
    timer.daemon = True
    timer.start()
    try:
        conn.request("POST", target.path, body=body, headers=headers)
        response = conn.getresponse()
        response.read(64 * 1024)  # a little of the answer; never a receiver's endless body
        if expired.is_set():
            raise SendError(f"no complete answer within the {deadline:g} s deadline")
        return response.status
    except (OSError, http.client.HTTPException) as e:
        if expired.is_set():
            raise SendError(f"no complete answer within the {deadline:g} s deadline") from None
        if isinstance(e, (socket.timeout, TimeoutError)):
            raise SendError(f"timed out ({type(e).__name__})") from None
        raise SendError(f"{type(e).__name__}: {e}") from None
    finally:
        timer.cancel()
        conn.close()
