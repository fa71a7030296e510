"""The test OpenID Connect provider (tests/support/oidc_provider.py) behaves as a real one: its
tokens verify with joserfc (what Authlib, Streamlit's sign-in library, verifies with), and it
refuses a wrong secret, a reused code, a PKCE verifier that does not match and an unregistered
redirect."""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet

from tests.support.oidc_provider import OidcProvider, Person

CLIENT, SECRET = "judgeboard", "client-secret-7f3a"
CALLBACK = "http://127.0.0.1:9/oauth2callback"
VERIFIER = "v" * 50


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


@pytest.fixture
def provider() -> Iterator[OidcProvider]:
    with OidcProvider(client_id=CLIENT, client_secret=SECRET, redirect_uri=CALLBACK) as found:
        found.person = Person("ana@example.org", "Ana")
        yield found


def _get(url: str, headers: dict[str, str] | None = None) -> dict:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {})) as answer:
        return json.loads(answer.read())


def _code(provider: OidcProvider, **extra: str) -> str:
    challenge = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest())
    query = {
        "client_id": CLIENT,
        "response_type": "code",
        "scope": "openid email",
        "redirect_uri": CALLBACK,
        "state": "st-1",
        "nonce": "n-1",
        "code_challenge": challenge.rstrip(b"=").decode(),
        "code_challenge_method": "S256",
        **extra,
    }
    opener = urllib.request.build_opener(_NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as redirect:
        opener.open(f"{provider.issuer}/authorize?{urlencode(query)}")
    assert redirect.value.code == 302
    back = urlsplit(redirect.value.headers["Location"])
    assert f"{back.scheme}://{back.netloc}{back.path}" == CALLBACK
    found = parse_qs(back.query)
    assert found["state"] == ["st-1"]
    return found["code"][0]


def _token(provider: OidcProvider, code: str, *, secret: str = SECRET, verifier: str = VERIFIER):
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CALLBACK,
        "code_verifier": verifier,
        "client_id": CLIENT,
        "client_secret": secret,
    }
    request = urllib.request.Request(f"{provider.issuer}/token", data=urlencode(form).encode())
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read())


def test_its_id_token_verifies_with_its_published_key(provider: OidcProvider) -> None:
    metadata = _get(provider.metadata_url)
    assert metadata["issuer"] == provider.issuer
    token = _token(provider, _code(provider))
    keys = KeySet.import_key_set(_get(metadata["jwks_uri"]))
    claims = jwt.decode(token["id_token"], keys, algorithms=["RS256"]).claims
    jwt.JWTClaimsRegistry(exp={"essential": True}).validate(claims)
    assert claims["email"] == "ana@example.org" and claims["nonce"] == "n-1"
    assert claims["aud"] == CLIENT and claims["iss"] == provider.issuer
    info = _get(metadata["userinfo_endpoint"], {"Authorization": f"Bearer {token['access_token']}"})
    assert info["email"] == "ana@example.org"
    assert provider.tokens_issued == 1


def test_it_refuses_a_wrong_secret_a_reused_code_and_a_wrong_verifier(
    provider: OidcProvider,
) -> None:
    with pytest.raises(urllib.error.HTTPError) as wrong:
        _token(provider, _code(provider), secret="not-the-secret")
    assert wrong.value.code == 400
    code = _code(provider)
    _token(provider, code)
    with pytest.raises(urllib.error.HTTPError):
        _token(provider, code)
    with pytest.raises(urllib.error.HTTPError):
        _token(provider, _code(provider), verifier="w" * 50)
    assert [r.split(": ")[1] for r in provider.refusals] == [
        "invalid_client",
        "invalid_grant",
        "invalid_grant",
    ]
    assert provider.tokens_issued == 1


def test_it_refuses_an_unregistered_redirect(provider: OidcProvider) -> None:
    query = {"client_id": CLIENT, "response_type": "code", "scope": "openid"}
    query["redirect_uri"] = "http://127.0.0.1:9/elsewhere"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{provider.issuer}/authorize?{urlencode(query)}")
    assert refused.value.code == 400
