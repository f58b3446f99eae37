import hashlib
from typing import Any

from accounts.selectors import username_key
from config.throttles import SimpleRateThrottle


class LoginThrottle(SimpleRateThrottle):
    """Login attempts per username and client address, so guessing one account is slow."""

    scope = "login"

    def get_cache_key(self, request: Any, view: Any) -> str:
        username = ""
        if isinstance(request.data, dict):
            # Every spelling of a name counts against one limit: ALICE and ａｌｉｃｅ are alice.
            username = username_key(str(request.data.get("username", ""))[:150])
        # Hashed, so any text the client sends makes a safe cache key.
        account = hashlib.sha256(username.encode()).hexdigest()[:32]
        return self.cache_format % {
            "scope": self.scope,
            "ident": f"{self.get_ident(request)}:{account}",
        }


class RegisterThrottle(SimpleRateThrottle):
    scope = "register"

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
