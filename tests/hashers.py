from django.contrib.auth.hashers import Argon2PasswordHasher


class QuickArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2 still, with a small memory and time cost so tests that sign in stay fast."""

    time_cost = 1
    memory_cost = 64
    parallelism = 1
