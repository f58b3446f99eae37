import functools
from hmac import compare_digest
from typing import Any

from django.db import connections, router
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox import auth
from knox.crypto import hash_token
from knox.models import AuthToken
from knox.settings import CONSTANTS, knox_settings
from rest_framework import exceptions

from accounts.models import User
from config import rows

TOKEN_COLUMNS = rows.Columns(AuthToken)
USER_COLUMNS = rows.Columns(User)


@functools.cache
def _tokens_sql(alias: str) -> str:
    connection = connections[alias]
    quote = connection.ops.quote_name
    token, user = quote(TOKEN_COLUMNS.table), quote(USER_COLUMNS.table)
    return (
        f"SELECT {TOKEN_COLUMNS.select(TOKEN_COLUMNS.table, connection)},"
        f" {USER_COLUMNS.select(USER_COLUMNS.table, connection)} FROM {token}"
        f" JOIN {user} ON {user}.{quote('id')} = {token}.{quote('user_id')}"
        f" WHERE {token}.{quote('token_key')} = %s"
    )


def tokens_by_key(token_key: str) -> list[AuthToken]:
    """The tokens whose key (the first characters of the token) is `token_key`, each with its
    user, as knox reads them. Every API request makes this read, so its SQL is written once
    (`config.rows`) rather than compiled each time, and kept prepared on the connection
    (`rows.cursor`); it still asks the database each time, so a token deleted (a sign-out, a
    password change) is refused from the next request on."""
    connection = connections[router.db_for_read(AuthToken)]
    with rows.cursor(connection) as cursor:
        cursor.execute(_tokens_sql(connection.alias), [token_key])
        found = cursor.fetchall()
    tokens = []
    for row in found:
        auth_token = TOKEN_COLUMNS.instance(row, connection)
        rows.relate(auth_token, "user", USER_COLUMNS.instance(row, connection, len(TOKEN_COLUMNS)))
        tokens.append(auth_token)
    return tokens


class TokenAuthentication(auth.TokenAuthentication):
    """Knox's per-device tokens, without its sweep of all the user's other tokens on every
    request (one query per request on the hot path); expired tokens are refused here and the
    rest are pruned in the background. Hashing the token is left per request: it takes about
    a microsecond and a half, where the lookup it follows took a millisecond."""

    def authenticate_credentials(self, token: bytes) -> Any:
        # Keys are hex: anything else (a NUL, bytes that are not UTF-8) is simply not a token,
        # and must not reach the database, which refuses NUL in text.
        if not token.isascii() or not token.decode().isprintable():
            raise exceptions.AuthenticationFailed("Invalid token.")
        key = token.decode()
        for auth_token in tokens_by_key(key[: CONSTANTS.TOKEN_KEY_LENGTH]):
            if self._cleanup_token(auth_token):
                continue
            if compare_digest(hash_token(key), auth_token.digest):
                if knox_settings.AUTO_REFRESH and auth_token.expiry:
                    self.renew_token(auth_token)
                return self.validate_user(auth_token)
        raise exceptions.AuthenticationFailed("Invalid token.")

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
