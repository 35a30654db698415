"""A real LDAP directory for the sign-in tests: Debian's OpenLDAP slapd (`make ldap`,
scripts/ensure-ldap), configured in a folder of its own (slapd.conf, an mdb database loaded with
slapadd) and listening on a free loopback port; nothing of the system's slapd is used."""
from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.collectors.api_server import free_port

SUFFIX = "dc=example,dc=com"
ADMIN_DN = f"cn=admin,{SUFFIX}"
ADMIN_PASSWORD = "directory-admin"  # noqa: S105 - a throwaway directory on loopback
PEOPLE = f"ou=people,{SUFFIX}"
GROUPS = f"ou=groups,{SUFFIX}"
PROGRAMS = ("slapd", "slapadd")


def person_dn(uid: str) -> str:
    return f"uid={uid},{PEOPLE}"


def group_dn(name: str) -> str:
    return f"cn={name},{GROUPS}"


def _program(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise RuntimeError(f"{name} is missing: run `make ldap` (scripts/ensure-ldap)")
    return found


class Directory:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.uri = f"ldap://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def _config(self) -> Path:
        data = self.root / "data"
        data.mkdir()
        conf = self.root / "slapd.conf"
        conf.write_text(f"""\
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
pidfile {self.root}/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
database mdb
maxsize 33554432
suffix "{SUFFIX}"
rootdn "{ADMIN_DN}"
rootpw {ADMIN_PASSWORD}
directory {data}
access to attrs=userPassword by anonymous auth by * none
access to * by * read
""")
        return conf

    def _seed(self, people: dict[str, tuple[str, list[str]]]) -> str:
        groups: dict[str, list[str]] = {}
        entries = [f"dn: {SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example",
                   f"dn: {PEOPLE}\nobjectClass: organizationalUnit\nou: people",
                   f"dn: {GROUPS}\nobjectClass: organizationalUnit\nou: groups"]
        for uid, (password, member_of) in people.items():
            entries.append(f"dn: {person_dn(uid)}\nobjectClass: inetOrgPerson\nuid: {uid}\ncn: {uid.title()}\n"
                           f"sn: {uid.title()}\ngivenName: {uid.title()}\nmail: {uid}@example.com\n"
                           f"userPassword: {password}")
            for group in member_of:
                groups.setdefault(group, []).append(person_dn(uid))
        for group, members in groups.items():
            # groupOfNames must have a member: the admin stays one when the last person leaves.
            entries.append(f"dn: {group_dn(group)}\nobjectClass: groupOfNames\ncn: {group}\n"
                           + "\n".join(f"member: {m}" for m in [ADMIN_DN, *members]))
        return "\n\n".join(entries) + "\n"

    def start(self, people: dict[str, tuple[str, list[str]]]) -> None:
        """people: uid -> (password, groups). Each group is made with its members."""
        conf = self._config()
        ldif = self.root / "seed.ldif"
        ldif.write_text(self._seed(people))
        subprocess.run([_program("slapadd"), "-f", str(conf), "-l", str(ldif)], check=True, capture_output=True,
                       timeout=60)
        log = (self.root / "slapd.log").open("wb")
        # -d: stay in the foreground (so the test owns the process), logging nothing but errors.
        self.process = subprocess.Popen([_program("slapd"), "-f", str(conf), "-h", f"{self.uri}/", "-d", "0"],
                                        stdout=log, stderr=subprocess.STDOUT)
        import ldap

        deadline = time.monotonic() + 30
        while True:
            try:
                self.connection().unbind_s()
                return
            except ldap.SERVER_DOWN:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"slapd did not start:\n{(self.root / 'slapd.log').read_text()}") from None
                time.sleep(0.1)

    def connection(self) -> Any:
        import ldap

        connection = ldap.initialize(self.uri)
        connection.set_option(ldap.OPT_NETWORK_TIMEOUT, 5)
        connection.simple_bind_s(ADMIN_DN, ADMIN_PASSWORD)
        return connection

    def _members(self, uid: str, group: str, change: int) -> None:
        connection = self.connection()
        try:
            connection.modify_s(group_dn(group), [(change, "member", [person_dn(uid).encode()])])
        finally:
            connection.unbind_s()

    def leave_group(self, uid: str, group: str) -> None:
        import ldap

        self._members(uid, group, ldap.MOD_DELETE)

    def join_group(self, uid: str, group: str) -> None:
        import ldap

        self._members(uid, group, ldap.MOD_ADD)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
