"""Commands the tests run against the provider's own database (in a process with its settings):

    python -m tests.accounts.idp.admin migrate
    python -m tests.accounts.idp.admin person NAME PASSWORD EMAIL [GROUP ...]   (groups replaced)
    python -m tests.accounts.idp.admin client ID SECRET REDIRECT_URI POST_LOGOUT_URI
"""
from __future__ import annotations

import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.accounts.idp.settings")


def main(argv: list[str]) -> None:
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from oauth2_provider.models import Application

    command, *args = argv
    if command == "migrate":
        call_command("migrate", verbosity=0)
    elif command == "person":
        name, password, email, *groups = args
        user, _ = User.objects.get_or_create(username=name)
        user.email = email
        user.set_password(password)
        user.save()
        user.groups.set([Group.objects.get_or_create(name=group)[0] for group in groups])
    elif command == "client":
        client_id, secret, redirect_uri, post_logout_uri = args
        Application.objects.filter(client_id=client_id).delete()
        Application.objects.create(
            name="nccl-triage", client_id=client_id, client_secret=secret,
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris=redirect_uri, post_logout_redirect_uris=post_logout_uri,
            algorithm=Application.RS256_ALGORITHM, skip_authorization=True,
        )
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
