from typing import Any

from config.throttles import SimpleRateThrottle


class LoginThrottle(SimpleRateThrottle):
    """Sign-in attempts per client address, whatever usernames it tries. Guessing one
    account's password from many addresses is slowed by the lockout (`accounts.lockout`)."""

    scope = "login"

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class RegisterThrottle(SimpleRateThrottle):
    """Sign-ups per client address."""

    scope = "register"

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
