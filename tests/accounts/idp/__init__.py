"""A real OpenID Connect provider for the sign-in tests: django-oauth-toolkit (the jazzband
project, OIDC with discovery, JWKS, userinfo, PKCE and RP-initiated logout) in a Django project
of its own, run by gunicorn on loopback in a process of its own (tests/accounts/conftest.py).
Its people sign in with a password at its own login page; their Django groups at the provider
are the `groups` claim."""
