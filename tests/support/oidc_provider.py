"""A minimal OpenID Connect provider on 127.0.0.1, for sign-in tests.

It serves the authorization-code flow the way a real provider does, for one registered client
and one person at a time, who consents at once:

- `/.well-known/openid-configuration`: the metadata (issuer, endpoints, RS256, PKCE S256);
- `/authorize`: checks the client, the redirect URI and the parameters, then redirects back
  to the client with a one-time code and the client's `state`;
- `/token`: checks the client's secret (HTTP Basic or form), the code, the redirect URI and
  the PKCE verifier, and returns an access token and an `id_token` signed with RS256 (a fresh
  2048-bit key, signed here with `cryptography`, not with the library that verifies it) that
  carries the `nonce` given to `/authorize`;
- `/jwks`: the public key; `/userinfo`: the person's claims for a bearer access token.

    with OidcProvider(client_id="app", client_secret="s3cret") as provider:
        provider.person = Person("ana@example.org", "Ana")
        ...  # server_metadata_url = provider.metadata_url
        provider.tokens_issued  # how many id_tokens the provider has signed

A refused request gets a 400 with an OAuth error body; `refusals` lists them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

KEY_ID = "test-key-1"


@dataclass(frozen=True)
class Person:
    email: str
    name: str

    @property
    def subject(self) -> str:
        return hashlib.sha256(self.email.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class _Grant:
    person: Person
    redirect_uri: str
    nonce: str | None
    challenge: str | None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _int_b64(number: int) -> str:
    return _b64(number.to_bytes((number.bit_length() + 7) // 8, "big"))


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(
        self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _refuse(self, error: str, why: str) -> None:
        self.server.provider.refusals.append(f"{self.path.split('?')[0]}: {error}: {why}")
        self._send(400, {"error": error, "error_description": why})

    def do_GET(self) -> None:
        provider = self.server.provider
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/.well-known/openid-configuration":
            self._send(200, provider.metadata())
        elif parts.path == "/jwks":
            self._send(200, {"keys": [provider.public_jwk()]})
        elif parts.path == "/authorize":
            self._authorize(query)
        elif parts.path == "/userinfo":
            self._userinfo()
        else:
            self._send(404, {"error": "not_found"})

    def do_POST(self) -> None:
        if urlsplit(self.path).path != "/token":
            self._send(404, {"error": "not_found"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        form = {k: v[-1] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
        self._token(form)

    def _authorize(self, query: dict[str, str]) -> None:
        provider = self.server.provider
        if query.get("client_id") != provider.client_id:
            return self._refuse("unauthorized_client", "unknown client_id")
        if query.get("response_type") != "code":
            return self._refuse("unsupported_response_type", "only code")
        if "openid" not in query.get("scope", "").split():
            return self._refuse("invalid_scope", "openid is required")
        redirect_uri = query.get("redirect_uri", "")
        if redirect_uri != provider.redirect_uri:
            return self._refuse("invalid_request", f"redirect_uri {redirect_uri!r} unregistered")
        if query.get("code_challenge") and query.get("code_challenge_method") != "S256":
            return self._refuse("invalid_request", "only S256 PKCE")
        code = secrets.token_urlsafe(24)
        grant = _Grant(
            provider.person, redirect_uri, query.get("nonce"), query.get("code_challenge")
        )
        with provider.lock:
            provider.codes[code] = grant
        back = {"code": code, **({"state": query["state"]} if "state" in query else {})}
        self.send_response(302)
        self.send_header("Location", f"{redirect_uri}?{urlencode(back)}")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _client(self, form: dict[str, str]) -> tuple[str, str]:
        header = self.headers.get("Authorization", "")
        if header.startswith("Basic "):
            found, _, secret = base64.b64decode(header[6:]).decode().partition(":")
            return found, secret
        return form.get("client_id", ""), form.get("client_secret", "")

    def _token(self, form: dict[str, str]) -> None:
        provider = self.server.provider
        if self._client(form) != (provider.client_id, provider.client_secret):
            return self._refuse("invalid_client", "wrong client id or secret")
        if form.get("grant_type") != "authorization_code":
            return self._refuse("unsupported_grant_type", "only authorization_code")
        with provider.lock:
            grant = provider.codes.pop(form.get("code", ""), None)  # one use only
        if grant is None:
            return self._refuse("invalid_grant", "unknown or used code")
        if form.get("redirect_uri") != grant.redirect_uri:
            return self._refuse("invalid_grant", "redirect_uri differs from /authorize's")
        if grant.challenge is not None:
            verifier = form.get("code_verifier", "").encode()
            if _b64(hashlib.sha256(verifier).digest()) != grant.challenge:
                return self._refuse("invalid_grant", "PKCE verifier does not match")
        access = secrets.token_urlsafe(24)
        with provider.lock:
            provider.access[access] = grant.person
            provider.tokens_issued += 1
        body = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": 600,
            "scope": "openid email profile",
            "id_token": provider.id_token(grant.person, grant.nonce),
        }
        self._send(200, body)

    def _userinfo(self) -> None:
        provider = self.server.provider
        header = self.headers.get("Authorization", "")
        person = provider.access.get(header[7:]) if header.startswith("Bearer ") else None
        if person is None:
            self._send(401, {"error": "invalid_token"}, {"WWW-Authenticate": "Bearer"})
            return
        self._send(200, provider.claims(person))


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, provider: OidcProvider) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.provider = provider


class OidcProvider:
    """The provider, served from a thread of this process; a context manager."""

    def __init__(self, *, client_id: str, client_secret: str, redirect_uri: str = "") -> None:
        self.client_id, self.client_secret = client_id, client_secret
        self.redirect_uri = redirect_uri  # the one registered URI; set before a sign-in
        self.person = Person("someone@example.org", "Someone")
        self.codes: dict[str, _Grant] = {}
        self.access: dict[str, Person] = {}
        self.tokens_issued = 0
        self.refusals: list[str] = []
        self.lock = threading.Lock()
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def metadata_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    def metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "userinfo_endpoint": f"{self.issuer}/userinfo",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": ["sub", "email", "email_verified", "name"],
        }

    def public_jwk(self) -> dict[str, str]:
        numbers = self._key.public_key().public_numbers()
        return {
            "kty": "RSA",
            "use": "sig",
            "alg": "RS256",
            "kid": KEY_ID,
            "n": _int_b64(numbers.n),
            "e": _int_b64(numbers.e),
        }

    def claims(self, person: Person) -> dict[str, Any]:
        return {
            "sub": person.subject,
            "email": person.email,
            "email_verified": True,
            "name": person.name,
        }

    def id_token(self, person: Person, nonce: str | None) -> str:
        now = int(time.time())
        payload = {
            "iss": self.issuer,
            "aud": self.client_id,
            "iat": now,
            "exp": now + 600,
            **self.claims(person),
            **({"nonce": nonce} if nonce is not None else {}),
        }
        header = {"alg": "RS256", "typ": "JWT", "kid": KEY_ID}
        signing_input = ".".join(
            _b64(json.dumps(part, separators=(",", ":")).encode()) for part in (header, payload)
        ).encode("ascii")
        signature = self._key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        return f"{signing_input.decode('ascii')}.{_b64(signature)}"

    def __enter__(self) -> OidcProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
