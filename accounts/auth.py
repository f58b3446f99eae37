from typing import Any

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox import auth
from knox.models import AuthToken
from rest_framework import exceptions


class TokenAuthentication(auth.TokenAuthentication):
    """Knox's per-device tokens, without its sweep of all the user's other tokens on every
    request (one query per request on the hot path); expired tokens are refused here and the
    rest are pruned in the background."""

    def authenticate_credentials(self, token: bytes) -> Any:
        # Keys are hex: anything else (a NUL, bytes that are not UTF-8) is simply not a token,
        # and must not reach the database, which refuses NUL in text.
        if not token.isascii() or not token.decode().isprintable():
            raise exceptions.AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(token)

    def _cleanup_token(self, auth_token: AuthToken) -> bool:
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            auth_token.delete()
            return True
        return False


class TokenScheme(OpenApiAuthenticationExtension):
    """How the OpenAPI schema describes the token header."""

    target_class = "accounts.auth.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": 'A device token from /api/v1/auth/login/, sent as "Token <key>".',
        }
